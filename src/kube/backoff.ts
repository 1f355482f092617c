/** Exponential backoff with jitter for reconnecting to the API server (client-go's reflector does the same). */
export interface BackoffPolicy {
  /** Delay after the first failure. */
  readonly initialMs: number;
  /** Ceiling for the delay. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 30_000 };

export class Backoff {
  private failures = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt after one more failure: initial × 2^(n-1), capped, ±20 % jitter. */
  next(): number {
    this.failures++;
    const base = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.min(this.policy.maxMs, Math.round(base * (0.8 + 0.4 * this.random())));
  }

  /** After a success: the next failure waits the initial delay again. */
  reset(): void {
    this.failures = 0;
  }
}
