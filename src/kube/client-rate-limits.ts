/**
 * The API client's request rate (`--kube-api-qps`, `--kube-api-burst`), apart from the client so that reading the
 * settings does not load @kubernetes/client-node (standalone runs never do).
 */
/**
 * Knative's sharedmain (knative.dev/pkg injection/sharedmain/main.go): QPS and burst default to #controllers × 5 and
 * × 10.
 */
export const DEFAULT_CLIENT_QPS = 20;
export const DEFAULT_CLIENT_BURST = 40;

/** float32's largest value, client-go's bound for QPS. */
const MAX_FLOAT32 = 3.4028234663852886e38;

export interface ClientRateLimits {
  readonly qps: number;
  readonly burst: number;
}

/**
 * Checks `--kube-api-qps`/`--kube-api-burst` (KUBE_API_QPS/KUBE_API_BURST) with knative.dev/pkg's messages;
 * 0 or empty means the default. Burst is raised to at least ceil(qps) so the bucket can hold one second's worth.
 */
export function resolveClientRateLimits(qps: string | number | undefined, burst: string | number | undefined): ClientRateLimits {
  const q = qps === undefined || qps === "" ? 0 : Number(qps);
  const b = burst === undefined || burst === "" ? 0 : Number(burst);
  if (!Number.isFinite(q) || q < 0 || q > MAX_FLOAT32) throw new Error(`provided QPS value ${String(qps)} must be >0 and <3.4+e38`);
  if (!Number.isInteger(b) || b < 0) throw new Error(`provided burst value ${String(burst)} must be > 0`);
  const effectiveQps = q === 0 ? DEFAULT_CLIENT_QPS : q;
  const effectiveBurst = b === 0 ? DEFAULT_CLIENT_BURST : b;
  return { qps: effectiveQps, burst: Math.max(effectiveBurst, Math.ceil(effectiveQps)) };
}
