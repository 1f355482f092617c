/**
 * With `--workers`, each worker's stdout is a pipe to the primary, which writes the workers' lines into its own
 * log stream: the container's stdout then has one writer. Each worker gathers its lines into writes of up to 1 MiB
 * (server/logging.ts), and a pipe takes a write atomically only up to 4 KiB (PIPE_BUF): three processes writing
 * the one pipe directly could interleave mid-line whenever its reader falls behind.
 */
import type { Readable } from "node:stream";

/**
 * The most of one unfinished line held per worker. Every line Duckbill writes is far shorter (per-request fields
 * are cut to bounds: server/log-fields.ts); a longer one is passed on in pieces rather than held.
 */
export const MAX_PARTIAL_LINE_CHARS = 1024 * 1024;

export interface LineForwarder {
  /** Text as it arrives (decoded UTF-8, in any pieces). */
  push(text: string): void;
  /** The stream ended: passes on what is left of an unfinished line. */
  end(): void;
}

/** Passes on whole lines only (several at once when they arrived together); holds the unfinished rest. */
export function lineForwarder(write: (text: string) => void, maxPartial = MAX_PARTIAL_LINE_CHARS): LineForwarder {
  let partial = "";
  return {
    push(text) {
      const nl = text.lastIndexOf("\n");
      if (nl === -1) {
        partial += text;
        if (partial.length > maxPartial) {
          write(partial);
          partial = "";
        }
        return;
      }
      write(partial === "" ? text.slice(0, nl + 1) : partial + text.slice(0, nl + 1));
      partial = text.slice(nl + 1);
    },
    end() {
      if (partial !== "") write(`${partial}\n`);
      partial = "";
    },
  };
}

/** Forwards `stream`'s lines to `write`; resolves when the stream has ended (or failed) and all was passed on. */
export function forwardLines(stream: Readable, write: (text: string) => void): Promise<void> {
  const f = lineForwarder(write);
  stream.setEncoding("utf8");
  stream.on("data", (text: string) => f.push(text));
  return new Promise((resolve) => {
    const done = (): void => {
      f.end();
      resolve();
    };
    stream.once("end", done);
    stream.once("error", done);
  });
}
