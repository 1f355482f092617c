/**
 * Knative's Drainer (knative.dev/pkg network/handlers/drain.go; docs/knative-behavior.md#probes-and-drain): once
 * draining starts, probes fail at once, but admission requests keep being served; the server closes only after `quietPeriodMs` passed with no admission request.
 * Never answers an admission request with 503 because of shutdown.
 */
export class Drainer {
  private draining = false;
  private lastRequestAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly quietPeriodMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get isDraining(): boolean {
    return this.draining;
  }

  /** Called for every non-probe request; each one pushes the end of the drain back. */
  touch(): void {
    this.lastRequestAt = this.now();
  }

  /** Starts draining; resolves once no request arrived for the quiet period. Idempotent. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.lastRequestAt === 0) this.lastRequestAt = this.now();
    return new Promise((resolve) => {
      const check = (): void => {
        const quietFor = this.now() - this.lastRequestAt;
        if (quietFor >= this.quietPeriodMs) {
          this.timer = undefined;
          resolve();
          return;
        }
        this.timer = setTimeout(check, Math.max(1, this.quietPeriodMs - quietFor));
      };
      // A drain that starts now waits a full quiet period from the last request (or from now).
      this.lastRequestAt = Math.max(this.lastRequestAt, this.now());
      check();
    });
  }

  /** Stops waiting (second signal / test teardown). */
  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
