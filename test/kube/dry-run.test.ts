/**
 * The PodSpec dry run's API call (src/kube/dry-run.ts) against in-process API servers over real HTTP: success,
 * the API server's refusal, answers that are not a Status, a dead server, and the deadline; then the whole path
 * from an AdmissionReview to Knative's denial text, and the podspec-dryrun conformance vectors with a client. The
 * requests that reach the dry run here do so by Knative 1.17's `kubernetes.podspec-dryrun` flag, so they are answered
 * as 1.17 (serving v0.47.0 removed the flag).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerReview } from "../../src/admission/http.js";
import { PROFILES } from "../../src/config/profile.js";
import { defaultSnapshot, snapshotFrom } from "../../src/config/snapshot.js";
import { knativeConfigMapValidators } from "../../src/config/validators.js";
import { createPodDryRun } from "../../src/kube/dry-run.js";
import { createKubeApi, type KubeApi } from "../../src/kube/json-api.js";
import { knativeRegistry } from "../../src/serving/kinds.js";
import type { RequestContext } from "../../src/serving/context.js";
import { VECTORS_DIR } from "../conformance/paths.js";
import { BUILTIN_RESOURCES, FakeApiServer, type ResourceType } from "../support/fake-apiserver.js";
import { within } from "../support/timing.js";

const V1_17 = PROFILES["1.17"];
const PODS: ResourceType = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true };

const POD = { apiVersion: "v1", kind: "Pod", metadata: { generateName: "dry-run-validation", namespace: "team-a" }, spec: { containers: [{ name: "user-container", image: "img" }] } };

/** A one-route API server whose answer each test chooses; `hang` never answers. */
async function scriptedServer(answer: (res: ServerResponse) => void | "hang"): Promise<{ server: Server; kubeconfig: string; requests: string[]; bodies: string[] }> {
  const requests: string[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      bodies.push(body);
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "s", cluster: { server: `http://127.0.0.1:${port}`, "insecure-skip-tls-verify": true } }],
    users: [{ name: "s", user: { token: "t" } }],
    contexts: [{ name: "s", context: { cluster: "s", user: "s" } }],
    "current-context": "s",
  });
  return { server, kubeconfig, requests, bodies };
}

async function kubeApiFor(kubeconfig: string): Promise<KubeApi> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return createKubeApi(kc);
}

describe("createPodDryRun against the fake API server", () => {
  let fake: FakeApiServer;
  let api: KubeApi;
  beforeEach(async () => {
    fake = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, PODS] });
    api = createKubeApi(fake.kubeConfig());
  });
  afterEach(async () => {
    api.close();
    await fake.close();
  });

  it("posts the pod with dryRun=All to the namespace and reports success", async () => {
    const dryRun = createPodDryRun({ api });
    expect(await dryRun(POD, "team-a")).toEqual({ ok: true });
    const posts = fake.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => [r.path, r.query.get("dryRun"), r.authorization])).toEqual([["/api/v1/namespaces/team-a/pods", "All", `Bearer ${FakeApiServer.TOKEN}`]]);
    // The fake stores what it is sent (it ignores dryRun): the body arrived exactly as built.
    const [stored] = fake.list(PODS, "team-a");
    expect(stored?.spec).toEqual(POD.spec);
    expect(stored?.metadata.generateName).toBe("dry-run-validation");
  });

  it("reports the API server's Status message when it refuses the pod", async () => {
    fake.failNext(1, 400, { method: "POST" });
    expect(await createPodDryRun({ api })(POD, "team-a")).toEqual({ ok: false, error: "injected failure (400)" });
  });

  it("denies the Service with Knative's message, end to end", async () => {
    fake.failNext(1, 403, { method: "POST", plural: "pods" });
    const deps = { kinds: knativeRegistry(), configMaps: knativeConfigMapValidators(), podDryRun: createPodDryRun({ api }) };
    const review = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "u1",
        kind: { group: "serving.knative.dev", version: "v1", kind: "Service" },
        resource: { group: "serving.knative.dev", version: "v1", resource: "services" },
        namespace: "team-a",
        operation: "CREATE",
        userInfo: { username: "alice" },
        object: {
          apiVersion: "serving.knative.dev/v1",
          kind: "Service",
          metadata: { name: "hello", namespace: "team-a" },
          spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go", name: "user-container" }], timeoutSeconds: 300 } }, traffic: [{ latestRevision: true, percent: 100 }] },
        },
      },
    };
    const config = snapshotFrom({ "config-features": { "kubernetes.podspec-dryrun": "enabled" } }, "test", V1_17);
    const answer = await answerReview("/resource-validation", JSON.stringify(review), deps, { config });
    const response = (JSON.parse(answer.body) as { response: { allowed: boolean; status?: { message: string } } }).response;
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe("validation callback failed: dry run failed with injected failure (403): spec.template");
    const [post] = fake.requests.filter((r) => r.method === "POST");
    expect(post?.path).toBe("/api/v1/namespaces/team-a/pods");
  });
});

describe("createPodDryRun against misbehaving servers", () => {
  const servers: Server[] = [];
  const apis: KubeApi[] = [];
  afterEach(async () => {
    for (const a of apis.splice(0)) a.close();
    await Promise.all(
      servers.splice(0).map(
        (s) =>
          new Promise<void>((resolve) => {
            s.closeAllConnections();
            s.close(() => resolve());
          }),
      ),
    );
  });

  async function dryRunAgainst(answer: (res: ServerResponse) => void | "hang", timeoutMs?: number) {
    const { server, kubeconfig, requests, bodies } = await scriptedServer(answer);
    servers.push(server);
    const api = await kubeApiFor(kubeconfig);
    apis.push(api);
    return { dryRun: createPodDryRun({ api, timeoutMs }), requests, bodies, url: api.server };
  }

  it("sends an int64 beyond 2^53 with its digits: timeoutSeconds int64 max becomes the pod's grace period", async () => {
    const { dryRun, bodies } = await dryRunAgainst((res) => {
      res.writeHead(201, { "Content-Type": "application/json" });
      res.end("{}");
    });
    const deps = { kinds: knativeRegistry(), configMaps: knativeConfigMapValidators(), podDryRun: dryRun };
    const config = snapshotFrom({ "config-features": { "kubernetes.podspec-dryrun": "enabled" }, "config-defaults": { "max-revision-timeout-seconds": "9223372036854775807" } }, "test", V1_17);
    // Raw text: the literal must reach the webhook as written (JSON.stringify of a number would round it).
    const body =
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},' +
      '"resource":{"group":"serving.knative.dev","version":"v1","resource":"services"},"namespace":"team-a","operation":"CREATE","userInfo":{"username":"alice"},' +
      '"object":{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"hello","namespace":"team-a"},"spec":{"template":{"spec":' +
      '{"containers":[{"image":"ghcr.io/knative/helloworld-go","name":"user-container"}],"timeoutSeconds":9223372036854775807}},"traffic":[{"latestRevision":true,"percent":100}]}}}}';
    const answer = await answerReview("/resource-validation", body, deps, { config });
    expect((JSON.parse(answer.body) as { response: { allowed: boolean } }).response.allowed).toBe(true);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('"terminationGracePeriodSeconds":9223372036854775807');
  });

  it("fails with context deadline exceeded once the deadline passes", async () => {
    const { dryRun, url } = await dryRunAgainst(() => "hang", 150);
    const started = Date.now();
    const result = await dryRun(POD, "team-a");
    expect(Date.now() - started).toBeLessThan(within(2_000));
    expect(result).toEqual({ ok: false, error: `Post "${url}/api/v1/namespaces/team-a/pods?dryRun=All": context deadline exceeded` });
  });

  it.each([
    { status: 502, body: "<html>bad gateway</html>", want: 'an error on the server ("<html>bad gateway</html>") has prevented the request from succeeding (post pods)' },
    { status: 404, body: "404 page not found", want: "the server could not find the requested resource (post pods)" },
    { status: 422, body: "{}", want: "the server rejected our request due to an error in our request (post pods)" },
  ])("words a $status without a Status body as client-go does", async ({ status, body, want }) => {
    const { dryRun } = await dryRunAgainst((res) => {
      res.writeHead(status, { "Content-Type": "text/html" });
      res.end(body);
    });
    expect(await dryRun(POD, "team-a")).toEqual({ ok: false, error: want });
  });

  it("reports a refused connection with the URL", async () => {
    const { dryRun, url } = await dryRunAgainst((res) => {
      res.end();
    });
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const result = await dryRun(POD, "team-a");
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toMatch(new RegExp(`^Post "${url.replace(/[.]/g, "\\.")}/api/v1/namespaces/team-a/pods\\?dryRun=All": connect ECONNREFUSED`));
  });

  it("rejects a non-positive timeout", () => {
    expect(() => createPodDryRun({ api: { server: "", request: async () => undefined, watch: async () => undefined, close: () => undefined }, timeoutMs: 0 })).toThrow(
      "the dry-run timeout must be positive, got 0 ms",
    );
  });
});

describe("the podspec-dryrun conformance vectors (Knative 1.17) with a dry-run client that succeeds", () => {
  const lines = readFileSync(join(VECTORS_DIR, "features.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.includes("podspec-dryrun") && l.includes('"/resource-validation"'))
    .map((l) => JSON.parse(l) as { name: string; configs?: Record<string, Record<string, string>>; review: unknown; expect: { response: { allowed: boolean } } });

  // Vectors where Knative ran the dry run (the API server accepted the pod).
  const runs = new Set([
    "features/podspec-dryrun-allowed-annotation-enabled/validation",
    "features/podspec-dryrun-allowed-annotation-strict/validation",
    "features/podspec-dryrun-enabled-annotation-none/validation",
    "features/podspec-dryrun-enabled-annotation-enabled/validation",
  ]);

  it("has the validation vectors this test expects", () => {
    expect(lines.map((l) => l.name).filter((n) => runs.has(n))).toHaveLength(runs.size);
  });

  it.each(lines.map((l) => [l.name, l] as const))("%s: same answer, dry run only where Knative made one", async (name, line) => {
    const calls: unknown[] = [];
    const podDryRun: NonNullable<RequestContext["podDryRun"]> = async (pod) => {
      calls.push(pod);
      return { ok: true };
    };
    const deps = { kinds: knativeRegistry(), configMaps: knativeConfigMapValidators(), podDryRun };
    const config = line.configs === undefined ? defaultSnapshot(V1_17) : snapshotFrom(line.configs, "vector", V1_17);
    const answer = await answerReview("/resource-validation", JSON.stringify(line.review), deps, { config });
    const response = (JSON.parse(answer.body) as { response: { allowed: boolean } }).response;
    expect(response.allowed).toBe(line.expect.response.allowed);
    expect(calls.length).toBe(runs.has(name) ? 1 : 0);
  });
});
