/**
 * Which `config-observability` keys each schema reads (KnativeProfile.observabilitySchema): the OpenCensus one of
 * knative.dev/pkg metrics/config.go and metrics/config_observability.go (serving v0.44.2), and the OpenTelemetry
 * one of knative.dev/serving pkg/observability/config.go over knative.dev/pkg observability/{tracing,metrics,runtime}
 * (serving v0.46.0 on). Both read the request-log keys; the OpenCensus `metrics.*` and `profiling.enable` keys have
 * no meaning in the OpenTelemetry schema, whose own keys the OpenCensus one never looked at.
 */
import type { KnativeProfile } from "../profile.js";

/** The keys both schemas read (ObservabilityConfig's logging fields; serving's pkg/observability Config). */
const LOGGING_KEYS: ReadonlySet<string> = new Set([
  "logging.enable-var-log-collection",
  "logging.revision-url-template",
  "logging.request-log-template",
  "logging.enable-request-log",
  "logging.enable-probe-request-log",
]);

/**
 * The OpenTelemetry schema's own keys: tracing/config.go, metrics/config.go (also with the prefix `request-` for the
 * request metrics) and runtime/config.go, as observability-otel.ts parses them.
 */
export const OPENTELEMETRY_KEYS: readonly string[] = [
  "tracing-protocol",
  "tracing-endpoint",
  "tracing-sampling-rate",
  "metrics-protocol",
  "metrics-endpoint",
  "metrics-export-interval",
  "runtime-profiling",
  "runtime-export-interval",
  "request-metrics-protocol",
  "request-metrics-endpoint",
  "request-metrics-export-interval",
];

const OPENTELEMETRY_KEY_SET: ReadonlySet<string> = new Set(OPENTELEMETRY_KEYS);

/** The OpenTelemetry key that does the job of an OpenCensus one. */
export const OPENTELEMETRY_COUNTERPARTS: Readonly<Record<string, string>> = {
  "metrics.backend-destination": "metrics-protocol",
  "metrics.request-metrics-backend-destination": "request-metrics-protocol",
  "metrics.reporting-period-seconds": "metrics-export-interval",
  "metrics.request-metrics-reporting-period-seconds": "request-metrics-export-interval",
  "profiling.enable": "runtime-profiling",
};

/** Whether the release's schema reads `key` (`_example` is documentation, read by neither). */
export function readsObservabilityKey(schema: KnativeProfile["observabilitySchema"], key: string): boolean {
  if (LOGGING_KEYS.has(key)) return true;
  if (schema === "opentelemetry") return OPENTELEMETRY_KEY_SET.has(key);
  return key.startsWith("metrics.") || key === "profiling.enable";
}
