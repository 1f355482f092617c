/**
 * `secure-pod-defaults` across releases: parsing (knative.dev/serving pkg/apis/config/features.go: asFlag at v0.44.2,
 * asSecurePodDefaultsFlag from v0.47.0), defaulting (pkg/apis/serving/v1/revision_defaults.go:
 * (*RevisionSpec).defaultSecurityContext), the masks (pkg/apis/serving/fieldmask.go: PodSpecMask,
 * PodSecurityContextMask, CapabilitiesMask) and the insecure-default warnings (pkg/apis/serving/k8s_validation.go:
 * ValidatePodSpec, warnDefaultContainerSecurityContext), each release through its profile.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFeatures } from "../cli/features/features-command.js";
import { renderFieldError, viaField } from "../apis/field-error.js";
import { DEFAULT_DEFAULTS } from "../config/defaults.js";
import { DEFAULT_FEATURES, flagValues, parseFeaturesConfig, parseFlagOf, parseSecurePodDefaults } from "../config/features.js";
import { PROFILES, type KnativeProfile, type KnativeVersion } from "../config/profile.js";
import { snapshotFrom } from "../config/snapshot.js";
import type { Flag } from "../config/types.js";
import type { RequestContext } from "./context.js";
import { validateRevisionSpecWith } from "./podspec.js";
import { defaultRevisionSpec } from "./revision-defaults.js";

type JsonObject = Record<string, unknown>;

const V1_17 = PROFILES["1.17"];
const NEWER: readonly KnativeVersion[] = ["1.23", "1.24"];

function features(secureDefaults: Flag, overrides: JsonObject = {}): typeof DEFAULT_FEATURES {
  return { ...DEFAULT_FEATURES, secureDefaults, ...overrides } as typeof DEFAULT_FEATURES;
}

/** A CREATE under `profile` with config-features `secure-pod-defaults: <flag>`, parsed as the release parses it. */
function context(profile: KnativeProfile, flag: Flag): RequestContext {
  const config = snapshotFrom({ "config-features": { "secure-pod-defaults": flag } }, "test", profile);
  expect(config.admission.features.secureDefaults).toBe(flag);
  return { operation: "CREATE", subResource: "", oldObject: undefined, userInfo: undefined, dryRun: false, config };
}

/** The container securityContexts defaulting leaves, regular then init containers. */
function defaulted(spec: JsonObject, profile: KnativeProfile, flag: Flag): unknown[] {
  defaultRevisionSpec(spec, context(profile, flag), undefined);
  const of = (list: unknown) => (Array.isArray(list) ? list.map((c) => (c as JsonObject)["securityContext"]) : []);
  return [...of(spec["containers"]), ...of(spec["initContainers"])];
}

function validate(spec: JsonObject, profile: KnativeProfile, flag: Flag, overrides: JsonObject = {}): { errors: string; warnings: string } {
  const err = viaField(validateRevisionSpecWith(spec, { features: features(flag, overrides), defaults: DEFAULT_DEFAULTS }, profile), "spec.template.spec");
  return { errors: renderFieldError(err?.filter("Error")), warnings: renderFieldError(err?.filter("Warning")) };
}

describe("secure-pod-defaults values per release", () => {
  it.each<[string, Flag | undefined, Flag | undefined]>([
    ["Enabled", "Enabled", "Enabled"],
    ["enabled", "Enabled", "Enabled"],
    ["Disabled", "Disabled", "Disabled"],
    ["Allowed", "Allowed", undefined],
    ["allowed", "Allowed", undefined],
    ["AllowRootBounded", undefined, "AllowRootBounded"],
    ["allowrootbounded", undefined, "AllowRootBounded"],
    ["ALLOWROOTBOUNDED", undefined, "AllowRootBounded"],
    ["AllowRoot", undefined, undefined],
    [" Enabled", undefined, undefined],
    ["", undefined, undefined],
  ])("%j: 1.17 %s, 1.23/1.24 %s", (raw, old, newer) => {
    expect(parseSecurePodDefaults(raw, V1_17)).toBe(old);
    for (const v of NEWER) expect(parseSecurePodDefaults(raw, PROFILES[v])).toBe(newer);
  });

  it("an unknown value keeps Disabled, so Allowed is Disabled from 1.23 and AllowRootBounded before", () => {
    expect(parseFeaturesConfig({ "secure-pod-defaults": "Allowed" }, PROFILES["1.23"])).toBe(DEFAULT_FEATURES);
    expect(parseFeaturesConfig({ "secure-pod-defaults": "AllowRootBounded" }, V1_17)).toBe(DEFAULT_FEATURES);
    expect(parseFeaturesConfig({ "secure-pod-defaults": "Allowed" }, V1_17).secureDefaults).toBe("Allowed");
    expect(parseFeaturesConfig({ "secure-pod-defaults": "allowRootBounded" }, PROFILES["1.24"]).secureDefaults).toBe("AllowRootBounded");
  });

  it("no other key takes AllowRootBounded", () => {
    expect(parseFeaturesConfig({ "kubernetes.podspec-securitycontext": "AllowRootBounded" }, PROFILES["1.24"]).podSpecSecurityContext).toBe("Disabled");
  });

  it("flagValues / parseFlagOf: secure-pod-defaults has its release's values, every other key asFlag's", () => {
    expect(flagValues("secure-pod-defaults", V1_17)).toEqual(["Enabled", "Allowed", "Disabled"]);
    expect(flagValues("secure-pod-defaults", PROFILES["1.24"])).toEqual(["Disabled", "AllowRootBounded", "Enabled"]);
    expect(flagValues("multi-container", PROFILES["1.24"])).toEqual(["Enabled", "Allowed", "Disabled"]);
    expect(parseFlagOf("secure-pod-defaults", "allowrootbounded", PROFILES["1.23"])).toBe("AllowRootBounded");
    expect(parseFlagOf("multi-container", "AllowRootBounded", PROFILES["1.23"])).toBeUndefined();
  });

  it("`duckbill features` notes the secure-pod-defaults values the release ignores", async () => {
    const dir = mkdtempSync(join(tmpdir(), "duckbill-spd-"));
    try {
      writeFileSync(join(dir, "config-features.yaml"), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\ndata:\n  secure-pod-defaults: "Allowed"\n');
      const run = async (version: KnativeVersion): Promise<{ stdout: string; stderr: string }> => {
        let stdout = "";
        let stderr = "";
        const io = { write: (t: string) => void (stdout += t), error: (t: string) => void (stderr += t), readStdin: async () => "" };
        expect(await runFeatures(["--config-dir", dir, "--knative-version", version], io)).toBe(0);
        return { stdout, stderr };
      };
      const old = await run("1.17");
      expect(old.stdout).toMatch(/^secure-pod-defaults +Allowed +Disabled/m);
      expect(old.stderr).toBe("");
      const newer = await run("1.24");
      expect(newer.stdout).toMatch(/^secure-pod-defaults +Disabled +Disabled/m);
      expect(newer.stderr).toBe('note: config-features "secure-pod-defaults": "Allowed" is not Disabled, AllowRootBounded or Enabled; Knative ignores it and keeps the default\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the snapshot parses config-features with its release's profile", () => {
    const data = { "config-features": { "secure-pod-defaults": "AllowRootBounded" } };
    expect(snapshotFrom(data, "test", PROFILES["1.24"]).admission.features.secureDefaults).toBe("AllowRootBounded");
    expect(snapshotFrom(data, "test", V1_17).admission.features.secureDefaults).toBe("Disabled");
  });
});

describe("secure-pod-defaults defaulting", () => {
  const BOUNDED = { allowPrivilegeEscalation: false, seccompProfile: { type: "RuntimeDefault" }, capabilities: { drop: ["ALL"] } };

  it.each(NEWER)("%s: AllowRootBounded defaults every container like Enabled, without runAsNonRoot", (v) => {
    const spec = { containers: [{ ports: [{ containerPort: 80 }] }, { name: "sidecar" }], initContainers: [{ name: "init" }] };
    expect(defaulted(spec, PROFILES[v], "AllowRootBounded")).toEqual([
      { ...BOUNDED, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } },
      BOUNDED,
      BOUNDED,
    ]);
  });

  it.each(NEWER)("%s: AllowRootBounded defers to the pod's seccomp type and leaves runAsNonRoot alone", (v) => {
    const spec = { securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "p" } }, containers: [{ securityContext: { runAsNonRoot: false } }] };
    expect(defaulted(spec, PROFILES[v], "AllowRootBounded")).toEqual([{ runAsNonRoot: false, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } }]);
  });

  it.each(NEWER)("%s: Enabled keeps a container's explicit runAsNonRoot", (v) => {
    expect(defaulted({ containers: [{ securityContext: { runAsNonRoot: false } }] }, PROFILES[v], "Enabled")).toEqual([{ ...BOUNDED, runAsNonRoot: false }]);
    expect(defaulted({ containers: [{}] }, PROFILES[v], "Enabled")).toEqual([{ ...BOUNDED, runAsNonRoot: true }]);
    expect(defaulted({ securityContext: { runAsNonRoot: false }, containers: [{}] }, PROFILES[v], "Enabled")).toEqual([BOUNDED]);
  });

  it("1.17: Enabled overwrites a container's runAsNonRoot: false when the pod does not set it", () => {
    expect(defaulted({ containers: [{ securityContext: { runAsNonRoot: false } }] }, V1_17, "Enabled")).toEqual([{ ...BOUNDED, runAsNonRoot: true }]);
  });

  it.each<[KnativeVersion, Flag]>([
    ["1.17", "Allowed"],
    ["1.17", "Disabled"],
    ["1.24", "Disabled"],
  ])("%s: %s defaults nothing", (v, flag) => {
    expect(defaulted({ containers: [{ ports: [{ containerPort: 80 }] }], initContainers: [{}] }, PROFILES[v], flag)).toEqual([undefined, undefined]);
  });
});

describe("secure-pod-defaults validation", () => {
  const PLAIN = { containers: [{ image: "busybox" }] };
  const INSECURE = "Kubernetes default value is insecure, Knative may default this to secure in a future release";

  it.each<[KnativeVersion, Flag, boolean]>([
    ["1.17", "Disabled", true],
    ["1.17", "Allowed", true],
    ["1.17", "Enabled", true],
    ["1.23", "Disabled", true],
    ["1.23", "Enabled", false],
    ["1.23", "AllowRootBounded", false],
    ["1.24", "Disabled", true],
    ["1.24", "Enabled", false],
    ["1.24", "AllowRootBounded", false],
  ])("%s, %s: insecure-default warnings %s", (v, flag, warned) => {
    const spec = { ...PLAIN, initContainers: [{ image: "busybox" }] };
    const { warnings } = validate(spec, PROFILES[v], flag, { podSpecInitContainers: "Enabled" });
    expect(warnings.includes(INSECURE)).toBe(warned);
    if (!warned) expect(warnings).toBe("");
  });

  it("the 'ALL' spelling warning goes with the others", () => {
    const spec = { containers: [{ image: "busybox", securityContext: { capabilities: { drop: ["all"] } } }] };
    expect(validate(spec, V1_17, "Enabled").warnings).toContain("Must be spelled as 'ALL'");
    expect(validate(spec, PROFILES["1.24"], "Enabled").warnings).toBe("");
  });

  it.each(NEWER)("%s: AllowRootBounded lets capabilities.add [NET_BIND_SERVICE] and the pod's default seccomp profiles through", (v) => {
    const spec = { securityContext: { seccompProfile: { type: "RuntimeDefault" } }, containers: [{ image: "busybox", securityContext: { capabilities: { add: ["NET_BIND_SERVICE"] } } }] };
    expect(validate(spec, PROFILES[v], "AllowRootBounded").errors).toBe("");
    expect(validate(spec, PROFILES[v], "Disabled").errors).toBe(
      "must not set the field(s): spec.template.spec.containers[0].securityContext.capabilities.add, spec.template.spec.securityContext, spec.template.spec.securityContext.seccompProfile",
    );
  });

  it.each(NEWER)("%s: AllowRootBounded still denies other capabilities and pod fields", (v) => {
    const spec = { securityContext: { runAsUser: 1 }, containers: [{ image: "busybox", securityContext: { capabilities: { add: ["NET_BIND_SERVICE", "SYS_TIME"] } } }] };
    expect(validate(spec, PROFILES[v], "AllowRootBounded").errors).toBe(
      "must not set the field(s): spec.template.spec.containers[0].securityContext.capabilities.add, spec.template.spec.securityContext.runAsUser",
    );
  });

  it("Allowed lets the pod securityContext through PodSpecMask in 1.17; from 1.23 it is Disabled", () => {
    const spec = { securityContext: { runAsUser: 1 }, containers: [{ image: "busybox" }] };
    expect(validate(spec, V1_17, "Allowed").errors).toBe("must not set the field(s): spec.template.spec.securityContext.runAsUser");
    const parsed = parseFeaturesConfig({ "secure-pod-defaults": "Allowed" }, PROFILES["1.23"]).secureDefaults;
    expect(validate(spec, PROFILES["1.23"], parsed).errors).toBe(
      "must not set the field(s): spec.template.spec.securityContext, spec.template.spec.securityContext.runAsUser",
    );
  });
});
