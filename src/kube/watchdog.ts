/**
 * Detects a watch stream that went silent: client-node's watches can hang forever on a half-open connection
 * (no TCP reset, no data), so silence longer than the period is treated as a stall.
 * `touch()` is called per event and costs one assignment; the timer re-arms itself only when it fires.
 */
export class StallWatchdog {
  private last = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly periodMs: number,
    private readonly onStall: (silentMs: number) => void,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.last = this.now();
    this.arm(this.periodMs);
  }

  /** Something arrived: the stream is alive. */
  touch(): void {
    this.last = this.now();
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    const silent = this.now() - this.last;
    if (silent >= this.periodMs) this.onStall(silent);
    else this.arm(this.periodMs - silent);
  }
}
