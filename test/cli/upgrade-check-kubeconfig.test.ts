/**
 * `duckbill upgrade-check --kubeconfig` against the in-process fake API server (test/support/fake-apiserver.ts): the
 * cluster's Knative ConfigMaps and live objects (stored as Knative 1.17's webhook stored them), the release the
 * cluster runs through the detector seam, and what the API is asked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { detectKnativeVersion } from "../../src/cli/cluster/detect-version.js";
import { runUpgradeCheck, type UpgradeCheckDeps } from "../../src/cli/upgrade/upgrade-check.js";
import type { Summary, UpgradeReport } from "../../src/cli/upgrade/upgrade-report.js";
import { PROFILES } from "../../src/config/profile.js";
import { snapshotFrom } from "../../src/config/snapshot.js";
import { BUILTIN_RESOURCES, CONFIGMAPS, configMap, CUSTOM_RESOURCE_DEFINITIONS as CRDS, FakeApiServer, NAMESPACES, type KubeObject, type ResourceType } from "../support/fake-apiserver.js";
import { storeApplied } from "../support/live-objects.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";

const KSVC: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "services", kind: "Service", namespaced: true };
const KCONFIG: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "configurations", kind: "Configuration", namespaced: true };
const KROUTE: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "routes", kind: "Route", namespaced: true };

const SECURE_POD_DEFAULTS = { "secure-pod-defaults": "Allowed" };
const DENIED = "validation failed: must not set the field(s): spec.template.spec.securityContext";


let api: FakeApiServer;
let dir: string;
let kubeconfig: string;
/** What the detector was asked, and what it answers. */
let detected: string;
let detections: number;
const detector: UpgradeCheckDeps = {
  detectKnativeVersion: async () => {
    detections++;
    return detected;
  },
};

type JsonReport = UpgradeReport & { summary: Summary };

function upgradeCheck(args: string[], d: UpgradeCheckDeps = detector): Promise<CapturedRun> {
  return runCaptured((io) => runUpgradeCheck(args, io, d, {}));
}

async function report(args: string[]): Promise<{ code: number; report: JsonReport }> {
  const r = await upgradeCheck([...args, "--kubeconfig", kubeconfig, "-o", "json"]);
  expect(r.stderr).toBe("");
  return { code: r.code, report: JSON.parse(r.stdout) as JsonReport };
}

function service(namespace: string, name: string, podSpec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name, namespace }, spec: { template: { spec: { ...podSpec, containers: [{ image: "ghcr.io/knative/helloworld-go:latest" }] } } } };
}

/** Stores `manifest` as `kubectl apply` made it through Knative 1.17's webhook under secure-pod-defaults Allowed. */
function storeLive(rt: ResourceType, manifest: Record<string, unknown>, lastApplied = true): Promise<KubeObject> {
  return storeApplied(api, rt, manifest, snapshotFrom({ "config-features": SECURE_POD_DEFAULTS }, "setup", PROFILES["1.17"]), lastApplied);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "duckbill-upgrade-kc-"));
  kubeconfig = join(dir, "config");
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
beforeEach(async () => {
  detected = "v1.17.2";
  detections = 0;
  api = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, CRDS, KSVC, KCONFIG, KROUTE] });
  await writeFile(kubeconfig, api.kubeconfigYaml());
  api.create(CONFIGMAPS, configMap("knative-serving", "config-features", SECURE_POD_DEFAULTS));
  api.create(CONFIGMAPS, configMap("knative-serving", "config-tracing", { backend: "zipkin", "zipkin-endpoint": "http://zipkin.observability:9411/api/v2/spans" }));
  api.create(CONFIGMAPS, configMap("knative-serving", "config-observability", { "metrics.backend-destination": "prometheus" }));
  // Not one of Knative's: never read.
  api.create(CONFIGMAPS, configMap("knative-serving", "istio-settings", { a: "b" }));
  const fromHelm = await storeLive(KSVC, service("team-a", "from-helm", { securityContext: {} }));
  await storeLive(KSVC, service("team-b", "plain"), false);
  // The Configuration and Route the Serving controller made for "from-helm": left out (the Service is what gets updated).
  const owner = { apiVersion: "serving.knative.dev/v1", kind: "Service", name: "from-helm", uid: fromHelm.metadata.uid, controller: true, blockOwnerDeletion: true };
  const owned = await storeLive(KCONFIG, { apiVersion: "serving.knative.dev/v1", kind: "Configuration", metadata: { name: "from-helm", namespace: "team-a" }, spec: (service("team-a", "x", { securityContext: {} }).spec as Record<string, unknown>) });
  api.apply(KCONFIG, { ...owned, metadata: { ...owned.metadata, ownerReferences: [owner] } });
  await storeLive(KROUTE, { apiVersion: "serving.knative.dev/v1", kind: "Route", metadata: { name: "split", namespace: "team-b" }, spec: { traffic: [{ configurationName: "plain", percent: 100 }] } });
  api.requests.length = 0;
});
afterEach(async () => api.close());

describe("duckbill upgrade-check --kubeconfig --from auto, with --knative-version auto's detection", () => {
  const real: UpgradeCheckDeps = { detectKnativeVersion };

  it("takes the release the Serving CRDs are labelled with", async () => {
    api.create(CRDS, { metadata: { name: "services.serving.knative.dev", labels: { "app.kubernetes.io/version": "1.17.3" } } });
    const r = await upgradeCheck(["--kubeconfig", kubeconfig, "-o", "json"], real);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ from: "1.17", to: "1.24", fromSource: "cluster" });
  });

  it("else the system namespace's label", async () => {
    api.create(NAMESPACES, { metadata: { name: "knative-serving", labels: { "app.kubernetes.io/version": "1.23.0" } } });
    const r = await upgradeCheck(["--kubeconfig", kubeconfig, "-o", "json"], real);
    expect(JSON.parse(r.stdout)).toMatchObject({ from: "1.23", fromSource: "cluster" });
  });

  it("exits 2 when neither has a release label, instead of comparing against a guess", async () => {
    const r = await upgradeCheck(["--kubeconfig", kubeconfig], real);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "duckbill upgrade-check: found no Knative release label in the cluster (CustomResourceDefinition services.serving.knative.dev not found; Namespace knative-serving not found): give --from 1.24, 1.23, 1.17\n",
    });
  });
});

describe("duckbill upgrade-check --kubeconfig", () => {
  it("detects the release, checks the live objects on create and on their next update, and exits 1", async () => {
    const { code, report: r } = await report(["--to", "1.24"]);
    expect(code).toBe(1);
    expect(detections).toBe(1);
    expect(r).toMatchObject({ from: "1.17", to: "1.24", fromSource: "cluster", objectsFrom: "cluster", configuration: "cluster:knative-serving" });
    expect(r.objects.map((o) => [o.kind, `${o.namespace}/${o.name}`, o.source, o.category])).toEqual([
      ["Service", "team-a/from-helm", "cluster", "breaks"],
      ["Service", "team-b/plain", "cluster", "unchanged"],
      ["Route", "team-b/split", "cluster", "unchanged"],
    ]);
    const fromHelm = r.objects[0]!;
    expect(fromHelm.checks.map((c) => [c.check, c.from.allowed, c.to.allowed, c.to.message])).toEqual([
      ["create", true, false, DENIED],
      ["update", true, false, DENIED],
    ]);
    expect(fromHelm.checks[1]!.findings[0]!.causes.map((c) => c.field)).toEqual(["securePodDefaults.values"]);
  });

  it("reads Knative's ConfigMaps by name from the system namespace and lists the user-facing kinds in pages", async () => {
    await report(["--to", "1.24"]);
    const gets = api.requests.filter((q) => q.path.startsWith("/api/v1/")).map((q) => q.path.replace("/api/v1/namespaces/knative-serving/configmaps/", ""));
    expect(gets).toEqual(expect.arrayContaining(["config-features", "config-defaults", "config-autoscaler", "config-observability", "config-tracing", "config-network"]));
    expect(gets).not.toContain("istio-settings");
    // DomainMappings are not served by this API server (404): left out.
    expect(api.requests.filter((q) => q.path.startsWith("/apis/")).map((q) => `${q.path} limit=${q.query.get("limit") ?? ""}`)).toEqual([
      "/apis/serving.knative.dev/v1/services limit=500",
      "/apis/serving.knative.dev/v1/configurations limit=500",
      "/apis/serving.knative.dev/v1/routes limit=500",
      "/apis/serving.knative.dev/v1beta1/domainmappings limit=500",
    ]);
    expect(api.requests.every((q) => q.method === "GET")).toBe(true);
  });

  it("reports the cluster's ConfigMaps", async () => {
    const { report: r } = await report(["--to", "1.24"]);
    expect(r.configMaps.map((m) => [m.name, m.source, m.category, m.notes.map((n) => `${n.category} ${n.key ?? ""}`.trim())])).toEqual([
      ["config-features", "cluster:knative-serving", "changes", ["value-change secure-pod-defaults"]],
      ["config-observability", "cluster:knative-serving", "changes", ["ignored metrics.backend-destination", "default-change metrics-protocol"]],
      ["config-tracing", "cluster:knative-serving", "changes", ["unvalidated", "ignored"]],
    ]);
  });

  it("text output names live objects by kind, namespace and name", async () => {
    const r = await upgradeCheck(["--kubeconfig", kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `Knative 1.17 (detected in the cluster) → 1.24: 3 objects from cluster, 3 ConfigMaps, configuration cluster:knative-serving\n\nService team-a/from-helm  (cluster)\n  breaks on create and its next update: Knative 1.24 answers: admission webhook "validation.webhook.serving.knative.dev" denied the request: ${DENIED}\n`,
    );
  });

  it("-n NS checks only that namespace's objects", async () => {
    const { code, report: r } = await report(["-n", "team-b"]);
    expect(code).toBe(0);
    expect(r.objects.map((o) => o.name)).toEqual(["plain", "split"]);
    expect(api.requests.filter((q) => q.path.startsWith("/apis/")).map((q) => q.path)[0]).toBe("/apis/serving.knative.dev/v1/namespaces/team-b/services");
  });

  it("--from names the release without asking the detector; -f checks manifests under the cluster's configuration", async () => {
    const { code, report: r } = await report(["--from", "1.17", "-f", "test/fixtures/upgrade-check/manifests/services.yaml"]);
    expect(detections).toBe(0);
    expect(code).toBe(1);
    expect(r).toMatchObject({ from: "1.17", fromSource: "given", objectsFrom: "manifests", configuration: "cluster:knative-serving" });
    expect(r.objects.find((o) => o.name === "from-helm")?.category).toBe("breaks");
    expect(api.requests.filter((q) => q.path.startsWith("/apis/"))).toEqual([]);
  });

  it("exits 2 when --from auto cannot be answered: a release without a profile", async () => {
    detected = "1.20.1";
    const r = await upgradeCheck(["--kubeconfig", kubeconfig]);
    expect(r).toEqual({ code: 2, stdout: "", stderr: "duckbill upgrade-check: the cluster runs Knative 1.20.1, a release Duckbill has no profile for: give --from 1.24, 1.23, 1.17 (the nearest is 1.23)\n" });
  });

  it("exits 2 when the cluster already runs the release upgraded to", async () => {
    detected = "1.24.0";
    const r = await upgradeCheck(["--kubeconfig", kubeconfig, "--to", "1.24"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('duckbill upgrade-check: the cluster runs Knative 1.24; --from and --to are the same release (1.24): nothing changes\nRun "duckbill upgrade-check --help" for usage.\n');
  });

  it("exits 2 with the API's answer when a ConfigMap cannot be read", async () => {
    api.failNext(1, 403, { plural: "configmaps" });
    const r = await upgradeCheck(["--kubeconfig", kubeconfig, "--from", "1.17"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^duckbill upgrade-check: reading ConfigMap knative-serving\/config-\S+: HTTP 403: injected failure \(403\)\n$/);
  });
});
