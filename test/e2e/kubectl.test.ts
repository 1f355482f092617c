/**
 * End to end: kubectl → a real kube-apiserver → TLS → Duckbill's AdmissionReview answers → the API server's own
 * JSON Patch code and CRD pruning → etcd → kubectl's rendering of the answer.
 *
 * By default the cluster is test/e2e/cluster (etcd + kube-apiserver in one process, built once and cached by
 * test/e2e/build-cluster.sh). E2E_KUBECONFIG=<file> runs the same suite against an existing cluster without
 * Knative Serving (kind, k3d, a real one); see docs/e2e.md. Run with `npm run test:e2e`.
 *
 * Each expected text is written out literally, and also compared with `duckbill check`, which claims to print
 * what kubectl prints for the same manifest (docs/cli.md): the suite proves that claim against the real thing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  awaitWebhookServing,
  buildHarness,
  CRD_RELEASE as RELEASE,
  installCrds,
  installSystemBase,
  knativeConfigMap,
  kubectlPath,
  REPO,
  run,
  SECURITY_WARNING,
  SYSTEM_NAMESPACE as SYSTEM_NS,
  servedFingerprint,
  startCluster,
  startDuckbill,
  waitFor,
  type Cluster,
  type Duckbill,
  type HarnessBuild,
  type RunResult,
  writeTokenKubeconfig,
} from "./harness.js";

type Obj = Record<string, unknown>;

const NS = "duckbill-e2e";
const ALICE = "e2e-alice";
const BOB = "e2e-bob";
const EXTERNAL = process.env.E2E_KUBECONFIG;
const CRD_SELECTOR = "knative.dev/crd-install=true";

let work = "";
let configDir = "";
let build: HarnessBuild | undefined;
let cluster: Cluster | undefined;
let duckbill: Duckbill | undefined;
let kubeconfig = "";
let kubectlBin = "kubectl";
const timings: Record<string, number> = {};

/** kubectl as the admin, or impersonating `as` (in system:masters, so only the user name differs). */
function kubectl(args: readonly string[], opts: { as?: string; input?: string } = {}): Promise<RunResult> {
  const as = opts.as === undefined ? [] : [`--as=${opts.as}`, "--as-group=system:masters"];
  return run(kubectlBin, ["--kubeconfig", kubeconfig, ...as, ...args], { cwd: work, input: opts.input, timeoutMs: 60_000 });
}

async function kubectlOk(args: readonly string[], opts: { as?: string; input?: string } = {}): Promise<string> {
  const r = await kubectl(args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}):\n${r.stderr}`);
  return r.stdout;
}

async function getJson(resource: string, name: string, ns = NS): Promise<Obj> {
  return JSON.parse(await kubectlOk(["get", resource, name, "-n", ns, "-o", "json"])) as Obj;
}

/** `duckbill check` in-process of the CLI, with the same configuration the cluster holds. */
function check(args: readonly string[]): Promise<RunResult> {
  return run(process.execPath, [join(REPO, "bin", "duckbill"), "check", "--config-dir", configDir, "--knative-version", RELEASE.slice(0, 4), "-n", NS, ...args], { cwd: work });
}

/** `duckbill check --kubeconfig`: the cluster's configuration, CRDs and live objects, as the admin reads them. */
function checkCluster(args: readonly string[]): Promise<RunResult> {
  return run(process.execPath, [join(REPO, "bin", "duckbill"), "check", "--kubeconfig", kubeconfig, "--knative-version", RELEASE.slice(0, 4), "-n", NS, ...args], { cwd: work });
}

function write(name: string, text: string): string {
  writeFileSync(join(work, name), text);
  return name;
}

function service(name: string, spec: string, extraMeta = ""): string {
  return `apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: ${name}
  namespace: ${NS}${extraMeta}
spec:
${spec}`;
}

const HELLO_SPEC = `  template:
    spec:
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
          env:
            - name: TARGET
              value: one
`;

const AFFINITY_SPEC = `  template:
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - key: topology.kubernetes.io/zone
                    operator: In
                    values: ["eu-west-1a"]
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
`;

const configMap = knativeConfigMap;

/** Applies a config-features change to the cluster and to the directory `duckbill check` reads. */
async function setFeatures(data: Record<string, string>): Promise<void> {
  const text = configMap("config-features", "controller", data);
  writeFileSync(join(configDir, "config-features.yaml"), text);
  await kubectlOk(["apply", "-f", "-"], { input: text });
}

/** What kubectl printed, as one text: stdout then stderr, as a terminal shows them. */
function printed(r: RunResult): string {
  return `${r.stdout}${r.stderr}`;
}

/** The stored object without what the API server adds and Duckbill cannot know. */
function comparable(o: Obj): Obj {
  const copy = structuredClone(o);
  const meta = copy.metadata as Obj;
  for (const k of ["uid", "creationTimestamp", "generation", "resourceVersion", "managedFields"]) delete meta[k];
  const annotations = meta.annotations as Record<string, string> | undefined;
  if (annotations !== undefined) delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
  delete copy.status;
  return copy;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "duckbill-e2e-"));
  configDir = join(work, "config");
  await run("mkdir", ["-p", configDir]);
  let started = Date.now();
  try {
    build = await buildHarness();
    timings.buildOrCacheMs = build.ms;
  } catch (err) {
    if (EXTERNAL === undefined) throw err;
    // An existing cluster needs only kubectl: the harness build is optional then.
  }
  kubectlBin = kubectlPath(build);
  if (EXTERNAL !== undefined) {
    kubeconfig = EXTERNAL;
  } else {
    started = Date.now();
    cluster = await startCluster(build?.cluster ?? "", work);
    kubeconfig = cluster.kubeconfig;
    timings.apiServerStartMs = cluster.startMs ?? 0;
  }

  // CRDs first, then the system namespace and what must exist before the webhook configurations do: once they
  // exist (failurePolicy Fail), Knative's ConfigMaps cannot be written until Duckbill answers.
  started = Date.now();
  await installCrds((args) => kubectlOk(args), RELEASE);
  timings.crdsEstablishedMs = Date.now() - started;
  await installSystemBase((args) => kubectlOk(args));
  await kubectlOk(["apply", "-f", "-"], { input: configMap("config-defaults", "controller", {}) });
  await kubectlOk(["apply", "-f", "-"], { input: configMap("config-autoscaler", "autoscaler", {}) });
  await setFeatures({});
  await kubectlOk(["create", "namespace", NS]);
  // No controller-manager in the harness: the namespace's default ServiceAccount (which the PodSpec dry run's Pod
  // uses) is created here.
  if ((await kubectl(["get", "serviceaccount", "default", "-n", NS])).code !== 0) {
    await kubectlOk(["create", "serviceaccount", "default", "-n", NS]);
  }
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "standalone", "700-webhooks.yaml")]);

  // Duckbill runs as its own ServiceAccount with the RBAC of manifests/base/rbac (a TokenRequest token), so a
  // missing permission fails here as it would in a cluster, including the checks of OwnerReferencesPermission-
  // Enforcement (enabled by startCluster) when the reconciler makes the Namespace the configurations' owner.
  const token = (await kubectlOk(["create", "token", "duckbill-webhook", "-n", SYSTEM_NS, "--duration=2h"])).trim();
  const duckbillKubeconfig = join(work, "duckbill.kubeconfig");
  await writeTokenKubeconfig((args) => kubectlOk(args), duckbillKubeconfig, "duckbill-webhook", token);

  started = Date.now();
  const host = process.env.E2E_WEBHOOK_HOST ?? "127.0.0.1";
  duckbill = await startDuckbill({ kubeconfig: duckbillKubeconfig, workDir: work, host, listenHost: host === "127.0.0.1" ? "127.0.0.1" : "0.0.0.0" });
  // Ready when the Secret is filled, all three configurations point at Duckbill with its CA, and the API server's
  // admission plugin has picked them up: a server-side dry run comes back defaulted.
  await awaitWebhookServing((args) => kubectl(args), (args) => kubectlOk(args), duckbill.url, write("probe.yaml", service("probe", HELLO_SPEC)));
  timings.duckbillReadyMs = Date.now() - started;
}, 45 * 60_000);

afterAll(async () => {
  await duckbill?.stop();
  if (EXTERNAL !== undefined && kubeconfig !== "") {
    // Leave an existing cluster as it was: webhook configurations first (they would block Knative kinds), then the
    // objects, then the CRDs.
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "standalone", "700-webhooks.yaml")]);
    await kubectl(["delete", "namespace", NS, "--ignore-not-found", "--wait=false"]);
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "standalone", "300-secret.yaml")]);
    await kubectl(["delete", "--ignore-not-found", "-k", join(REPO, "manifests", "base", "rbac")]);
    await kubectl(["delete", "configmap", "-n", SYSTEM_NS, "config-features", "config-defaults", "config-autoscaler", "--ignore-not-found"]);
    await kubectl(["delete", "--ignore-not-found", "-f", join(REPO, "manifests", "crds")]);
  }
  await cluster?.stop();
  console.log(`e2e timings: ${JSON.stringify({ ...timings, build: build?.info })}`);
  if (process.env.E2E_KEEP_WORKDIR === undefined) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("the webhook configurations as Duckbill reconciled them", () => {
  it("are owned by the knative-serving Namespace (an update OwnerReferencesPermissionEnforcement checks against the manifests' RBAC)", async () => {
    const ns = JSON.parse(await kubectlOk(["get", "namespace", SYSTEM_NS, "-o", "json"])) as { metadata: { uid: string } };
    // As Knative 1.23 writes it (controller: false since knative.dev/pkg of serving v0.47.0); a relabelling of the
    // CRDs by an earlier test is followed by a new reconcile, hence the wait.
    const want = [{ apiVersion: "v1", kind: "Namespace", name: SYSTEM_NS, uid: ns.metadata.uid, controller: false, blockOwnerDeletion: true }];
    for (const [kind, name] of [
      ["mutatingwebhookconfiguration", "webhook.serving.knative.dev"],
      ["validatingwebhookconfiguration", "validation.webhook.serving.knative.dev"],
      ["validatingwebhookconfiguration", "config.webhook.serving.knative.dev"],
    ] as const) {
      const refs = await waitFor(`${name} owned as Knative 1.23 writes it`, 30_000, async () => {
        const meta = (JSON.parse(await kubectlOk(["get", kind, name, "-o", "json"])) as Obj).metadata as Obj;
        return isDeepStrictEqual(meta.ownerReferences, want) ? meta.ownerReferences : undefined;
      });
      expect(refs, name).toEqual(want);
    }
  });
});

describe("kubectl apply through a real kube-apiserver", () => {
  it("a valid Service is stored with Duckbill's defaults, creator and lastModifier", async () => {
    write("hello.yaml", service("hello", HELLO_SPEC));
    const r = await kubectl(["apply", "-f", "hello.yaml"], { as: ALICE });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("service.serving.knative.dev/hello created\n");
    expect(r.stderr).toBe(`${SECURITY_WARNING}\n`);
    expect(printed(r)).toBe(printed(await check(["-f", "hello.yaml", "--user", ALICE])));

    const stored = await getJson("ksvc", "hello");
    const annotations = (stored.metadata as Obj).annotations as Record<string, string>;
    expect(annotations["serving.knative.dev/creator"]).toBe(ALICE);
    expect(annotations["serving.knative.dev/lastModifier"]).toBe(ALICE);
    const spec = stored.spec as { template: { spec: Obj }; traffic: unknown };
    expect(spec.traffic).toEqual([{ latestRevision: true, percent: 100 }]);
    expect(spec.template.spec.timeoutSeconds).toBe(300);
    expect(spec.template.spec.containerConcurrency).toBe(0);
    const container = (spec.template.spec.containers as Obj[])[0] as Obj;
    expect(container.name).toBe("user-container");
    expect(container.readinessProbe).toEqual({ successThreshold: 1, tcpSocket: { port: 0 } });
  });

  it("the stored object is exactly Duckbill's defaulted object (its JSON Patch, applied by the API server)", async () => {
    const defaulted = await check(["-f", "hello.yaml", "--user", ALICE, "--print-defaulted"]);
    expect(defaulted.code).toBe(0);
    const expected = parseAllDocuments(defaulted.stdout)[0]?.toJSON() as Obj;
    expect(comparable(await getJson("ksvc", "hello"))).toEqual(comparable(expected));
  });

  it("an update by another user changes lastModifier and keeps creator", async () => {
    write("hello.yaml", service("hello", HELLO_SPEC.replace("value: one", "value: two")));
    const r = await kubectl(["apply", "-f", "hello.yaml"], { as: BOB });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("service.serving.knative.dev/hello configured\n");
    const annotations = ((await getJson("ksvc", "hello")).metadata as Obj).annotations as Record<string, string>;
    expect(annotations["serving.knative.dev/creator"]).toBe(ALICE);
    expect(annotations["serving.knative.dev/lastModifier"]).toBe(BOB);
  });

  it("check --kubeconfig answers a manifest of an existing object as kubectl apply's update of it, to the byte", async () => {
    write("hello.yaml", service("hello", HELLO_SPEC.replace("value: one", "value: three")));
    const checked = await checkCluster(["-f", "hello.yaml", "--user", ALICE]);
    const r = await kubectl(["apply", "-f", "hello.yaml"], { as: ALICE });
    expect(r.stdout).toBe("service.serving.knative.dev/hello configured\n");
    expect(printed(checked)).toBe(printed(r));
    // An update the webhook denies: kubectl's patch error, with the exact patch, both ways.
    write("steal.yaml", service("hello", HELLO_SPEC.replace("value: one", "value: three"), "\n  annotations:\n    serving.knative.dev/creator: mallory@example.com"));
    const deniedCheck = await checkCluster(["-f", "steal.yaml", "--user", BOB]);
    const denied = await kubectl(["apply", "-f", "steal.yaml"], { as: BOB });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("annotation value is immutable: metadata.annotations.serving.knative.dev/creator");
    expect(printed(deniedCheck)).toBe(printed(denied));
    expect(deniedCheck.code).toBe(1);
  });

  it.each([
    {
      name: "a feature-gated field with its flag disabled",
      file: "pinned.yaml",
      manifest: service("pinned", AFFINITY_SPEC),
      stderr:
        'Error from server (BadRequest): error when creating "pinned.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: must not set the field(s): spec.template.spec.affinity\n",
    },
    {
      name: "a reserved port",
      file: "reserved.yaml",
      manifest: service(
        "reserved",
        `  template:
    spec:
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
          ports:
            - containerPort: 8012
`,
      ),
      stderr:
        'Error from server (BadRequest): error when creating "reserved.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort\n" +
        "8012 is a reserved port, please use a different value\n",
    },
    {
      name: "an invalid autoscaling annotation",
      file: "annotated.yaml",
      manifest: service(
        "annotated",
        `  template:
    metadata:
      annotations:
        autoscaling.knative.dev/min-scale: "-2"
    spec:
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
`,
      ),
      stderr:
        'Error from server (BadRequest): error when creating "annotated.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: expected 0 <= -2 <= 2147483647: spec.template.metadata.annotations.autoscaling.knative.dev/min-scale\n",
    },
  ])("denied: $name, with kubectl's text exactly", async ({ file, manifest, stderr }) => {
    write(file, manifest);
    const r = await kubectl(["apply", "-f", file], { as: ALICE });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${SECURITY_WARNING}\n${stderr}`);
    expect(printed(r)).toBe(printed(await check(["-f", file, "--user", ALICE])));
  });

  it("enabling kubernetes.podspec-affinity with kubectl apply lets the same manifest through within seconds", async () => {
    await setFeatures({ "kubernetes.podspec-affinity": "enabled" });
    const flipped = Date.now();
    const r = await waitFor("the affinity manifest accepted", 20_000, async () => {
      const res = await kubectl(["apply", "-f", "pinned.yaml"], { as: ALICE });
      return res.code === 0 ? res : undefined;
    });
    timings.featureFlipMs = Date.now() - flipped;
    expect(r.stdout).toBe("service.serving.knative.dev/pinned created\n");
    expect(printed(r)).toBe(printed(await check(["-f", "pinned.yaml", "--user", ALICE])));
    const stored = await getJson("ksvc", "pinned");
    expect((stored.spec as { template: { spec: Obj } }).template.spec.affinity).toBeDefined();

    // And back: a new object with the field is denied again.
    await setFeatures({});
    write("pinned2.yaml", service("pinned2", AFFINITY_SPEC));
    await waitFor("the affinity manifest denied again", 20_000, async () => ((await kubectl(["apply", "-f", "pinned2.yaml"])).code === 1 ? true : undefined));
  });

  it("an invalid config-autoscaler is rejected by /config-validation and the stored one is unchanged", async () => {
    write("config-autoscaler.yaml", configMap("config-autoscaler", "autoscaler", { "max-scale-limit": "-1" }));
    const r = await kubectl(["apply", "-f", "config-autoscaler.yaml"]);
    expect(r.code).toBe(1);
    const last = r.stderr.trimEnd().split("\n").at(-1);
    expect(last).toMatch(/: admission webhook "config\.webhook\.serving\.knative\.dev" denied the request: /);
    expect(last?.slice(last.indexOf("denied the request: "))).toBe(
      // Knative's text (vector config_validation/autoscaler-max-scale-limit-negative): no "failed to parse data" here.
      "denied the request: validation failed: max-scale-limit = -1, must be at least 0",
    );
    const stored = await getJson("configmap", "config-autoscaler", SYSTEM_NS);
    expect(stored.data ?? {}).toEqual({});
  });

  it("an update that changes a named template without a new name is rejected (Saw the following changes)", async () => {
    const named = (value: string): string =>
      service(
        "byo",
        `  template:
    metadata:
      name: byo-first
    spec:
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
          env:
            - name: TARGET
              value: ${value}
`,
      );
    write("byo.yaml", named("one"));
    await kubectlOk(["apply", "-f", "byo.yaml"]);
    write("byo.yaml", named("two"));
    const r = await kubectl(["apply", "-f", "byo.yaml"]);
    expect(r.code).toBe(1);
    const denial = r.stderr.slice(r.stderr.indexOf("denied the request: ") + "denied the request: ".length);
    expect(denial.split("\n")[0]).toBe("validation failed: Saw the following changes without a name change (-old +new): spec.template.metadata.name");
    expect(denial).toContain('-: "one"');
    expect(denial).toContain('+: "two"');
  });

  it("a Revision's spec cannot change", async () => {
    const revision = (image: string): string => `apiVersion: serving.knative.dev/v1
kind: Revision
metadata:
  name: fixed-00001
  namespace: ${NS}
spec:
  containers:
    - image: ${image}
`;
    write("revision.yaml", revision("ghcr.io/knative/helloworld-go:v1"));
    await kubectlOk(["apply", "-f", "revision.yaml"]);
    write("revision.yaml", revision("ghcr.io/knative/helloworld-go:v2"));
    const r = await kubectl(["apply", "-f", "revision.yaml"]);
    expect(r.code).toBe(1);
    const denial = r.stderr.slice(r.stderr.indexOf("denied the request: ") + "denied the request: ".length);
    expect(denial.split("\n")[0]).toBe("validation failed: Immutable fields changed (-old +new): spec");
    expect(((await getJson("revision", "fixed-00001")).spec as { containers: { image: string }[] }).containers[0]?.image).toBe("ghcr.io/knative/helloworld-go:v1");
  });

  it("kubectl apply --dry-run=server runs the PodSpec dry run against the API server (Knative 1.23: every dry-run request, no flag)", async () => {
    // serviceAccountName names an account that does not exist: only the API server's Pod admission knows that.
    write(
      "dryrun.yaml",
      service(
        "dryrun",
        `  template:
    spec:
      serviceAccountName: no-such-account
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
`,
      ),
    );
    // Without --dry-run the callback does not call the API server (the Service is created; its revision would fail).
    // With it, from serving v0.47.0 the dry run runs whatever config-features says (the flag is gone).
    await setFeatures({ "kubernetes.podspec-dryrun": "disabled" });
    const r = await kubectl(["apply", "--dry-run=server", "-f", "dryrun.yaml"]);
    expect(r.code).toBe(1);
    // Knative's callback error: `validation callback failed: dry run failed with <API server error>: spec.template`.
    const last = r.stderr.trimEnd().split("\n").at(-1) ?? "";
    expect(last).toMatch(/^Error from server \(BadRequest\): error when creating "dryrun\.yaml": admission webhook "validation\.webhook\.serving\.knative\.dev" denied the request: validation callback failed: dry run failed with /);
    expect(last).toContain('serviceaccount "no-such-account" not found');
    expect(last.endsWith(": spec.template")).toBe(true);
    // Nothing was stored: server-side dry run on the outside, dryRun=All on the inside.
    expect((await kubectl(["get", "ksvc", "dryrun", "-n", NS])).code).toBe(1);
    await setFeatures({});
  });


  it("a certificate renewal while kubectl keeps applying: no failed apply", async () => {
    const before = await servedFingerprint(duckbill?.port ?? 0);
    const caBefore = ((await getJson("secret", "webhook-certs", SYSTEM_NS)).data as Record<string, string>)["ca-cert.pem"];
    const results: RunResult[] = [];
    let n = 0;
    const apply = async (): Promise<void> => {
      write("rotating.yaml", service("rotating", HELLO_SPEC.replace("value: one", `value: v${n++}`)));
      results.push(await kubectl(["apply", "-f", "rotating.yaml"]));
    };
    for (let i = 0; i < 3; i++) await apply();
    // An unusable serving certificate makes the leader issue a new one from the same CA: every replica swaps its TLS
    // context in place while requests keep arriving.
    await kubectlOk(["patch", "secret", "webhook-certs", "-n", SYSTEM_NS, "--type=json", "-p",
      '[{"op":"remove","path":"/data/server-cert.pem"},{"op":"remove","path":"/data/server-key.pem"}]']);
    const deadline = Date.now() + 60_000;
    let after = before;
    while (after === before && Date.now() < deadline) {
      await apply();
      after = await servedFingerprint(duckbill?.port ?? 0);
    }
    const rotated = after !== before;
    for (let i = 0; i < 3; i++) await apply();
    expect(rotated).toBe(true);
    expect(results.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(6);
    const caAfter = ((await getJson("secret", "webhook-certs", SYSTEM_NS)).data as Record<string, string>)["ca-cert.pem"];
    expect(caAfter).toBe(caBefore);
  });

  it("Duckbill's log shows every request it answered as a real AdmissionReview from the API server", () => {
    const lines = readFileSync(duckbill?.log ?? "", "utf8")
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Obj);
    // Knative's decision line of each review (admissionreview/uid), with Duckbill's webhook type beside it.
    const reviews = lines.filter((l) => typeof l["admissionreview/uid"] === "string" && typeof l.webhook === "string");
    expect(reviews.length).toBeGreaterThan(10);
    // The webhook type is Knative's metric `type`: /defaulting, /resource-validation, /config-validation.
    expect(new Set(reviews.map((l) => l.webhook))).toEqual(new Set(["defaulting", "validation", "admission"]));
    for (const l of reviews) expect(l["knative.dev/kind"] === "/v1, Kind=ConfigMap", JSON.stringify(l)).toBe(l.webhook === "admission");
  });
});

describe("--knative-version auto: the release the cluster's Serving CRDs are labelled with", () => {
  const TEMPLATE_ANNOTATION_SPEC = `  template:
    metadata:
      annotations:
        networking.knative.dev/not-a-real-key: "x"
    spec:
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
`;
  const tracing = configMap("config-tracing", "tracing", { backend: "jaeger" });

  function logLines(): Obj[] {
    return readFileSync(duckbill?.log ?? "", "utf8")
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Obj);
  }

  it(`answers as Knative ${RELEASE.slice(0, 4)}, the release the CRDs are labelled with`, async () => {
    expect(logLines().find((l) => l.message === "answering as the Knative release the cluster runs")).toMatchObject({ knativeVersion: "1.23", source: "crd", release: RELEASE });
    // 1.23 validates a revision template's networking.knative.dev annotations (1.17 let any through) ...
    write("template-annotation.yaml", service("template-annotation", TEMPLATE_ANNOTATION_SPEC));
    const denied = await kubectl(["apply", "-f", "template-annotation.yaml"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: invalid key name "networking.knative.dev/not-a-real-key": spec.template.metadata.annotations');
    // ... and no longer validates config-tracing (1.17 denied an unknown backend).
    const stored = await kubectl(["apply", "-f", "-"], { input: tracing });
    expect(printed(stored)).toBe("configmap/config-tracing created\n");
  });

  it("follows a relabelling of the CRDs (a Knative upgrade or downgrade) without a restart", async () => {
    await kubectlOk(["label", "crd", "-l", CRD_SELECTOR, "app.kubernetes.io/version=1.17.0", "--overwrite"]);
    try {
      // Each attempt changes the ConfigMap (an unchanged apply sends no request); the extra key means nothing to Knative.
      let n = 0;
      const r = await waitFor("Duckbill answers as 1.17", 30_000, async () => {
        const attempt = await kubectl(["apply", "-f", "-"], { input: configMap("config-tracing", "tracing", { backend: "jaeger", attempt: String(++n) }) });
        return attempt.code === 0 ? undefined : attempt;
      });
      expect(r.stderr).toContain('admission webhook "config.webhook.serving.knative.dev" denied the request: validation failed: unsupported tracing backend value "jaeger"');
      // Log lines are written asynchronously (and, with workers, through the primary): wait for it.
      const changed = await waitFor("the release-change log line", 10_000, async () => logLines().find((l) => l.message === "the cluster's Knative release changed (was answering as 1.23)"));
      expect(changed).toMatchObject({ knativeVersion: "1.17", release: "1.17.0" });
    } finally {
      await kubectlOk(["label", "crd", "-l", CRD_SELECTOR, `app.kubernetes.io/version=${RELEASE}`, "--overwrite"]);
    }
  });
});
