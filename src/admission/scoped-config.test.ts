import { describe, expect, it } from "vitest";
import { snapshotFrom } from "../config/snapshot.js";
import type { NamespaceLabelsView } from "../config/feature-scopes.js";
import { defaultDeps } from "../cli/deps.js";
import { GatedUsageIndex, usageBits } from "../serving/gated-usage.js";
import { admissionRequest } from "../../test/support/admission-request.js";
import { admitConfigMap } from "./config-validation.js";
import { relabelImpact, scopesDenying } from "./scoped-config.js";
import { admitValidation } from "./validation.js";

const deps = defaultDeps();
const RUNTIME = "kubernetes.podspec-runtimeclassname";
const HOSTPATH = "kubernetes.podspec-volumes-hostpath";
const config = snapshotFrom(
  {
    "config-features": { [RUNTIME]: "Allowed", [HOSTPATH]: "Enabled" },
    "config-features-scopes": { [RUNTIME]: "selector:\n  tenant: platform\nnamespaces: [tools]", [HOSTPATH]: "namespaces: [tools]" },
  },
  "test",
);

const LABELS: Record<string, Record<string, string>> = { platform: { tenant: "platform" }, "team-b": { tenant: "b" }, tools: {} };
const namespaces: NamespaceLabelsView = {
  labels: (ns) => (LABELS[ns] === undefined ? undefined : new Map(Object.entries(LABELS[ns] ?? {}))),
  synced: () => true,
};

function service(namespace: string, podSpec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: "serving.knative.dev/v1",
    kind: "Service",
    metadata: { name: "hello", namespace },
    spec: { template: { spec: { containers: [{ image: "example.com/app" }], ...podSpec } }, traffic: [{ latestRevision: true, percent: 100 }] },
  };
}

const RUNTIME_SPEC = { runtimeClassName: "gvisor" };

describe("validation with feature scopes", () => {
  it("admits a gated field inside the scope (by label or by name)", async () => {
    for (const ns of ["platform", "tools"]) {
      const d = await admitValidation(admissionRequest({ namespace: ns, object: service(ns, RUNTIME_SPEC) }), deps, { config, namespaces });
      expect(d.allowed).toBe(true);
    }
  });

  it("denies it outside the scope with Knative's message and one line naming the scope and the namespace", async () => {
    const d = await admitValidation(admissionRequest({ namespace: "team-b", object: service("team-b", RUNTIME_SPEC) }), deps, { config, namespaces });
    expect(d).toMatchObject({
      allowed: false,
      message:
        "validation failed: must not set the field(s): spec.template.spec.runtimeClassName\n" +
        'feature kubernetes.podspec-runtimeclassname is Allowed cluster-wide but Disabled in namespace "team-b": the namespace is outside its scope in ConfigMap config-features-scopes (selector tenant=platform; namespaces tools)',
      scopeDenials: [RUNTIME],
    });
  });

  it("denies as Knative does with the flag Disabled, the scope line aside", async () => {
    const disabled = snapshotFrom({ "config-features": { [HOSTPATH]: "Enabled" } }, "test");
    const object = service("team-b", RUNTIME_SPEC);
    const knative = await admitValidation(admissionRequest({ namespace: "team-b", object }), deps, { config: disabled });
    const scoped = await admitValidation(admissionRequest({ namespace: "team-b", object }), deps, { config, namespaces });
    expect(scoped.message?.split("\n")[0]).toBe(knative.message);
  });

  it("names only the scopes that changed the answer", async () => {
    const object = service("team-b", { volumes: [{ name: "h", hostPath: { path: "/tmp" } }] });
    const d = await admitValidation(admissionRequest({ namespace: "team-b", object }), deps, { config, namespaces });
    expect(d.allowed).toBe(false);
    expect(d.scopeDenials).toEqual([HOSTPATH]);
    expect(d.message?.split("\n").filter((l) => l.startsWith("feature "))).toHaveLength(1);
  });

  it("without the namespaces' labels, matches by name only", async () => {
    const d = await admitValidation(admissionRequest({ namespace: "platform", object: service("platform", RUNTIME_SPEC) }), deps, { config });
    expect(d.allowed).toBe(false);
  });

  it("lets status updates through, as Knative does for a flag switched off (spec validation is skipped)", async () => {
    const object = service("team-b", RUNTIME_SPEC);
    const d = await admitValidation(admissionRequest({ namespace: "team-b", operation: "UPDATE", subResource: "status", object, oldObject: object }), deps, { config, namespaces });
    expect(d.allowed).toBe(true);
  });

  it("changes nothing without config-features-scopes", async () => {
    const plain = snapshotFrom({ "config-features": { [RUNTIME]: "Allowed" } }, "test");
    const d = await admitValidation(admissionRequest({ namespace: "team-b", object: service("team-b", RUNTIME_SPEC) }), deps, { config: plain, namespaces });
    expect(d.allowed).toBe(true);
  });
});

describe("impact warnings", () => {
  const usage = new GatedUsageIndex();
  usage.replace("Service", [
    ["platform/gpu", usageBits("Service", service("platform", RUNTIME_SPEC))],
    ["team-b/other", usageBits("Service", service("team-b", RUNTIME_SPEC))],
  ]);
  usage.replace("Configuration", []);

  it("follow a namespace relabelled out of a scope", () => {
    const impact = relabelImpact(config, "platform", new Map([["tenant", "platform"]]), new Map([["tenant", "b"]]), usage);
    expect(impact.changes).toEqual([`${RUNTIME} Allowed → Disabled`]);
    expect(impact.warnings).toEqual([
      `${RUNTIME} Allowed → Disabled in namespace platform: the next update of 1 existing object will be denied (spec.template.spec.runtimeClassName): Service platform/gpu`,
    ]);
    expect(relabelImpact(config, "platform", new Map([["tenant", "b"]]), new Map([["tenant", "platform"]]), usage).warnings).toEqual([]);
  });

  it("come with a change of config-features-scopes", () => {
    const review = admissionRequest({
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      namespace: "knative-serving",
      name: "config-features-scopes",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "config-features-scopes", namespace: "knative-serving" }, data: { [RUNTIME]: "namespaces: [tools]", [HOSTPATH]: "namespaces: [tools]" } },
    });
    const d = admitConfigMap(review, deps, { config, namespaces, gatedUsage: usage });
    expect(d).toEqual({
      allowed: true,
      warnings: [`${RUNTIME} Allowed → Disabled in namespace platform: the next update of 1 existing object will be denied (spec.template.spec.runtimeClassName): Service platform/gpu`],
    });
  });

  it("and /config-validation refuses a scope that does not parse", () => {
    const review = admissionRequest({
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "config-features-scopes" }, data: { [RUNTIME]: "namespaces: [Bad]" } },
    });
    expect(admitConfigMap(review, deps, { config }).message).toMatch(/^validation failed: invalid namespaces for "kubernetes.podspec-runtimeclassname": namespaces\[0\]: Invalid value: "Bad": /);
  });
});

describe("scopesDenying", () => {
  const both = { config, narrowed: [...config.featureScopes.values()] };
  const errorsIf = (needsBoth: boolean) => (c: typeof config): string | undefined => {
    const off = [c.admission.features.podSpecRuntimeClassName, c.admission.features.podSpecVolumesHostPath].filter((f) => f === "Disabled").length;
    return off === 2 || (!needsBoth && off === 1) ? "denied" : undefined;
  };

  it("names every narrowed scope when only their narrowing together changes the answer", () => {
    expect(scopesDenying(both, config, "team-b", "denied", errorsIf(true)).keys).toEqual([RUNTIME, HOSTPATH]);
  });

  it("names none when the cluster-wide flags give the same errors", () => {
    expect(scopesDenying(both, config, "team-b", "denied", () => "denied")).toEqual({ keys: [], lines: [] });
  });
});
