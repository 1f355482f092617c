/**
 * A histogram with explicit bounds as Go's exporters print it (client_golang's NewConstHistogram: the series'
 * labels in order, `le` last), on a prom-client Registry, counting a value in a bucket as the Go side does:
 * - "below" (OpenCensus: go.opencensus.io stats/view/aggregation_data.go `(*DistributionData).addToBucket`,
 *   `v < b`; contrib.go.opencensus.io/exporter/prometheus makes the counts cumulative). With Knative 1.17's
 *   whole-millisecond values and bounds, a 1 ms request is in `le="2"`, not `le="1"`;
 * - "at-or-below" (OpenTelemetry's explicit bucket histogram, and Prometheus's own `le`).
 * prom-client's Histogram only counts "at-or-below" and prints `le` first.
 */
import type { Registry } from "prom-client";

interface Series {
  readonly labels: Readonly<Record<string, string>>;
  /** counts[i]: the values in bucket i (not cumulative); the last one counts the values past the last bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export type BucketBound = "below" | "at-or-below";

/** The metric object prom-client's Registry (and the --workers AggregatorRegistry, which sums) reads. */
export class ExplicitBucketHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
    private readonly bound: BucketBound,
  ) {}

  register(registry: Registry): void {
    registry.registerMetric(this as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  observe(labels: Readonly<Record<string, string>>, value: number): void {
    const key = this.labelNames.map((n) => labels[n] ?? "").join("\n");
    let s = this.series.get(key);
    if (s === undefined) {
      const own: Record<string, string> = {};
      for (const n of this.labelNames) own[n] = labels[n] ?? "";
      s = { labels: own, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    let i = 0;
    const inBucket = this.bound === "below" ? (b: number) => value < b : (b: number) => value <= b;
    while (i < this.bounds.length && !inBucket(this.bounds[i] as number)) i++;
    s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += value;
    s.count++;
  }

  reset(): void {
    this.series.clear();
  }

  /** prom-client's MetricObjectWithValues: `_bucket` lines with cumulative counts, then `_sum` and `_count`. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { metricName: string; labels: Record<string, string | number>; value: number }[] }> {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((b, i) => {
        cumulative += s.counts[i] ?? 0;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: b }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
