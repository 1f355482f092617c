/**
 * The processes of the control-plane suite besides the API servers: Knative's controller (one per cluster, each in
 * a network namespace of its own) and Knative's own webhook (reference/ in server mode) behind a proxy that hands
 * it the cluster's ConfigMaps.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer, request as httpsRequest } from "node:https";
import { connect, createServer as createNetServer, type Server } from "node:net";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { createKubeApi, type KubeApi } from "../../src/kube/json-api.js";
import { freePort, probe, run, stopProcess, waitFor } from "../e2e/harness.js";
import { SYSTEM_NAMESPACE, type Obj } from "./install.js";

/** The admin's JSON client of a harness cluster (GET, POST, PUT). */
export function adminApi(kubeconfig: string): KubeApi {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return createKubeApi(kc);
}

export interface Controller {
  readonly log: string;
  stop(): Promise<void>;
}

/**
 * Knative's controller as its Deployment (config/core/deployments/controller.yaml) runs it: SYSTEM_NAMESPACE,
 * POD_NAME, CONFIG_LOGGING_NAME, CONFIG_OBSERVABILITY_NAME, the `controller` ServiceAccount's credentials (a
 * kubeconfig with its token), leader election as config-leader-election says.
 *
 * sharedmain serves health probes on the fixed port 8080 (knative.dev/pkg injection.HealthCheckDefaultPort), so two
 * controllers on one machine collide: each runs in a network namespace of its own (`unshare -n`, which needs root),
 * where test/control-plane/netns-forward.mjs carries its connections to the API server's port through a Unix socket
 * to this process, which forwards them to the API server.
 */
export async function startController(opts: { binary: string; kubeconfig: string; workDir: string; name: string }): Promise<Controller> {
  const server = new URL(kubeconfigServer(opts.kubeconfig));
  const apiPort = Number(server.port);
  const socket = join(opts.workDir, `${opts.name}.api.sock`);
  rmSync(socket, { force: true });
  const relay: Server = createNetServer((c) => {
    const upstream = connect(apiPort, "127.0.0.1");
    c.pipe(upstream).pipe(c);
    const close = (): void => {
      c.destroy();
      upstream.destroy();
    };
    c.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => relay.listen(socket, resolve));
  const log = join(opts.workDir, `${opts.name}.log`);
  const out = createWriteStream(log);
  const forward = join(import.meta.dirname, "netns-forward.mjs");
  const ready = join(opts.workDir, `${opts.name}.forward-ready`);
  rmSync(ready, { force: true });
  const script = `ip link set lo up && { "$NODE" "$FORWARD" "$API_PORT" "$SOCKET" "$READY" "$$" & } && while [ ! -e "$READY" ]; do sleep 0.1; done && exec "$CONTROLLER" --kubeconfig "$KUBECONFIG_FILE"`;
  const child: ChildProcess = spawn("unshare", ["-n", "sh", "-c", script], {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE: process.execPath,
      FORWARD: forward,
      API_PORT: String(apiPort),
      SOCKET: socket,
      READY: ready,
      CONTROLLER: opts.binary,
      KUBECONFIG_FILE: opts.kubeconfig,
      POD_NAME: opts.name,
      SYSTEM_NAMESPACE,
      CONFIG_LOGGING_NAME: "config-logging",
      CONFIG_OBSERVABILITY_NAME: "config-observability",
    },
  });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = `exited (${code ?? signal})`));
  // Ready once it leads: every reconciler of the controller takes its Leases in knative-serving.
  await waitFor(`${opts.name} started`, 60_000, async () => {
    if (exited !== undefined) throw new Error(`${opts.name} ${exited}; see ${log}`);
    return readFileSync(log, "utf8").includes("Starting controllers") ? true : undefined;
  });
  return {
    log,
    stop: async () => {
      await stopProcess(child, 15_000);
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}

function kubeconfigServer(kubeconfig: string): string {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error(`${kubeconfig} names no cluster`);
  return server;
}

/** A self-signed certificate for 127.0.0.1, in `dir` as tls.crt and tls.key. */
export async function selfSignedCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const crt = join(dir, "tls.crt");
  const key = join(dir, "tls.key");
  const r = await run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", crt]);
  if (r.code !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { cert: readFileSync(crt, "utf8"), key: readFileSync(key, "utf8") };
}

/** One admission request as the proxy saw it. */
export interface ProxiedRequest {
  readonly path: string;
  readonly ms: number;
}

export interface ReferenceWebhook {
  /** What the API server calls (the proxy). */
  readonly url: string;
  /** The CA bundle of `url`, base64. */
  readonly caBundle: string;
  readonly log: string;
  /** Requests answered since the start (for per-scenario counts). */
  readonly requests: ProxiedRequest[];
  /** Resolves once the proxy hands on the ConfigMaps as the API server has them now. */
  configsSynced(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Knative's own webhook (reference/, server mode: `Webhook.Run` itself) as the webhook of a cluster. The reference
 * has no informers on a cluster: each request's ConfigMaps come in its `X-Knative-Reference-Configs` header
 * (reference/harness/harness.go: ConfigsHeader). The proxy in front of it, which the API server calls, sets that
 * header to the data of every ConfigMap in knative-serving, as a list of them it refreshes every 200 ms (the
 * informer of Knative's config store, cmd/webhook/main.go: newConfigStore, watches the same ConfigMaps).
 */
export async function startReferenceWebhook(opts: { binary: string; kubeconfig: string; workDir: string }): Promise<ReferenceWebhook> {
  const certDir = join(opts.workDir, "reference-certs");
  await run("mkdir", ["-p", certDir]);
  const tls = await selfSignedCertificate(certDir);
  const refPort = await freePort();
  const log = join(opts.workDir, "reference-webhook.log");
  const out = createWriteStream(log);
  const child = spawn(opts.binary, ["--serve", "--port", String(refPort), "--cert-dir", certDir, "--log-level", "info"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, SYSTEM_NAMESPACE },
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited: string | undefined;
  child.on("exit", (code, signal) => (exited = `exited (${code ?? signal})`));
  await waitFor("Knative's webhook ready", 60_000, async () => {
    if (exited !== undefined) throw new Error(`Knative's webhook ${exited}; see ${log}`);
    return (await probe(refPort)) === 200 ? true : undefined;
  });

  const api = adminApi(opts.kubeconfig);
  let header = "{}";
  let version = "";
  const poll = async (): Promise<string> => {
    const listed = (await api.request({ method: "GET", path: `/api/v1/namespaces/${SYSTEM_NAMESPACE}/configmaps` })) as { metadata: { resourceVersion: string }; items: Obj[] };
    const configs: Record<string, unknown> = {};
    for (const cm of listed.items) {
      // `_example` (documentation, read by no config store) is left out: a header is one line of Latin-1.
      const { _example: _documentation, ...data } = (cm.data ?? {}) as Record<string, string>;
      configs[(cm.metadata as Obj).name as string] = data;
    }
    header = JSON.stringify(configs).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    version = listed.metadata.resourceVersion;
    return version;
  };
  await poll();
  let stopped = false;
  const poller = (async () => {
    while (!stopped) {
      await new Promise((r) => setTimeout(r, 200));
      await poll().catch(() => undefined);
    }
  })();

  const requests: ProxiedRequest[] = [];
  const proxyPort = await freePort();
  const proxy = createHttpsServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const started = process.hrtime.bigint();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const upstream = httpsRequest(
        {
          host: "127.0.0.1",
          port: refPort,
          method: req.method,
          path: req.url,
          rejectUnauthorized: false,
          headers: { "content-type": req.headers["content-type"] ?? "application/json", "content-length": String(body.length), "X-Knative-Reference-Configs": header },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "application/json" });
          answer.pipe(res);
          answer.on("end", () => requests.push({ path: req.url ?? "", ms: Number(process.hrtime.bigint() - started) / 1e6 }));
        },
      );
      upstream.on("error", (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(proxyPort, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${proxyPort}`,
    caBundle: Buffer.from(tls.cert).toString("base64"),
    log,
    requests,
    configsSynced: async () => {
      const now = ((await api.request({ method: "GET", path: `/api/v1/namespaces/${SYSTEM_NAMESPACE}/configmaps`, query: { limit: "1" } })) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      await waitFor("the proxy's ConfigMaps", 10_000, async () => (BigInt(version) >= BigInt(now) ? true : undefined), 50);
    },
    stop: async () => {
      stopped = true;
      await poller;
      const closed = new Promise((resolve) => proxy.close(resolve));
      proxy.closeAllConnections(); // the API server keeps its connections open
      await closed;
      api.close();
      await stopProcess(child, 5_000);
    },
  };
}
