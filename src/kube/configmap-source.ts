/**
 * The cluster source: list + watch of the ConfigMaps in SYSTEM_NAMESPACE with @kubernetes/client-node, the way
 * client-go's reflector does it (k8s.io/client-go tools/cache/reflector.go: ListAndWatch): list for a complete view
 * and a resourceVersion, watch from there with bookmarks, re-list on 410 Gone, reconnect with backoff, and a watchdog
 * that re-lists when the stream goes silent.
 */
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { withSignal } from "./api-request.js";
import type { RequestThrottle } from "./client.js";
import { Reflector } from "./reflector.js";
import type { BackoffPolicy } from "./backoff.js";
import type { ConfigMetrics } from "../config/sources/metrics.js";
import type { ConfigData } from "../config/snapshot.js";
import type { ConfigMapSink } from "../config/sources/sink.js";

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
  /** ConfigMaps outside `names` whose every present version is handed over (see ConfigStoreOptions.observers). */
  readonly observers?: ReadonlyMap<string, (data: ConfigData) => void>;
}

/** The tracked ConfigMaps of one namespace, reported to the sink (present, changed, missing, synced, alive). */
export class ClusterConfigMapSource {
  private readonly reflector: Reflector<V1ConfigMap>;

  constructor(opts: ClusterSourceOptions) {
    const { logger, metrics, sink, namespace } = opts;
    const api = opts.kubeConfig.makeApiClient(CoreV1Api);
    const tracked: ReadonlySet<string> = new Set(opts.names);
    const report = (name: string, cm: V1ConfigMap): void => sink.observe(name, { version: cm.metadata?.resourceVersion ?? "", data: cm.data ?? {} });
    const observers = opts.observers ?? new Map<string, (data: ConfigData) => void>();
    const hand = (name: string, cm: V1ConfigMap): void => {
      try {
        observers.get(name)?.(cm.data ?? {});
      } catch (err) {
        logger.error({ namespace, configmap: name, err }, "a ConfigMap observer failed");
      }
    };
    this.reflector = new Reflector<V1ConfigMap>({
      kubeConfig: opts.kubeConfig,
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`,
      list: async (signal) => {
        const list = await api.listNamespacedConfigMap({ namespace }, withSignal(signal));
        return { resourceVersion: list.metadata?.resourceVersion ?? "", items: list.items };
      },
      // One complete view: every tracked ConfigMap is reported present or missing, then `synced`.
      onList: (items) => {
        const present = new Set<string>();
        for (const cm of items) {
          const name = cm.metadata?.name;
          if (name !== undefined && observers.has(name)) hand(name, cm);
          if (name === undefined || !tracked.has(name)) continue;
          present.add(name);
          report(name, cm);
        }
        for (const name of opts.names) if (!present.has(name)) sink.observeMissing(name);
        sink.synced();
      },
      onEvent: (phase, cm) => {
        sink.alive();
        const name = cm.metadata?.name;
        if (name !== undefined && observers.has(name) && (phase === "ADDED" || phase === "MODIFIED")) hand(name, cm);
        if (name === undefined || !tracked.has(name)) return;
        if (phase === "ADDED" || phase === "MODIFIED") report(name, cm);
        else if (phase === "DELETED") sink.observeMissing(name);
      },
      onListError: (message, retryInMs) => {
        sink.trouble(`listing ConfigMaps in ${namespace} failed: ${message}`);
        logger.warn({ namespace, err: message, retryInMs }, "listing ConfigMaps failed; retrying");
      },
      onStreamEnd: (end, retryInMs, resourceVersion) => {
        metrics.watchRestarted(end.reason);
        const fields = { namespace, resourceVersion, reason: end.reason, detail: end.detail, retryInMs };
        // A server-side end and an expired resourceVersion are routine; a stall or an error is worth a look.
        if (end.reason === "closed") logger.debug(fields, "ConfigMap watch ended; watching again");
        else if (end.reason === "gone") logger.info(fields, "ConfigMap watch expired; listing again");
        else if (end.reason === "stalled") logger.warn(fields, "ConfigMap watch stalled; listing again");
        else if (end.reason === "undecodable") logger.warn(fields, "ConfigMap watch sent an event that does not decode; listing again");
        else logger.warn(fields, "ConfigMap watch failed; watching again");
      },
      throttle: opts.throttle,
      backoff: opts.backoff,
      watchdogMs: opts.watchdogMs,
      watchTimeoutSeconds: opts.watchTimeoutSeconds,
      listTimeoutMs: opts.listTimeoutMs,
    });
  }

  /** Starts listing and watching in the background; progress is reported to the sink. */
  start(): void {
    this.reflector.start();
  }

  /** Stops the watch, the watchdog and any pending retry; resolves once nothing is left running. */
  async close(): Promise<void> {
    await this.reflector.close();
  }
}
