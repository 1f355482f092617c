import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cgroupCpuLimit, parseCfsQuota, parseCpuMax, usableCpus } from "./cpu-limit.js";
import { workerCount } from "./workers.js";

const fixtures = resolve(import.meta.dirname, "../../../test/fixtures/cgroup");
const root = (name: string): string => join(fixtures, name);

describe("the cgroup CPU limit", () => {
  it.each([
    ["v2-two-and-a-half", 2.5],
    ["v2-no-limit", undefined],
    ["v2-host-path", 0.5],
    ["v2-spaced-mount", 1],
    ["v1-container", 3],
    ["hybrid-unlimited", undefined],
    ["hybrid-limited", 1.5],
    ["no-cgroup", undefined],
  ])("reads %s as %s CPUs", (name, cpus) => {
    expect(cgroupCpuLimit(root(name))).toBe(cpus);
  });

  it.each([
    ["max 100000", undefined],
    ["max", undefined],
    ["200000 100000\n", 2],
    ["50000 100000", 0.5],
    ["0 100000", undefined],
    ["", undefined],
  ])("parses cpu.max %j", (text, cpus) => {
    expect(parseCpuMax(text)).toBe(cpus);
  });

  it.each([
    ["-1", "100000", undefined],
    ["150000", "100000", 1.5],
    ["100000", "0", undefined],
    ["junk", "100000", undefined],
  ])("parses cpu.cfs_quota_us %s over cpu.cfs_period_us %s", (quota, period, cpus) => {
    expect(parseCfsQuota(quota, period)).toBe(cpus);
  });
});

describe("the CPUs the process may use (--workers auto)", () => {
  it.each([
    ["v2-two-and-a-half", 8, 3],
    ["v2-two-and-a-half", 2, 2],
    ["v2-host-path", 8, 1],
    ["v1-container", 64, 3],
    ["hybrid-limited", 4, 2],
    ["v2-no-limit", 6, 6],
    ["no-cgroup", 4, 4],
  ])("%s with %d CPUs to run on: %d", (name, cpus, expected) => {
    expect(usableCpus(root(name), cpus)).toBe(expected);
    expect(workerCount("auto", () => usableCpus(root(name), cpus))).toBe(expected);
  });
});
