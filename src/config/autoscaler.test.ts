import { describe, expect, it } from "vitest";
import { DEFAULT_AUTOSCALER, parseAutoscalerConfig } from "./autoscaler.js";
import { PROFILES, type KnativeProfile } from "./profile.js";
import type { AutoscalerConfig } from "./types.js";

/** Parsed as the release `profile` parses it; without one, as the default (Knative 1.24). */
function ok(data: Record<string, string>, profile?: KnativeProfile): AutoscalerConfig {
  const r = parseAutoscalerConfig(data, profile);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function error(data: Record<string, string>, profile?: KnativeProfile): string {
  const r = parseAutoscalerConfig(data, profile);
  return r.ok ? "<no error>" : r.error;
}

// Ported from serving's pkg/autoscaler/config/config_test.go (TestNewConfig) with Knative's exact texts; the
// default release is Knative 1.24, whose knative.dev/pkg configmap parser names the key of a bool it cannot parse.
describe("parseAutoscalerConfig", () => {
  it("has Knative's defaults", () => {
    expect(ok({})).toEqual(DEFAULT_AUTOSCALER);
    expect(DEFAULT_AUTOSCALER).toMatchObject({
      podAutoscalerClass: "kpa.autoscaling.knative.dev",
      enableScaleToZero: true,
      containerConcurrencyTargetFraction: 0.7,
      targetBurstCapacity: 211,
      stableWindowSeconds: 60,
      scaleToZeroGracePeriodSeconds: 30,
      initialScale: 1,
    });
  });

  it("reads a full configuration", () => {
    const c = ok({
      "pod-autoscaler-class": "hpa.autoscaling.knative.dev",
      "enable-scale-to-zero": "false",
      "allow-zero-initial-scale": "true",
      "max-scale-up-rate": "1.001",
      "max-scale-down-rate": "3",
      "container-concurrency-target-percentage": "50",
      "container-concurrency-target-default": "10.0",
      "requests-per-second-target-default": "1.5",
      "target-burst-capacity": "-1",
      "panic-window-percentage": "20",
      "activator-capacity": "150",
      "panic-threshold-percentage": "300",
      "initial-scale": "0",
      "min-scale": "1",
      "max-scale": "10",
      "max-scale-limit": "100",
      "stable-window": "5m",
      "scale-down-delay": "15m",
      "scale-to-zero-grace-period": "45s",
      "scale-to-zero-pod-retention-period": "1m30s",
    });
    expect(c).toEqual({
      podAutoscalerClass: "hpa.autoscaling.knative.dev",
      enableScaleToZero: false,
      allowZeroInitialScale: true,
      maxScaleUpRate: 1.001,
      maxScaleDownRate: 3,
      containerConcurrencyTargetFraction: 0.5,
      containerConcurrencyTargetDefault: 10,
      rpsTargetDefault: 1.5,
      targetBurstCapacity: -1,
      panicWindowPercentage: 20,
      activatorCapacity: 150,
      panicThresholdPercentage: 300,
      initialScale: 0,
      minScale: 1,
      maxScale: 10,
      maxScaleLimit: 100,
      stableWindowSeconds: 300,
      scaleDownDelaySeconds: 900,
      scaleToZeroGracePeriodSeconds: 45,
      scaleToZeroPodRetentionPeriodSeconds: 90,
    });
  });

  it("keeps percentages in (0, 1] as fractions and divides larger ones by 100", () => {
    expect(ok({ "container-concurrency-target-percentage": "0.5" }).containerConcurrencyTargetFraction).toBe(0.5);
    expect(ok({ "container-concurrency-target-percentage": "1" }).containerConcurrencyTargetFraction).toBe(1);
    expect(ok({ "container-concurrency-target-percentage": "70" }).containerConcurrencyTargetFraction).toBe(0.7);
    expect(ok({ "container-concurrency-target-percentage": "100" }).containerConcurrencyTargetFraction).toBe(1);
  });

  it("passes the class through untrimmed, as knative/pkg's AsString does at v0.44.2 (Knative 1.17)", () => {
    expect(ok({ "pod-autoscaler-class": " keda " }, PROFILES["1.17"]).podAutoscalerClass).toBe(" keda ");
  });

  it("trims the class, as knative/pkg's AsString does from serving v0.46.0 (Knative 1.24)", () => {
    expect(ok({ "pod-autoscaler-class": " keda " }, PROFILES["1.24"]).podAutoscalerClass).toBe("keda");
  });

  it.each([
    [{ "enable-scale-to-zero": "yes" }, 'failed to parse data: failed to parse "enable-scale-to-zero": strconv.ParseBool: parsing "yes": invalid syntax'],
    [{ "allow-zero-initial-scale": "sure" }, 'failed to parse data: failed to parse "allow-zero-initial-scale": strconv.ParseBool: parsing "sure": invalid syntax'],
    [{ "max-scale-up-rate": "fast" }, 'failed to parse data: failed to parse "max-scale-up-rate": strconv.ParseFloat: parsing "fast": invalid syntax'],
    [{ "panic-threshold-percentage": "1e400" }, 'failed to parse data: failed to parse "panic-threshold-percentage": strconv.ParseFloat: parsing "1e400": value out of range'],
    [{ "max-scale": "1.5" }, 'failed to parse data: failed to parse "max-scale": strconv.ParseInt: parsing "1.5": invalid syntax'],
    [{ "max-scale-limit": "2147483648" }, 'failed to parse data: failed to parse "max-scale-limit": strconv.ParseInt: parsing "2147483648": value out of range'],
    [{ "stable-window": "60" }, 'failed to parse data: failed to parse "stable-window": time: missing unit in duration "60"'],
    [{ "scale-down-delay": "1d" }, 'failed to parse data: failed to parse "scale-down-delay": time: unknown unit "d" in duration "1d"'],
    [{ "scale-to-zero-grace-period": "0s" }, "scale-to-zero-grace-period must be positive, was: 0s"],
    [{ "scale-to-zero-grace-period": "-1s" }, "scale-to-zero-grace-period must be positive, was: -1s"],
    [{ "scale-down-delay": "-1s" }, "scale-down-delay cannot be negative, was: -1s"],
    [{ "scale-down-delay": "1.5s" }, "scale-down-delay = 1.5s, must be specified with at most second precision"],
    [{ "scale-to-zero-pod-retention-period": "-1s" }, "scale-to-zero-pod-retention-period cannot be negative, was: -1s"],
    [{ "target-burst-capacity": "-2" }, "target-burst-capacity must be either non-negative or -1 (for unlimited), was: -2.000000"],
    [{ "target-burst-capacity": "-0.5" }, "target-burst-capacity must be either non-negative or -1 (for unlimited), was: -0.500000"],
    [{ "container-concurrency-target-percentage": "0" }, "container-concurrency-target-percentage = 0.000000 is outside of valid range of (0, 100]"],
    [{ "container-concurrency-target-percentage": "101" }, "container-concurrency-target-percentage = 1.010000 is outside of valid range of (0, 100]"],
    [{ "container-concurrency-target-percentage": "-5" }, "container-concurrency-target-percentage = -5.000000 is outside of valid range of (0, 100]"],
    [
      { "container-concurrency-target-percentage": "0.5", "container-concurrency-target-default": "0.01" },
      "container-concurrency-target-percentage and container-concurrency-target-default yield target concurrency of 0.005, can't be less than 0.01",
    ],
    [{ "requests-per-second-target-default": "0.001" }, "requests-per-second-target-default must be at least 0.01, was: 0.001"],
    [{ "activator-capacity": "0.5" }, "activator-capacity = 0.5, must be at least 1"],
    [{ "max-scale-up-rate": "1" }, "max-scale-up-rate = 1, must be greater than 1.0"],
    [{ "max-scale-down-rate": "0.5" }, "max-scale-down-rate = 0.5, must be greater than 1.0"],
    [{ "stable-window": "5s" }, "stable-window = 5s, must be in [6s; 1h0m0s] range"],
    [{ "stable-window": "1h1s" }, "stable-window = 1h0m1s, must be in [6s; 1h0m0s] range"],
    [{ "stable-window": "30.5s" }, "stable-window = 30.5s, must be specified with at most second precision"],
    [{ "panic-window-percentage": "0.5" }, "panic-window-percentage = 0.5, must be in [1, 100] interval"],
    [{ "panic-window-percentage": "101" }, "panic-window-percentage = 101, must be in [1, 100] interval"],
    [{ "initial-scale": "0" }, "initial-scale = 0, must be at least 0 (or at least 1 when allow-zero-initial-scale is false)"],
    [{ "initial-scale": "-1", "allow-zero-initial-scale": "true" }, "initial-scale = -1, must be at least 0 (or at least 1 when allow-zero-initial-scale is false)"],
    [{ "min-scale": "-1" }, "min-scale = -1, must be at least 0"],
    [{ "max-scale": "-1" }, "max-scale = -1, must be in [0, max-scale-limit(0)] range"],
    [{ "max-scale-limit": "10" }, "max-scale = 0, must be in [1, max-scale-limit(10)] range"],
    [{ "max-scale": "5", "max-scale-limit": "3" }, "max-scale = 5, must be in [1, max-scale-limit(3)] range"],
    [{ "max-scale-limit": "-1" }, "max-scale-limit = -1, must be at least 0"],
    [{ "min-scale": "5", "max-scale": "3" }, "min-scale (5) must be less than max-scale (3)"],
  ] as const)("rejects %j", (data, want) => {
    expect(error(data)).toBe(want);
  });

  it("accepts Knative's boundary values", () => {
    expect(ok({ "target-burst-capacity": "0" }).targetBurstCapacity).toBe(0);
    expect(ok({ "stable-window": "6s" }).stableWindowSeconds).toBe(6);
    expect(ok({ "stable-window": "1h" }).stableWindowSeconds).toBe(3600);
    expect(ok({ "panic-window-percentage": "1" }).panicWindowPercentage).toBe(1);
    expect(ok({ "max-scale": "10", "max-scale-limit": "10" }).maxScale).toBe(10);
    expect(ok({ "min-scale": "5", "max-scale": "0" }).minScale).toBe(5);
    expect(ok({ "scale-down-delay": "0s" }).scaleDownDelaySeconds).toBe(0);
    // NaN passes every range check, as in Go.
    expect(Number.isNaN(ok({ "activator-capacity": "NaN" }).activatorCapacity)).toBe(true);
  });

  it("reports parse errors before range checks, in Knative's key order", () => {
    expect(error({ "stable-window": "1s", "max-scale": "x" })).toBe('failed to parse data: failed to parse "max-scale": strconv.ParseInt: parsing "x": invalid syntax');
    expect(error({ "max-scale-up-rate": "x", "enable-scale-to-zero": "x" })).toBe('failed to parse data: failed to parse "enable-scale-to-zero": strconv.ParseBool: parsing "x": invalid syntax');
    expect(error({ "stable-window": "1s", "scale-to-zero-grace-period": "0s" })).toBe("scale-to-zero-grace-period must be positive, was: 0s");
  });

  it.each([
    [{ "enable-scale-to-zero": "yes" }, 'failed to parse data: strconv.ParseBool: parsing "yes": invalid syntax'],
    [{ "allow-zero-initial-scale": "sure" }, 'failed to parse data: strconv.ParseBool: parsing "sure": invalid syntax'],
    [{ "max-scale-up-rate": "x", "enable-scale-to-zero": "x" }, 'failed to parse data: strconv.ParseBool: parsing "x": invalid syntax'],
  ] as const)("Knative 1.17 rejects %j with strconv.ParseBool's error bare (knative/pkg v0.44.2 AsBool)", (data, want) => {
    expect(error(data, PROFILES["1.17"])).toBe(want);
  });
});
