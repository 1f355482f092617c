/**
 * Configuration files parsed off the event loop. The YAML library needs about 0.8 µs per byte, so a 1 MiB file holds
 * a thread for most of a second and a 50 MB one held both serving processes at 100 % CPU for over a minute while
 * admission requests failed. Parsing runs on a worker thread with its own heap bound and a time bound; the serving
 * thread only waits for the answer. The thread starts when a file needs parsing and ends when idle.
 *
 * The worker is the built config-file-worker.js beside this module (dist/config/sources/ or, bundled,
 * dist/bundle/: scripts/bundle.mjs gives it its own entry). Where it is not (sources run by vitest), files are
 * parsed in line.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { readConfigFile, type ConfigFileContent } from "../dir.js";

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

export interface WorkerParserOptions {
  /** A file whose parse takes longer is invalid (the thread is stopped). */
  readonly timeoutMs?: number;
  /** The thread ends after this long without work. */
  readonly idleMs?: number;
  /** The thread's old-generation heap bound; a parse that needs more is invalid. */
  readonly maxHeapMb?: number;
  /** The worker script; by default the built config-file-worker.js beside this module. */
  readonly script?: URL;
}

export const PARSE_TIMEOUT_MS = 10_000;
const IDLE_MS = 5_000;
/** A 1 MiB file of short keys makes a document of about 60 MB on the heap; 192 MB leaves room. */
const MAX_HEAP_MB = 192;

function dataOf(entries: readonly (readonly [string, string])[]): Record<string, string> {
  const data = Object.create(null) as Record<string, string>;
  for (const [k, v] of entries) data[k] = v;
  return data;
}

interface Pending {
  readonly file: string;
  readonly resolve: (c: ConfigFileContent) => void;
  readonly timer: NodeJS.Timeout;
}

class WorkerParser implements ConfigFileParser {
  private worker: Worker | undefined;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly script: URL,
    private readonly opts: WorkerParserOptions,
  ) {}

  parse(file: string, text: string): Promise<ConfigFileContent> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timeoutMs = this.opts.timeoutMs ?? PARSE_TIMEOUT_MS;
      const timer = setTimeout(() => this.fail(`config file "${file}" was not parsed within ${timeoutMs} ms; it is ignored`), timeoutMs);
      timer.unref();
      this.pending.set(id, { file, resolve, timer });
      const request: ParseRequest = { id, file, text };
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.fail("the configuration source closed");
  }

  private started(): Worker {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb ?? MAX_HEAP_MB } });
    worker.unref();
    worker.on("message", (r: ParseResult) => this.answered(r));
    worker.on("error", (err: Error & { code?: string }) => {
      const why = err.code === "ERR_WORKER_OUT_OF_MEMORY" ? `needs more than ${this.opts.maxHeapMb ?? MAX_HEAP_MB} MB to parse` : `could not be parsed (${err.message})`;
      this.fail(why, worker);
    });
    worker.on("exit", () => {
      if (this.worker === worker) this.fail("could not be parsed (the parsing thread exited)", worker);
    });
    this.worker = worker;
    return worker;
  }

  private answered(r: ParseResult): void {
    const p = this.pending.get(r.id);
    if (p === undefined) return;
    this.pending.delete(r.id);
    clearTimeout(p.timer);
    p.resolve(r.kind === "data" ? { kind: "data", data: dataOf(r.entries) } : r.kind === "empty" ? { kind: "empty" } : { kind: "invalid", error: r.error });
    if (this.pending.size === 0) {
      this.idle = setTimeout(() => this.stop(), this.opts.idleMs ?? IDLE_MS);
      this.idle.unref();
    }
  }

  /** Every file waiting is answered invalid with `why` (a whole message when it starts with "config file"). */
  private fail(why: string, worker = this.worker): void {
    if (worker !== this.worker) return;
    this.stop();
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.resolve({ kind: "invalid", error: why.startsWith("config file") ? why : `config file "${p.file}" ${why}` });
    }
  }

  private stop(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate();
  }
}

const BUILT_WORKER = new URL("./config-file-worker.js", import.meta.url);

/** Parses on a worker thread when the built worker script is there, else in line. */
export function configFileParser(opts: WorkerParserOptions = {}): ConfigFileParser {
  const script = opts.script ?? BUILT_WORKER;
  return script.protocol === "file:" && existsSync(fileURLToPath(script)) ? new WorkerParser(script, opts) : inlineParser;
}
