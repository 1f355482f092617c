import { collectDefaultMetrics, Counter, Registry } from "prom-client";
import type { AdmittedSummary } from "../admission/http.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../config/profile.js";
import { ExplicitBucketHistogram, type HistogramSeries } from "./explicit-histogram.js";
import { KnativeWebhookMetrics, OPENTELEMETRY_DURATION_BUCKETS, type KnativeMetricsFamily } from "./knative-metrics.js";
import { flagLabel, LabelBounds, OVERFLOW_LABELS, SeriesTable, type RequestLabels } from "./metric-labels.js";

const LABELS = ["type", "group", "version", "kind", "subresource", "operation", "status"] as const;

/**
 * The webhook's Prometheus metrics, on their own registry (no global state shared between servers): Duckbill's
 * duckbill_* series and, unless `knative` is false, the series Knative's webhook exposes for the release answered as.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  /** Knative's own series (src/server/knative-metrics.ts); undefined with `--knative-metrics false`. */
  readonly knative: KnativeWebhookMetrics | undefined;
  private readonly duration: ExplicitBucketHistogram;
  private readonly denials: Counter<"type" | "group" | "version" | "kind" | "operation">;
  private readonly rejected: Counter<"path" | "code">;
  private readonly scopeDenials: Counter<"flag">;

  private readonly bounds: LabelBounds;

  constructor(opts: { processMetrics?: boolean; knative?: KnativeMetricsFamily | false; knativeExposed?: boolean; bounds?: LabelBounds } = {}) {
    this.bounds = opts.bounds ?? new LabelBounds();
    // Knative's kn.webhook.handler.duration buckets, in seconds, counted as prom-client's Histogram counts and
    // printed as it prints them (`le` first).
    this.duration = new ExplicitBucketHistogram(
      "duckbill_admission_duration_seconds",
      "Time to answer one AdmissionReview, from decoded body to encoded answer.",
      LABELS,
      OPENTELEMETRY_DURATION_BUCKETS,
      "at-or-below",
      undefined,
      "first",
    );
    this.duration.register(this.registry);
    this.denials = new Counter({
      name: "duckbill_admission_denials_total",
      help: "AdmissionReviews answered with allowed=false.",
      labelNames: ["type", "group", "version", "kind", "operation"],
      registers: [this.registry],
    });
    this.rejected = new Counter({
      name: "duckbill_http_rejections_total",
      help: "Requests answered without an AdmissionReview (undecodable body, wrong Content-Type, unknown path, too large).",
      labelNames: ["path", "code"],
      registers: [this.registry],
    });
    this.scopeDenials = new Counter({
      name: "duckbill_feature_scope_denials_total",
      help: "Denials caused by a feature scope (config-features-scopes): the flag is Disabled in the request's namespace, outside its scope.",
      labelNames: ["flag"],
      registers: [this.registry],
    });
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.knative = opts.knative === false ? undefined : new KnativeWebhookMetrics(this.registry, opts.knative ?? DEFAULT_PROFILE.webhookMetrics, opts.knativeExposed ?? true);
  }

  /** Shows or hides Knative's series (`--knative-metrics auto` following config-observability). */
  setKnativeExposed(exposed: boolean): void {
    this.knative?.setExposed(exposed);
  }

  /** The Knative release answered as changed (`--knative-version auto`): Knative's series follow it. */
  setRelease(profile: KnativeProfile): void {
    this.knative?.setRelease(profile);
  }

  /**
   * The series of each label set, looked up by one concatenated key: no label object is built per request. (A
   * labelled child of prom-client 15's Counter still validates and hashes its labels on every `inc`; the duration
   * histogram is an ExplicitBucketHistogram for that reason, ≈ 0.5 kB per request in bench/allocation.mjs.) Label
   * values are bounded (metric-labels.ts) and so is the number of series: past MAX_SERIES_PER_METRIC, new label sets
   * share the overflow series.
   */
  private readonly durations = new SeriesTable<RequestLabels, HistogramSeries>();
  private readonly denied = new SeriesTable<RequestLabels, { inc(): void }>();

  /** One AdmissionReview answered on `path` in `seconds`. */
  observeAdmission(a: AdmittedSummary, seconds: number, path: string): void {
    const { request, response, type } = a;
    const labels = this.bounds.of(request);
    const status = response.allowed ? "success" : "failure";
    const keyOf = (l: RequestLabels): string => type + "\n" + l.group + "\n" + l.version + "\n" + l.kind + "\n" + l.subresource + "\n" + l.operation + "\n" + status;
    const key = keyOf(labels);
    const overflow = (): RequestLabels => OVERFLOW_LABELS;
    const duration =
      this.durations.find(key) ??
      this.durations.add(key, labels, (l) => this.duration.seriesOf([type, l.group, l.version, l.kind, l.subresource, l.operation, status]), overflow, keyOf);
    duration.observe(seconds);
    if (!response.allowed) {
      const denial = this.denied.find(key) ?? this.denied.add(key, labels, (l) => this.denials.labels({ type, group: l.group, version: l.version, kind: l.kind, operation: l.operation }), overflow, keyOf);
      denial.inc();
      if (a.scopeDenials !== undefined) for (const key of a.scopeDenials) this.scopeDenials.inc({ flag: flagLabel(key) });
    }
    this.knative?.observe(a, labels, seconds, path);
  }

  /** Counts an HTTP-level rejection; the path label is bounded to known paths so clients cannot explode cardinality. */
  observeRejection(path: string, code: number): void {
    this.rejected.inc({ path, code: String(code) });
  }
}
