import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { AdmittedSummary } from "../admission/http.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../config/profile.js";
import { KnativeWebhookMetrics, OPENTELEMETRY_DURATION_BUCKETS, type KnativeMetricsFamily } from "./knative-metrics.js";

const MAX_CACHED_LABEL_SETS = 1024;

const LABELS = ["type", "group", "version", "kind", "subresource", "operation", "status"] as const;

/**
 * The webhook's Prometheus metrics, on their own registry (no global state shared between servers): Duckbill's
 * duckbill_* series and, unless `knative` is false, the series Knative's webhook exposes for the release answered as.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  /** Knative's own series (src/server/knative-metrics.ts); undefined with `--knative-metrics false`. */
  readonly knative: KnativeWebhookMetrics | undefined;
  private readonly duration: Histogram<(typeof LABELS)[number]>;
  private readonly denials: Counter<"type" | "group" | "version" | "kind" | "operation">;
  private readonly rejected: Counter<"path" | "code">;

  constructor(opts: { processMetrics?: boolean; knative?: KnativeMetricsFamily | false; knativeExposed?: boolean } = {}) {
    this.duration = new Histogram({
      name: "duckbill_admission_duration_seconds",
      help: "Time to answer one AdmissionReview, from decoded body to encoded answer.",
      labelNames: LABELS,
      // Knative's kn.webhook.handler.duration buckets, in seconds.
      buckets: OPENTELEMETRY_DURATION_BUCKETS,
      registers: [this.registry],
    });
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
   * The histogram's child per label set. `observe(labels, v)` hashes the label object (sorting its keys) on
   * every call; the set of label values is small (types × kinds × operations × outcome), so each child is
   * looked up by one concatenated key instead.
   */
  private readonly children = new Map<string, { observe(v: number): void }>();

  /** One AdmissionReview answered on `path` in `seconds`. */
  observeAdmission(a: AdmittedSummary, seconds: number, path: string): void {
    const { request, response, type } = a;
    const { group, version, kind } = request.kind;
    const status = response.allowed ? "success" : "failure";
    const key = type + "\n" + group + "\n" + version + "\n" + kind + "\n" + request.subResource + "\n" + request.operation + "\n" + status;
    let child = this.children.get(key);
    if (child === undefined) {
      child = this.duration.labels({ type, group, version, kind, subresource: request.subResource, operation: request.operation, status });
      // Kinds and operations come from requests: bound the cache, not the metric (prom-client keeps its own).
      if (this.children.size < MAX_CACHED_LABEL_SETS) this.children.set(key, child);
    }
    child.observe(seconds);
    if (!response.allowed) this.denials.inc({ type, group, version, kind, operation: request.operation });
    this.knative?.observe(a, seconds, path);
  }

  /** Counts an HTTP-level rejection; the path label is bounded to known paths so clients cannot explode cardinality. */
  observeRejection(path: string, code: number): void {
    this.rejected.inc({ path, code: String(code) });
  }
}
