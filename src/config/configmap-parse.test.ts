import { describe, expect, it } from "vitest";
import { goTrimSpace } from "../go/strings/trim.js";
import { asBool, asString } from "./configmap-parse.js";
import { asInt } from "./configmaps/configmap-ints.js";
import { parseDeploymentConfig } from "./configmaps/deployment.js";
import { parseGcConfig } from "./configmaps/gc.js";
import { parseNetworkConfig } from "./configmaps/network.js";
import { parseAutoscalerConfig } from "./autoscaler.js";
import { parseDefaultsConfig } from "./defaults.js";
import { PROFILES } from "./profile.js";

const OLD = PROFILES["1.17"];
const NEW = PROFILES["1.23"];

describe("goTrimSpace (Go's strings.TrimSpace)", () => {
  it("trims Unicode white space at both ends and keeps U+FEFF and inner spaces", () => {
    expect(goTrimSpace(" \t\n\v\f\r a b \u0085\u00a0\u2000\u3000")).toBe("a b");
    expect(goTrimSpace("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
    expect(goTrimSpace("   ")).toBe("");
  });
});

describe("knative.dev/pkg configmap helpers per release", () => {
  it("AsString passes the value through in 1.17 and trims it from 1.19", () => {
    expect(asString({ k: " v " }, "k", "d", OLD.configMapParse)).toBe(" v ");
    expect(asString({ k: " v " }, "k", "d", NEW.configMapParse)).toBe("v");
    expect(asString({}, "k", " d ", NEW.configMapParse)).toBe(" d ");
  });

  it("AsBool returns strconv's error bare in 1.17 and wrapped from 1.19, and never trims", () => {
    expect(asBool({ k: "yes" }, "k", false, OLD.configMapParse)).toEqual({ ok: false, error: 'strconv.ParseBool: parsing "yes": invalid syntax' });
    expect(asBool({ k: "yes" }, "k", false, NEW.configMapParse)).toEqual({ ok: false, error: 'failed to parse "k": strconv.ParseBool: parsing "yes": invalid syntax' });
    expect(asBool({ k: " true " }, "k", false, NEW.configMapParse).ok).toBe(false);
    expect(asBool({ k: "True" }, "k", false, NEW.configMapParse)).toEqual({ ok: true, value: true });
  });

  it("AsInt names strconv.Atoi in 1.17 and strconv.ParseInt from 1.19", () => {
    expect(asInt({ k: "10s" }, "k", 0n, OLD.configMapParse)).toEqual({ ok: false, error: 'failed to parse "k": strconv.Atoi: parsing "10s": invalid syntax' });
    expect(asInt({ k: "10s" }, "k", 0n, NEW.configMapParse)).toEqual({ ok: false, error: 'failed to parse "k": strconv.ParseInt: parsing "10s": invalid syntax' });
    expect(asInt({ k: "9223372036854775808" }, "k", 0n, NEW.configMapParse)).toEqual({
      ok: false,
      error: 'failed to parse "k": strconv.ParseInt: parsing "9223372036854775808": value out of range',
    });
  });
});

// The parsers through the profile, with the 1.23/1.24 vectors' texts.
describe("ConfigMap parsers as 1.17 and 1.23+ parse them", () => {
  it("config-gc: padded values are trimmed from 1.19", () => {
    expect(parseGcConfig({ "max-non-active-revisions": " 5 " }, OLD)).toBe('failed to parse max-non-active-revisions: strconv.ParseUint: parsing " 5 ": invalid syntax');
    expect(parseGcConfig({ "max-non-active-revisions": " 5 " }, NEW)).toBe("min-non-active-revisions(20) must be <= max-non-active-revisions(5)");
    expect(parseGcConfig({ "retain-since-last-active-time": " disabled " }, NEW)).toBeUndefined();
  });

  it("config-network: rollout-duration through ParseInt, bools wrapped, templates trimmed", () => {
    expect(parseNetworkConfig({ "rollout-duration": " 10 " }, NEW)).toBe('failed to parse "rollout-duration": strconv.ParseInt: parsing " 10 ": invalid syntax');
    expect(parseNetworkConfig({ "internal-encryption": "enable" }, NEW)).toBe('failed to parse "internal-encryption": strconv.ParseBool: parsing "enable": invalid syntax');
    expect(parseNetworkConfig({ "internal-encryption": "enable" }, OLD)).toBe('strconv.ParseBool: parsing "enable": invalid syntax');
    expect(parseNetworkConfig({ "domain-template": " {{.Name}}.{{.Namespace}}.{{.Domain}} " }, NEW)).toBeUndefined();
    expect(parseNetworkConfig({ "domain-template": " {{.Name}}.{{.Namespace}}.{{.Domain}} " }, OLD)).toBeDefined();
  });

  it("config-deployment: a blank image is empty from 1.19; pod-is-always-schedulable is a bool from 1.21", () => {
    expect(parseDeploymentConfig({ "queue-sidecar-image": "   " }, NEW)).toBe("queue-sidecar-image cannot be empty or unset");
    expect(parseDeploymentConfig({ "queue-sidecar-image": "   " }, OLD)).toBeUndefined();
    const data = { "queue-sidecar-image": "q", "pod-is-always-schedulable": "yes" };
    expect(parseDeploymentConfig(data, OLD)).toBeUndefined();
    expect(parseDeploymentConfig(data, NEW)).toBe('failed to parse "pod-is-always-schedulable": strconv.ParseBool: parsing "yes": invalid syntax');
    expect(parseDeploymentConfig({ ...data, "pod-is-always-schedulable": "true" }, PROFILES["1.24"])).toBeUndefined();
  });

  it("config-defaults and config-autoscaler: wrapped bool errors from 1.19", () => {
    const d = parseDefaultsConfig({ "allow-container-concurrency-zero": "maybe" }, NEW);
    expect(d.ok ? undefined : d.error).toBe('failed to parse "allow-container-concurrency-zero": strconv.ParseBool: parsing "maybe": invalid syntax');
    const a = parseAutoscalerConfig({ "enable-scale-to-zero": " true " }, NEW);
    expect(a.ok ? undefined : a.error).toBe('failed to parse data: failed to parse "enable-scale-to-zero": strconv.ParseBool: parsing " true ": invalid syntax');
    const o = parseAutoscalerConfig({ "enable-scale-to-zero": "yes" }, OLD);
    expect(o.ok ? undefined : o.error).toBe('failed to parse data: strconv.ParseBool: parsing "yes": invalid syntax');
  });
});
