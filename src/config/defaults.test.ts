import { describe, expect, it } from "vitest";
import { DEFAULT_DEFAULTS, parseDefaultsConfig } from "./defaults.js";
import { PROFILES, type KnativeProfile } from "./profile.js";
import type { DefaultsConfig } from "./types.js";

/** Parsed as the release `profile` parses it; without one, as the default (Knative 1.24). */
function ok(data: Record<string, string>, profile?: KnativeProfile): DefaultsConfig {
  const r = parseDefaultsConfig(data, profile);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function error(data: Record<string, string>, profile?: KnativeProfile): string {
  const r = parseDefaultsConfig(data, profile);
  return r.ok ? "<no error>" : r.error;
}

// Ported from serving's pkg/apis/config/defaults_test.go (TestDefaultsConfiguration) with Knative's exact texts; the
// default release is Knative 1.24, whose knative.dev/pkg configmap parser names the key of a bool it cannot parse.
describe("parseDefaultsConfig", () => {
  it("has Knative's defaults", () => {
    const d = ok({});
    const { userContainerName, initContainerName, ...rest } = d;
    const { userContainerName: _u, initContainerName: _i, ...defaults } = DEFAULT_DEFAULTS;
    expect(rest).toEqual(defaults);
    expect(defaults).toMatchObject({
      revisionTimeoutSeconds: 300,
      maxRevisionTimeoutSeconds: 600,
      revisionResponseStartTimeoutSeconds: 300,
      revisionIdleTimeoutSeconds: 0,
      containerConcurrency: 0,
      containerConcurrencyMaxLimit: 1000,
      allowContainerConcurrencyZero: true,
      enableServiceLinks: false,
    });
    expect(userContainerName(undefined)).toBe("user-container");
    expect(initContainerName({ name: "x" })).toBe("init-container");
  });

  it("reads specified values", () => {
    const d = ok({
      "revision-timeout-seconds": "123",
      "max-revision-timeout-seconds": "456",
      "revision-idle-timeout-seconds": "100",
      "revision-cpu-request": "123m",
      "revision-memory-limit": "0.5Gi",
      "revision-ephemeral-storage-request": "1073741824",
      "container-concurrency": "10",
      "container-concurrency-max-limit": "1984",
      "container-name-template": "{{.Name}}",
      "init-container-name-template": "{{.Name}}-init",
      "allow-container-concurrency-zero": "false",
      "enable-service-links": "true",
    });
    expect(d).toMatchObject({
      revisionTimeoutSeconds: 123,
      maxRevisionTimeoutSeconds: 456,
      revisionResponseStartTimeoutSeconds: 123,
      revisionIdleTimeoutSeconds: 100,
      containerConcurrency: 10,
      containerConcurrencyMaxLimit: 1984,
      allowContainerConcurrencyZero: false,
      enableServiceLinks: true,
      revisionCpuRequest: "123m",
      revisionMemoryLimit: "512Mi",
      revisionEphemeralStorageRequest: "1073741824",
      revisionCpuLimit: undefined,
    });
    expect(d.userContainerName({ name: "svc" })).toBe("svc");
    expect(d.initContainerName({ name: "svc" })).toBe("svc-init");
    expect(d.userContainerName(undefined)).toBe("");
  });

  it.each([
    ["FALSE", false],
    ["false", false],
    ["True", true],
    ["default", undefined],
    ["", undefined],
  ] as const)("reads enable-service-links %j as %s", (raw, want) => {
    expect(ok({ "enable-service-links": raw }).enableServiceLinks).toBe(want);
  });

  it("defaults the response-start timeout to the configured revision timeout", () => {
    expect(ok({ "revision-timeout-seconds": "100" }).revisionResponseStartTimeoutSeconds).toBe(100);
    expect(ok({ "revision-timeout-seconds": "100", "revision-response-start-timeout-seconds": "60" }).revisionResponseStartTimeoutSeconds).toBe(60);
  });

  it("renders a name template that fails on the parent's metadata as an empty name", () => {
    // Passes the empty-ObjectMeta check (a missing label is "no value"), fails once the label is a string.
    const d = ok({ "container-name-template": "{{.Labels.app.x}}" });
    expect(d.userContainerName({ name: "a" })).toBe("<no value>");
    expect(d.userContainerName({ name: "a", labels: { app: "web" } })).toBe("");
  });

  it.each([
    [{ "revision-timeout-seconds": "asdf" }, 'failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "asdf": invalid syntax'],
    [{ "revision-timeout-seconds": "" }, 'failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "": invalid syntax'],
    [{ "max-revision-timeout-seconds": "9223372036854775808" }, 'failed to parse "max-revision-timeout-seconds": strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    [{ "container-concurrency": "ten" }, 'failed to parse "container-concurrency": strconv.ParseInt: parsing "ten": invalid syntax'],
    [{ "revision-response-start-timeout-seconds": "1.5" }, 'failed to parse "revision-response-start-timeout-seconds": strconv.ParseInt: parsing "1.5": invalid syntax'],
    [{ "allow-container-concurrency-zero": "maybe" }, 'failed to parse "allow-container-concurrency-zero": strconv.ParseBool: parsing "maybe": invalid syntax'],
    [{ "container-name-template": "{{.NAme}" }, "template: container-template:1: bad character U+007D '}'"],
    [{ "container-name-template": "{{.Name" }, "template: container-template:1: unclosed action"],
    [{ "init-container-name-template": "{{" }, "template: container-template:1: unclosed action"],
    [{ "container-name-template": "{{.NAme}}" }, 'error executing template: template: container-template:1:2: executing "container-template" at <.NAme>: can\'t evaluate field NAme in type v1.ObjectMeta'],
    [{ "init-container-name-template": "{{.Foo}}" }, 'error executing template: template: container-template:1:2: executing "container-template" at <.Foo>: can\'t evaluate field Foo in type v1.ObjectMeta'],
    [{ "revision-cpu-request": "bad" }, "failed to parse \"revision-cpu-request\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    [{ "revision-memory-limit": "1iK" }, 'failed to parse "revision-memory-limit": unable to parse quantity\'s suffix'],
    [{ "revision-timeout-seconds": "456", "max-revision-timeout-seconds": "123" }, "revision-timeout-seconds (456) cannot be greater than max-revision-timeout-seconds (123)"],
    [{ "max-revision-timeout-seconds": "200" }, "revision-timeout-seconds (300) cannot be greater than max-revision-timeout-seconds (200)"],
    [{ "revision-timeout-seconds": "9223372036854775807" }, "revision-timeout-seconds (9223372036854775807) cannot be greater than max-revision-timeout-seconds (600)"],
    [{ "revision-response-start-timeout-seconds": "400" }, "revision-response-start-timeout-seconds (400) cannot be greater than revision-timeout-seconds (300)"],
    [{ "revision-idle-timeout-seconds": "301" }, "revision-idle-timeout-seconds (301) cannot be greater than revision-timeout-seconds (300)"],
    [{ "container-concurrency-max-limit": "0" }, "expected 1 <= 0 <= 2147483647: container-concurrency-max-limit"],
    [{ "container-concurrency": "2000" }, "expected 0 <= 2000 <= 1000: container-concurrency"],
    [{ "container-concurrency": "200", "container-concurrency-max-limit": "100" }, "expected 0 <= 200 <= 100: container-concurrency"],
    [{ "container-concurrency": "-1" }, "expected 0 <= -1 <= 1000: container-concurrency"],
  ] as const)("rejects %j", (data, want) => {
    expect(error(data)).toBe(want);
  });

  it("reports the first error in Knative's order", () => {
    // Templates are parsed before numbers; numbers before the cross-key checks.
    expect(error({ "container-name-template": "{{", "revision-timeout-seconds": "x" })).toBe("template: container-template:1: unclosed action");
    expect(error({ "revision-timeout-seconds": "x", "allow-container-concurrency-zero": "x" })).toBe('failed to parse "allow-container-concurrency-zero": strconv.ParseBool: parsing "x": invalid syntax');
    expect(error({ "revision-timeout-seconds": "700", "container-concurrency": "5000" })).toBe("revision-timeout-seconds (700) cannot be greater than max-revision-timeout-seconds (600)");
  });

  it.each([
    [{ "allow-container-concurrency-zero": "maybe" }, 'strconv.ParseBool: parsing "maybe": invalid syntax'],
    [{ "revision-timeout-seconds": "x", "allow-container-concurrency-zero": "x" }, 'strconv.ParseBool: parsing "x": invalid syntax'],
  ] as const)("Knative 1.17 rejects %j with strconv.ParseBool's error bare (knative/pkg v0.44.2 AsBool)", (data, want) => {
    expect(error(data, PROFILES["1.17"])).toBe(want);
  });

  it("accepts boundaries Knative accepts", () => {
    expect(ok({ "revision-timeout-seconds": "600" }).revisionTimeoutSeconds).toBe(600);
    expect(ok({ "revision-timeout-seconds": "-1" }).revisionResponseStartTimeoutSeconds).toBe(-1);
    expect(ok({ "container-concurrency": "100", "container-concurrency-max-limit": "100" }).containerConcurrency).toBe(100);
    expect(ok({ "revision-idle-timeout-seconds": "-5" }).revisionIdleTimeoutSeconds).toBe(-5);
  });
});
