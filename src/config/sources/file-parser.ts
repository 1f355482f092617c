/**
 * Configuration files parsed off the event loop. The YAML library needs about 0.8 µs per byte, so a 1 MiB file holds
 * a thread for most of a second and a 50 MB one held both serving processes at 100 % CPU for over a minute while
 * admission requests failed. Parsing runs on a worker thread with its own heap bound and a time bound; the serving
 * thread only waits for the answer. The thread starts when a file needs parsing and ends when idle.
 *
 * The worker is the built config-file-worker.js beside this module (dist/config/sources/ or, bundled,
 * dist/bundle/: scripts/bundle.mjs gives it its own entry). Where it is not (sources run by vitest), files are
 * parsed in line. The thread itself (start, bounds, idle end) is request-thread.ts's.
 */
import { readConfigFile, type ConfigFileContent } from "../dir.js";
import { builtScriptExists, RequestThread, RequestThreadFailure, type RequestThreadBounds, type RequestThreadOptions, type ThreadFailure } from "./request-thread.js";

export interface ParseRequest {
  readonly id: number;
  readonly file: string;
  readonly text: string;
}

export type ParseResult =
  | { readonly id: number; readonly kind: "data"; readonly entries: readonly (readonly [string, string])[] }
  | { readonly id: number; readonly kind: "empty" }
  | { readonly id: number; readonly kind: "invalid"; readonly error: string };

export interface ConfigFileParser {
  parse(file: string, text: string): Promise<ConfigFileContent>;
  close(): Promise<void>;
}

/** Parses in line (on the caller's thread). */
export const inlineParser: ConfigFileParser = {
  parse: (file, text) => Promise.resolve(readConfigFile(file, text)),
  close: () => Promise.resolve(),
};

/** The parsing thread's bounds and script (a parse that takes longer or needs more heap is invalid). */
export type WorkerParserOptions = RequestThreadOptions;

export const PARSE_TIMEOUT_MS = 10_000;
/** A 1 MiB file of short keys makes a document of about 60 MB on the heap; 192 MB leaves room. */
const BOUNDS: RequestThreadBounds = { timeoutMs: PARSE_TIMEOUT_MS, idleMs: 5_000, maxHeapMb: 192 };

function dataOf(entries: readonly (readonly [string, string])[]): Record<string, string> {
  const data = Object.create(null) as Record<string, string>;
  for (const [k, v] of entries) data[k] = v;
  return data;
}

type FileToParse = Omit<ParseRequest, "id">;

/** What a file that was not parsed is answered with (a timeout names the file that took too long). */
function notParsed(file: string, f: ThreadFailure<FileToParse>): string {
  switch (f.kind) {
    case "timeout":
      return `config file "${f.request.file}" was not parsed within ${f.ms} ms; it is ignored`;
    case "memory":
      return `config file "${file}" needs more than ${f.mb} MB to parse`;
    case "error":
      return `config file "${file}" could not be parsed (${f.message})`;
    case "exited":
      return `config file "${file}" could not be parsed (the parsing thread exited)`;
    case "closed":
      return `config file "${file}" the configuration source closed`;
  }
}

class WorkerParser implements ConfigFileParser {
  private readonly thread: RequestThread<FileToParse, ParseResult>;

  constructor(script: URL, opts: WorkerParserOptions) {
    this.thread = new RequestThread(script, opts, BOUNDS);
  }

  async parse(file: string, text: string): Promise<ConfigFileContent> {
    try {
      const r = await this.thread.request({ file, text });
      return r.kind === "data" ? { kind: "data", data: dataOf(r.entries) } : r.kind === "empty" ? { kind: "empty" } : { kind: "invalid", error: r.error };
    } catch (err) {
      if (!(err instanceof RequestThreadFailure)) throw err;
      return { kind: "invalid", error: notParsed(file, (err as RequestThreadFailure<FileToParse>).failure) };
    }
  }

  async close(): Promise<void> {
    this.thread.close();
  }
}

const BUILT_WORKER = new URL("./config-file-worker.js", import.meta.url);

/** Parses on a worker thread when the built worker script is there, else in line. */
export function configFileParser(opts: WorkerParserOptions = {}): ConfigFileParser {
  const script = opts.script ?? BUILT_WORKER;
  return builtScriptExists(script) ? new WorkerParser(script, opts) : inlineParser;
}
