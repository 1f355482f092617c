/**
 * Whether the release's webhook exports its metrics to Prometheus, as config-observability says (`--knative-metrics
 * auto`). Knative 1.17 (knative.dev/pkg metrics/config.go: createMetricsConfig): `metrics.backend-destination`,
 * else the DEFAULT_METRICS_BACKEND environment variable (`--default-metrics-backend`), else `prometheus`, lower-cased; `opencensus` and `none`
 * export nothing to Prometheus. From serving v0.46.0 (knative.dev/pkg observability/metrics/config.go: NewFromMap):
 * `metrics-protocol`, default `none`; only `prometheus` serves a scrape endpoint.
 */
import type { KnativeProfile } from "./profile.js";
import type { ConfigData } from "./types.js";

/** True or false; undefined when the ConfigMap is one Knative rejects (its exporter then stays as it was). */
export function exportsPrometheusMetrics(data: ConfigData | undefined, profile: KnativeProfile, defaultBackend: string): boolean | undefined {
  if (profile.webhookMetrics === "opencensus") {
    let backend = defaultBackend;
    if (backend === "") backend = "prometheus";
    const fromConfig = data?.["metrics.backend-destination"];
    if (fromConfig !== undefined) backend = fromConfig;
    const lower = backend.toLowerCase();
    if (lower === "prometheus") return true;
    return lower === "opencensus" || lower === "none" ? false : undefined;
  }
  // configmap.As trims strings from serving v0.46.0's knative.dev/pkg (profile.configMapParse.trimStrings).
  const raw = data?.["metrics-protocol"];
  const protocol = raw === undefined ? "none" : profile.configMapParse.trimStrings ? raw.trim() : raw;
  if (protocol === "prometheus") return true;
  return ["none", "grpc", "http/protobuf"].includes(protocol) ? false : undefined;
}
