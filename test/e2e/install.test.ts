/**
 * docs/install.md's two installs, run as written against a real kube-apiserver: the blocks the guide marks
 * (test/manifests/install-doc.ts reads them) go through bash with the harness's kubectl, each install into a fresh
 * cluster of its own. The standalone install starts from a cluster with Knative's CRDs only; the replacement from
 * Knative Serving 1.17's own webhook manifests (knative-release.ts). Each uninstall must remove exactly what its
 * install added; after the replacement's, Knative's namespace and objects are as they were.
 *
 * The harness runs kube-apiserver and etcd only: no controller-manager, so no Deployment ever rolls out and a deleted
 * Namespace stays Terminating. A kubectl shim therefore answers `rollout status` without waiting and passes
 * `--wait=false` to `delete` (it says so on stderr); every other command is the guide's, verbatim. These tests always
 * use the harness cluster, also when E2E_KUBECONFIG points kubectl.test.ts at another one (they create and delete
 * the knative-serving namespace).
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { installBlocks, type BlockName } from "../manifests/install-doc.js";
import { key } from "../manifests/kustomize.js";
import { buildHarness, REPO, run, startCluster, SYSTEM_NAMESPACE as NS, type Cluster, type HarnessBuild, type RunResult } from "./harness.js";
import { knativeServingCore } from "./knative-release.js";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- objects are read as loose JSON

const BLOCKS = installBlocks();

const SHIM = `#!/usr/bin/env bash
# kubectl for docs/install.md's blocks in the e2e cluster, which runs no controller-manager (test/e2e/install.test.ts).
case " $* " in
  *" rollout status "*) echo "[e2e shim] not waited for (no controller-manager): kubectl $*" >&2; exit 0 ;;
  *" delete "*) echo "[e2e shim] kubectl $* --wait=false" >&2; exec "$E2E_REAL_KUBECTL" "$@" --wait=false ;;
esac
exec "$E2E_REAL_KUBECTL" "$@"
`;

let build: HarnessBuild;

beforeAll(async () => {
  build = await buildHarness();
}, 45 * 60_000);

/** A fresh cluster, a work directory holding a copy of manifests/ and the shim, and ways to run the guide there. */
function useInstallCluster(): {
  kubectl(args: readonly string[], input?: string): Promise<RunResult>;
  kubectlOk(args: readonly string[], input?: string): Promise<string>;
  runBlock(name: BlockName): Promise<RunResult>;
  write(name: string, text: string): void;
} {
  let work = "";
  let cluster: Cluster | undefined;
  const kubectl = (args: readonly string[], input?: string): Promise<RunResult> => run(build.kubectl, ["--kubeconfig", cluster?.kubeconfig ?? "", ...args], { cwd: work, input, timeoutMs: 60_000 });
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "duckbill-e2e-install-"));
    cpSync(join(REPO, "manifests"), join(work, "manifests"), { recursive: true });
    mkdirSync(join(work, "bin"));
    writeFileSync(join(work, "bin", "kubectl"), SHIM);
    chmodSync(join(work, "bin", "kubectl"), 0o755);
    cluster = await startCluster(build.cluster, work);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    if (process.env.E2E_KEEP_WORKDIR === undefined && work !== "") rmSync(work, { recursive: true, force: true });
  }, 60_000);
  return {
    kubectl,
    async kubectlOk(args, input) {
      const r = await kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}):\n${r.stderr}`);
      return r.stdout;
    },
    runBlock(name) {
      const env = { ...process.env, PATH: `${join(work, "bin")}:${process.env.PATH ?? ""}`, KUBECONFIG: cluster?.kubeconfig ?? "", E2E_REAL_KUBECTL: build.kubectl };
      return run("bash", ["-euo", "pipefail", "-c", BLOCKS[name]], { cwd: work, env, timeoutMs: 120_000 });
    },
    write(name, text) {
      writeFileSync(join(work, name), text);
    },
  };
}

/** The objects a kustomization applies (kustomize as built into the harness's kubectl). */
async function rendered(c: ReturnType<typeof useInstallCluster>, dir: string): Promise<Obj[]> {
  return parseAllDocuments(await c.kubectlOk(["kustomize", dir])).map((d) => d.toJSON() as Obj);
}

/** The live object, or undefined when the API server answers NotFound. */
async function live(c: ReturnType<typeof useInstallCluster>, o: Obj): Promise<Obj | undefined> {
  const resource = `${String(o.kind).toLowerCase()}.${String(o.apiVersion).includes("/") ? String(o.apiVersion).split("/")[0] : ""}`.replace(/\.$/, "");
  const ns = o.metadata.namespace === undefined ? [] : ["-n", o.metadata.namespace as string];
  const r = await c.kubectl(["get", resource, o.metadata.name as string, ...ns, "-o", "json"]);
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl get ${key(o)}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as Obj;
}

function expectOk(r: RunResult, what: string): void {
  expect(r.code, `${what}\n${r.stdout}\n${r.stderr}`).toBe(0);
}

describe("docs/install.md, standalone", () => {
  const c = useInstallCluster();
  let objects: Obj[] = [];

  beforeAll(async () => {
    // A cluster with Knative's CRDs and no Knative Serving install.
    await c.kubectlOk(["apply", "-f", join(REPO, "manifests", "crds")]);
    await c.kubectlOk(["wait", "--for=condition=Established", "--timeout=60s", "-f", join(REPO, "manifests", "crds")]);
    objects = await rendered(c, "manifests/standalone");
  }, 120_000);

  it("starts where the guide's check says it may: no knative-serving namespace", async () => {
    const r = await c.kubectl(["get", "namespace", NS]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`namespaces "${NS}" not found`);
  });

  it("installs every object of manifests/standalone with the guide's commands", async () => {
    expectOk(await c.runBlock("standalone-install"), "standalone-install");
    expect(objects.length).toBeGreaterThan(10);
    for (const o of objects) expect(await live(c, o), key(o)).toBeDefined();
  });

  it("uninstalls with the guide's commands: every object gone, the namespace deleted, the CRDs kept", async () => {
    expectOk(await c.runBlock("standalone-uninstall"), "standalone-uninstall");
    for (const o of objects.filter((x) => x.kind !== "Namespace")) expect(await live(c, o), key(o)).toBeUndefined();
    // Deleted: gone, or Terminating in this cluster without a namespace controller.
    const ns = await live(c, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    expect(ns === undefined || typeof ns.metadata.deletionTimestamp === "string").toBe(true);
    expect(await c.kubectlOk(["get", "crd", "services.serving.knative.dev", "-o", "name"])).toContain("services.serving.knative.dev");
  });
});

describe("docs/install.md, replacing Knative's webhook", () => {
  const c = useInstallCluster();
  /** Knative's objects the replacement must leave alone, as they were before it: key → resourceVersion. */
  const kept = new Map<string, string>();
  let knative: Obj[] = [];
  let duckbillOwn: Obj[] = [];

  beforeAll(async () => {
    // Knative Serving's webhook as its release installs it; the guide calls that file serving-core.yaml.
    const core = await knativeServingCore();
    c.write("serving-core.yaml", core);
    await c.kubectlOk(["apply", "-f", "serving-core.yaml"]);
    knative = parseAllDocuments(core).map((d) => d.toJSON() as Obj).filter((o) => o !== null);
    const replaced = new Set((await rendered(c, "manifests/replace-knative")).map(key));
    for (const o of knative.filter((x) => !replaced.has(key(x)))) {
      const obj = await live(c, o);
      if (obj === undefined) throw new Error(`${key(o)} was not installed`);
      kept.set(key(o), obj.metadata.resourceVersion as string);
    }
    duckbillOwn = await rendered(c, "manifests/base/rbac");
  }, 15 * 60_000);

  async function expectKnativeKept(): Promise<void> {
    expect(kept.size).toBeGreaterThan(10);
    expect([...kept.keys()]).toEqual(expect.arrayContaining([`Namespace/${NS}`, `Service/${NS}/webhook`, `Secret/${NS}/webhook-certs`, "MutatingWebhookConfiguration/webhook.serving.knative.dev"]));
    for (const o of knative.filter((x) => kept.has(key(x)))) {
      const obj = await live(c, o);
      expect(obj, key(o)).toBeDefined();
      expect(obj?.metadata.resourceVersion, `${key(o)} changed`).toBe(kept.get(key(o)));
      expect(obj?.metadata.deletionTimestamp, key(o)).toBeUndefined();
    }
  }

  async function workload(): Promise<{ deployment: Obj; pdb: Obj; hpa: Obj }> {
    const get = async (kind: string, name: string): Promise<Obj> => JSON.parse(await c.kubectlOk(["get", kind, name, "-n", NS, "-o", "json"])) as Obj;
    return { deployment: await get("deployment", "webhook"), pdb: await get("poddisruptionbudget", "webhook-pdb"), hpa: await get("horizontalpodautoscaler", "webhook") };
  }

  it("installs with the guide's commands: Duckbill's pods in place of Knative's, nothing else of Knative's changed", async () => {
    expectOk(await c.runBlock("replace-install"), "replace-install");
    const { deployment, pdb, hpa } = await workload();
    expect(deployment.spec.template.spec.serviceAccountName).toBe("duckbill-webhook");
    expect(deployment.spec.template.spec.containers[0].image).toBe("duckbill:0.1.0");
    expect(pdb.spec).toMatchObject({ maxUnavailable: 1 });
    expect(hpa.spec.minReplicas).toBe(2);
    for (const o of duckbillOwn) expect(await live(c, o), key(o)).toBeDefined();
    await expectKnativeKept();
  });

  it("uninstalls with the guide's commands: Knative's webhook back, Duckbill's objects gone, knative-serving untouched", async () => {
    expectOk(await c.runBlock("replace-uninstall"), "replace-uninstall");
    const { deployment, pdb, hpa } = await workload();
    const spec = deployment.spec.template.spec;
    expect(spec.serviceAccountName).toBe("controller");
    expect(spec.containers[0].image).toBe("ko://knative.dev/serving/cmd/webhook");
    expect(spec.containers[0].env.map((e: Obj) => e.name)).not.toContain("DUCKBILL_CONFIG_SOURCE");
    expect(spec.volumes).toBeUndefined();
    expect(deployment.metadata.labels["app.kubernetes.io/part-of"]).toBeUndefined();
    expect(pdb.spec.minAvailable).toBe("80%");
    expect(pdb.spec.maxUnavailable).toBeUndefined();
    expect(hpa.spec.minReplicas).toBe(1);
    for (const o of duckbillOwn) expect(await live(c, o), key(o)).toBeUndefined();
    await expectKnativeKept();
  });
});
