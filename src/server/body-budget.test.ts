import { describe, expect, it } from "vitest";
import { BodyBudget } from "./body-budget.js";

describe("BodyBudget", () => {
  it("gives bytes while it has them and takes them back on release", () => {
    const b = new BodyBudget(100);
    const r = b.open(() => undefined);
    expect(r.grow(60)).toBe(true);
    expect(r.grow(40)).toBe(true);
    expect(b.used).toBe(100);
    r.release();
    r.release();
    expect(b.used).toBe(0);
  });

  it("evicts the oldest body still arriving to make room for a newer one", () => {
    const b = new BodyBudget(100);
    const evicted: string[] = [];
    const first = b.open(() => evicted.push("first"));
    const second = b.open(() => evicted.push("second"));
    expect(first.grow(50)).toBe(true);
    expect(second.grow(40)).toBe(true);
    const third = b.open(() => evicted.push("third"));
    expect(third.grow(30)).toBe(true);
    expect(evicted).toEqual(["first"]);
    expect(b.used).toBe(70);
    expect(b.evictions).toBe(1);
    // An evicted body gets nothing more.
    expect(first.grow(1)).toBe(false);
  });

  it("never evicts a complete body: the new one is refused instead", () => {
    const b = new BodyBudget(100);
    let evicted = false;
    const done = b.open(() => (evicted = true));
    expect(done.grow(90)).toBe(true);
    done.complete();
    const late = b.open(() => undefined);
    expect(late.grow(20)).toBe(false);
    expect(evicted).toBe(false);
    expect(b.refusals).toBe(1);
    expect(b.used).toBe(90);
    done.release();
    expect(b.used).toBe(0);
  });

  it("does not evict the asking body itself", () => {
    const b = new BodyBudget(100);
    let evicted = false;
    const big = b.open(() => (evicted = true));
    expect(big.grow(80)).toBe(true);
    expect(big.grow(30)).toBe(false);
    expect(evicted).toBe(false);
    expect(b.used).toBe(0);
  });
});
