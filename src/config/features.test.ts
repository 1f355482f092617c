import { describe, expect, it } from "vitest";
import { DEFAULT_FEATURES, parseFeaturesConfig, parseFlag } from "./features.js";
import { PROFILES } from "./profile.js";
import { equalFoldAscii } from "../go/strings/fold.js";
import type { FeaturesConfig } from "./types.js";

// Ported from serving's pkg/apis/config/features_test.go (TestFeaturesConfiguration), v0.44.2 key set: parsed as
// Knative 1.17 parses it (later releases: the last tests here, and src/serving/secure-pod-defaults.test.ts).
const V1_17 = PROFILES["1.17"];
const KEYS: ReadonlyArray<readonly [string, keyof FeaturesConfig]> = [
  ["multi-container", "multiContainer"],
  ["multi-container-probing", "multiContainerProbing"],
  ["kubernetes.podspec-affinity", "podSpecAffinity"],
  ["kubernetes.podspec-topologyspreadconstraints", "podSpecTopologySpreadConstraints"],
  ["kubernetes.podspec-dryrun", "podSpecDryRun"],
  ["kubernetes.podspec-hostaliases", "podSpecHostAliases"],
  ["kubernetes.podspec-fieldref", "podSpecFieldRef"],
  ["kubernetes.podspec-nodeselector", "podSpecNodeSelector"],
  ["kubernetes.podspec-runtimeclassname", "podSpecRuntimeClassName"],
  ["kubernetes.podspec-securitycontext", "podSpecSecurityContext"],
  ["kubernetes.podspec-shareprocessnamespace", "podSpecShareProcessNamespace"],
  ["kubernetes.podspec-hostipc", "podSpecHostIPC"],
  ["kubernetes.podspec-hostpid", "podSpecHostPID"],
  ["kubernetes.podspec-hostnetwork", "podSpecHostNetwork"],
  ["kubernetes.podspec-priorityclassname", "podSpecPriorityClassName"],
  ["kubernetes.podspec-schedulername", "podSpecSchedulerName"],
  ["kubernetes.containerspec-addcapabilities", "containerSpecAddCapabilities"],
  ["kubernetes.podspec-tolerations", "podSpecTolerations"],
  ["kubernetes.podspec-volumes-emptydir", "podSpecVolumesEmptyDir"],
  ["kubernetes.podspec-volumes-hostpath", "podSpecVolumesHostPath"],
  ["kubernetes.podspec-persistent-volume-claim", "podSpecPersistentVolumeClaim"],
  ["kubernetes.podspec-persistent-volume-write", "podSpecPersistentVolumeWrite"],
  ["kubernetes.podspec-init-containers", "podSpecInitContainers"],
  ["kubernetes.podspec-dnspolicy", "podSpecDNSPolicy"],
  ["kubernetes.podspec-dnsconfig", "podSpecDNSConfig"],
  ["secure-pod-defaults", "secureDefaults"],
  ["tag-header-based-routing", "tagHeaderBasedRouting"],
  ["autodetect-http2", "autoDetectHTTP2"],
  ["queueproxy.mount-podinfo", "queueProxyMountPodInfo"],
  ["queueproxy.resource-defaults", "queueProxyResourceDefaults"],
];

describe("parseFeaturesConfig", () => {
  it("has Knative 1.17's defaults: multi-container and emptyDir Enabled, dry-run Allowed, the rest Disabled", () => {
    const f = parseFeaturesConfig({}, V1_17);
    expect(f).toBe(DEFAULT_FEATURES);
    expect(f.multiContainer).toBe("Enabled");
    expect(f.podSpecVolumesEmptyDir).toBe("Enabled");
    expect(f.podSpecDryRun).toBe("Allowed");
    const others = KEYS.map(([, field]) => field).filter((f) => !["multiContainer", "podSpecVolumesEmptyDir", "podSpecDryRun"].includes(f));
    for (const field of others) expect(DEFAULT_FEATURES[field]).toBe("Disabled");
  });

  it.each(KEYS)("Knative 1.17 reads %s into %s, case-insensitively", (key, field) => {
    for (const [raw, want] of [
      ["Enabled", "Enabled"],
      ["enabled", "Enabled"],
      ["ALLOWED", "Allowed"],
      ["Allowed", "Allowed"],
      ["disabled", "Disabled"],
    ] as const) {
      expect(parseFeaturesConfig({ [key]: raw }, V1_17)[field]).toBe(want);
    }
  });

  it("ignores kubernetes.podspec-dryrun from Knative 1.23 (v0.47.0 removed it: the dry run follows the request)", () => {
    for (const version of ["1.23", "1.24"] as const) expect(parseFeaturesConfig({ "kubernetes.podspec-dryrun": "Enabled" }, PROFILES[version])).toBe(DEFAULT_FEATURES);
  });

  it.each(["maybe", "true", " enabled", "", "AllowRootBounded"])("Knative 1.17 keeps the default for the unrecognised value %j", (raw) => {
    expect(parseFeaturesConfig({ "kubernetes.podspec-affinity": raw, "secure-pod-defaults": raw }, V1_17)).toBe(DEFAULT_FEATURES);
  });

  // (secure-pod-defaults: Allowed, unrecognised from 1.20: src/serving/secure-pod-defaults.test.ts.)
  it.each(["maybe", "true", " enabled", ""])("Knative 1.24 keeps the default for the unrecognised value %j too", (raw) => {
    expect(parseFeaturesConfig({ "kubernetes.podspec-affinity": raw, "secure-pod-defaults": raw }, PROFILES["1.24"])).toBe(DEFAULT_FEATURES);
  });

  it("ignores keys Knative does not know", () => {
    expect(parseFeaturesConfig({ "kubernetes.podspec-volumes-emptyDir": "disabled", unknown: "enabled" }, V1_17)).toBe(DEFAULT_FEATURES);
    expect(parseFeaturesConfig({ "kubernetes.podspec-volumes-emptyDir": "disabled", unknown: "enabled" }, PROFILES["1.24"])).toBe(DEFAULT_FEATURES);
  });

  it("parses the volume flags of later releases only in those releases", () => {
    const data = {
      "kubernetes.podspec-volumes-csi": "enabled",
      "kubernetes.podspec-volumes-mount-propagation": "ALLOWED",
      "kubernetes.podspec-volumes-image": "Enabled",
      "kubernetes.podspec-volumes-ephemeral": "bogus",
    };
    expect(parseFeaturesConfig(data, PROFILES["1.17"])).toBe(DEFAULT_FEATURES);
    for (const version of ["1.23", "1.24"] as const) {
      const f = parseFeaturesConfig(data, PROFILES[version]);
      expect([f.podSpecVolumesCSI, f.podSpecVolumesMountPropagation, f.podSpecVolumesImage, f.podSpecVolumesEphemeral]).toEqual(["Enabled", "Allowed", "Enabled", "Disabled"]);
    }
  });

  it("returns a frozen config that leaves other flags at their defaults", () => {
    const f = parseFeaturesConfig({ "multi-container": "disabled", "kubernetes.podspec-init-containers": "enabled" });
    expect(f.multiContainer).toBe("Disabled");
    expect(f.podSpecInitContainers).toBe("Enabled");
    expect(f.podSpecAffinity).toBe("Disabled");
    expect(Object.isFrozen(f)).toBe(true);
  });
});

describe("equalFoldAscii (strings.EqualFold)", () => {
  it("folds ASCII case and Unicode characters whose simple fold is ASCII", () => {
    expect(equalFoldAscii("DISABLED", "Disabled")).toBe(true);
    expect(equalFoldAscii("Di\u017fabled", "Disabled")).toBe(true); // ſ folds to s
    expect(equalFoldAscii("Disable", "Disabled")).toBe(false);
    expect(equalFoldAscii("Dis@bled", "Disabled")).toBe(false);
    expect(parseFlag("Di\u017fabled")).toBe("Disabled");
  });
});
