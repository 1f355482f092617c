/**
 * The cluster side of the config store: credentials, client rate limits and the ConfigMap list/watch source
 * (configmap-source.ts), handed to `createConfigStore` as its `cluster` source by the caller (cli/serve/serve.ts), so
 * that `config/` stays data and never reaches the cluster itself. This module pulls in @kubernetes/client-node
 * (about a second to import): load it only in cluster mode.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { ClusterSourceContext, ConfigSource } from "../config/store.js";
import type { ConfigData } from "../config/snapshot.js";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import { RequestThrottle } from "./client.js";
import { resolveClientRateLimits, type ClientRateLimits } from "./client-rate-limits.js";
import { ClusterConfigMapSource } from "./configmap-source.js";

export interface ClusterConfigSourceOptions {
  /** The cluster's credentials (src/kube/client.ts: loadKubeConfig). */
  readonly kubeConfig: KubeConfig;
  /** Reconnect backoff (default 200 ms doubling to 30 s). */
  readonly backoff?: BackoffPolicy;
  /** Client-side request rate (default Knative's 20 QPS, burst 40). */
  readonly clientRateLimits?: ClientRateLimits;
  /** Seconds after which the server ends each watch (default a random 50–75 % of the watchdog period). */
  readonly watchTimeoutSeconds?: number;
  /**
   * Other ConfigMaps of the namespace to follow outside the admission snapshot and readiness (`config-logging`
   * for the log level): called with the data of every version seen. A deletion keeps the last.
   */
  readonly observers?: ReadonlyMap<string, (data: ConfigData) => void>;
}

/** The list/watch source of the store's ConfigMaps in the cluster `o` points at. */
export function openClusterConfigSource(o: ClusterConfigSourceOptions, ctx: ClusterSourceContext): ConfigSource {
  const kubeConfig = o.kubeConfig;
  const timeout = o.watchTimeoutSeconds;
  return new ClusterConfigMapSource({
    kubeConfig,
    namespace: ctx.namespace,
    names: ctx.names,
    sink: ctx.sink,
    logger: ctx.logger,
    metrics: ctx.metrics,
    throttle: new RequestThrottle(o.clientRateLimits ?? resolveClientRateLimits(undefined, undefined)),
    watchdogMs: ctx.watchdogMs,
    backoff: o.backoff ?? DEFAULT_BACKOFF,
    watchTimeoutSeconds: timeout === undefined ? undefined : () => timeout,
    observers: o.observers,
  });
}

/** `createConfigStore`'s `cluster` option for the cluster `o` points at. */
export function clusterConfigSource(o: ClusterConfigSourceOptions): (ctx: ClusterSourceContext) => Promise<ConfigSource> {
  return (ctx) => Promise.resolve(openClusterConfigSource(o, ctx));
}
