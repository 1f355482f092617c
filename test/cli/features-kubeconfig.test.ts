/**
 * `duckbill features --kubeconfig` against the in-process fake API server (test/support/fake-apiserver.ts), with
 * a kubeconfig file written for it: the flag states come from the cluster's ConfigMaps, and `impact` checks the
 * live Services and Configurations as their next `kubectl apply` would be checked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listServingObjects, readAdmissionConfig } from "../../src/cli/cluster/features-cluster.js";
import { runFeatures } from "../../src/cli/features/features-command.js";
import { nextApplyOf } from "../../src/cli/cluster/live-objects.js";
import { LAST_APPLIED_ANNOTATION } from "../../src/cli/kubectl/kubectl-apply.js";
import { snapshotFrom } from "../../src/config/snapshot.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";
import { BUILTIN_RESOURCES, CONFIGMAPS, configMap, FakeApiServer, type KubeObject, type ResourceType } from "../support/fake-apiserver.js";
import { storeApplied } from "../support/live-objects.js";

const KSVC: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "services", kind: "Service", namespaced: true };
const KCONFIG: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "configurations", kind: "Configuration", namespaced: true };

const AFFINITY = "kubernetes.podspec-affinity";
const AFFINITY_DENIED = "validation failed: must not set the field(s): spec.template.spec.affinity";

let api: FakeApiServer;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "duckbill-features-kc-"));
  kubeconfig = join(dir, "config");
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
beforeEach(async () => {
  // A fixed release, so stderr holds only what these tests are about (auto's detection: features-release.test.ts).
  env = { DUCKBILL_KNATIVE_VERSION: "1.24" };
  api = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, KSVC, KCONFIG] });
  await writeFile(kubeconfig, api.kubeconfigYaml());
});
afterEach(async () => {
  await api.close();
});

/** The environment the command is given (main.ts hands it process.env). */
let env: Record<string, string> = {};

function features(args: string[]): Promise<CapturedRun> {
  return runCaptured((io) => runFeatures(args, io, undefined, env));
}

function service(namespace: string, name: string, podSpec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "serving.knative.dev/v1",
    kind: "Service",
    metadata: { name, namespace },
    spec: { template: { spec: { ...podSpec, containers: [{ image: "ghcr.io/knative/helloworld-go:latest" }] } } },
  };
}

const NODE_AFFINITY = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["eu-west-1a"] }] }] },
  },
};

/** Stores `manifest` as `kubectl apply` would have created it under `features` (storeApplied). */
function storeLive(rt: ResourceType, manifest: Record<string, unknown>, features: Record<string, string>, lastApplied = true): Promise<KubeObject> {
  return storeApplied(api, rt, manifest, snapshotFrom({ "config-features": features }, "setup"), lastApplied);
}

describe("duckbill features --kubeconfig", () => {
  it("shows the flag states of the cluster's config-features (namespace knative-serving)", async () => {
    api.create(CONFIGMAPS, configMap("knative-serving", "config-features", { [AFFINITY]: "enabled", "multi-container": "disabled", "kubernetes.podspec-bogus": "enabled" }));
    const r = await features(["--kubeconfig", kubeconfig]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubernetes\.podspec-affinity +Enabled +Disabled +extension/m);
    expect(r.stdout).toMatch(/^multi-container +Disabled +Enabled +feature/m);
    expect(r.stdout).toMatch(/^kubernetes\.podspec-fieldref +Disabled +Disabled/m);
    // Without --knative-version: as Knative 1.24 (this fake cluster has no Serving CRDs labelled with a release).
    expect(r.stderr).toBe('note: config-features key "kubernetes.podspec-bogus" is not a Knative 1.24 flag; it is ignored\n');
    // config-features, config-defaults and config-autoscaler, each read once from the system namespace.
    expect(api.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      "GET /api/v1/namespaces/knative-serving/configmaps/config-defaults",
      "GET /api/v1/namespaces/knative-serving/configmaps/config-features",
      "GET /api/v1/namespaces/knative-serving/configmaps/config-autoscaler",
      "GET /api/v1/namespaces/knative-serving/configmaps/config-features-scopes",
    ]);
    expect(api.requests.every((q) => q.authorization === `Bearer ${FakeApiServer.TOKEN}`)).toBe(true);
  });

  it("reads the ConfigMaps from --system-namespace NS, or from SYSTEM_NAMESPACE", async () => {
    api.create(CONFIGMAPS, configMap("serving-system", "config-features", { [AFFINITY]: "allowed" }));
    const byFlag = await features(["--kubeconfig", kubeconfig, "--system-namespace", "serving-system", "-o", "json"]);
    expect(byFlag.code).toBe(0);
    const out = JSON.parse(byFlag.stdout) as { source: string; flags: Array<{ flag: string; state: string }> };
    expect(out.source).toBe("cluster:serving-system");
    expect(out.flags.find((f) => f.flag === AFFINITY)?.state).toBe("Allowed");

    env = { ...env, SYSTEM_NAMESPACE: "serving-system" };
    const byEnv = await features(["explain", AFFINITY, "--kubeconfig", kubeconfig]);
    expect(byEnv.code).toBe(0);
    expect(byEnv.stdout).toMatch(/^kubernetes\.podspec-affinity: extension, default Disabled, currently Allowed \(cluster:serving-system\)\n/);
  });

  it("takes Knative's defaults for ConfigMaps that do not exist", async () => {
    const r = await features(["explain", "spec.template.spec.affinity", "--kubeconfig", kubeconfig]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("kubernetes.podspec-affinity: extension, default Disabled, currently Disabled (cluster:knative-serving)\n");
    const list = await features(["--kubeconfig", kubeconfig, "-o", "json"]);
    const out = JSON.parse(list.stdout) as { flags: Array<{ state: string; default: string }> };
    expect(out.flags.every((f) => f.state === f.default)).toBe(true);
  });

  it("exits 2 naming the ConfigMap and the API's answer when a read fails", async () => {
    api.failNext(1, 500, { plural: "configmaps" });
    const r = await features(["--kubeconfig", kubeconfig]);
    expect(r).toEqual({ code: 2, stdout: "", stderr: "duckbill features: reading ConfigMap knative-serving/config-defaults: HTTP 500: injected failure (500)\n" });
  });

  it("exits 2 when the cluster cannot be reached or the kubeconfig file does not exist", async () => {
    await api.close();
    const down = await features(["--kubeconfig", kubeconfig]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/^duckbill features: reading ConfigMap knative-serving\/config-defaults: .+/);
    api = await FakeApiServer.start();
    const missing = await features(["--kubeconfig", join(dir, "nope")]);
    expect(missing).toEqual({ code: 2, stdout: "", stderr: `duckbill features: --kubeconfig: kubeconfig file "${join(dir, "nope")}" does not exist\n` });
  });

  it.each([
    { name: "--kubeconfig with --config-dir", args: ["--kubeconfig", "KC", "--config-dir", "test/fixtures/check/config-affinity"], stderr: /--kubeconfig and --config-dir are alternatives/ },
    { name: "explain with both", args: ["explain", AFFINITY, "--config-dir", "test/fixtures/check/config-affinity", "--kubeconfig", "KC"], stderr: /--kubeconfig and --config-dir are alternatives/ },
    { name: "impact with both", args: ["impact", "--disable", AFFINITY, "--kubeconfig", "KC", "--config-dir", "test/fixtures/check/config-affinity"], stderr: /--kubeconfig and --config-dir are alternatives/ },
    { name: "impact with -f and --kubeconfig", args: ["impact", "--disable", AFFINITY, "--kubeconfig", "KC", "-f", "test/fixtures/check/affinity.yaml"], stderr: /either manifests \(-f\) or the cluster's live objects \(--kubeconfig\)/ },
    { name: "--system-namespace without --kubeconfig", args: ["--system-namespace", "serving-system"], stderr: /--system-namespace says where the cluster's ConfigMaps are: it needs --kubeconfig/ },
    { name: "--namespace-labels without --namespace", args: ["--namespace-labels", "a=b"], stderr: /--namespace-labels are the labels of --namespace: give both/ },
    { name: "--namespace-labels with --kubeconfig", args: ["--kubeconfig", "KC", "-n", "x", "--namespace-labels", "a=b"], stderr: /--namespace-labels is for use without --kubeconfig/ },
    { name: "an empty --kubeconfig", args: ["--kubeconfig", ""], stderr: /--kubeconfig needs a file/ },
  ])("exits 2 on usage errors without touching the cluster: $name", async ({ args, stderr }) => {
    const r = await features(args.map((a) => (a === "KC" ? kubeconfig : a)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(stderr);
    expect(r.stderr).toContain('Run "duckbill features --help" for usage.');
    expect(api.requests).toEqual([]);
  });
});

describe("duckbill features impact --kubeconfig", () => {
  beforeEach(async () => {
    api.create(CONFIGMAPS, configMap("knative-serving", "config-features", { [AFFINITY]: "enabled" }));
    // Applied with kubectl (last-applied-configuration), using affinity.
    const pinned = await storeLive(KSVC, service("team-a", "pinned", { affinity: NODE_AFFINITY }), { [AFFINITY]: "enabled" });
    // Made without client-side apply, no gated field.
    await storeLive(KSVC, service("team-b", "plain"), {}, false);
    // The Configuration the Serving controller made for "pinned": left out (its Service is what gets updated).
    const owned = await storeLive(KCONFIG, { apiVersion: "serving.knative.dev/v1", kind: "Configuration", metadata: { name: "pinned", namespace: "team-a" }, spec: service("team-a", "pinned", { affinity: NODE_AFFINITY }).spec as { template: unknown } }, { [AFFINITY]: "enabled" });
    api.apply(KCONFIG, {
      ...owned,
      metadata: { ...owned.metadata, ownerReferences: [{ apiVersion: "serving.knative.dev/v1", kind: "Service", name: "pinned", uid: pinned.metadata.uid, controller: true, blockOwnerDeletion: true }] },
    });
    api.requests.length = 0;
  });

  it("lists the live Service that uses the flag's fields, not the one that does not, and exits 1 as with -f", async () => {
    const r = await features(["impact", "--disable", AFFINITY, "--kubeconfig", kubeconfig]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      "Disabling kubernetes.podspec-affinity (now Enabled) would deny 1 of the 2 checked objects; objects that exist keep running, their next create or update is denied:\n" +
        "\n" +
        "Service team-a/pinned\n" +
        "  uses spec.template.spec.affinity\n" +
        `  admission webhook "validation.webhook.serving.knative.dev" denied the request: ${AFFINITY_DENIED}\n`,
    );
    expect(r.code).toBe(1);
    // Services and Configurations of all namespaces, listed in pages.
    const lists = api.requests.filter((q) => q.path.startsWith("/apis/"));
    expect(lists.map((q) => `${q.method} ${q.path} limit=${q.query.get("limit") ?? ""}`)).toEqual([
      "GET /apis/serving.knative.dev/v1/services limit=500",
      "GET /apis/serving.knative.dev/v1/configurations limit=500",
    ]);
  });

  it("-o json names each object by kind, namespace and name, with before and after", async () => {
    const r = await features(["impact", "--disable", AFFINITY, "--kubeconfig", kubeconfig, "-o", "json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { flag: string; state: string; denied: number; objects: Array<Record<string, unknown>> };
    expect(out).toMatchObject({ flag: AFFINITY, state: "Enabled", denied: 1 });
    expect(out.objects).toEqual([
      expect.objectContaining({ source: "team-a/pinned", kind: "Service", namespace: "team-a", name: "pinned", before: "configured", after: "denied", uses: ["spec.template.spec.affinity"], message: AFFINITY_DENIED }),
      expect.objectContaining({ source: "team-b/plain", kind: "Service", namespace: "team-b", name: "plain", before: "configured", after: "configured", uses: [] }),
    ]);
  });

  it("-n NS checks only that namespace's objects (exit 0 when none would be denied)", async () => {
    const r = await features(["impact", "--disable", AFFINITY, "--kubeconfig", kubeconfig, "-n", "team-b"]);
    expect(r.stdout).toBe("Disabling kubernetes.podspec-affinity (now Enabled) would deny none of the 1 checked objects.\n");
    expect(r.code).toBe(0);
    expect(api.requests.filter((q) => q.path.startsWith("/apis/")).map((q) => q.path)).toEqual([
      "/apis/serving.knative.dev/v1/namespaces/team-b/services",
      "/apis/serving.knative.dev/v1/namespaces/team-b/configurations",
    ]);
  });

  it("with the flag already Disabled in the cluster, reports the Service as denied already", async () => {
    api.apply(CONFIGMAPS, configMap("knative-serving", "config-features", {}));
    const r = await features(["impact", "--disable", AFFINITY, "--kubeconfig", kubeconfig]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "note: kubernetes.podspec-affinity is already Disabled in this configuration.\n" +
        "Disabling kubernetes.podspec-affinity (now Disabled) would deny none of the 2 checked objects.\n" +
        '\n1 object(s) are denied already with the current configuration (run "duckbill check").\n',
    );
  });

  it("exits 2 with the API's answer when the objects cannot be listed", async () => {
    api.failNext(1, 404, { plural: "services" });
    const r = await features(["impact", "--disable", AFFINITY, "--kubeconfig", kubeconfig]);
    expect(r).toEqual({ code: 2, stdout: "", stderr: "duckbill features: listing services.serving.knative.dev in all namespaces: HTTP 404: injected failure (404)\n" });
  });

  it("pages through long lists with continue", async () => {
    for (const n of ["a", "b", "c"]) await storeLive(KSVC, service("team-c", n), {});
    const kc = api.kubeConfig();
    const objs = await listServingObjects(kc, "team-c", 2);
    expect(objs.map((o) => `${String(o.kind)} ${(o.metadata as { name: string }).name}`)).toEqual(["Service a", "Service b", "Service c"]);
    const svcLists = api.requests.filter((q) => q.path.endsWith("/services"));
    expect(svcLists.map((q) => [q.query.get("limit"), q.query.get("continue") !== null])).toEqual([
      ["2", false],
      ["2", true],
    ]);
    expect((await readAdmissionConfig(kc, "knative-serving")).admission.features.podSpecAffinity).toBe("Enabled");
  });
});

describe("nextApplyOf", () => {
  it("is the last-applied configuration when there is one, else the live object without what the server sets", () => {
    const applied = { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "s", namespace: "n" }, spec: { template: {} } };
    const live = {
      apiVersion: "serving.knative.dev/v1",
      kind: "Service",
      metadata: {
        name: "s",
        namespace: "n",
        uid: "u",
        resourceVersion: "7",
        generation: 3,
        creationTimestamp: "2024-01-01T00:00:00Z",
        managedFields: [{ manager: "kn" }],
        labels: { app: "s" },
        annotations: { "serving.knative.dev/creator": "me" },
      },
      spec: { template: { spec: { containers: [{ image: "x" }] } } },
      status: { observedGeneration: 3 },
    };
    expect(nextApplyOf(live)).toEqual({
      apiVersion: "serving.knative.dev/v1",
      kind: "Service",
      metadata: { name: "s", namespace: "n", labels: { app: "s" }, annotations: { "serving.knative.dev/creator": "me" } },
      spec: { template: { spec: { containers: [{ image: "x" }] } } },
    });
    const withApplied = { ...live, metadata: { ...live.metadata, annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify(applied) } } };
    expect(nextApplyOf(withApplied)).toEqual(applied);
    // A last-applied configuration without a namespace is the live object's namespace.
    const { namespace: _ns, ...appliedMeta } = applied.metadata;
    const noNamespace = { ...live, metadata: { ...live.metadata, annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify({ ...applied, metadata: appliedMeta }) } } };
    expect(nextApplyOf(noNamespace)).toEqual(applied);
  });
});
