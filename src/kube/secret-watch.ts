/**
 * Keeps one Secret in view the way client-go's reflector does (list, then watch from the list's resourceVersion with
 * bookmarks; list again on 410 Gone or a silent stream; reconnect with backoff), and reports every version of it,
 * or its absence. Scoped to the one name with a field selector, so no other Secret ever reaches this process.
 */
import { CoreV1Api, Watch, type KubeConfig, type V1Secret } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Backoff, DEFAULT_BACKOFF, type BackoffPolicy } from "../config/sources/backoff.js";
import { StallWatchdog } from "../config/sources/watchdog.js";
import { describeApiError, statusCodeOf, withSignal } from "./api-request.js";
import { abortableDelay, type RequestThrottle } from "./client.js";

export interface SecretWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  /** Every observed version of the Secret, or undefined when it does not exist; called after each list too. */
  readonly onSecret: (secret: V1Secret | undefined) => void;
  /** Listing failed (the last reported state may be stale); cleared by the next onSecret. */
  readonly onTrouble?: (message: string) => void;
  readonly logger: Logger;
  readonly throttle?: RequestThrottle;
  readonly backoff?: BackoffPolicy;
  /** Silence (no event, no bookmark) after which the stream is dropped and the Secret listed again (default 2 min). */
  readonly watchdogMs?: number;
  /** Bound on one list request (default 30 s). */
  readonly listTimeoutMs?: number;
}

type StreamEnd = { readonly reason: "closed" | "error" | "gone" | "stalled"; readonly detail: string; readonly events: number };

const DEFAULT_WATCHDOG_MS = 120_000;
/** A stream that delivered something or stayed up this long was healthy: the next failure starts backoff afresh. */
const HEALTHY_STREAM_MS = 1000;

export class SecretWatch {
  private readonly stopping = new AbortController();
  private readonly api: CoreV1Api;
  private readonly watch: Watch;
  private readonly path: string;
  private readonly fieldSelector: string;
  private readonly watchdogMs: number;
  private resourceVersion = "";
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: SecretWatchOptions) {
    this.api = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.watch = new Watch(opts.kubeConfig);
    this.path = `/api/v1/namespaces/${encodeURIComponent(opts.namespace)}/secrets`;
    this.fieldSelector = `metadata.name=${opts.name}`;
    this.watchdogMs = opts.watchdogMs ?? DEFAULT_WATCHDOG_MS;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async close(): Promise<void> {
    this.stopping.abort(new Error("Secret watch closed"));
    await this.loop;
  }

  private get signal(): AbortSignal {
    return this.stopping.signal;
  }

  private async run(): Promise<void> {
    const { logger } = this.opts;
    const backoff = new Backoff(this.opts.backoff ?? DEFAULT_BACKOFF);
    const fields = { secret: `${this.opts.namespace}/${this.opts.name}` };
    let relist = true;
    while (!this.signal.aborted) {
      try {
        if (relist) {
          await this.list();
          relist = false;
          backoff.reset();
        }
        const started = Date.now();
        const end = await this.watchOnce();
        if (this.signal.aborted) break;
        const healthy = end.events > 0 || Date.now() - started >= HEALTHY_STREAM_MS;
        if (healthy) backoff.reset();
        if (end.reason === "gone" || end.reason === "stalled") relist = true;
        const delay = healthy && (end.reason === "closed" || end.reason === "gone") ? 0 : backoff.next();
        const log = { ...fields, reason: end.reason, detail: end.detail, retryInMs: delay };
        if (end.reason === "closed" || end.reason === "gone") logger.debug(log, "Secret watch ended; watching again");
        else logger.warn(log, "Secret watch failed; watching again");
        if (delay > 0) await abortableDelay(delay, this.signal);
      } catch (err) {
        if (this.signal.aborted) break;
        const delay = backoff.next();
        const message = `reading Secret ${fields.secret} failed: ${describeApiError(err)}`;
        this.opts.onTrouble?.(message);
        logger.warn({ ...fields, err: describeApiError(err), retryInMs: delay }, "reading the Secret failed; retrying");
        await abortableDelay(delay, this.signal).catch(() => undefined);
      }
    }
  }

  private async list(): Promise<void> {
    await this.opts.throttle?.acquire(this.signal);
    const signal = AbortSignal.any([this.signal, AbortSignal.timeout(this.opts.listTimeoutMs ?? 30_000)]);
    const list = await this.api.listNamespacedSecret({ namespace: this.opts.namespace, fieldSelector: this.fieldSelector }, withSignal(signal));
    this.resourceVersion = list.metadata?.resourceVersion ?? "";
    this.opts.onSecret(list.items.find((s) => s.metadata?.name === this.opts.name));
  }

  /** Watches from the current resourceVersion until the stream ends, fails, expires or stalls. Never rejects. */
  private watchOnce(): Promise<StreamEnd> {
    return new Promise<StreamEnd>((resolve) => {
      let settled = false;
      let events = 0;
      let controller: AbortController | undefined;
      const finish = (reason: StreamEnd["reason"], detail: string): void => {
        if (settled) return;
        settled = true;
        watchdog.stop();
        this.signal.removeEventListener("abort", onStop);
        controller?.abort();
        resolve({ reason, detail, events });
      };
      const onStop = (): void => finish("closed", "watch closed");
      const watchdog = new StallWatchdog(this.watchdogMs, (silent) => finish("stalled", `no event or bookmark for ${silent} ms`));
      this.signal.addEventListener("abort", onStop, { once: true });
      const onEvent = (phase: string, obj: unknown): void => {
        if (settled) return;
        watchdog.touch();
        events++;
        this.handleEvent(phase, obj, finish);
      };
      const onDone = (err: unknown): void => {
        if (err === null || err === undefined) finish("closed", "the server ended the stream");
        else if (statusCodeOf(err) === 410) finish("gone", describeApiError(err));
        else finish("error", describeApiError(err));
      };
      // The server ends each watch within 50-75 % of the watchdog period, so a quiet healthy stream never trips it.
      const timeoutSeconds = Math.max(1, Math.floor((this.watchdogMs / 1000) * (0.5 + Math.random() * 0.25)));
      (this.opts.throttle?.acquire(this.signal) ?? Promise.resolve())
        .then(() => {
          if (settled) return undefined;
          watchdog.start();
          const query = { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, fieldSelector: this.fieldSelector, timeoutSeconds };
          return this.watch.watch(this.path, query, onEvent, onDone);
        })
        .then(
          (c) => {
            controller = c;
            if (settled) c?.abort();
            else watchdog.touch();
          },
          (err: unknown) => finish("error", describeApiError(err)),
        );
    });
  }

  private handleEvent(phase: string, obj: unknown, finish: (reason: StreamEnd["reason"], detail: string) => void): void {
    const o = (typeof obj === "object" && obj !== null ? obj : {}) as { metadata?: { name?: string; resourceVersion?: string }; code?: unknown; message?: unknown };
    if (phase === "ERROR") {
      const detail = typeof o.message === "string" ? o.message : JSON.stringify(obj);
      finish(o.code === 410 ? "gone" : "error", detail);
      return;
    }
    const rv = o.metadata?.resourceVersion;
    if (typeof rv === "string" && rv !== "") this.resourceVersion = rv;
    if (o.metadata?.name !== this.opts.name) return; // bookmarks
    if (phase === "ADDED" || phase === "MODIFIED") this.opts.onSecret(obj as V1Secret);
    else if (phase === "DELETED") this.opts.onSecret(undefined);
  }
}
