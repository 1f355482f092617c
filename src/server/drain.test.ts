import { describe, expect, it } from "vitest";
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

  it("can be cancelled", async () => {
    const d = new Drainer(60_000);
    let resolved = false;
    void d.drain().then(() => (resolved = true));
    d.cancel();
    await new Promise((r) => setTimeout(r, 20));
    expect(resolved).toBe(false);
  });
});
