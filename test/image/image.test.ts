/**
 * The image, built with podman (scripts/image.mjs, or DUCKBILL_IMAGE=<reference> to test one already built) and run
 * as manifests/base/webhook/500-deployment.yaml runs it: uid 65532, read-only root filesystem, a 16 MiB tmpfs on
 * /tmp, every capability dropped, no-new-privileges, podman's default seccomp profile, the Deployment's env and its
 * limits (2 CPUs, 1 GiB), and the API server credentials where a pod has them (a ServiceAccount token, the CA and
 * the namespace in /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/PORT). It is the
 * webhook of the e2e suite's kube-apiserver (test/e2e/harness.ts). Run with `npm run test:image` (docs/e2e.md).
 *
 * What differs from a pod, and why: the containers share the host's network (the harness API server listens on
 * 127.0.0.1 only), so each replica gets its own WEBHOOK_PORT and DUCKBILL_METRICS_PORT, and DUCKBILL_WEBHOOK_URL points the webhook
 * configurations at it (there is no Service to route through).
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS, podmanGlobals } from "../../scripts/podman.mjs";
import { buildHarness, clientConfigs, freePort, installCrds, installSystemBase, kubectlPath, probe, REPO, run, startCluster, stopProcess, waitFor, writeTokenKubeconfig, type Cluster, type RunResult } from "../e2e/harness.js";
import { nodeOfMajor } from "../dist/node-runtime.js";
import { serviceReview } from "../support/webhook.js";

type Obj = Record<string, unknown>;

const SYSTEM_NS = "knative-serving";
const NS = "duckbill-image";
const RELEASE = "1.23.0";
const MAX_IMAGE_BYTES = 180 * 1000 * 1000;
const RUN_ID = `${process.pid}`;

let globals: string[] = [];
let image = "";
let work = "";
let cluster: Cluster | undefined;
let kubeconfig = "";
let kubectlBin = "kubectl";
let saDir = "";
let apiPort = "";
const containers: string[] = [];
const figures: Record<string, unknown> = {};

function podman(args: readonly string[], timeoutMs = 120_000): Promise<RunResult> {
  return run("podman", [...globals, ...args], { timeoutMs });
}

async function podmanOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const r = await podman(args, timeoutMs);
  if (r.code !== 0) throw new Error(`podman ${args.join(" ")} failed (${r.code}):\n${r.stderr}`);
  return r.stdout;
}

function kubectl(args: readonly string[], input?: string): Promise<RunResult> {
  return run(kubectlBin, ["--kubeconfig", kubeconfig, ...args], { cwd: work, input, timeoutMs: 60_000 });
}

async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}):\n${r.stderr}`);
  return r.stdout;
}

/** The Deployment's container, as the manifests declare it. */
const deployment = parse(readFileSync(join(REPO, "manifests", "base", "webhook", "500-deployment.yaml"), "utf8")) as {
  spec: { template: { spec: { securityContext: Obj; containers: Obj[]; volumes: Obj[] } } };
};
const container = deployment.spec.template.spec.containers[0] as {
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { fieldRef: { fieldPath: string } } }>;
  resources: { limits: { cpu: string; memory: string } };
  securityContext: { runAsNonRoot: boolean; allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean; capabilities: { drop: string[] } };
  volumeMounts: Array<{ name: string; mountPath: string }>;
};

/** The env a pod named `pod` in knative-serving gets from the Deployment (fieldRefs resolved as the kubelet does). */
function deploymentEnv(pod: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of container.env) {
    if (e.value !== undefined) out[e.name] = e.value;
    else if (e.valueFrom?.fieldRef.fieldPath === "metadata.namespace") out[e.name] = SYSTEM_NS;
    else if (e.valueFrom?.fieldRef.fieldPath === "metadata.name") out[e.name] = pod;
    else throw new Error(`env ${e.name}: not resolved by this test`);
  }
  return out;
}

/** podman's flags for the Deployment's securityContext, resources and volumes. */
function deploymentFlags(): string[] {
  const sc = container.securityContext;
  const podSc = deployment.spec.template.spec.securityContext as { runAsUser: number; runAsGroup: number };
  const tmp = deployment.spec.template.spec.volumes.find((v) => v.name === "tmp") as { emptyDir: { medium: string; sizeLimit: string } };
  const tmpMount = container.volumeMounts.find((m) => m.name === "tmp")!;
  expect(sc.readOnlyRootFilesystem).toBe(true);
  expect(sc.allowPrivilegeEscalation).toBe(false);
  expect(sc.capabilities.drop).toEqual(["ALL"]);
  expect(tmp.emptyDir.medium).toBe("Memory");
  const mem = /^(\d+)Gi$/.exec(container.resources.limits.memory);
  const size = /^(\d+)Mi$/.exec(tmp.emptyDir.sizeLimit);
  return [
    `--user=${podSc.runAsUser}:${podSc.runAsGroup}`,
    "--read-only",
    "--read-only-tmpfs=false",
    `--tmpfs=${tmpMount.mountPath}:rw,size=${size![1]}m,mode=1777`,
    "--cap-drop=ALL",
    "--security-opt=no-new-privileges",
    `--cpus=${container.resources.limits.cpu}`,
    `--memory=${mem![1]}g`,
    ...LIMITS,
  ];
}

interface Replica {
  readonly name: string;
  readonly port: number;
  readonly spawnedAt: number;
  firstAnswerMs: number;
}

/** `podman run` of one replica; resolves when its readiness probe answers 200. */
async function startReplica(name: string): Promise<Replica> {
  const port = await freePort();
  const metrics = await freePort();
  const env = { ...deploymentEnv(name), WEBHOOK_PORT: String(port), DUCKBILL_METRICS_PORT: String(metrics), DUCKBILL_WEBHOOK_URL: `https://127.0.0.1:${port}`, KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: apiPort };
  const spawnedAt = Date.now();
  containers.push(name);
  await podmanOk([
    // The hostname is the pod's name in a cluster; Lease identities are <hostname>_<UUID> (src/kube/leader-election.ts).
    "run", "--detach", "--name", name, "--hostname", name, "--network=host",
    ...deploymentFlags(),
    "--volume", `${saDir}:/var/run/secrets/kubernetes.io/serviceaccount:ro`,
    ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
    image,
    ...container.args,
  ]);
  const replica: Replica = { name, port, spawnedAt, firstAnswerMs: 0 };
  await waitFor(`${name} ready`, 90_000, async () => {
    const state = (await podmanOk(["inspect", "--format", "{{.State.Status}}", name])).trim();
    if (state !== "running") throw new Error(`${name} is ${state}:\n${(await podman(["logs", name])).stderr}`);
    return (await probe(port)) === 200 ? true : undefined;
  }, 50);
  replica.firstAnswerMs = Date.now() - spawnedAt;
  return replica;
}

/** One AdmissionReview POST to /defaulting, trusting the CA of the webhook-certs Secret. */
function review(port: number, ca: string, agent?: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(serviceReview());
    const req = request(
      { host: "127.0.0.1", port, path: "/defaulting", method: "POST", ca, servername: `webhook.${SYSTEM_NS}.svc`, agent: agent ?? false, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Resident memory of a process and all its descendants (the primary and its workers), in MB. */
function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let kb = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
    stack.push(...(children.get(p) ?? []));
  }
  return Math.round(kb / 1024);
}

/** RSS 5 s after ready, then the peak over 4,000 reviews at 32 concurrent keep-alive connections. */
async function measure(pid: number, port: number, ca: string): Promise<{ restMb: number; loadPeakMb: number; reviewsPerSecond: number }> {
  await new Promise((r) => setTimeout(r, 5000));
  const restMb = treeRssMb(pid);
  let peak = restMb;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMb(pid))), 100);
  const agent = new Agent({ keepAlive: true, maxSockets: 32, ca });
  const started = Date.now();
  let left = 4000;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (left-- > 0) if ((await review(port, ca, agent)).status !== 200) failed++;
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  agent.destroy();
  expect(failed).toBe(0);
  return { restMb, loadPeakMb: Math.max(peak, treeRssMb(pid)), reviewsPerSecond: Math.round(4000 / seconds) };
}

async function secretCa(): Promise<string> {
  const secret = JSON.parse(await kubectlOk(["get", "secret", "webhook-certs", "-n", SYSTEM_NS, "-o", "json"])) as { data?: Record<string, string> };
  return Buffer.from(secret.data?.["ca-cert.pem"] ?? "", "base64").toString("utf8");
}

async function webhookUrls(): Promise<string[]> {
  return (await clientConfigs((args) => kubectlOk(args))).map((cc) => cc.url ?? "");
}

function service(name: string, containerYaml: string): string {
  return `apiVersion: serving.knative.dev/v1
kind: Service
metadata:
  name: ${name}
  namespace: ${NS}
spec:
  template:
    spec:
      containers:
        - image: ghcr.io/knative/helloworld-go:latest
${containerYaml}`;
}

beforeAll(async () => {
  globals = podmanGlobals();
  work = mkdtempSync(join(tmpdir(), "duckbill-image-"));
  if (process.env.DUCKBILL_IMAGE !== undefined && process.env.DUCKBILL_IMAGE !== "") {
    image = process.env.DUCKBILL_IMAGE;
  } else {
    // Progress of the build goes to this process's stderr; the reference is the last line of stdout.
    const child = spawn(process.execPath, [join(REPO, "scripts", "image.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    if (code !== 0) throw new Error(`scripts/image.mjs failed (exit ${code}); its output is above`);
    image = out.trim().split("\n").at(-1)!;
  }

  const build = await buildHarness();
  kubectlBin = kubectlPath(build);
  cluster = await startCluster(build.cluster, work);
  kubeconfig = cluster.kubeconfig;
  await installCrds((args) => kubectlOk(args), RELEASE);
  await installSystemBase((args) => kubectlOk(args));
  await kubectlOk(["create", "namespace", NS]);
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "standalone", "700-webhooks.yaml")]);

  // What the kubelet mounts for the pod's ServiceAccount, readable by uid 65532.
  const token = (await kubectlOk(["create", "token", "duckbill-webhook", "-n", SYSTEM_NS, "--duration=2h"])).trim();
  const view = JSON.parse(await kubectlOk(["config", "view", "--raw", "--minify", "-o", "json"])) as { clusters: Array<{ cluster: { server: string; "certificate-authority-data": string } }> };
  const server = new URL(view.clusters[0]!.cluster.server);
  apiPort = server.port;
  saDir = join(work, "serviceaccount");
  mkdirSync(saDir);
  writeFileSync(join(saDir, "token"), token);
  writeFileSync(join(saDir, "ca.crt"), Buffer.from(view.clusters[0]!.cluster["certificate-authority-data"], "base64"));
  writeFileSync(join(saDir, "namespace"), SYSTEM_NS);
  for (const f of ["token", "ca.crt", "namespace"]) chmodSync(join(saDir, f), 0o644);
  chmodSync(saDir, 0o755);
  chmodSync(work, 0o755);
}, 45 * 60_000);

afterAll(async () => {
  for (const name of containers) await podman(["rm", "--force", "--time", "0", name]);
  await cluster?.stop();
  console.log(`image figures: ${JSON.stringify({ image, ...figures })}`);
  if (work !== "" && process.env.E2E_KEEP_WORKDIR === undefined) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("the image", () => {
  let config: { User: string; Labels: Record<string, string>; Entrypoint: string[]; Cmd: string[] };
  let created = "";
  let files: string[] = [];

  beforeAll(async () => {
    const inspect = JSON.parse(await podmanOk(["image", "inspect", image])) as Array<{ Config: typeof config; Created: string; Size: number }>;
    config = inspect[0]!.Config;
    created = inspect[0]!.Created;
    figures.sizeMB = Math.round(inspect[0]!.Size / 1e5) / 10;
    const name = `duckbill-files-${RUN_ID}`;
    containers.push(name);
    await podmanOk(["create", "--name", name, image]);
    const tar = await run("bash", ["-c", `podman ${globals.join(" ")} export ${name} | tar -t`], { timeoutMs: 120_000 });
    files = tar.stdout.split("\n").filter((f) => f !== "").map((f) => f.replace(/^\.?\//, ""));
  });

  it(`is at most ${MAX_IMAGE_BYTES / 1e6} MB uncompressed`, () => {
    expect(figures.sizeMB as number).toBeLessThanOrEqual(MAX_IMAGE_BYTES / 1e6);
  });

  it("has no shell and no package manager", async () => {
    expect(files.length).toBeGreaterThan(100);
    const shells = files.filter((f) => /(^|\/)(sh|bash|dash|ash|busybox)$/.test(f));
    const managers = files.filter((f) => /(^|\/)(dpkg|apt|apt-get|npm|npx|corepack)$/.test(f));
    expect(shells).toEqual([]);
    expect(managers).toEqual([]);
    const r = await podman(["run", "--rm", ...LIMITS, "--entrypoint", "/bin/sh", image, "-c", "true"]);
    expect(r.code).not.toBe(0);
  });

  it("runs as uid 65532 `duckbill serve` through the launcher", () => {
    expect(config.User).toBe("65532:65532");
    expect(config.Entrypoint).toEqual(["/nodejs/bin/node", "--max-semi-space-size=4", "--max-old-space-size=384", "--no-maglev", "bin/duckbill"]);
    expect(config.Cmd).toEqual(["serve"]);
  });

  it("says its commit in `duckbill version` and in the OCI labels, created at the commit's time", async () => {
    const out = await podmanOk(["run", "--rm", ...LIMITS, image, "version"]);
    const commit = /^commit: (\S+)$/m.exec(out)?.[1];
    expect(commit).toMatch(/^[0-9a-f]{7,}(-dirty)?$/);
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(config.Labels["org.opencontainers.image.revision"]).toBe(commit);
    expect(config.Labels["org.opencontainers.image.version"]).toBe(pkg.version);
    expect(config.Labels["org.opencontainers.image.source"]).toBeDefined();
    expect(new Date(config.Labels["org.opencontainers.image.created"]!).getTime()).toBe(new Date(created).getTime());
    figures.version = out.trim().split("\n");
  });

  it("holds a bill of materials of its npm and Debian packages and its Node.js", async () => {
    const text = await podmanOk(["run", "--rm", ...LIMITS, "--entrypoint", "/nodejs/bin/node", image, "-e", "process.stdout.write(require('fs').readFileSync('/app/sbom.spdx.json'))"]);
    const sbom = JSON.parse(text) as { spdxVersion: string; packages: Array<{ name: string; versionInfo: string; externalRefs?: Array<{ referenceLocator: string }> }> };
    expect(sbom.spdxVersion).toBe("SPDX-2.3");
    const purls = sbom.packages.flatMap((p) => (p.externalRefs ?? []).map((r) => r.referenceLocator));
    expect(purls.filter((p) => p.startsWith("pkg:npm/")).length).toBeGreaterThan(50);
    expect(purls.some((p) => p.startsWith("pkg:npm/fastify@"))).toBe(true);
    expect(purls.some((p) => p.startsWith("pkg:deb/debian/libc6@"))).toBe(true);
    const nodeVersion = (await podmanOk(["run", "--rm", ...LIMITS, "--entrypoint", "/nodejs/bin/node", image, "--version"])).trim();
    expect(sbom.packages.find((p) => p.name === "node")?.versionInfo).toBe(nodeVersion.replace(/^v/, ""));
  });
});

describe("run as the Deployment runs it, as the webhook of a real kube-apiserver", () => {
  let first: Replica;
  let second: Replica;
  let ca = "";

  it("starts non-root on a read-only root with no capabilities, fills the Secret and reconciles the three configurations", async () => {
    first = await startReplica(`duckbill-a-${RUN_ID}`);
    figures.containerStartToFirstAnswerMs = first.firstAnswerMs;
    const status = await podmanOk(["exec", first.name, "/nodejs/bin/node", "-e", "process.stdout.write(require('fs').readFileSync('/proc/self/status','utf8'))"]);
    expect(/^Uid:\s+65532\s+65532/m.test(status)).toBe(true);
    expect(/^CapEff:\s+0+$/m.test(status)).toBe(true);
    expect(/^NoNewPrivs:\s+1$/m.test(status)).toBe(true);
    const write = await podman(["exec", first.name, "/nodejs/bin/node", "-e", "require('fs').writeFileSync('/app/x', '')"]);
    expect(write.stderr).toContain("EROFS");
    await waitFor("the Secret filled and the configurations pointed at the first replica", 60_000, async () => {
      ca = await secretCa();
      return ca !== "" && (await webhookUrls()).every((u) => u.startsWith(`https://127.0.0.1:${first.port}/`)) ? true : undefined;
    });
  });

  it("answers the kubelet's probes on the HTTPS port", async () => {
    expect(await probe(first.port)).toBe(200);
  });

  it("kubectl apply: a Service is stored defaulted, a bad one is denied with Knative's text", async () => {
    writeFileSync(join(work, "hello.yaml"), service("hello", ""));
    await waitFor("the API server calls the image", 30_000, async () => {
      const r = await kubectl(["apply", "-f", "hello.yaml"]);
      if (r.code !== 0) throw new Error(r.stderr);
      return true;
    });
    const stored = JSON.parse(await kubectlOk(["get", "ksvc", "hello", "-n", NS, "-o", "json"])) as { spec: { template: { spec: { timeoutSeconds: number; containers: Array<{ name: string }> } } } };
    expect(stored.spec.template.spec.containers[0]?.name).toBe("user-container");
    expect(stored.spec.template.spec.timeoutSeconds).toBe(300);
    writeFileSync(join(work, "reserved.yaml"), service("reserved", "          ports:\n            - containerPort: 8012\n"));
    const bad = await kubectl(["apply", "-f", "reserved.yaml"]);
    expect(bad.code).not.toBe(0);
    // kubectl prints the defaulting webhook's warnings first (docs/e2e.md: the e2e suite checks those).
    expect(bad.stderr.replace(/^Warning: .*\n/gm, "")).toBe(
      'Error from server (BadRequest): error when creating "reserved.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort\n" +
        "8012 is a reserved port, please use a different value\n",
    );
  });

  it("RSS at rest and under load, measured from the host", async () => {
    const pid = Number((await podmanOk(["inspect", "--format", "{{.State.Pid}}", first.name])).trim());
    figures.container = await measure(pid, first.port, ca);
  });

  it.each([
    { what: "this machine's Node.js", key: "machineNode" },
    { what: "the image's Node.js major, from the npm registry", key: "machineNode24" },
  ])("the same bundle started by $what on this machine, for comparison", async ({ key }) => {
    const node = key === "machineNode" ? process.execPath : await nodeOfMajor(24);
    const port = await freePort();
    const metrics = await freePort();
    const duckbillKubeconfig = join(work, "duckbill.kubeconfig");
    await writeTokenKubeconfig((args) => kubectlOk(args), duckbillKubeconfig, "duckbill-webhook", readFileSync(join(saDir, "token"), "utf8"));
    const env: NodeJS.ProcessEnv = { ...process.env, ...deploymentEnv(`duckbill-${key}`), WEBHOOK_PORT: String(port), DUCKBILL_METRICS_PORT: String(metrics), DUCKBILL_GENERATED_CERT_DIR: join(work, `certs-${key}`), DUCKBILL_WEBHOOK_URL: `https://127.0.0.1:${first.port}`, DUCKBILL_DRAIN_TIMEOUT: "1s" };
    delete env.NODE_OPTIONS;
    const spawnedAt = Date.now();
    const child = spawn(node, ["--max-semi-space-size=4", "--max-old-space-size=384", "--no-maglev", join(REPO, "bin", "duckbill"), "serve", "--kubeconfig", duckbillKubeconfig], { env, stdio: "ignore" });
    try {
      await waitFor(`${key} ready`, 60_000, async () => ((await probe(port)) === 200 ? true : undefined), 50);
      figures[key] = { node: (await run(node, ["--version"])).stdout.trim(), startToFirstAnswerMs: Date.now() - spawnedAt, ...(await measure(child.pid!, port, ca)) };
    } finally {
      const termAt = Date.now();
      await stopProcess(child, 30_000);
      (figures[key] as Obj | undefined ?? {}).exitAfterSigtermMs = Date.now() - termAt;
    }
  });

  it("a second replica joins; on SIGTERM the first drains (probes 503, reviews still answered, exit 0) and the second takes over leadership", async () => {
    second = await startReplica(`duckbill-b-${RUN_ID}`);
    figures.secondReplicaStartToFirstAnswerMs = second.firstAnswerMs;
    const holders = async (): Promise<string[]> =>
      ((JSON.parse(await kubectlOk(["get", "leases", "-n", SYSTEM_NS, "-o", "json"])) as { items: Array<{ spec: { holderIdentity?: string } }> }).items).map((l) => l.spec.holderIdentity ?? "");
    await waitFor("the first replica holds every Lease", 60_000, async () => ((await holders()).every((h) => h.startsWith(`${first.name}_`)) ? true : undefined), 500);

    const termAt = Date.now();
    await podmanOk(["kill", "--signal", "TERM", first.name]);
    await waitFor("the first replica's probe says 503", 10_000, async () => ((await probe(first.port)) === 503 ? true : undefined), 100);
    expect((await review(first.port, ca)).status).toBe(200);

    await waitFor("the second replica holds the leases and the configurations point at it", 120_000, async () => {
      const h = await holders();
      const urls = await webhookUrls();
      return h.length > 0 && h.every((x) => x.startsWith(`${second.name}_`)) && urls.every((u) => u.startsWith(`https://127.0.0.1:${second.port}/`)) ? true : undefined;
    }, 500);
    figures.takeoverAfterSigtermMs = Date.now() - termAt;

    const exit = (await podmanOk(["wait", first.name], 300_000)).trim();
    figures.drainExitAfterSigtermMs = Date.now() - termAt;
    expect(exit).toBe("0");

    writeFileSync(join(work, "again.yaml"), service("again", ""));
    await kubectlOk(["apply", "-f", "again.yaml"]);
    // The first replica has exited: the default came from the second.
    const stored = JSON.parse(await kubectlOk(["get", "ksvc", "again", "-n", NS, "-o", "json"])) as { spec: { template: { spec: { containers: Array<{ name: string }> } } } };
    expect(stored.spec.template.spec.containers[0]?.name).toBe("user-container");
  });
});
