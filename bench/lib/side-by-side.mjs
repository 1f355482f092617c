// Duckbill / Knative from one bench run: both webhooks (and the floor) measured in the same alternating rounds,
// compared as ratios of their medians, so the machine's speed on the day cancels out.

/** A target's phase at a fixed rate, from its summarised rates. */
export function atRate(target, rate) {
  return target?.rates?.find((r) => r.targetRate === rate);
}

/** Peak RSS of any one process of the target, over every phase it ran. */
export function peakRssPerProcess(t) {
  if (t === undefined) return undefined;
  const phases = [t.warmup, t.saturation, ...(t.rates ?? [])].filter((p) => p?.server?.rssMaxPerProcessMB != null);
  return phases.length === 0 ? undefined : Math.max(...phases.map((p) => p.server.rssMaxPerProcessMB));
}

/**
 * What the side-by-side table compares. `value` reads a target's summary (median of its rounds), `perRound` the
 * same figure in each round (for the round-by-round ratios); `better` says which way a ratio is good.
 */
export const MEASURES = [
  { key: "saturation", label: "saturation, req/s", better: "higher", value: (t) => t.saturation?.reqPerSec, perRound: (t) => t.saturationRounds?.map((p) => p.reqPerSec) },
  {
    key: "cpuPerRequest",
    label: "server CPU per request at saturation, µs",
    better: "lower",
    value: (t) => t.saturation?.server?.cpuMicrosPerRequest,
    perRound: (t) => t.saturationRounds?.map((p) => p.server?.cpuMicrosPerRequest),
  },
  {
    key: "cpuPerRequestAt1000",
    label: "server CPU per request at 1,000 req/s, µs",
    better: "lower",
    value: (t) => atRate(t, 1000)?.server?.cpuMicrosPerRequest,
    perRound: (t) => t.at1000Rounds?.map((p) => p.server?.cpuMicrosPerRequest),
  },
  { key: "p50At1000", label: "p50 at 1,000 req/s, ms", better: "lower", value: (t) => atRate(t, 1000)?.latencyMs?.p50, perRound: (t) => t.at1000Rounds?.map((p) => p.latencyMs?.p50) },
  { key: "p99At1000", label: "p99 at 1,000 req/s, ms", better: "lower", value: (t) => atRate(t, 1000)?.latencyMs?.p99, perRound: (t) => t.at1000Rounds?.map((p) => p.latencyMs?.p99) },
  {
    key: "cpuPerRequestWarmup",
    label: "server CPU per request during the warm-up (a fresh process's first seconds at saturation), µs",
    better: "lower",
    value: (t) => t.warmup?.server?.cpuMicrosPerRequest,
    perRound: () => undefined,
  },
  { key: "rssPerProcess", label: "peak RSS per process, MB", better: "lower", value: peakRssPerProcess, perRound: () => undefined },
];

const usable = (x) => typeof x === "number" && Number.isFinite(x);

/** a / b when both are numbers and b is not 0, else undefined. */
export function ratio(a, b) {
  return usable(a) && usable(b) && b !== 0 ? a / b : undefined;
}

/** a[i] / b[i] for the rounds both have. */
export function roundRatios(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return [];
  const out = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const q = ratio(a[i], b[i]);
    if (q !== undefined) out.push(q);
  }
  return out;
}

/**
 * The side-by-side comparison of a run's result, or undefined when Knative did not run. Duckbill's "default
 * settings" are `result.duckbillDefault` when the run measured them apart, else the single process (the default is
 * one process: `result.defaultWorkers === "1"`). `ratios` holds Duckbill (--workers 1) / Knative per measure, and
 * `<key>Default` for the default settings.
 */
export function sideBySide(result) {
  const knative = result.knative;
  const single = result.duckbill;
  if (knative?.saturation === undefined || single?.saturation === undefined) return undefined;
  const byDefault = result.duckbillDefault ?? single;
  const rows = [];
  const ratios = {};
  for (const m of MEASURES) {
    const row = {
      key: m.key,
      label: m.label,
      better: m.better,
      duckbill: m.value(single),
      duckbillDefault: m.value(byDefault),
      knative: m.value(knative),
      floor: result.floor === undefined ? undefined : m.value(result.floor),
    };
    row.ratio = ratio(row.duckbill, row.knative);
    row.ratioDefault = ratio(row.duckbillDefault, row.knative);
    row.roundRatios = roundRatios(m.perRound(single), m.perRound(knative));
    rows.push(row);
    ratios[m.key] = row.ratio;
    ratios[`${m.key}Default`] = row.ratioDefault;
  }
  return { release: knative.release, rounds: single.saturationRounds?.length ?? 0, defaultMeasuredApart: result.duckbillDefault !== undefined, rows, ratios };
}

/**
 * The targets against Knative and the floor in the same run (the performance issue "toward the floor"): saturation
 * ≥ 2.0 × Knative's with the default settings and ≥ 1.0 × with one process; with one process (`--workers 1`),
 * CPU per request at saturation ≤ 0.4 ×, p50 at 1,000 req/s ≤ Knative's and p99 ≤ 0.5 ×, and peak RSS per
 * process at most the bare Node floor's (same Node.js, same flags, same load) + 15 MB. Each: { name, value, limit,
 * pass } (value and pass undefined when not measured).
 */
export function knativeTargets(sbs) {
  const r = sbs?.ratios ?? {};
  const row = (name, value, limit, atMost) => ({ name, value: usable(value) ? value : undefined, limit, pass: usable(value) ? (atMost ? value <= limit : value >= limit) : undefined });
  const rss = sbs?.rows?.find((x) => x.key === "rssPerProcess");
  const overFloor = usable(rss?.duckbill) && usable(rss?.floor) ? rss.duckbill - rss.floor : undefined;
  return [
    row("saturation, default settings ≥ 2.0 × Knative (ratio)", r.saturationDefault, 2.0, false),
    row("saturation, --workers 1 ≥ 1.0 × Knative (ratio)", r.saturation, 1.0, false),
    row("server CPU per request at saturation, --workers 1 ≤ 0.4 × Knative (ratio)", r.cpuPerRequest, 0.4, true),
    row("p50 at 1,000 req/s, --workers 1 ≤ Knative's (ratio)", r.p50At1000, 1.0, true),
    row("p99 at 1,000 req/s, --workers 1 ≤ 0.5 × Knative's (ratio)", r.p99At1000, 0.5, true),
    row("peak RSS per process, --workers 1, over the floor's (MB, ≤ 15)", overFloor, 15, true),
  ];
}
