/**
 * The cluster source: list + watch of the ConfigMaps in SYSTEM_NAMESPACE with @kubernetes/client-node, the way
 * client-go's reflector does it (spec §1.10): list for a complete view and a resourceVersion, watch from there with
 * bookmarks, re-list on 410 Gone, reconnect with backoff, and a watchdog that re-lists when the stream goes silent.
 */
import { CoreV1Api, Observable, Watch, type KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import type { ConfigurationOptions, ObservableMiddleware, RequestContext, ResponseContext } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { describeApiError as messageOf, statusCodeOf } from "../../kube/api-request.js";
import { abortableDelay, type RequestThrottle } from "../../kube/client.js";
import { Backoff, type BackoffPolicy } from "./backoff.js";
import type { ConfigMetrics, WatchRestartReason } from "./metrics.js";
import type { ConfigMapSink } from "./sink.js";
import { StallWatchdog } from "./watchdog.js";

export interface ClusterSourceOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  /** The ConfigMaps reported to the sink; events for others only prove the stream is alive. */
  readonly names: readonly string[];
  readonly sink: ConfigMapSink;
  readonly logger: Logger;
  readonly metrics: ConfigMetrics;
  readonly throttle: RequestThrottle;
  /** Silence on the watch stream (no event, no bookmark) after which it is dropped and the ConfigMaps re-listed. */
  readonly watchdogMs: number;
  readonly backoff: BackoffPolicy;
  /**
   * The server ends each watch after this long (default: a random 50–75 % of the watchdog period), so a quiet but
   * healthy stream is renewed before the watchdog would call it stalled, even on servers that send no bookmarks.
   */
  readonly watchTimeoutSeconds?: () => number;
  /** Bound on one list request. */
  readonly listTimeoutMs?: number;
}

interface StreamEnd {
  readonly reason: WatchRestartReason;
  readonly detail: string;
  /** Events (including bookmarks) the stream delivered. */
  readonly events: number;
}

/** A stream that delivered something or stayed up this long was healthy: the next failure starts backoff afresh. */
const HEALTHY_STREAM_MS = 1000;

function watchTimeoutFor(watchdogMs: number): () => number {
  return () => Math.max(1, Math.floor((watchdogMs / 1000) * (0.5 + Math.random() * 0.25)));
}


export class ClusterConfigMapSource {
  private readonly stopping = new AbortController();
  private readonly api: CoreV1Api;
  private readonly watch: Watch;
  private readonly path: string;
  private readonly tracked: ReadonlySet<string>;
  private readonly watchTimeoutSeconds: () => number;
  private resourceVersion = "";
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: ClusterSourceOptions) {
    this.api = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.watch = new Watch(opts.kubeConfig);
    this.path = `/api/v1/namespaces/${encodeURIComponent(opts.namespace)}/configmaps`;
    this.tracked = new Set(opts.names);
    this.watchTimeoutSeconds = opts.watchTimeoutSeconds ?? watchTimeoutFor(opts.watchdogMs);
  }

  /** Starts listing and watching in the background; progress is reported to the sink. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops the watch, the watchdog and any pending retry; resolves once nothing is left running. */
  async close(): Promise<void> {
    this.stopping.abort(new Error("configuration source closed"));
    await this.loop;
  }

  private get signal(): AbortSignal {
    return this.stopping.signal;
  }

  private async run(): Promise<void> {
    const { logger, metrics, sink } = this.opts;
    const backoff = new Backoff(this.opts.backoff);
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
        metrics.watchRestarted(end.reason);
        const healthy = end.events > 0 || Date.now() - started >= HEALTHY_STREAM_MS;
        if (healthy) backoff.reset();
        if (end.reason === "gone" || end.reason === "stalled") relist = true;
        const delay = healthy && (end.reason === "closed" || end.reason === "gone") ? 0 : backoff.next();
        const fields = { namespace: this.opts.namespace, resourceVersion: this.resourceVersion, reason: end.reason, detail: end.detail, retryInMs: delay };
        // A server-side end and an expired resourceVersion are routine; a stall or an error is worth a look.
        if (end.reason === "closed") logger.debug(fields, "ConfigMap watch ended; watching again");
        else if (end.reason === "gone") logger.info(fields, "ConfigMap watch expired; listing again");
        else if (end.reason === "stalled") logger.warn(fields, "ConfigMap watch stalled; listing again");
        else logger.warn(fields, "ConfigMap watch failed; watching again");
        if (delay > 0) await abortableDelay(delay, this.signal);
      } catch (err) {
        if (this.signal.aborted) break;
        const delay = backoff.next();
        const message = `listing ConfigMaps in ${this.opts.namespace} failed: ${messageOf(err)}`;
        sink.trouble(message);
        logger.warn({ namespace: this.opts.namespace, err: messageOf(err), retryInMs: delay }, "listing ConfigMaps failed; retrying");
        await abortableDelay(delay, this.signal).catch(() => undefined);
      }
    }
  }

  /** One complete view: every tracked ConfigMap is reported present or missing, then `synced`. */
  private async list(): Promise<void> {
    await this.opts.throttle.acquire(this.signal);
    const signal = AbortSignal.any([this.signal, AbortSignal.timeout(this.opts.listTimeoutMs ?? 30_000)]);
    const list = await this.api.listNamespacedConfigMap({ namespace: this.opts.namespace }, withSignal(signal));
    this.resourceVersion = list.metadata?.resourceVersion ?? "";
    const present = new Set<string>();
    for (const cm of list.items) {
      const name = cm.metadata?.name;
      if (name === undefined || !this.tracked.has(name)) continue;
      present.add(name);
      this.report(name, cm);
    }
    for (const name of this.opts.names) if (!present.has(name)) this.opts.sink.observeMissing(name);
    this.opts.sink.synced();
  }

  private report(name: string, cm: V1ConfigMap): void {
    this.opts.sink.observe(name, { version: cm.metadata?.resourceVersion ?? "", data: cm.data ?? {} });
  }

  /** Watches from the current resourceVersion until the stream ends, fails, expires or stalls. Never rejects. */
  private watchOnce(): Promise<StreamEnd> {
    return new Promise<StreamEnd>((resolve) => {
      let settled = false;
      let events = 0;
      let controller: AbortController | undefined;
      const finish = (reason: WatchRestartReason, detail: string): void => {
        if (settled) return;
        settled = true;
        watchdog.stop();
        this.signal.removeEventListener("abort", onStop);
        controller?.abort();
        resolve({ reason, detail, events });
      };
      const onStop = (): void => finish("closed", "source closed");
      const watchdog = new StallWatchdog(this.opts.watchdogMs, (silent) => finish("stalled", `no event or bookmark for ${silent} ms`));
      this.signal.addEventListener("abort", onStop, { once: true });
      const onEvent = (phase: string, obj: unknown): void => {
        if (settled) return;
        watchdog.touch();
        events++;
        this.handleEvent(phase, obj, finish);
      };
      const onDone = (err: unknown): void => {
        if (err === null || err === undefined) finish("closed", "the server ended the stream");
        else if (statusCodeOf(err) === 410) finish("gone", messageOf(err));
        else finish("error", messageOf(err));
      };
      this.opts.throttle
        .acquire(this.signal)
        .then(() => {
          if (settled) return undefined;
          watchdog.start();
          const query = { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.watchTimeoutSeconds() };
          return this.watch.watch(this.path, query, onEvent, onDone);
        })
        .then(
          (c) => {
            // client-node hands the controller over only once the response headers arrived; a stream abandoned
            // before that (watchdog, close) is aborted now.
            controller = c;
            if (settled) c?.abort();
            else watchdog.touch();
          },
          (err: unknown) => finish("error", messageOf(err)),
        );
    });
  }

  private handleEvent(phase: string, obj: unknown, finish: (reason: WatchRestartReason, detail: string) => void): void {
    const o = (typeof obj === "object" && obj !== null ? obj : {}) as { metadata?: { name?: string; resourceVersion?: string }; code?: unknown; message?: unknown };
    if (phase === "ERROR") {
      // A Status object: 410 means our resourceVersion was compacted away (re-list); anything else, watch again.
      const detail = typeof o.message === "string" ? o.message : JSON.stringify(obj);
      finish(o.code === 410 ? "gone" : "error", detail);
      return;
    }
    const rv = o.metadata?.resourceVersion;
    if (typeof rv === "string" && rv !== "") this.resourceVersion = rv;
    this.opts.sink.alive();
    const name = o.metadata?.name;
    if (name === undefined || !this.tracked.has(name)) return;
    if (phase === "ADDED" || phase === "MODIFIED") this.report(name, obj as V1ConfigMap);
    else if (phase === "DELETED") this.opts.sink.observeMissing(name);
  }
}

/** Request options that make a generated-client call abortable (the signal reaches node-fetch). */
function withSignal(signal: AbortSignal): ConfigurationOptions {
  const middleware: ObservableMiddleware = {
    pre: (ctx: RequestContext) => {
      ctx.setSignal(signal);
      return new Observable(Promise.resolve(ctx));
    },
    post: (ctx: ResponseContext) => new Observable(Promise.resolve(ctx)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" };
}
