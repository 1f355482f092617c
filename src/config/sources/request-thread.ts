/**
 * A worker thread that answers requests, started when one is made and ended when idle, each request bound in time
 * and the thread in old-generation heap: file-parser.ts parses configuration files on one, src/certs/
 * certificate-issuer.ts issues certificates on one. Requests go to the thread as `{ ...request, id }` and answers
 * come back carrying the same `id`; a request that gets none fails with the reason (RequestThreadFailure), and so
 * does every other request waiting then: the thread is stopped, and the next request starts a new one. While
 * requests wait the thread holds the process open; idle, it does not.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

export interface RequestThreadBounds {
  /** A request not answered within this fails (the thread is stopped). */
  readonly timeoutMs: number;
  /** The thread ends after this long without requests. */
  readonly idleMs: number;
  /** The thread's old-generation heap bound (Worker resourceLimits.maxOldGenerationSizeMb); a request that needs more fails. */
  readonly maxHeapMb: number;
}

/** A caller's thread as its users may set it (tests bound it tighter, or run another script); the rest is the caller's default. */
export interface RequestThreadOptions extends Partial<RequestThreadBounds> {
  /** The worker script; by default the caller's built one beside it. */
  readonly script?: URL;
}

/** Why requests were not answered. */
export type ThreadFailure<Req> =
  | { readonly kind: "timeout"; readonly ms: number; /** The request that took too long. */ readonly request: Req }
  | { readonly kind: "memory"; readonly mb: number }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "exited" }
  | { readonly kind: "closed" };

export class RequestThreadFailure<Req> extends Error {
  constructor(readonly failure: ThreadFailure<Req>) {
    super(`the worker thread failed (${failure.kind})`);
  }
}

/** Whether the built worker script `script` is there (it is not where sources run, e.g. by vitest). */
export function builtScriptExists(script: URL): boolean {
  return script.protocol === "file:" && existsSync(fileURLToPath(script));
}

interface Waiting<Req, Res> {
  readonly request: Req;
  readonly resolve: (answer: Res) => void;
  readonly reject: (err: RequestThreadFailure<Req>) => void;
  readonly timer: NodeJS.Timeout;
}

export class RequestThread<Req extends object, Res extends { readonly id: number }> {
  private worker: Worker | undefined;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting<Req, Res>>();

  private readonly opts: RequestThreadBounds;

  constructor(
    private readonly script: URL,
    opts: RequestThreadOptions,
    defaults: RequestThreadBounds,
  ) {
    this.opts = { timeoutMs: opts.timeoutMs ?? defaults.timeoutMs, idleMs: opts.idleMs ?? defaults.idleMs, maxHeapMb: opts.maxHeapMb ?? defaults.maxHeapMb };
  }

  /** The thread's answer to `request` (rejected with a RequestThreadFailure when there is none). */
  request(request: Req): Promise<Res> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail({ kind: "timeout", ms: this.opts.timeoutMs, request }), this.opts.timeoutMs);
      timer.unref();
      this.waiting.set(id, { request, resolve, reject, timer });
      worker.postMessage({ ...request, id });
    });
  }

  /** Stops the thread; what waits fails as "closed". */
  close(): void {
    this.fail({ kind: "closed" });
  }

  private started(): Worker {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
    if (this.worker !== undefined) {
      this.worker.ref();
      return this.worker;
    }
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: this.opts.maxHeapMb } });
    worker.on("message", (r: Res) => this.answered(r));
    worker.on("error", (err: Error & { code?: string }) => {
      this.fail(err.code === "ERR_WORKER_OUT_OF_MEMORY" ? { kind: "memory", mb: this.opts.maxHeapMb } : { kind: "error", message: err.message }, worker);
    });
    worker.on("exit", () => {
      if (this.worker === worker) this.fail({ kind: "exited" }, worker);
    });
    this.worker = worker;
    return worker;
  }

  private answered(r: Res): void {
    const w = this.waiting.get(r.id);
    if (w === undefined) return;
    this.waiting.delete(r.id);
    clearTimeout(w.timer);
    w.resolve(r);
    if (this.waiting.size === 0) {
      this.worker?.unref();
      this.idle = setTimeout(() => this.stop(), this.opts.idleMs);
      this.idle.unref();
    }
  }

  /** Every request waiting fails with `failure`, unless it is about a thread already replaced. */
  private fail(failure: ThreadFailure<Req>, worker = this.worker): void {
    if (worker !== this.worker) return;
    this.stop();
    for (const [id, w] of this.waiting) {
      this.waiting.delete(id);
      clearTimeout(w.timer);
      w.reject(new RequestThreadFailure(failure));
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
