import { describe, expect, it } from "vitest";
import { DEFAULT_AUTOSCALER } from "./autoscaler.js";
import { DEFAULT_DEFAULTS } from "./defaults.js";
import { DEFAULT_FEATURES } from "./features.js";
import { DEFAULT_ADMISSION_CONFIG, parseAdmissionConfig } from "./parse.js";
import { defaultSnapshot, snapshotFrom, type ConfigData } from "./snapshot.js";

function maps(entries: Record<string, ConfigData>): ReadonlyMap<string, ConfigData> {
  return new Map(Object.entries(entries));
}

describe("parseAdmissionConfig", () => {
  it("uses Knative's defaults for absent ConfigMaps", () => {
    const r = parseAdmissionConfig(new Map());
    expect(r.config).toBe(DEFAULT_ADMISSION_CONFIG);
    expect(r.errors.size).toBe(0);
  });

  it("parses each ConfigMap it knows", () => {
    const r = parseAdmissionConfig(
      maps({
        "config-features": { "kubernetes.podspec-affinity": "enabled" },
        "config-defaults": { "revision-timeout-seconds": "120" },
        "config-autoscaler": { "max-scale-limit": "100", "max-scale": "10" },
        "config-network": { anything: "ignored" },
      }),
    );
    expect(r.errors.size).toBe(0);
    expect(r.config.features.podSpecAffinity).toBe("Enabled");
    expect(r.config.defaults.revisionTimeoutSeconds).toBe(120);
    expect(r.config.autoscaler.maxScaleLimit).toBe(100);
  });

  it("falls back to the defaults of a ConfigMap that does not parse and reports why", () => {
    const r = parseAdmissionConfig(
      maps({
        "config-defaults": { "revision-timeout-seconds": "abc" },
        "config-autoscaler": { "stable-window": "1s" },
        "config-features": { "multi-container": "disabled" },
      }),
    );
    expect(r.config.defaults).toBe(DEFAULT_DEFAULTS);
    expect(r.config.autoscaler).toBe(DEFAULT_AUTOSCALER);
    expect(r.config.features.multiContainer).toBe("Disabled");
    expect(Object.fromEntries(r.errors)).toEqual({
      "config-defaults": 'failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "abc": invalid syntax',
      "config-autoscaler": "stable-window = 1s, must be in [6s; 1h0m0s] range",
    });
  });

  it("treats a ConfigMap with only _example as all defaults", () => {
    const r = parseAdmissionConfig(maps({ "config-features": { _example: "multi-container: disabled" } }));
    expect(r.config.features).toBe(DEFAULT_FEATURES);
  });
});

describe("snapshots", () => {
  it("the default snapshot is a frozen singleton with the default admission config", () => {
    const s = defaultSnapshot();
    expect(s).toBe(defaultSnapshot());
    expect(Object.isFrozen(s)).toBe(true);
    expect(s.admission).toBe(DEFAULT_ADMISSION_CONFIG);
    expect(s.configErrors.size).toBe(0);
  });

  it("snapshotFrom parses once and keeps only string values of the data", () => {
    const s = snapshotFrom({ "config-defaults": { "container-concurrency": "10", bogus: 5 as unknown as string } }, "request");
    expect(s.source).toBe("request");
    expect(s.data.get("config-defaults")).toEqual({ "container-concurrency": "10" });
    expect(s.admission.defaults.containerConcurrency).toBe(10);
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.admission)).toBe(true);
  });

  it("snapshotFrom reports ConfigMaps that fell back to defaults", () => {
    const s = snapshotFrom({ "config-autoscaler": { "enable-scale-to-zero": "yes" } }, "dir:/x");
    expect(s.admission.autoscaler).toBe(DEFAULT_AUTOSCALER);
    // Knative 1.24's text (the default release; config_validation/autoscaler-enable-scale-to-zero-invalid).
    expect(s.configErrors.get("config-autoscaler")).toBe('failed to parse data: failed to parse "enable-scale-to-zero": strconv.ParseBool: parsing "yes": invalid syntax');
  });
});
