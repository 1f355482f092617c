/**
 * The e2e harness: a real kube-apiserver (test/e2e/cluster, built once by build-cluster.sh) or an existing
 * cluster (E2E_KUBECONFIG), kubectl, and Duckbill in cluster mode as a child process. Processes started here are
 * stopped by the caller through the returned handles.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:tls";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { request } from "node:https";

export const REPO = join(import.meta.dirname, "..", "..");

/** The namespace the webhook's Secret, ConfigMaps and Leases live in (manifests/standalone/100-namespace.yaml). */
export const SYSTEM_NAMESPACE = "knative-serving";

/**
 * The Knative release the suites' CRDs are labelled with (as Knative's serving-crds.yaml labels them): Duckbill
 * runs with --knative-version auto, its default, and must answer as this release.
 */
export const CRD_RELEASE = "1.23.0";

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly input?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Runs a command to completion (no shell); a timeout kills it and is reported in stderr. */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n[harness] ${cmd} killed after ${opts.timeoutMs} ms`;
      child.kill("SIGKILL");
    }, opts.timeoutMs ?? 60_000);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that exits without reading its input (or before it is all written) must not fail the run.
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last === undefined ? "" : ` (last error: ${String(last)})`}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface HarnessBuild {
  readonly dir: string;
  readonly cluster: string;
  readonly kubectl: string;
  /** {"kubernetes","go","buildSeconds","binaryBytes"} as build-cluster.sh wrote it. */
  readonly info: Record<string, unknown>;
  /** Wall time of build-cluster.sh in this run (a cache hit takes well under a second). */
  readonly ms: number;
}

/** Builds (first time) or finds the cached harness. Progress of a first build goes to this process's stderr. */
export async function buildHarness(): Promise<HarnessBuild> {
  const started = Date.now();
  const child = spawn("bash", [join(REPO, "test", "e2e", "build-cluster.sh")], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) throw new Error(`test/e2e/build-cluster.sh failed (exit ${code}); its output is above`);
  const dir = out.trim().split("\n").at(-1) ?? "";
  const info = JSON.parse(readFileSync(join(dir, "build.json"), "utf8")) as Record<string, unknown>;
  return { dir, cluster: join(dir, "cluster"), kubectl: join(dir, "kubectl"), info, ms: Date.now() - started };
}

export interface Cluster {
  readonly kubeconfig: string;
  /** The ready line the harness printed (undefined for an existing cluster). */
  readonly ready?: { server: string; startMs: number; etcdMs: number; version: string; pid: number };
  /** Wall time from spawn to the ready line, as this process saw it. */
  readonly startMs?: number;
  stop(): Promise<void>;
}

/**
 * Admission plugins enabled on top of kube-apiserver's defaults. OwnerReferencesPermissionEnforcement is off by
 * default but on in OpenShift and other hardened clusters: with it, the webhook-configuration reconciler's owner
 * reference needs the extra grants of manifests/base/rbac/200-rbac.yaml (docs/install.md, "Owner references").
 */
export const EXTRA_ADMISSION_PLUGINS = ["OwnerReferencesPermissionEnforcement"];

/** Starts etcd + kube-apiserver; resolves once the harness printed its ready line. */
export async function startCluster(binary: string, workDir: string): Promise<Cluster> {
  const kubeconfig = join(workDir, "kubeconfig");
  const log = createWriteStream(join(workDir, "cluster.log"));
  const started = Date.now();
  const args = ["--kubeconfig", kubeconfig, `--apiserver-arg=--enable-admission-plugins=${EXTRA_ADMISSION_PLUGINS.join(",")}`];
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.pipe(log);
  const line = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the cluster harness exited (${code}) before it was ready; see ${join(workDir, "cluster.log")}`)));
  });
  const ready = JSON.parse(line) as NonNullable<Cluster["ready"]>;
  return { kubeconfig, ready, startMs: Date.now() - started, stop: () => stopProcess(child, 30_000) };
}

/** SIGTERM, then SIGKILL after graceMs; resolves when the process is gone. */
export function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export interface Duckbill {
  readonly port: number;
  /** The plain-HTTP port of GET /metrics (0: disabled, the default). */
  readonly metricsPort: number;
  readonly url: string;
  readonly log: string;
  stop(): Promise<void>;
}

/**
 * `bin/duckbill serve` in cluster mode, outside the cluster: --webhook-url makes the reconciler point the three
 * webhook configurations at it. Resolves when its readiness probe answers 200.
 */
export async function startDuckbill(opts: { kubeconfig: string; workDir: string; host: string; listenHost: string; env?: NodeJS.ProcessEnv; metrics?: boolean }): Promise<Duckbill> {
  const port = await freePort();
  const metricsPort = opts.metrics === true ? await freePort() : 0;
  const url = `https://${opts.host}:${port}`;
  const log = join(opts.workDir, "duckbill.log");
  const out = createWriteStream(log);
  const child = spawn(
    process.execPath,
    [
      join(REPO, "bin", "duckbill"),
      "serve",
      "--kubeconfig", opts.kubeconfig,
      "--webhook-url", url,
      "--disable-ha",
      "--host", opts.listenHost,
      "--port", String(port),
      "--metrics-port", String(metricsPort),
      "--drain-timeout", "1s",
      "--generated-cert-dir", join(opts.workDir, "certs"),
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DUCKBILL_LOG_LEVEL: "info", ...opts.env } },
  );
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = `exited (${code ?? signal})`));
  await waitFor("duckbill ready", 60_000, async () => {
    if (exited !== undefined) throw new Error(`duckbill ${exited}; see ${log}`);
    return (await probe(port)) === 200 ? true : undefined;
  });
  return { port, metricsPort, url, log, stop: () => stopProcess(child, 10_000) };
}

/** Duckbill's readiness as kubelet sees it (any path with a kube-probe User-Agent). */
export function probe(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/readyz", rejectUnauthorized: false, headers: { "user-agent": "kube-probe/1.36" } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.setTimeout(2000, () => req.destroy(new Error("timeout")));
    req.end();
  });
}

/** The SHA-256 fingerprint of the certificate a TLS server on 127.0.0.1:port presents now. */
export function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fp);
    });
    socket.on("error", reject);
  });
}

/** kubectl run to success, returning stdout (each suite's own, with its user and working directory). */
export type KubectlOk = (args: readonly string[]) => Promise<string>;

/** The CRDs of manifests/crds/, established, labelled with the Knative release as serving-crds.yaml labels them. */
export async function installCrds(kubectlOk: KubectlOk, release: string): Promise<void> {
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "crds")]);
  await kubectlOk(["wait", "--for=condition=Established", "--timeout=60s", "-f", join(REPO, "manifests", "crds")]);
  await kubectlOk(["label", "crd", "-l", "knative.dev/crd-install=true", `app.kubernetes.io/version=${release}`, "--overwrite"]);
}

/** What the webhook needs before it starts: the knative-serving Namespace, its ServiceAccount and RBAC, the empty Secret. */
export async function installSystemBase(kubectlOk: KubectlOk): Promise<void> {
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "standalone", "100-namespace.yaml")]);
  await kubectlOk(["apply", "-k", join(REPO, "manifests", "base", "rbac")]);
  await kubectlOk(["apply", "-f", join(REPO, "manifests", "standalone", "300-secret.yaml")]);
}

/** The clientConfig of each of the three webhook configurations (manifests/standalone/700-webhooks.yaml), in that order. */
export async function clientConfigs(kubectlOk: KubectlOk): Promise<Array<{ caBundle?: string; url?: string }>> {
  const out: Array<{ caBundle?: string; url?: string }> = [];
  for (const [kind, name] of [
    ["mutatingwebhookconfiguration", "webhook.serving.knative.dev"],
    ["validatingwebhookconfiguration", "validation.webhook.serving.knative.dev"],
    ["validatingwebhookconfiguration", "config.webhook.serving.knative.dev"],
  ] as const) {
    const config = JSON.parse(await kubectlOk(["get", kind, name, "-o", "json"])) as { webhooks?: Array<{ clientConfig?: { caBundle?: string; url?: string } }> };
    out.push(config.webhooks?.[0]?.clientConfig ?? {});
  }
  return out;
}

/** Writes a kubeconfig for the admin's cluster that authenticates with `token` (a ServiceAccount's), as `user`. */
export async function writeTokenKubeconfig(kubectlOk: KubectlOk, path: string, user: string, token: string): Promise<void> {
  const view = JSON.parse(await kubectlOk(["config", "view", "--raw", "--minify", "-o", "json"])) as { clusters: Array<{ cluster: unknown }> };
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "e2e", cluster: view.clusters[0]?.cluster }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: user, context: { cluster: "e2e", user } }],
      "current-context": user,
    }),
  );
}

/** kubectl: E2E_KUBECTL, else the harness build's, else `kubectl` on PATH. */
export function kubectlPath(build: HarnessBuild | undefined): string {
  if (process.env.E2E_KUBECTL) return process.env.E2E_KUBECTL;
  if (build !== undefined && existsSync(build.kubectl)) return build.kubectl;
  return "kubectl";
}

/** kubectl as the admin, in `cwd`, with `--kubeconfig`: a run (any exit) and a run that must succeed (its stdout). */
export function kubectlRunner(bin: () => string, kubeconfig: () => string, cwd: () => string): { kubectl: (args: readonly string[], input?: string) => Promise<RunResult>; kubectlOk: (args: readonly string[], input?: string) => Promise<string> } {
  const kubectl = (args: readonly string[], input?: string): Promise<RunResult> => run(bin(), ["--kubeconfig", kubeconfig(), ...args], { cwd: cwd(), input, timeoutMs: 60_000 });
  const kubectlOk = async (args: readonly string[], input?: string): Promise<string> => {
    const r = await kubectl(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}):\n${r.stderr}`);
    return r.stdout;
  };
  return { kubectl, kubectlOk };
}

/** One of Knative's ConfigMaps in knative-serving, labelled so that the config webhook's objectSelector sends it. */
export function knativeConfigMap(name: string, component: string, data: Record<string, string>): string {
  const lines = Object.entries(data).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${SYSTEM_NAMESPACE}
  labels:
    app.kubernetes.io/name: knative-serving
    app.kubernetes.io/component: ${component}
data:
${lines.length === 0 ? "  {}" : lines.join("\n")}
`.replace("data:\n  {}", "data: {}");
}

/** The defaulting webhook's warning for a container without a securityContext (Knative's secure-pod-defaults off). */
export const SECURITY_WARNING =
  "Warning: Kubernetes default value is insecure, Knative may default this to secure in a future release: " +
  "spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation, spec.template.spec.containers[0].securityContext.capabilities, " +
  "spec.template.spec.containers[0].securityContext.runAsNonRoot, spec.template.spec.containers[0].securityContext.seccompProfile";

/**
 * Waits until Duckbill at `webhookUrl` serves: the Secret filled, the three configurations pointing at it with its CA,
 * and the API server calling it (`probeFile`, a Service manifest, comes back defaulted from a server-side dry run).
 */
export async function awaitWebhookServing(kubectl: (args: readonly string[]) => Promise<RunResult>, kubectlOk: KubectlOk, webhookUrl: string, probeFile: string): Promise<void> {
  await waitFor("webhook-certs filled and the three configurations reconciled", 60_000, async () => {
    const secret = JSON.parse(await kubectlOk(["get", "secret", "webhook-certs", "-n", SYSTEM_NAMESPACE, "-o", "json"])) as { data?: Record<string, string> };
    const ca = secret.data?.["ca-cert.pem"];
    if (ca === undefined) return undefined;
    const configs = await clientConfigs(kubectlOk);
    return configs.every((cc) => cc.caBundle === ca && cc.url?.startsWith(webhookUrl) === true) ? true : undefined;
  });
  await waitFor("the API server calls Duckbill", 30_000, async () => {
    const r = await kubectl(["apply", "--dry-run=server", "-f", probeFile, "-o", "json"]);
    if (r.code !== 0) throw new Error(r.stderr.trim());
    const o = JSON.parse(r.stdout) as { spec: { template: { spec: { containers: { name?: string }[] } } } };
    return o.spec.template.spec.containers[0]?.name === "user-container" ? true : undefined;
  });
}

/** The cluster a suite runs against: the harness's own (built or found), or E2E_KUBECONFIG's, with its kubectl. */
export interface OpenedCluster {
  readonly build?: HarnessBuild;
  readonly cluster?: Cluster;
  readonly kubeconfig: string;
  readonly kubectl: string;
}

/** Builds or finds the harness and starts its cluster in `workDir`; with E2E_KUBECONFIG, that cluster instead. */
export async function openCluster(workDir: string): Promise<OpenedCluster> {
  const external = process.env.E2E_KUBECONFIG;
  let build: HarnessBuild | undefined;
  try {
    build = await buildHarness();
  } catch (err) {
    // An existing cluster needs only kubectl: the harness build is optional then.
    if (external === undefined) throw err;
  }
  const kubectl = kubectlPath(build);
  if (external !== undefined) return { ...(build === undefined ? {} : { build }), kubeconfig: external, kubectl };
  const cluster = await startCluster(build?.cluster ?? "", workDir);
  return { ...(build === undefined ? {} : { build }), cluster, kubeconfig: cluster.kubeconfig, kubectl };
}
