import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { AdmittedSummary } from "../admission/http.js";

/** Knative's kn.webhook.handler.duration buckets (knative.dev/pkg webhook/metrics.go), in seconds. */
export const ADMISSION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const MAX_CACHED_LABEL_SETS = 1024;

const LABELS = ["type", "group", "version", "kind", "subresource", "operation", "status"] as const;

/** The webhook's Prometheus metrics, on their own registry (no global state shared between servers). */
export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly duration: Histogram<(typeof LABELS)[number]>;
  private readonly denials: Counter<"type" | "group" | "version" | "kind" | "operation">;
  private readonly rejected: Counter<"path" | "code">;

  constructor(opts: { processMetrics?: boolean } = {}) {
    this.duration = new Histogram({
      name: "duckbill_admission_duration_seconds",
      help: "Time to answer one AdmissionReview, from decoded body to encoded answer.",
      labelNames: LABELS,
      buckets: ADMISSION_BUCKETS,
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
  }

  /**
   * The histogram's child per label set. `observe(labels, v)` hashes the label object (sorting its keys) on
   * every call; the set of label values is small (types × kinds × operations × outcome), so each child is
   * looked up by one concatenated key instead.
   */
  private readonly children = new Map<string, { observe(v: number): void }>();

  observeAdmission(a: AdmittedSummary, seconds: number): void {
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
  }

  /** Counts an HTTP-level rejection; the path label is bounded to known paths so clients cannot explode cardinality. */
  observeRejection(path: string, code: number): void {
    this.rejected.inc({ path, code: String(code) });
  }
}
