import { pino, symbols, type Logger } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Log lines are gathered up to this many bytes before one write (an admission line is ≈ 340 bytes), instead of
 * one asynchronous write per line through libuv's thread pool: at info level that was 2 extra `write` and 4
 * `futex` calls per request (bench/README.md). FLUSH_INTERVAL_MS bounds how long a line can wait on a quiet
 * server; pino flushes synchronously on exit, and shutdown flushes explicitly.
 */
const BUFFER_BYTES = 4096;
const FLUSH_INTERVAL_MS = 250;

/**
 * The most one write may carry. sonic-boom's default (16 KiB) let the backlog grow at saturation: one event-loop
 * turn answers dozens of requests (more than 16 KiB of lines) but completes one write, so old space grew by
 * ≈ 1 MB/s (bench/README.md, 2026-11-25). A write now takes everything waiting.
 */
const MAX_WRITE_BYTES = 1024 * 1024;

/**
 * Lines waiting for stdout beyond this are dropped (and counted) rather than held: a stalled log consumer must
 * not grow the webhook's memory without bound.
 */
export const MAX_BUFFERED_LOG_BYTES = 16 * 1024 * 1024;

let dropped = 0;

/** Log lines dropped so far because stdout did not keep up (see MAX_BUFFERED_LOG_BYTES). */
export function droppedLogLines(): number {
  return dropped;
}

let lastMs = -1;
let lastTime = "";

/**
 * pino's `stdTimeFunctions.isoTime` (`,"time":"<ISO 8601>"`), formatted once per millisecond: a busy server
 * writes many lines within the same millisecond, and `toISOString` was 1.5 % of the profile at saturation.
 */
function isoTimeCached(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = ',"time":"' + new Date(now).toISOString() + '"';
  }
  return lastTime;
}

/** Where createLogger writes when no destination stream is given (tests use other values). */
export interface LogFdOptions {
  /** The file descriptor (default 1, stdout). */
  readonly fd?: number;
  /** Bytes waiting for the descriptor beyond which lines are dropped (default MAX_BUFFERED_LOG_BYTES). */
  readonly maxBufferedBytes?: number;
}

/** pino JSON logs on stdout, one line per admission request at info. */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream, fdOptions: LogFdOptions = {}): Logger {
  let dest: pino.DestinationStream | undefined = destination;
  if (dest === undefined) {
    const { fd = 1, maxBufferedBytes = MAX_BUFFERED_LOG_BYTES } = fdOptions;
    const boom = pino.destination({ fd, sync: false, minLength: BUFFER_BYTES, maxWrite: MAX_WRITE_BYTES, maxLength: maxBufferedBytes });
    let reported = 0;
    boom.on("drop", () => void dropped++);
    // A failed write (stdout closed, EBADF, ...) must not take the webhook down: say so once on stderr and go on.
    let failed = false;
    boom.on("error", (err: Error) => {
      if (failed) return;
      failed = true;
      process.stderr.write(`duckbill: writing logs failed (${err.message}); admission continues\n`);
    });
    setInterval(() => {
      // Only when lines wait (`_len`: the buffered length; flush() of an empty buffer still makes a write call).
      // flush() throws once the stream is closed (at exit); nothing is left to write then.
      const state = boom as unknown as { destroyed?: boolean; _len?: number };
      if (state.destroyed !== true && state._len !== 0) boom.flush();
      if (dropped !== reported && state.destroyed !== true) {
        // Said once the backlog allows it, through the same stream (stderr would interleave with the JSON lines).
        boom.write(`{"level":"warn","time":"${new Date().toISOString()}","component":"duckbill","dropped":${dropped - reported},"msg":"log lines dropped: stdout did not keep up"}\n`);
        reported = dropped;
      }
    }, FLUSH_INTERVAL_MS).unref();
    dest = boom;
  }
  return pino({ level, base: { component: "duckbill" }, timestamp: isoTimeCached, formatters: { level: (label) => ({ level: label }) } }, dest);
}

/**
 * Writes text, already formatted as log lines, into `logger`'s destination (the primary passing on its workers'
 * lines). The workers gathered those lines already: they are flushed on the next turn, not held again.
 */
export function rawLogWriter(logger: Logger): (text: string) => void {
  const stream = (logger as unknown as Record<symbol, { write(text: string): unknown; flush?: () => void; destroyed?: boolean } | undefined>)[symbols.streamSym];
  if (stream === undefined) throw new Error("the logger has no destination stream");
  let flushing = false;
  const flush = (): void => {
    flushing = false;
    try {
      if (stream.destroyed !== true) stream.flush?.();
    } catch {
      // Closed at exit: nothing is left to write.
    }
  };
  return (text) => {
    stream.write(text);
    if (flushing || stream.flush === undefined) return;
    flushing = true;
    setImmediate(flush);
  };
}
