import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { DEFAULT_FEATURES } from "../config/features.js";
import type { FeaturesConfig } from "../config/types.js";
import { GatedUsageIndex, impactWarnings, ownedByService, permits, restrictions, usageBits, type UsageKind } from "./gated-usage.js";

function features(over: Partial<FeaturesConfig>): FeaturesConfig {
  return { ...DEFAULT_FEATURES, ...over };
}

function svc(namespace: string, name: string, podSpec: Record<string, unknown>, kind: UsageKind = "Service", meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "serving.knative.dev/v1", kind, metadata: { namespace, name, ...meta }, spec: { template: { spec: { containers: [{ image: "i" }], ...podSpec } } } };
}

const AFFINITY = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "k", operator: "Exists" }] }] } } } };
const TOLERATIONS = { tolerations: [{ key: "k", operator: "Exists" }] };

function synced(capacity?: number): GatedUsageIndex {
  const index = new GatedUsageIndex(capacity);
  index.replace("Service", []);
  index.replace("Configuration", []);
  return index;
}

describe("usage summaries", () => {
  it("keeps one bit per gate a template uses, and nothing for a template without gated fields", () => {
    expect(usageBits("Service", svc("a", "plain", {}))).toBe(0);
    const both = usageBits("Service", svc("a", "x", { ...AFFINITY, ...TOLERATIONS }));
    expect(both).not.toBe(0);
    expect(both).not.toBe(usageBits("Service", svc("a", "y", AFFINITY)));
    expect(usageBits("Configuration", svc("a", "z", TOLERATIONS, "Configuration"))).toBe(usageBits("Service", svc("a", "z", TOLERATIONS)));
  });

  it("does not store objects without gated fields, nor Configurations a Service controls; DELETED forgets", () => {
    const index = synced();
    index.observe("Service", svc("a", "plain", {}));
    index.observe("Configuration", svc("a", "owned", AFFINITY, "Configuration", { ownerReferences: [{ kind: "Service", name: "owned", controller: true }] }));
    expect(index.size()).toBe(0);
    index.observe("Configuration", svc("a", "solo", AFFINITY, "Configuration", { ownerReferences: [{ kind: "Service", name: "x", controller: false }] }));
    index.observe("Service", svc("a", "pinned", AFFINITY));
    expect(index.size()).toBe(2);
    // An update that drops the gated field removes the entry.
    index.observe("Service", svc("a", "pinned", {}));
    expect(index.size()).toBe(1);
    index.forget("Configuration", svc("a", "solo", {}, "Configuration"));
    expect(index.size()).toBe(0);
    expect(ownedByService({ metadata: { ownerReferences: [{ kind: "Service", controller: true }] } })).toBe(true);
  });
});

describe("restriction detection", () => {
  it("mask gates: Enabled or Allowed → Disabled restricts; Enabled → Allowed does not", () => {
    expect(restrictions(features({ podSpecAffinity: "Enabled" }), features({ podSpecAffinity: "Disabled" })).map((r) => r.key)).toEqual(["kubernetes.podspec-affinity"]);
    expect(restrictions(features({ podSpecAffinity: "Allowed" }), features({ podSpecAffinity: "Disabled" })).map((r) => r.key)).toEqual(["kubernetes.podspec-affinity"]);
    expect(restrictions(features({ podSpecAffinity: "Enabled" }), features({ podSpecAffinity: "Allowed" }))).toEqual([]);
    expect(restrictions(features({ podSpecAffinity: "Disabled" }), features({ podSpecAffinity: "Enabled" }))).toEqual([]);
  });

  it("enabled and mask+enabled gates: Enabled → Allowed restricts too; Allowed → Disabled does not", () => {
    for (const [field, key] of [
      ["multiContainer", "multi-container"],
      ["podSpecInitContainers", "kubernetes.podspec-init-containers"],
      ["containerSpecAddCapabilities", "kubernetes.containerspec-addcapabilities"],
    ] as const) {
      expect(restrictions(features({ [field]: "Enabled" }), features({ [field]: "Allowed" })).map((r) => r.key)).toEqual([key]);
      expect(restrictions(features({ [field]: "Enabled" }), features({ [field]: "Disabled" })).map((r) => r.key)).toEqual([key]);
      expect(restrictions(features({ [field]: "Allowed" }), features({ [field]: "Disabled" }))).toEqual([]);
    }
    expect(permits("mask", "Allowed")).toBe(true);
    expect(permits("enabled", "Allowed")).toBe(false);
    expect(permits("mask+enabled", "Allowed")).toBe(false);
  });

  it("any change of secure-pod-defaults counts; flags that gate no field never do", () => {
    expect(restrictions(features({ secureDefaults: "Enabled" }), features({ secureDefaults: "Disabled" })).map((r) => r.key)).toEqual(["secure-pod-defaults"]);
    expect(restrictions(features({ secureDefaults: "Disabled" }), features({ secureDefaults: "Allowed" })).map((r) => r.key)).toEqual(["secure-pod-defaults"]);
    expect(restrictions(features({ podSpecDryRun: "Enabled", tagHeaderBasedRouting: "Enabled" }), features({ podSpecDryRun: "Disabled", tagHeaderBasedRouting: "Disabled" }))).toEqual([]);
  });
});

describe("impact warnings", () => {
  const on = features({ podSpecAffinity: "Enabled", podSpecTolerations: "Enabled" });

  it("names the affected objects, Services first, each kind sorted by namespace and name", () => {
    const index = synced();
    index.observe("Configuration", svc("team-b", "solo", AFFINITY, "Configuration"));
    index.observe("Service", svc("team-b", "alpha", AFFINITY));
    index.observe("Service", svc("team-a", "pinned", AFFINITY));
    index.observe("Service", svc("team-a", "tolerant", TOLERATIONS));
    index.observe("Service", svc("team-a", "plain", {}));
    expect(impactWarnings(on, features({ podSpecTolerations: "Enabled" }), index)).toEqual([
      "kubernetes.podspec-affinity Enabled → Disabled: the next update of 3 existing objects will be denied (spec.template.spec.affinity): Service team-a/pinned, Service team-b/alpha, Configuration team-b/solo",
    ]);
    expect(impactWarnings(on, features({}), index)).toEqual([
      "kubernetes.podspec-affinity Enabled → Disabled: the next update of 3 existing objects will be denied (spec.template.spec.affinity): Service team-a/pinned, Service team-b/alpha, Configuration team-b/solo",
      "kubernetes.podspec-tolerations Enabled → Disabled: the next update of 1 existing object will be denied (spec.template.spec.tolerations): Service team-a/tolerant",
    ]);
  });

  it("says nothing when nothing is restricted, or when no stored object is affected", () => {
    const index = synced();
    index.observe("Service", svc("team-a", "pinned", AFFINITY));
    expect(impactWarnings(on, on, index)).toEqual([]);
    expect(impactWarnings(features({}), on, index)).toEqual([]);
    expect(impactWarnings(on, features({ podSpecAffinity: "Enabled" }), index)).toEqual([]);
  });

  it("names at most 10 objects, then how many more", () => {
    const index = synced();
    for (let i = 0; i < 25; i++) index.observe("Service", svc("ns", `s${String(i).padStart(2, "0")}`, AFFINITY));
    const [w] = impactWarnings(on, features({ podSpecTolerations: "Enabled" }), index);
    expect(w).toContain("the next update of 25 existing objects");
    expect(w).toMatch(/: Service ns\/s00, Service ns\/s01, .*, Service ns\/s09, and 15 more$/);
    expect(w?.match(/Service /g)).toHaveLength(10);
  });

  it("before the index has synced: one warning saying the impact is unknown", () => {
    const index = new GatedUsageIndex();
    index.replace("Service", []);
    index.observe("Service", svc("team-a", "pinned", AFFINITY));
    expect(impactWarnings(on, features({}), index)).toEqual([
      "impact on existing Services and Configurations unknown (kubernetes.podspec-affinity Enabled → Disabled, kubernetes.podspec-tolerations Enabled → Disabled): the usage index has not synced yet",
    ]);
    expect(impactWarnings(on, on, index)).toEqual([]);
  });

  it("a full index stops adding and says the list may be incomplete", () => {
    const index = synced(3);
    for (let i = 0; i < 5; i++) index.observe("Service", svc("ns", `s${i}`, AFFINITY));
    expect(index.size()).toBe(3);
    expect(index.full()).toBe(true);
    const w = impactWarnings(on, features({ podSpecTolerations: "Enabled" }), index);
    expect(w).toEqual([
      "kubernetes.podspec-affinity Enabled → Disabled: the next update of 3 existing objects will be denied (spec.template.spec.affinity): Service ns/s0, Service ns/s1, Service ns/s2",
      "usage index full (3 objects); the list may be incomplete",
    ]);
    // A relist that fits clears it.
    index.replace("Service", [["ns/s0", 1]]);
    expect(index.full()).toBe(false);
  });

  it("secure-pod-defaults: objects with a pod securityContext or capabilities.add [NET_BIND_SERVICE]", () => {
    const index = synced();
    index.observe("Service", svc("a", "sc", { securityContext: { runAsNonRoot: true } }));
    index.observe("Service", svc("a", "netbind", { containers: [{ image: "i", securityContext: { capabilities: { add: ["NET_BIND_SERVICE"] } } }] }));
    index.observe("Service", svc("a", "pinned", AFFINITY));
    const [w, ...rest] = impactWarnings(features({ secureDefaults: "Enabled" }), features({}), index);
    expect(rest).toEqual([]);
    expect(w).toMatch(/^secure-pod-defaults Enabled → Disabled: the next update of 2 existing objects may be denied or defaulted differently \(.*\): Service a\/netbind, Service a\/sc$/);
    // The pod securityContext stays permitted by its own flag.
    const [w2] = impactWarnings(features({ secureDefaults: "Enabled", podSpecSecurityContext: "Enabled" }), features({ podSpecSecurityContext: "Enabled" }), index);
    expect(w2).toMatch(/: Service a\/netbind$/);
  });
});

describe("memory", () => {
  it("stores 20,000 summaries in well under 1 KB each", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const n = 20_000;
    gc();
    const before = process.memoryUsage().heapUsed;
    const index = new GatedUsageIndex();
    index.replace("Service", []);
    // Names arrive the way the watch gets them: fresh strings from each decoded object, which is then dropped.
    for (let i = 0; i < n; i++) {
      const o = JSON.parse(`{"metadata":{"namespace":"team-${i % 200}","name":"service-with-a-name-${i}"}}`) as { metadata: { namespace: string; name: string } };
      index.set("Service", `${o.metadata.namespace}/${o.metadata.name}`, 0b101);
    }
    gc();
    const after = process.memoryUsage().heapUsed;
    expect(index.size()).toBe(n);
    const perObject = (after - before) / n;
    console.log(`gated usage index: ${n} objects, ${Math.round(perObject)} bytes per object`);
    expect(perObject).toBeLessThan(1024);
  });
});
