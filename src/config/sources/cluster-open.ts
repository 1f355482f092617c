/**
 * Cluster-mode wiring of the config store, imported on demand (it pulls in @kubernetes/client-node): credentials,
 * client rate limits and the ConfigMap list/watch source.
 */
import type { Logger } from "pino";
import { loadKubeConfig, RequestThrottle, resolveClientRateLimits } from "../../kube/client.js";
import type { ConfigStoreOptions } from "../store.js";
import { DEFAULT_BACKOFF } from "./backoff.js";
import { ClusterConfigMapSource } from "./cluster.js";
import type { ConfigMetrics } from "./metrics.js";
import type { ConfigMapSink } from "./sink.js";

const DEFAULT_WATCHDOG_MS = 120_000;

export interface ClusterSourceOptions extends ConfigStoreOptions {
  readonly namespace: string;
  readonly names: readonly string[];
  readonly sink: ConfigMapSink;
  readonly logger: Logger;
  readonly metrics: ConfigMetrics;
}

export function openClusterSource(opts: ClusterSourceOptions): ClusterConfigMapSource {
  let kubeConfig = opts.kubeConfig;
  if (kubeConfig === undefined) {
    const loaded = loadKubeConfig({ kubeconfig: opts.kubeconfig });
    opts.logger.info({ credentials: loaded.origin, server: loaded.server }, "using Kubernetes credentials");
    kubeConfig = loaded.kubeConfig;
  }
  const timeout = opts.watchTimeoutSeconds;
  const watchdogMs = opts.watchdogMs ?? DEFAULT_WATCHDOG_MS;
  return new ClusterConfigMapSource({
    kubeConfig,
    namespace: opts.namespace,
    names: opts.names,
    sink: opts.sink,
    logger: opts.logger,
    metrics: opts.metrics,
    throttle: new RequestThrottle(opts.clientRateLimits ?? resolveClientRateLimits(undefined, undefined)),
    watchdogMs,
    backoff: opts.backoff ?? DEFAULT_BACKOFF,
    watchTimeoutSeconds: timeout === undefined ? undefined : () => timeout,
    observers: opts.observers,
  });
}
