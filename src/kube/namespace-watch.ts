/**
 * `--feature-scopes`: lists and watches Namespaces with the shared reflector (client-go's reflector: list, watch
 * with bookmarks, list again on 410 Gone, watchdog, backoff) and keeps only each namespace's labels, which the scopes
 * of config-features-scopes select on (config/feature-scopes.ts). Lists are paged; only the labels are kept. A
 * relabelled namespace is reported to `onRelabel` (the impact warnings of cli/serve/cluster.ts). Imported on demand
 * by cli/serve/cluster.ts when the flag is on.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { NamespaceLabels, NamespaceLabelsView } from "../config/feature-scopes.js";
import type { RequestThrottle } from "./client.js";
import { statusCodeOf } from "./api-request.js";
import { createKubeApi, type KubeApi } from "./json-api.js";
import { listPaged, logStreamEnd, Reflector } from "./reflector.js";

const DEFAULT_WATCHDOG_MS = 120_000;
const PAGE_SIZE = 500;
const PATH = "/api/v1/namespaces";
/** Bound on reading one namespace the watch has not delivered yet (the webhook's own timeout is 10 s). */
const FETCH_TIMEOUT_MS = 2000;

export interface NamespaceWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly throttle?: RequestThrottle;
  readonly watchdogMs?: number;
  readonly pageSize?: number;
  readonly fetchTimeoutMs?: number;
  /** A known namespace's labels changed (not called for the first sight of a namespace, nor on a list). */
  readonly onRelabel?: (namespace: string, before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>) => void;
}

type Entry = readonly [name: string, labels: ReadonlyMap<string, string>];

/** A Namespace's name and labels, or undefined when it has no name. */
export function namespaceEntry(obj: unknown): Entry | undefined {
  const meta = typeof obj === "object" && obj !== null ? (obj as { metadata?: { name?: unknown; labels?: unknown } }).metadata : undefined;
  if (typeof meta?.name !== "string" || meta.name === "") return undefined;
  const labels = new Map<string, string>();
  if (typeof meta.labels === "object" && meta.labels !== null) {
    for (const [k, v] of Object.entries(meta.labels as Record<string, unknown>)) if (typeof v === "string") labels.set(k, v);
  }
  return [meta.name, labels];
}

function sameLabels(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Namespace name → labels, filled by the watch; what the admission layer reads (NamespaceLabelsView). */
export class NamespaceLabelIndex implements NamespaceLabelsView {
  private byName = new Map<string, ReadonlyMap<string, string>>();
  private listed = false;

  labels(namespace: string): NamespaceLabels {
    return this.byName.get(namespace);
  }

  synced(): boolean {
    return this.listed;
  }

  size(): number {
    return this.byName.size;
  }

  /** A complete list. */
  replace(entries: Iterable<Entry>): void {
    this.byName = new Map(entries);
    this.listed = true;
  }

  /** An ADDED or MODIFIED namespace; the labels it had before (undefined when it was not known). */
  observe(name: string, labels: ReadonlyMap<string, string>): ReadonlyMap<string, string> | undefined {
    const before = this.byName.get(name);
    this.byName.set(name, before !== undefined && sameLabels(before, labels) ? before : labels);
    return before;
  }

  forget(name: string): void {
    this.byName.delete(name);
  }
}

export class NamespaceWatch {
  readonly index = new NamespaceLabelIndex();
  private readonly reflector: Reflector<unknown>;
  private readonly api: KubeApi;
  private readonly logger: Logger;
  private readonly fetchTimeoutMs: number;

  constructor(opts: NamespaceWatchOptions) {
    this.api = createKubeApi(opts.kubeConfig, { throttle: opts.throttle });
    const { logger } = opts;
    this.logger = logger;
    this.fetchTimeoutMs = opts.fetchTimeoutMs ?? FETCH_TIMEOUT_MS;
    const pageSize = opts.pageSize ?? PAGE_SIZE;
    const fields = { resource: "namespaces" };
    this.reflector = new Reflector<unknown>({
      kubeConfig: opts.kubeConfig,
      path: PATH,
      list: (signal) => listPaged(this.api, PATH, pageSize, signal, namespaceEntry),
      onList: (items) => {
        this.index.replace(items as readonly Entry[]);
        logger.info({ ...fields, namespaces: this.index.size() }, "feature scopes: namespaces listed");
      },
      onEvent: (phase, obj) => {
        const e = namespaceEntry(obj);
        if (e === undefined) return;
        if (phase === "DELETED") return this.index.forget(e[0]);
        if (phase !== "ADDED" && phase !== "MODIFIED") return;
        const before = this.index.observe(e[0], e[1]);
        if (before !== undefined && !sameLabels(before, e[1])) opts.onRelabel?.(e[0], before, e[1]);
      },
      onListError: (message, retryInMs) => logger.warn({ ...fields, err: message, retryInMs }, "feature scopes: listing namespaces failed; retrying"),
      onStreamEnd: logStreamEnd(logger, "feature scopes: namespace watch", fields),
      throttle: opts.throttle,
      watchdogMs: opts.watchdogMs ?? DEFAULT_WATCHDOG_MS,
    });
  }

  /** What the admission layer reads: the index, and a GET for a namespace it does not know yet. */
  get view(): NamespaceLabelsView {
    const index = this.index;
    return { labels: (ns) => index.labels(ns), synced: () => index.synced(), fetch: (ns) => this.fetch(ns) };
  }

  /** GET one namespace (its event may lag its creation); kept in the index. Undefined when it cannot be read. */
  private async fetch(namespace: string): Promise<ReadonlyMap<string, string> | undefined> {
    try {
      const obj = await this.api.request({ method: "GET", path: `${PATH}/${encodeURIComponent(namespace)}`, signal: AbortSignal.timeout(this.fetchTimeoutMs) });
      const e = namespaceEntry(obj);
      if (e === undefined) return undefined;
      this.index.observe(e[0], e[1]);
      return e[1];
    } catch (err) {
      if (statusCodeOf(err) !== 404) this.logger.warn({ namespace, err: String(err) }, "feature scopes: reading a namespace failed; its labels are unknown");
      return undefined;
    }
  }

  start(): void {
    this.reflector.start();
  }

  async close(): Promise<void> {
    await this.reflector.close();
    this.api.close();
  }
}
