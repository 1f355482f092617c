/**
 * The Prometheus series Knative's own webhook exposes for the admission requests it answers, with Knative's names,
 * label names and label values, for the release answered as (`profile.webhookMetrics`), beside Duckbill's
 * duckbill_* series: Knative's dashboards and alerts read these (docs/adr/0015-knative-metrics-and-tls.md).
 */
import type { Registry } from "prom-client";
import type { AdmittedSummary } from "../admission/http.js";
import type { KnativeProfile } from "../config/profile.js";
import { ExplicitBucketHistogram, HistogramCount } from "./explicit-histogram.js";
import { OVERFLOW_LABELS, type RequestLabels } from "./metric-labels.js";

export type KnativeMetricsFamily = KnativeProfile["webhookMetrics"];

/** knative.dev/pkg metrics/record.go: Buckets125(1, 100000), the request_latencies view's bounds (ms). */
export const OPENCENSUS_LATENCY_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];

/** knative.dev/pkg webhook/metrics.go: newMetrics, the bounds of kn.webhook.handler.duration (s). */
export const OPENTELEMETRY_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * knative.dev/pkg webhook/stats_reporter.go: the tag keys of both views (RegisterMetrics registers the admission and
 * the conversion tags on each; an admission request leaves the conversion ones empty), sorted as OpenCensus's
 * view.Register sorts them. The Prometheus exporter's namespace is the component, "webhook"
 * (knative.dev/pkg metrics/prometheus_exporter.go: newPrometheusExporter; serving's cmd/webhook/main.go).
 */
const OPENCENSUS_LABELS = [
  "admission_allowed",
  "desired_api_version",
  "kind_group",
  "kind_kind",
  "kind_version",
  "request_operation",
  "resource_group",
  "resource_namespace",
  "resource_resource",
  "resource_version",
  "result_code",
  "result_reason",
  "result_status",
] as const;

/**
 * knative.dev/pkg webhook/admission.go: admissionHandler's attributes, plus `http.route` that webhook.go's
 * routeLabeler adds to the same otelhttp labeler, then the scope labels go.opentelemetry.io/otel/exporters/prometheus
 * (exporter.go: Collect) adds; dots become underscores (otlptranslator.UnderscoreEscapingWithSuffixes).
 */
const OPENTELEMETRY_LABELS = [
  "http_route",
  "kn_webhook_operation_status",
  "kn_webhook_operation_type",
  "kn_webhook_resource_group",
  "kn_webhook_resource_kind",
  "kn_webhook_resource_version",
  "kn_webhook_subresource",
  "kn_webhook_type",
  "otel_scope_name",
  "otel_scope_schema_url",
  "otel_scope_version",
] as const;

/** The meter knative.dev/pkg webhook/metrics.go records with (scopeName; no version, no schema URL). */
const OTEL_SCOPE_NAME = "knative.dev/pkg/webhook";

interface Family {
  readonly metrics: readonly { register(registry: Registry): void; readonly name: string }[];
  /** `labels`: the request's values, bounded (metric-labels.ts). */
  observe(a: AdmittedSummary, labels: RequestLabels, seconds: number, path: string): void;
  reset(): void;
}

function openCensusFamily(): Family {
  const latencies = new ExplicitBucketHistogram("webhook_request_latencies", "The response time in milliseconds", OPENCENSUS_LABELS, OPENCENSUS_LATENCY_BUCKETS, "below");
  const count = new HistogramCount("webhook_request_count", "The number of requests that are routed to webhook", latencies);
  return {
    metrics: [count, latencies],
    observe({ response }, labels, seconds) {
      // OPENCENSUS_LABELS' order; the conversion tags are empty for an admission request.
      const values = (l: RequestLabels): string[] => [
        String(response.allowed),
        "",
        l.group,
        l.kind,
        l.version,
        l.operation,
        l.resourceGroup,
        l.namespace,
        l.resource,
        l.resourceVersion,
        "",
        "",
        "",
      ];
      // ReportAdmissionRequest records float64(d.Milliseconds()): whole milliseconds, truncated (from whole
      // microseconds, so that 0.009 s is not 8.999… ms).
      latencies.observe(values(labels), Math.trunc(Math.round(seconds * 1e6) / 1000), () => values(OVERFLOW_LABELS));
    },
    reset() {
      latencies.reset();
    },
  };
}

function openTelemetryFamily(): Family {
  const duration = new ExplicitBucketHistogram("kn_webhook_handler_duration_seconds", "The duration of task execution.", OPENTELEMETRY_LABELS, OPENTELEMETRY_DURATION_BUCKETS, "at-or-below");
  return {
    metrics: [duration],
    observe({ response }, labels, seconds, path) {
      // OPENTELEMETRY_LABELS' order. kn.webhook.type is WebhookTypeAdmission for defaulting and validation alike
      // (the other values are for conversion); the scope has a name only.
      const status = response.allowed ? "success" : "failure";
      const values = (l: RequestLabels): string[] => [path, status, l.operation, l.group, l.kind, l.version, l.subresource, "admission", OTEL_SCOPE_NAME, "", ""];
      duration.observe(values(labels), seconds, () => values(OVERFLOW_LABELS));
    },
    reset() {
      duration.reset();
    },
  };
}

/**
 * The Knative-named series of one release family on `registry`. A change of release (`--knative-version auto`
 * following the cluster) drops the old family's series and starts the new one's, as the upgraded Knative webhook
 * would start with none.
 */
export class KnativeWebhookMetrics {
  private readonly families: Readonly<Record<KnativeMetricsFamily, Family>> = { opencensus: openCensusFamily(), opentelemetry: openTelemetryFamily() };
  private current: KnativeMetricsFamily;
  private exposed: boolean;

  constructor(
    private readonly registry: Registry,
    family: KnativeMetricsFamily,
    exposed = true,
  ) {
    this.current = family;
    this.exposed = exposed;
    if (exposed) for (const m of this.families[family].metrics) m.register(registry);
  }

  /** Whether the series are on the registry (`--knative-metrics auto`: config-observability's exporter). */
  get isExposed(): boolean {
    return this.exposed;
  }

  /**
   * Shows or hides the series, as Knative's exporter starts or stops serving them when config-observability
   * changes; hidden series count nothing and start again from zero, as a new exporter does.
   */
  setExposed(exposed: boolean): void {
    if (exposed === this.exposed) return;
    this.exposed = exposed;
    const family = this.families[this.current];
    if (exposed) {
      for (const m of family.metrics) m.register(this.registry);
    } else {
      for (const m of family.metrics) this.registry.removeSingleMetric(m.name);
      family.reset();
    }
  }

  get family(): KnativeMetricsFamily {
    return this.current;
  }

  /** Switches to the family of `profile`'s release (no-op when it is the one in use). */
  setRelease(profile: KnativeProfile): void {
    const next = profile.webhookMetrics;
    if (next === this.current) return;
    const old = this.families[this.current];
    if (this.exposed) for (const m of old.metrics) this.registry.removeSingleMetric(m.name);
    old.reset();
    this.current = next;
    if (this.exposed) for (const m of this.families[next].metrics) m.register(this.registry);
  }

  /** One AdmissionReview answered on `path`, in `seconds`; `labels` are its values, bounded (metric-labels.ts). */
  observe(a: AdmittedSummary, labels: RequestLabels, seconds: number, path: string): void {
    if (this.exposed) this.families[this.current].observe(a, labels, seconds, path);
  }
}
