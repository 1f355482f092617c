// Order statistics for latency samples and benchmark rounds.

/** Nearest-rank percentile (p in 0..100) of an ascending array; NaN when empty. */
export function percentileSorted(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** p50/p90/p99/max of latency samples in ms (the array is sorted in place). */
export function latencySummary(samplesMs) {
  samplesMs.sort((a, b) => a - b);
  return {
    count: samplesMs.length,
    p50: percentileSorted(samplesMs, 50),
    p90: percentileSorted(samplesMs, 90),
    p99: percentileSorted(samplesMs, 99),
    max: samplesMs.length === 0 ? Number.NaN : samplesMs[samplesMs.length - 1],
  };
}

/** The middle value, or the mean of the two middle ones for an even count; NaN when empty. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rounds for display and JSON: keeps 3 significant decimals below 10, fewer above. */
export function round(x, digits = 3) {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
