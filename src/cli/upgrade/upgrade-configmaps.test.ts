import { describe, expect, it } from "vitest";
import { PROFILES, type KnativeVersion } from "../../config/profile.js";
import type { ConfigData } from "../../config/types.js";
import { configMapNotes, type ConfigMapNote } from "./upgrade-configmaps.js";

interface Row {
  readonly name: string;
  readonly cm: string;
  readonly data: ConfigData;
  readonly from: KnativeVersion;
  readonly to: KnativeVersion;
  readonly notes: readonly ConfigMapNote[];
}

describe("configMapNotes", () => {
  it.each<Row>([
    { name: "a volume flag set before the release that reads it", cm: "config-features", data: { "kubernetes.podspec-volumes-csi": "enabled", "multi-container": "enabled" }, from: "1.17", to: "1.24",
      notes: [{ category: "takes-effect", key: "kubernetes.podspec-volumes-csi", message: 'a Knative 1.24 flag (1.17 ignores it): "enabled" is read as Enabled', field: "volumes.flags" }] },
    { name: "a volume flag of a later release, going back", cm: "config-features", data: { "kubernetes.podspec-volumes-csi": "enabled" }, from: "1.24", to: "1.17",
      notes: [{ category: "ignored", key: "kubernetes.podspec-volumes-csi", message: "not a Knative 1.17 flag: ignored", field: "volumes.flags" }] },
    { name: "the dry-run flag 1.20 removed", cm: "config-features", data: { "kubernetes.podspec-dryrun": "enabled" }, from: "1.17", to: "1.24",
      notes: [{ category: "ignored", key: "kubernetes.podspec-dryrun", message: "not a Knative 1.24 flag: ignored; the PodSpec dry run runs for every request with dryRun: true (kubectl apply --dry-run=server)", field: "podSpecDryRun" }] },
    { name: "a controller flag 1.24 added", cm: "config-features", data: { "domainmapping-direct-route-traffic": "Enabled" }, from: "1.23", to: "1.24",
      notes: [{ category: "takes-effect", key: "domainmapping-direct-route-traffic", message: 'a Knative 1.24 flag (1.23 ignores it): "Enabled" is read as Enabled', field: "controllerFlags" }] },
    { name: "AllowRootBounded, which 1.17 does not take", cm: "config-features", data: { "secure-pod-defaults": "allowrootbounded" }, from: "1.17", to: "1.23",
      notes: [{ category: "value-change", key: "secure-pod-defaults", message: '"allowrootbounded" is Disabled in Knative 1.17 and AllowRootBounded in 1.23', field: "securePodDefaults.values" }] },
    { name: "a config-deployment bool key 1.17 ignores", cm: "config-deployment", data: { "pod-is-always-schedulable": "true", "queue-sidecar-image": "q" }, from: "1.17", to: "1.24",
      notes: [{ category: "takes-effect", key: "pod-is-always-schedulable", message: "read (as a bool) from Knative 1.24 on (1.17 ignores it)", field: "deploymentBoolKeys" }] },
    { name: "config-tracing, going back to a release that validates it", cm: "config-tracing", data: { backend: "none" }, from: "1.24", to: "1.17",
      notes: [{ category: "validated", message: "Knative 1.17's webhook validates config-tracing (1.24's admitted it whatever it held)", field: "unvalidatedConfigMaps" }] },
    { name: "config-observability between two OpenTelemetry releases", cm: "config-observability", data: { "metrics.backend-destination": "prometheus" }, from: "1.23", to: "1.24", notes: [] },
    { name: "config-observability that exported no metrics before", cm: "config-observability", data: { "metrics.backend-destination": "none", _example: "metrics-protocol: prometheus" }, from: "1.17", to: "1.24",
      notes: [{ category: "ignored", key: "metrics.backend-destination", message: "not read by Knative 1.24's opentelemetry schema; its opentelemetry counterpart is metrics-protocol", field: "observabilitySchema" }] },
  ])("$name", ({ cm, data, from, to, notes }) => {
    expect(configMapNotes(cm, data, PROFILES[from], PROFILES[to])).toEqual(notes);
  });
});
