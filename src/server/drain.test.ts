import { describe, expect, it, vi } from "vitest";
import { Drainer } from "./drain.js";

describe("Drainer", () => {
  it("is not draining until drain() is called", () => {
    expect(new Drainer(10).isDraining).toBe(false);
  });

  it("resolves one quiet period after the last request, each request pushing it back", async () => {
    const d = new Drainer(120);
    const started = performance.now();
    const done = d.drain();
    expect(d.isDraining).toBe(true);
    await new Promise((r) => setTimeout(r, 80));
    d.touch();
    await done;
    expect(performance.now() - started).toBeGreaterThanOrEqual(80 + 120 - 5);
  });

  it("can be cancelled: once cancelled, the quiet period passing no longer ends the drain", async () => {
    vi.useFakeTimers();
    try {
      const cancelled = new Drainer(100, () => Date.now());
      const control = new Drainer(100, () => Date.now());
      let cancelledDone = false;
      let controlDone = false;
      void cancelled.drain().then(() => (cancelledDone = true));
      void control.drain().then(() => (controlDone = true));
      cancelled.cancel();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(controlDone).toBe(true);
      expect(cancelledDone).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
