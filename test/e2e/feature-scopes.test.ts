/**
 * End to end: feature scopes (config-features-scopes, docs/feature-scopes.md) through a real kube-apiserver.
 * Two flags are open cluster-wide (Allowed) and scoped: kubernetes.podspec-affinity to the namespaces labelled
 * tenant=platform, kubernetes.podspec-runtimeclassname to the namespace team-a by name. Duckbill runs with
 * --feature-scopes (DUCKBILL_FEATURE_SCOPES=true) and the RBAC of manifests/components/feature-scopes, as its own
 * ServiceAccount. kubectl applies the same Services in two namespaces; relabelling a namespace moves it in and out
 * of a scope within moments, without a restart. Same cluster harness as kubectl.test.ts (docs/e2e.md).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awaitWebhookServing,
  CRD_RELEASE as RELEASE,
  installCrds,
  installSystemBase,
  knativeConfigMap,
  kubectlRunner,
  openCluster,
  REPO,
  run,
  SECURITY_WARNING,
  startDuckbill,
  SYSTEM_NAMESPACE as SYSTEM_NS,
  waitFor,
  writeTokenKubeconfig,
  type Cluster,
  type Duckbill,
} from "./harness.js";

const TEAM_A = "team-a";
const TEAM_B = "team-b";
const EXTERNAL = process.env.E2E_KUBECONFIG;
const AFFINITY = "kubernetes.podspec-affinity";
const RUNTIME = "kubernetes.podspec-runtimeclassname";
const WEBHOOK = "validation.webhook.serving.knative.dev";
/** How soon a relabelling must take effect: the namespace watch delivers it in milliseconds. */
const RELABEL_WITHIN_MS = 5000;

let work = "";
let cluster: Cluster | undefined;
let duckbill: Duckbill | undefined;
let kubeconfig = "";
let kubectlBin = "kubectl";

const { kubectl, kubectlOk } = kubectlRunner(() => kubectlBin, () => kubeconfig, () => work);

function write(name: string, text: string): string {
  writeFileSync(join(work, name), text);
  return name;
}

function configMap(name: string, data: Record<string, string>): string {
  return knativeConfigMap(name, "controller", data);
}

const SCOPES = { [AFFINITY]: "selector:\n  tenant: platform\n", [RUNTIME]: `namespaces: [${TEAM_A}]\n` };

/** A Service named `name` in `namespace` whose template sets `podSpec` (YAML lines at the pod spec's indentation). */
function service(name: string, namespace: string, podSpec: string, target = "one"): string {
  return `apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  template:
    spec:
${podSpec}      containers:
        - image: ghcr.io/knative/helloworld-go:latest
          env:
            - name: TARGET
              value: ${target}
`;
}

const AFFINITY_SPEC = `      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - key: topology.kubernetes.io/zone
                    operator: In
                    values: ["eu-west-1a"]
`;
const RUNTIME_SPEC = "      runtimeClassName: gvisor\n";

/** kubectl's text for a create the webhook denies (the defaulting webhook's warning first). */
function deniedCreate(file: string, ...message: string[]): string {
  return `${SECURITY_WARNING}\nError from server (BadRequest): error when creating "${file}": admission webhook "${WEBHOOK}" denied the request: validation failed: ${message.join("\n")}\n`;
}

function scopeLine(key: string, namespace: string, scope: string): string {
  return `feature ${key} is Allowed cluster-wide but Disabled in namespace "${namespace}": the namespace is outside its scope in ConfigMap config-features-scopes (${scope})`;
}

const AFFINITY_DENIED = "must not set the field(s): spec.template.spec.affinity";
const RUNTIME_DENIED = "must not set the field(s): spec.template.spec.runtimeClassName";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "duckbill-e2e-scopes-"));
  const opened = await openCluster(work);
  ({ cluster, kubeconfig, kubectl: kubectlBin } = opened);
  await installCrds((args) => kubectlOk(args), RELEASE);
  await installSystemBase((args) => kubectlOk(args));
  // The opt-in component's RBAC (its kustomization only adds this file and the Deployment's variable).
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "components", "feature-scopes", "200-rbac.yaml")]);
  for (const name of ["config-defaults", "config-autoscaler"]) await kubectlOk(["apply", "-f", "-"], configMap(name, {}));
  await kubectlOk(["apply", "-f", "-"], configMap("config-features", { [AFFINITY]: "allowed", [RUNTIME]: "allowed" }));
  await kubectlOk(["apply", "-f", "-"], configMap("config-features-scopes", SCOPES));
  await kubectlOk(["create", "namespace", TEAM_A]);
  await kubectlOk(["label", "namespace", TEAM_A, "tenant=platform"]);
  await kubectlOk(["create", "namespace", TEAM_B]);
  // No controller-manager in the harness: the default ServiceAccount the PodSpec dry run's Pod uses is created here.
  for (const ns of [TEAM_A, TEAM_B]) if ((await kubectl(["get", "serviceaccount", "default", "-n", ns])).code !== 0) await kubectlOk(["create", "serviceaccount", "default", "-n", ns]);
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "standalone", "700-webhooks.yaml")]);

  const token = (await kubectlOk(["create", "token", "duckbill-webhook", "-n", SYSTEM_NS, "--duration=2h"])).trim();
  const duckbillKubeconfig = join(work, "duckbill.kubeconfig");
  await writeTokenKubeconfig((args) => kubectlOk(args), duckbillKubeconfig, "duckbill-webhook", token);
  const host = process.env.E2E_WEBHOOK_HOST ?? "127.0.0.1";
  duckbill = await startDuckbill({
    kubeconfig: duckbillKubeconfig,
    workDir: work,
    host,
    listenHost: host === "127.0.0.1" ? "127.0.0.1" : "0.0.0.0",
    env: { DUCKBILL_FEATURE_SCOPES: "true" },
  });
  await awaitWebhookServing((args) => kubectl(args), (args) => kubectlOk(args), duckbill.url, write("probe.yaml", service("probe", TEAM_A, "")));
}, 45 * 60_000);

afterAll(async () => {
  await duckbill?.stop();
  if (EXTERNAL !== undefined && kubeconfig !== "") {
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "standalone", "700-webhooks.yaml")]);
    await kubectl(["delete", "namespace", TEAM_A, TEAM_B, "--ignore-not-found", "--wait=false"]);
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "standalone", "300-secret.yaml")]);
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "components", "feature-scopes", "200-rbac.yaml")]);
    await kubectl(["delete", "--ignore-not-found", "-k", join(REPO, "manifests", "base", "rbac")]);
    await kubectl(["delete", "configmap", "-n", SYSTEM_NS, "config-features", "config-features-scopes", "config-defaults", "config-autoscaler", "--ignore-not-found"]);
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "crds")]);
  }
  await cluster?.stop();
  if (process.env.E2E_KEEP_WORKDIR === undefined) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("feature scopes through a real kube-apiserver", () => {
  it("admits a scoped field inside the scope and denies it outside, naming the scope and the namespace", async () => {
    const a = await kubectl(["apply", "-f", write("pinned-a.yaml", service("pinned", TEAM_A, AFFINITY_SPEC))]);
    expect(a.stdout).toBe("service.serving.knative.dev/pinned created\n");
    expect(a.stderr).toBe(`${SECURITY_WARNING}\n`);
    const b = await kubectl(["apply", "-f", write("pinned-b.yaml", service("pinned", TEAM_B, AFFINITY_SPEC))]);
    expect(b.code).toBe(1);
    expect(b.stdout).toBe("");
    expect(b.stderr).toBe(deniedCreate("pinned-b.yaml", AFFINITY_DENIED, scopeLine(AFFINITY, TEAM_B, "selector tenant=platform")));
  });

  it("scopes a second flag by name", async () => {
    const a = await kubectl(["apply", "-f", write("sandboxed-a.yaml", service("sandboxed", TEAM_A, RUNTIME_SPEC))]);
    expect(a.stdout).toBe("service.serving.knative.dev/sandboxed created\n");
    const b = await kubectl(["apply", "-f", write("sandboxed-b.yaml", service("sandboxed", TEAM_B, RUNTIME_SPEC))]);
    expect(b.stderr).toBe(deniedCreate("sandboxed-b.yaml", RUNTIME_DENIED, scopeLine(RUNTIME, TEAM_B, `namespaces ${TEAM_A}`)));
  });

  it("duckbill check --kubeconfig -n NS prints what kubectl prints", async () => {
    const r = await run(process.execPath, [join(REPO, "bin", "duckbill"), "check", "--kubeconfig", kubeconfig, "--knative-version", RELEASE.slice(0, 4), "-n", TEAM_B, "-f", "sandboxed-b.yaml"], { cwd: work });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(deniedCreate("sandboxed-b.yaml", RUNTIME_DENIED, scopeLine(RUNTIME, TEAM_B, `namespaces ${TEAM_A}`)));
  });

  it("a namespace labelled into the scope may use the field within moments", async () => {
    await kubectlOk(["label", "namespace", TEAM_B, "tenant=platform"]);
    const labelled = Date.now();
    const r = await waitFor("team-b inside the affinity scope", RELABEL_WITHIN_MS, async () => {
      const a = await kubectl(["apply", "-f", "pinned-b.yaml"]);
      return a.code === 0 ? a : undefined;
    }, 50);
    expect(r.stdout).toBe("service.serving.knative.dev/pinned created\n");
    console.log(`feature scopes e2e: relabelled in, admitted after ${Date.now() - labelled} ms`);
  });

  it("a namespace labelled out of the scope is denied again; its existing Service keeps reconciling (status updates pass) while a spec update is denied, as Knative does for a flag switched off", async () => {
    await kubectlOk(["label", "namespace", TEAM_A, "tenant-"]);
    const labelled = Date.now();
    const denied = await waitFor("team-a outside the affinity scope", RELABEL_WITHIN_MS, async () => {
      const r = await kubectl(["apply", "-f", write("pinned2-a.yaml", service("pinned2", TEAM_A, AFFINITY_SPEC))]);
      return r.code === 1 ? r : undefined;
    }, 50);
    console.log(`feature scopes e2e: relabelled out, denied after ${Date.now() - labelled} ms`);
    expect(denied.stderr).toBe(deniedCreate("pinned2-a.yaml", AFFINITY_DENIED, scopeLine(AFFINITY, TEAM_A, "selector tenant=platform")));
    // The stored Service from before: a controller's status update is admitted (Knative skips the spec then) ...
    const status = await kubectl(["patch", "service.serving.knative.dev", "pinned", "-n", TEAM_A, "--subresource=status", "--type=merge", "-p", '{"status":{"observedGeneration":1}}']);
    expect(status.code).toBe(0);
    expect(status.stdout).toBe("service.serving.knative.dev/pinned patched\n");
    // ... and a spec update that does not touch the gated field is validated in full, as with the flag Disabled.
    const update = await kubectl(["apply", "-f", write("pinned-a-2.yaml", service("pinned", TEAM_A, AFFINITY_SPEC, "two"))]);
    expect(update.code).toBe(1);
    expect(update.stderr).toContain(`admission webhook "${WEBHOOK}" denied the request: validation failed: ${AFFINITY_DENIED}\n${scopeLine(AFFINITY, TEAM_A, "selector tenant=platform")}`);
    // The log says what the relabelling changed.
    await waitFor("the relabelling in Duckbill's log", 5000, async () => (readFileSync(duckbill?.log ?? "", "utf8").includes("feature scopes: a relabelled namespace changed its flags") ? true : undefined));
  });

  it("/config-validation refuses a scope that does not parse, with a Knative-style message", async () => {
    const r = await kubectl(["apply", "-f", "-"], configMap("config-features-scopes", { ...SCOPES, "kubernetes.podspec-nope": "namespaces: [a]" }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'admission webhook "config.webhook.serving.knative.dev" denied the request: validation failed: unknown feature flag "kubernetes.podspec-nope": the key must be a config-features flag',
    );
  });
});
