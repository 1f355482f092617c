/**
 * client-go's reflector for one resource collection, over @kubernetes/client-node: list for a complete view and a
 * resourceVersion, watch from there with bookmarks (json-api.ts), list again on 410 Gone, on an event that does not
 * decode or when a watchdog finds the stream silent, reconnect with backoff. Shared by the config store's ConfigMap
 * source and the certificate Secret watch.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Backoff, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import { StallWatchdog } from "./watchdog.js";
import { describeApiError, statusCodeOf } from "./api-request.js";
import { abortableDelay, type RequestThrottle } from "./client.js";
import { createKubeApi, KubeApiError, UndecodableWatchEvent, type KubeApi } from "./json-api.js";

/** undecodable: the stream sent something that is not a watch event (an event may be lost: list again). */
export type StreamEndReason = "closed" | "error" | "gone" | "stalled" | "undecodable";

export interface StreamEnd {
  readonly reason: StreamEndReason;
  readonly detail: string;
  /** Events (including bookmarks) the stream delivered. */
  readonly events: number;
}

export interface ReflectorOptions<T> {
  readonly kubeConfig: KubeConfig;
  /** The collection's API path, e.g. `/api/v1/namespaces/knative-serving/configmaps`. */
  readonly path: string;
  readonly fieldSelector?: string;
  /** One list request; its items and the collection's resourceVersion. */
  readonly list: (signal: AbortSignal) => Promise<{ readonly resourceVersion: string; readonly items: readonly T[] }>;
  /** The complete view after every list. */
  readonly onList: (items: readonly T[]) => void;
  /** Every watch event but ERROR, bookmarks included (their object carries only a resourceVersion). */
  readonly onEvent: (phase: string, obj: T) => void;
  /** A list failed; the reflector retries after `retryInMs`. */
  readonly onListError: (message: string, retryInMs: number) => void;
  /** A watch stream ended; the reflector watches (or lists) again after `retryInMs`. */
  readonly onStreamEnd?: (end: StreamEnd, retryInMs: number, resourceVersion: string) => void;
  readonly throttle?: RequestThrottle;
  readonly backoff?: BackoffPolicy;
  /** Silence (no event, no bookmark) after which the stream is dropped and the collection listed again. */
  readonly watchdogMs: number;
  /** Server-side end of each watch (default a random 50–75 % of the watchdog period, so quiet streams renew first). */
  readonly watchTimeoutSeconds?: () => number;
  /** Bound on one list request (default 30 s). */
  readonly listTimeoutMs?: number;
}

/**
 * An onStreamEnd that logs the way the webhook's watches do: a server-side end or an expired resourceVersion is
 * routine (debug); a failed, stalled or undecodable stream is worth a look (warn), with what the reflector does next
 * (a failed stream is watched again, the others are listed again).
 */
export function logStreamEnd(logger: Logger, subject: string, fields: Readonly<Record<string, unknown>>): NonNullable<ReflectorOptions<unknown>["onStreamEnd"]> {
  return (end, retryInMs) => {
    const log = { ...fields, reason: end.reason, detail: end.detail, retryInMs };
    if (end.reason === "closed" || end.reason === "gone") logger.debug(log, `${subject} ended; watching again`);
    else logger.warn(log, `${subject} failed; ${end.reason === "error" ? "watching" : "listing"} again`);
  };
}

interface ListPage {
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: readonly unknown[];
}

/**
 * A paged list of the collection at `path` (`limit`, `continue`), each item mapped as its page arrives (undefined:
 * dropped), so no full list is ever held; the first page's resourceVersion is the list's.
 */
export async function listPaged<T>(api: KubeApi, path: string, pageSize: number, signal: AbortSignal, map: (item: unknown) => T | undefined): Promise<{ resourceVersion: string; items: T[] }> {
  const items: T[] = [];
  let resourceVersion = "";
  let token = "";
  do {
    const query: Record<string, string> = { limit: String(pageSize), ...(token === "" ? {} : { continue: token }) };
    const page = (await api.request({ method: "GET", path, query, signal })) as ListPage;
    if (resourceVersion === "") resourceVersion = page.metadata?.resourceVersion ?? "";
    for (const item of page.items ?? []) {
      const mapped = map(item);
      if (mapped !== undefined) items.push(mapped);
    }
    token = page.metadata?.continue ?? "";
  } while (token !== "");
  return { resourceVersion, items };
}

/** A stream that delivered something or stayed up this long was healthy: the next failure starts backoff afresh. */
const HEALTHY_STREAM_MS = 1000;

export class Reflector<T> {
  private readonly stopping = new AbortController();
  /** Watch streams (json-api.ts: unlike client-node's Watch, it reports a line that does not decode). */
  private readonly api: KubeApi;
  private readonly watchTimeoutSeconds: () => number;
  private resourceVersion = "";
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: ReflectorOptions<T>) {
    this.api = createKubeApi(opts.kubeConfig);
    const ms = opts.watchdogMs;
    this.watchTimeoutSeconds = opts.watchTimeoutSeconds ?? (() => Math.max(1, Math.floor((ms / 1000) * (0.5 + Math.random() * 0.25))));
  }

  /** Starts listing and watching in the background. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops the watch, the watchdog and any pending retry; resolves once nothing is left running. */
  async close(): Promise<void> {
    this.stopping.abort(new Error("watch closed"));
    await this.loop;
    this.api.close();
  }

  private get signal(): AbortSignal {
    return this.stopping.signal;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(this.opts.backoff ?? DEFAULT_BACKOFF);
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
        if (end.reason === "gone" || end.reason === "stalled" || end.reason === "undecodable") relist = true;
        const delay = healthy && (end.reason === "closed" || end.reason === "gone") ? 0 : backoff.next();
        this.opts.onStreamEnd?.(end, delay, this.resourceVersion);
        if (delay > 0) await abortableDelay(delay, this.signal);
      } catch (err) {
        if (this.signal.aborted) break;
        const delay = backoff.next();
        this.opts.onListError(describeApiError(err), delay);
        await abortableDelay(delay, this.signal).catch(() => undefined);
      }
    }
  }

  private async list(): Promise<void> {
    await this.opts.throttle?.acquire(this.signal);
    const signal = AbortSignal.any([this.signal, AbortSignal.timeout(this.opts.listTimeoutMs ?? 30_000)]);
    const { resourceVersion, items } = await this.opts.list(signal);
    this.resourceVersion = resourceVersion;
    this.opts.onList(items);
  }

  /** Watches from the current resourceVersion until the stream ends, fails, expires or stalls. Never rejects. */
  private watchOnce(): Promise<StreamEnd> {
    return new Promise<StreamEnd>((resolve) => {
      let settled = false;
      let events = 0;
      const controller = new AbortController();
      const finish = (reason: StreamEndReason, detail: string): void => {
        if (settled) return;
        settled = true;
        watchdog.stop();
        this.signal.removeEventListener("abort", onStop);
        controller.abort();
        resolve({ reason, detail, events });
      };
      const onStop = (): void => finish("closed", "watch closed");
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
        else if (err instanceof UndecodableWatchEvent) finish("undecodable", err.message);
        else if (statusCodeOf(err) === 410 || (err instanceof KubeApiError && err.status === 410)) finish("gone", describeApiError(err));
        else finish("error", describeApiError(err));
      };
      (this.opts.throttle?.acquire(this.signal) ?? Promise.resolve())
        .then(() => {
          if (settled) return undefined;
          watchdog.start();
          const query: Record<string, string> = { resourceVersion: this.resourceVersion, allowWatchBookmarks: "true", timeoutSeconds: String(this.watchTimeoutSeconds()) };
          if (this.opts.fieldSelector !== undefined) query.fieldSelector = this.opts.fieldSelector;
          // The watchdog, not the client's idle timer, decides when a silent stream is stalled.
          return this.api.watch(this.opts.path, query, (e) => onEvent(e.type, e.object), controller.signal, 2 * this.opts.watchdogMs);
        })
        .then(
          () => onDone(null),
          (err: unknown) => onDone(err),
        );
    });
  }

  private handleEvent(phase: string, obj: unknown, finish: (reason: StreamEndReason, detail: string) => void): void {
    const o = (typeof obj === "object" && obj !== null ? obj : {}) as { metadata?: { resourceVersion?: string }; code?: unknown; message?: unknown };
    if (phase === "ERROR") {
      // A Status object: 410 means our resourceVersion was compacted away (list again); anything else, watch again.
      const detail = typeof o.message === "string" ? o.message : JSON.stringify(obj);
      finish(o.code === 410 ? "gone" : "error", detail);
      return;
    }
    const rv = o.metadata?.resourceVersion;
    if (typeof rv === "string" && rv !== "") this.resourceVersion = rv;
    this.opts.onEvent(phase, obj as T);
  }
}
