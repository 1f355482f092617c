/**
 * `--impact-warnings`: lists and watches `serving.knative.dev/v1` Services and Configurations in
 * every namespace with the shared reflector and keeps, per object that uses a gated field, only its summary in a
 * GatedUsageIndex (serving/gated-usage.ts). Lists are paged and summarised page by page, so no full list is ever
 * held in memory. Imported on demand by cli/serve/cluster.ts when the flag is on.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { GatedUsageIndex, objectKey, ownedByService, usageBits, type GatedUsageView, type UsageKind } from "../serving/gated-usage.js";
import type { RequestThrottle } from "./client.js";
import { createKubeApi, type KubeApi } from "./json-api.js";
import { listPaged, logStreamEnd, Reflector } from "./reflector.js";

const PLURALS: Record<UsageKind, string> = { Service: "services", Configuration: "configurations" };
const DEFAULT_WATCHDOG_MS = 120_000;
const PAGE_SIZE = 500;

export interface GatedUsageWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly logger: Logger;
  readonly throttle?: RequestThrottle;
  /** Bound on stored objects (default DEFAULT_USAGE_CAPACITY). */
  readonly capacity?: number;
  readonly watchdogMs?: number;
  readonly pageSize?: number;
}

/** A summary in place of a listed object: what the list hands to onList. */
type Summary = readonly [key: string, bits: number];

function summaryOf(kind: UsageKind, obj: unknown): Summary | undefined {
  const key = objectKey(obj);
  if (key === undefined || (kind === "Configuration" && ownedByService(obj))) return undefined;
  const bits = usageBits(kind, obj);
  return bits === 0 ? undefined : [key, bits];
}

export class GatedUsageWatch {
  readonly index: GatedUsageIndex;
  private readonly reflectors: Reflector<unknown>[];
  private readonly api: KubeApi;
  private fullLogged = false;

  constructor(opts: GatedUsageWatchOptions) {
    this.index = new GatedUsageIndex(opts.capacity);
    this.api = createKubeApi(opts.kubeConfig, { throttle: opts.throttle });
    const { logger } = opts;
    const pageSize = opts.pageSize ?? PAGE_SIZE;
    this.reflectors = (["Service", "Configuration"] as const).map((kind) => {
      const path = `/apis/serving.knative.dev/v1/${PLURALS[kind]}`;
      const fields = { resource: `${PLURALS[kind]}.serving.knative.dev` };
      return new Reflector<unknown>({
        kubeConfig: opts.kubeConfig,
        path,
        // Paged: each page is summarised and dropped.
        list: (signal) => listPaged(this.api, path, pageSize, signal, (item) => summaryOf(kind, item)),
        onList: (items) => {
          this.index.replace(kind, items as readonly Summary[]);
          logger.info({ ...fields, stored: this.index.size(), full: this.index.full() }, "impact warnings: usage index listed");
          this.noteFull(logger);
        },
        onEvent: (phase, obj) => {
          if (phase === "ADDED" || phase === "MODIFIED") this.index.observe(kind, obj);
          else if (phase === "DELETED") this.index.forget(kind, obj);
          this.noteFull(logger);
        },
        onListError: (message, retryInMs) => logger.warn({ ...fields, err: message, retryInMs }, "impact warnings: listing failed; retrying"),
        onStreamEnd: logStreamEnd(logger, "impact warnings: watch", fields),
        throttle: opts.throttle,
        watchdogMs: opts.watchdogMs ?? DEFAULT_WATCHDOG_MS,
      });
    });
  }

  /** What the admission layer reads. */
  get view(): GatedUsageView {
    return this.index;
  }

  start(): void {
    for (const r of this.reflectors) r.start();
  }

  async close(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.close()));
    this.api.close();
  }

  private noteFull(logger: Logger): void {
    const full = this.index.full();
    if (full && !this.fullLogged) logger.warn({ capacity: this.index.capacity }, "impact warnings: usage index full; warnings may be incomplete");
    this.fullLogged = full;
  }
}
