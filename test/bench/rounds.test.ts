// The bench's alternating rounds (bench/lib/rounds.mjs): the order servers are measured in, and one figure per
// server from its rounds.
import { describe, expect, it } from "vitest";
import { roundSchedule, summariseRounds, type Phase } from "../../bench/lib/rounds.mjs";

describe("roundSchedule", () => {
  it("measures every server once per round, in the given order, round after round", () => {
    expect(roundSchedule(["duckbill", "knative", "floor"], 3).map(({ round, target }) => `${round}:${target}`)).toEqual([
      "1:duckbill",
      "1:knative",
      "1:floor",
      "2:duckbill",
      "2:knative",
      "2:floor",
      "3:duckbill",
      "3:knative",
      "3:floor",
    ]);
  });

  it("gives each server as many rounds as asked, and nothing for no servers", () => {
    expect(roundSchedule(["a"], 1)).toEqual([{ round: 1, target: "a" }]);
    expect(roundSchedule([], 3)).toEqual([]);
  });
});

const sat = (reqPerSec: number, p99: number, cpuMicrosPerRequest: number, rssMaxMB: number, extra: Partial<Phase> = {}): Phase => ({
  reqPerSec,
  connections: 64,
  requests: reqPerSec * 5,
  errors: 0,
  latencyMs: { p50: p99 / 4, p90: p99 / 2, p99, max: p99 * 3 },
  server: { cpuCores: 0.9, machineCpuCores: 1.8, cpuMicrosPerRequest, rssMaxMB, rssMaxPerProcessMB: rssMaxMB },
  client: { cpuCores: 0.5 },
  ...extra,
});

describe("summariseRounds", () => {
  it("takes the median of throughput, latency percentiles and CPU per request over an odd number of rounds", () => {
    const s = summariseRounds([sat(3000, 40, 300, 90), sat(2000, 80, 450, 95), sat(2500, 20, 350, 92)]);
    expect(s.rounds).toBe(3);
    expect(s.reqPerSec).toBe(2500);
    expect(s.latencyMs.p99).toBe(40);
    expect(s.server.cpuMicrosPerRequest).toBe(350);
  });

  it("averages the two middle rounds when there is an even number of them", () => {
    const s = summariseRounds([sat(3000, 40, 300, 90), sat(2000, 80, 400, 95)]);
    expect(s.reqPerSec).toBe(2500);
    expect(s.server.cpuMicrosPerRequest).toBe(350);
    expect(s.latencyMs.p99).toBe(60);
  });

  it("keeps the peak RSS and the largest latency of any round, and sums requests and errors", () => {
    const s = summariseRounds([sat(3000, 40, 300, 90, { errors: 2 }), sat(2000, 80, 400, 120), sat(2500, 20, 350, 92, { errors: 1 })]);
    expect(s.server.rssMaxMB).toBe(120);
    expect(s.server.rssMaxPerProcessMB).toBe(120);
    expect(s.latencyMs.max).toBe(240);
    expect(s.requests).toBe(37_500);
    expect(s.errors).toBe(3);
  });

  it("summarises fixed-rate rounds by their achieved rate and keeps the target rate", () => {
    const paced = (achievedRate: number, p50: number): Phase => ({ targetRate: 1000, achievedRate, requests: 5000, errors: 0, latencyMs: { p50, p90: 1, p99: 2, max: 9 }, server: {}, client: {} });
    const s = summariseRounds([paced(998, 0.4), paced(1000, 0.3), paced(999, 0.5)]);
    expect(s.targetRate).toBe(1000);
    expect(s.achievedRate).toBe(999);
    expect(s.latencyMs.p50).toBe(0.4);
    expect(s.reqPerSec).toBeUndefined();
  });

  it("leaves out rounds where a figure could not be read (no /proc) rather than counting them as zero", () => {
    const s = summariseRounds([sat(3000, 40, 300, 90), sat(2000, 80, 400, 95, { server: { cpuCores: null, cpuMicrosPerRequest: null, rssMaxMB: null } })]);
    expect(s.server.cpuMicrosPerRequest).toBe(300);
    expect(s.server.rssMaxMB).toBe(90);
  });
});
