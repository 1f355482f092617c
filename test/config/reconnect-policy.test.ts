/** The pieces that decide when a watch is retried: backoff and the stall watchdog. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Backoff } from "../../src/kube/backoff.js";
import { StallWatchdog } from "../../src/kube/watchdog.js";

describe("Backoff", () => {
  it("doubles from the initial delay up to the ceiling, and starts over after reset", () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 0.5);
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([100, 200, 400, 800, 1000, 1000]);
    b.reset();
    expect(b.next()).toBe(100);
  });

  it.each([
    { random: 0, want: 80 },
    { random: 1, want: 120 },
  ])("jitters by ±20 % (random=$random → $want)", ({ random, want }) => {
    expect(new Backoff({ initialMs: 100, maxMs: 1000 }, () => random).next()).toBe(want);
  });
});

describe("StallWatchdog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires after a full period of silence", () => {
    const stalls: number[] = [];
    const w = new StallWatchdog(1000, (silent) => stalls.push(silent));
    w.start();
    vi.advanceTimersByTime(999);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls).toEqual([1000]);
  });

  it("measures silence from the last touch", () => {
    const stalls: number[] = [];
    const w = new StallWatchdog(1000, (silent) => stalls.push(silent));
    w.start();
    vi.advanceTimersByTime(600);
    w.touch();
    vi.advanceTimersByTime(900);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(stalls).toEqual([1000]);
  });

  it("never fires once stopped", () => {
    const stalls: number[] = [];
    const w = new StallWatchdog(1000, (silent) => stalls.push(silent));
    w.start();
    w.stop();
    vi.advanceTimersByTime(5000);
    expect(stalls).toEqual([]);
  });
});
