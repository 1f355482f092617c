// Duckbill / Knative from one bench run (bench/lib/side-by-side.mjs): which figures are compared, how the ratios
// and the round-by-round ratios are formed, and issue [14]'s targets on them.
import { describe, expect, it } from "vitest";
import type { Phase } from "../../bench/lib/rounds.mjs";
import { knativeTargets, ratio, roundRatios, sideBySide, type BenchResult, type ServerResult } from "../../bench/lib/side-by-side.mjs";

const satRound = (reqPerSec: number, cpu: number, rss: number): Phase => ({ reqPerSec, server: { cpuMicrosPerRequest: cpu, rssMaxPerProcessMB: rss }, latencyMs: {} });
const at1000 = (p50: number, p99: number, cpu: number, rss: number): Phase => ({ targetRate: 1000, achievedRate: 1000, latencyMs: { p50, p99 }, server: { cpuMicrosPerRequest: cpu, rssMaxPerProcessMB: rss } });

/** A server's result as the bench records it: the rounds and their summaries (given, not recomputed here). */
function server(rounds: Phase[], rates: Phase[], summary: { reqPerSec: number; cpu: number; p50: number; p99: number; cpu1000: number; rss: number }): ServerResult {
  return {
    saturationRounds: rounds,
    saturation: { reqPerSec: summary.reqPerSec, server: { cpuMicrosPerRequest: summary.cpu, rssMaxPerProcessMB: summary.rss } },
    at1000Rounds: rates,
    rates: [
      { targetRate: 500, latencyMs: { p50: 9, p99: 9 }, server: { rssMaxPerProcessMB: 1 } },
      { targetRate: 1000, latencyMs: { p50: summary.p50, p99: summary.p99 }, server: { cpuMicrosPerRequest: summary.cpu1000, rssMaxPerProcessMB: summary.rss } },
    ],
  };
}

const duckbill = server([satRound(3000, 200, 95), satRound(3300, 180, 97), satRound(3150, 190, 96)], [at1000(0.3, 1.5, 250, 90), at1000(0.4, 2, 260, 91), at1000(0.35, 1.8, 255, 92)], {
  reqPerSec: 3150,
  cpu: 190,
  p50: 0.35,
  p99: 1.8,
  cpu1000: 255,
  rss: 97,
});
const knative = {
  ...server([satRound(2500, 400, 60), satRound(3000, 380, 62), satRound(2800, 390, 64)], [at1000(0.7, 3, 500, 60), at1000(0.8, 4, 520, 61), at1000(0.75, 3.6, 510, 62)], {
    reqPerSec: 2800,
    cpu: 390,
    p50: 0.75,
    p99: 3.6,
    cpu1000: 510,
    rss: 64,
  }),
  release: "1.24",
};

const row = (r: BenchResult, key: string) => sideBySide(r)?.rows.find((x) => x.key === key);

describe("sideBySide", () => {
  it("compares throughput, CPU per request, latency at 1,000 req/s and peak RSS per process, Duckbill over Knative", () => {
    const s = sideBySide({ defaultWorkers: "1", duckbill, knative });
    expect(s?.release).toBe("1.24");
    expect(s?.rounds).toBe(3);
    expect(s?.rows.map((x) => x.key)).toEqual(["saturation", "cpuPerRequest", "cpuPerRequestAt1000", "p50At1000", "p99At1000", "cpuPerRequestWarmup", "rssPerProcess"]);
    expect(s?.ratios.saturation).toBeCloseTo(3150 / 2800);
    expect(s?.ratios.cpuPerRequest).toBeCloseTo(190 / 390);
    expect(s?.ratios.cpuPerRequestAt1000).toBeCloseTo(255 / 510);
    expect(s?.ratios.p50At1000).toBeCloseTo(0.35 / 0.75);
    expect(s?.ratios.p99At1000).toBeCloseTo(1.8 / 3.6);
    expect(s?.ratios.rssPerProcess).toBeCloseTo(97 / 64);
  });

  it("shows the warm-up's CPU per request apart from the rounds, and counts its RSS in the peak", () => {
    const warm = (cpu: number, rss: number): Phase => ({ reqPerSec: 1, server: { cpuMicrosPerRequest: cpu, rssMaxPerProcessMB: rss }, latencyMs: {} });
    const s = sideBySide({ defaultWorkers: "1", duckbill: { ...duckbill, warmup: warm(450, 99) }, knative: { ...knative, warmup: warm(420, 63) } });
    expect(s?.ratios.cpuPerRequestWarmup).toBeCloseTo(450 / 420);
    expect(s?.ratios.cpuPerRequest).toBeCloseTo(190 / 390);
    // Duckbill's warm-up reached 99 MB, above its rounds' 97; Knative's 63 stays below its 64.
    expect(s?.ratios.rssPerProcess).toBeCloseTo(99 / 64);
  });

  it("pairs each Duckbill round with Knative's round of the same number", () => {
    expect(row({ duckbill, knative }, "saturation")?.roundRatios).toEqual([3000 / 2500, 3300 / 3000, 3150 / 2800]);
    expect(row({ duckbill, knative }, "p99At1000")?.roundRatios).toEqual([1.5 / 3, 2 / 4, 1.8 / 3.6]);
    expect(row({ duckbill, knative }, "rssPerProcess")?.roundRatios).toEqual([]);
  });

  it("takes the peak RSS per process over every phase a server ran", () => {
    const heavy = { ...duckbill, rates: [...(duckbill.rates ?? []), { targetRate: 2000, latencyMs: {}, server: { rssMaxPerProcessMB: 130 } }] };
    expect(row({ duckbill: heavy, knative }, "rssPerProcess")?.duckbill).toBe(130);
  });

  it("uses the single process for the default settings when the default is one process", () => {
    const s = sideBySide({ defaultWorkers: "1", duckbill, knative });
    expect(s?.defaultMeasuredApart).toBe(false);
    expect(s?.ratios.saturationDefault).toBe(s?.ratios.saturation);
  });

  it("uses the default settings' own figures when the run measured them apart", () => {
    const twoWorkers = server([satRound(5000, 210, 98)], [at1000(0.5, 2.5, 270, 98)], { reqPerSec: 5000, cpu: 210, p50: 0.5, p99: 2.5, cpu1000: 270, rss: 98 });
    const s = sideBySide({ defaultWorkers: "0", duckbill, duckbillDefault: twoWorkers, knative });
    expect(s?.defaultMeasuredApart).toBe(true);
    expect(s?.ratios.saturation).toBeCloseTo(3150 / 2800);
    expect(s?.ratios.saturationDefault).toBeCloseTo(5000 / 2800);
    expect(s?.ratios.p99At1000Default).toBeCloseTo(2.5 / 3.6);
  });

  it("gives the floor's figures as context when the floor ran", () => {
    const floor = server([satRound(9000, 50, 70)], [at1000(0.2, 1, 120, 70)], { reqPerSec: 9000, cpu: 50, p50: 0.2, p99: 1, cpu1000: 120, rss: 70 });
    expect(row({ duckbill, knative, floor }, "saturation")?.floor).toBe(9000);
    expect(row({ duckbill, knative }, "saturation")?.floor).toBeUndefined();
  });

  it("is undefined when Knative (or Duckbill) did not run", () => {
    expect(sideBySide({ duckbill })).toBeUndefined();
    expect(sideBySide({ knative })).toBeUndefined();
  });
});

describe("ratio and roundRatios", () => {
  it.each([
    [6, 3, 2],
    [1, 0, undefined],
    [undefined, 3, undefined],
    [null, 3, undefined],
    [Number.NaN, 3, undefined],
  ])("ratio(%s, %s) is %s", (a, b, q) => {
    expect(ratio(a, b)).toBe(q);
  });

  it("pairs rounds up to the shorter list and skips rounds without a figure", () => {
    expect(roundRatios([2, 4, null, 8], [1, 2, 3])).toEqual([2, 2]);
    expect(roundRatios(undefined, [1])).toEqual([]);
  });
});

describe("knativeTargets", () => {
  const rssRow = (duckbill: number, floor: number) => ({ key: "rssPerProcess", label: "", better: "lower", duckbill, duckbillDefault: duckbill, knative: 60, floor, ratio: undefined, ratioDefault: undefined, roundRatios: [] });
  const targets = (ratios: Record<string, number | undefined>, rss = rssRow(85, 70)) =>
    Object.fromEntries(knativeTargets({ rounds: 3, defaultMeasuredApart: false, rows: [rss] as never, ratios }).map((t) => [t.name, t.pass]));

  it("holds the limits: 2.0 × and 1.0 × the throughput, 0.4 × the CPU, p50 no worse and p99 0.5 ×, RSS the floor's + 15 MB", () => {
    const met = targets({ saturationDefault: 2.0, saturation: 1.0, cpuPerRequest: 0.4, p50At1000: 1.0, p99At1000: 0.5 });
    expect(Object.values(met)).toEqual([true, true, true, true, true, true]);
    const missed = targets({ saturationDefault: 1.99, saturation: 0.99, cpuPerRequest: 0.41, p50At1000: 1.01, p99At1000: 0.51 }, rssRow(85.5, 70));
    expect(Object.values(missed)).toEqual([false, false, false, false, false, false]);
  });

  it("reports nothing met or missed when Knative did not run", () => {
    for (const t of knativeTargets(undefined)) {
      expect(t.value).toBeUndefined();
      expect(t.pass).toBeUndefined();
    }
  });
});
