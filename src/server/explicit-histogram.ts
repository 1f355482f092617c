/**
 * A histogram with explicit bounds as Go's exporters print it (client_golang's NewConstHistogram: the series'
 * labels in order, `le` last), on a prom-client Registry, counting a value in a bucket as the Go side does:
 * - "below" (OpenCensus: go.opencensus.io stats/view/aggregation_data.go `(*DistributionData).addToBucket`,
 *   `v < b`; contrib.go.opencensus.io/exporter/prometheus makes the counts cumulative). With Knative 1.17's
 *   whole-millisecond values and bounds, a 1 ms request is in `le="2"`, not `le="1"`;
 * - "at-or-below" (OpenTelemetry's explicit bucket histogram, and Prometheus's own `le`).
 * prom-client's Histogram only counts "at-or-below" and prints `le` first; with `le: "first"` so does this one
 * (Duckbill's own duckbill_* histogram keeps prom-client's text). Unlike a labelled child of prom-client 15's
 * Histogram, which validates and hashes its labels on every `observe` (histogram.js), a series found once is
 * observed without a label object or key.
 */
import type { Registry } from "prom-client";
import { MAX_SERIES_PER_METRIC, SeriesTable } from "./metric-labels.js";

export type BucketBound = "below" | "at-or-below";

/** One series: its labels, and its values counted into the histogram's buckets. */
class Series {
  /** counts[i]: the values in bucket i (not cumulative); the last one counts the values past the last bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
    private readonly bound: BucketBound,
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    if (this.bound === "below") while (i < bounds.length && !(value < (bounds[i] as number))) i++;
    else while (i < bounds.length && !(value <= (bounds[i] as number))) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

/** A series of a histogram, to observe values in. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** The shape prom-client's Registry (and the --workers AggregatorRegistry, which sums) reads from a metric. */
export interface MetricSnapshot {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: { metricName?: string; labels: Record<string, string | number>; value: number }[];
}

/** The metric object prom-client's Registry (and the --workers AggregatorRegistry, which sums) reads. */
export class ExplicitBucketHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series: SeriesTable<readonly string[], Series>;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
    private readonly bound: BucketBound,
    maxSeries = MAX_SERIES_PER_METRIC,
    /** Where `le` goes among a bucket line's labels: last as Go's exporters print it, first as prom-client does. */
    private readonly le: "first" | "last" = "last",
  ) {
    this.series = new SeriesTable(maxSeries);
  }

  register(registry: Registry): void {
    registry.registerMetric(this as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  /**
   * One value for the series whose label values are `values`, in the order of the label names (no label object per
   * call: the hot path builds the series' labels once, when it first appears). Once the histogram holds `maxSeries`
   * series, a new label set is counted in the series of `overflow()`'s values instead.
   */
  observe(values: readonly string[], value: number, overflow: () => readonly string[] = () => values): void {
    this.seriesOf(values, overflow).observe(value);
  }

  /** The series of `values` (see `observe`), for a caller that keeps it to observe values in. */
  seriesOf(values: readonly string[], overflow: () => readonly string[] = () => values): HistogramSeries {
    const key = values.join("\n");
    return this.series.find(key) ?? this.series.add(key, values, (v) => this.newSeries(v), overflow, (v) => v.join("\n"));
  }

  private newSeries(values: readonly string[]): Series {
    const own: Record<string, string> = {};
    this.labelNames.forEach((n, i) => (own[n] = values[i] ?? ""));
    return new Series(own, this.bounds, this.bound);
  }

  /** A bucket line's labels: the series' with `le` where this histogram prints it. */
  private bucketLabels(labels: Readonly<Record<string, string>>, le: number | string): Record<string, string | number> {
    return this.le === "first" ? { le, ...labels } : { ...labels, le };
  }

  /** Each series' labels and how many values it counted (for a counter that is this histogram's count). */
  counts(): Iterable<{ readonly labels: Readonly<Record<string, string>>; readonly count: number }> {
    return this.series.values();
  }

  reset(): void {
    this.series.clear();
  }

  /** prom-client's MetricObjectWithValues: `_bucket` lines with cumulative counts, then `_sum` and `_count`. */
  get(): Promise<MetricSnapshot> {
    const values: MetricSnapshot["values"] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((b, i) => {
        cumulative += s.counts[i] ?? 0;
        values.push({ metricName: `${this.name}_bucket`, labels: this.bucketLabels(s.labels, b), value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: this.bucketLabels(s.labels, "+Inf"), value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/**
 * A counter that is a histogram's count, series by series: what OpenCensus exports as a Count view beside a
 * Distribution view of the same measure and tags (knative.dev/pkg webhook/stats_reporter.go: request_count and
 * request_latencies are both recorded once per request), without counting every request twice.
 */
export class HistogramCount {
  readonly type = "counter";
  readonly aggregator = "sum";

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly of: ExplicitBucketHistogram,
  ) {}

  register(registry: Registry): void {
    registry.registerMetric(this as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  get(): Promise<MetricSnapshot> {
    const values: MetricSnapshot["values"] = [];
    for (const s of this.of.counts()) values.push({ labels: { ...s.labels }, value: s.count });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
