import { describe, expect, it } from "vitest";
import { KNATIVE_VERSIONS, PROFILES } from "./profile.js";
import { describeProfileChange, profileChanges, withoutChange } from "./profile-changes.js";

describe("profileChanges", () => {
  it("lists the leaves where 1.24 differs from 1.17, not the release's name", () => {
    const changes = profileChanges(PROFILES["1.17"], PROFILES["1.24"]);
    const fields = changes.map((c) => c.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        "probes.validateStartupProbes",
        "probes.terminationGracePeriodSeconds",
        "securePodDefaults.values",
        "templateNetworkingAnnotations",
        "unknownK8sFields.core.PodSpec",
        "unknownK8sFields.core.Container",
        "observabilitySchema",
        "bodyTooLargeStatus",
      ]),
    );
    expect(fields).not.toContain("version");
    expect(fields).not.toContain("servingModule");
    expect(changes.find((c) => c.field === "probes.validateStartupProbes")).toMatchObject({ path: ["probes", "validateStartupProbes"], from: false, to: true, scope: "objects and ConfigMaps" });
    expect(changes.find((c) => c.field === "observabilitySchema")?.scope).toBe("ConfigMaps");
    expect(changes.find((c) => c.field === "bodyTooLargeStatus")?.scope).toBe("runtime");
    expect(changes.find((c) => c.field === "namespaceOwnerController")?.scope).toBe("runtime");
  });

  it("finds nothing between a profile and itself", () => {
    for (const v of KNATIVE_VERSIONS) expect(profileChanges(PROFILES[v], PROFILES[v])).toEqual([]);
  });
});

describe("withoutChange", () => {
  it("takes back exactly one difference, for every pair of releases", () => {
    for (const a of KNATIVE_VERSIONS) {
      for (const b of KNATIVE_VERSIONS) {
        const changes = profileChanges(PROFILES[a], PROFILES[b]);
        for (const c of changes) {
          const rest = profileChanges(PROFILES[a], withoutChange(PROFILES[b], c)).map((x) => x.field);
          expect(rest, `${a} → ${b} without ${c.field}`).toEqual(changes.filter((x) => x !== c).map((x) => x.field));
        }
      }
    }
  });

  it("leaves the profile it starts from alone", () => {
    const [change] = profileChanges(PROFILES["1.17"], PROFILES["1.24"]).filter((c) => c.field === "templateNetworkingAnnotations");
    const back = withoutChange(PROFILES["1.24"], change!);
    expect(back.templateNetworkingAnnotations).toBeUndefined();
    expect(PROFILES["1.24"].templateNetworkingAnnotations).toBeDefined();
  });
});

describe("describeProfileChange", () => {
  const describeField = (from: "1.17" | "1.23" | "1.24", to: "1.17" | "1.23" | "1.24", field: string): string => {
    const c = profileChanges(PROFILES[from], PROFILES[to]).find((x) => x.field === field);
    if (c === undefined) throw new Error(`${field} does not change from ${from} to ${to}`);
    return describeProfileChange(c);
  };

  it.each([
    ["1.17", "1.24", "probes.validateStartupProbes", "startup probes are validated (the serving container's: one handler, a named port must be the serving port; a sidecar's: only with multi-container-probing)"],
    ["1.17", "1.24", "securePodDefaults.values", "secure-pod-defaults takes Disabled, AllowRootBounded, Enabled (was Enabled, Allowed, Disabled); any other value means Disabled"],
    ["1.23", "1.24", "unknownK8sFields.core.PodSpec", "the webhook knows core.PodSpec.schedulingGroup (dropped before, now checked by the field masks) and no longer knows core.PodSpec.workloadRef (dropped by the decoding round trip)"],
    ["1.17", "1.23", "unvalidatedConfigMaps", "the set of ConfigMaps the webhook does not validate gains config-tracing"],
    ["1.17", "1.23", "podSpecDryRun", "the PodSpec dry run runs for every request with dryRun: true (kubectl apply --dry-run=server); kubernetes.podspec-dryrun and its annotation are gone"],
    ["1.23", "1.24", "controllerFlags", "the set of config-features flags only controllers read gains domainmapping-direct-route-traffic"],
    ["1.24", "1.17", "volumes.flags", "the set of volume flags loses kubernetes.podspec-volumes-csi, kubernetes.podspec-volumes-mount-propagation, kubernetes.podspec-volumes-image, kubernetes.podspec-volumes-ephemeral"],
  ] as const)("%s → %s %s", (from, to, field, text) => {
    expect(describeField(from, to, field)).toBe(text);
  });
});
