/**
 * Shared pieces of the fault-injection tests (faults.test.ts, faults-tls.test.ts, faults-drain.test.ts): a proxy in front of the
 * fake API server that can refuse connections or corrupt answers, a webhook started in cluster mode through it
 * (startWebhook, as `duckbill serve` does), readiness probes and affinity reviews.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultDeps } from "../../src/cli/main.js";
import { resolveSettings, type ServeSettings } from "../../src/cli/settings/options.js";
import { parseServeSettings } from "../../src/cli/settings/serve-settings.js";
import { startWebhook, type RunningWebhook } from "../../src/cli/serve/serve.js";
import { capturedLogger, eventually, type LogLine } from "../config/store-harness.js";
import { FakeApiServer, SECRETS } from "../support/fake-apiserver.js";
import { serviceReview } from "../support/webhook.js";

export const NS = "knative-serving";
export const SERVERNAME = "webhook.knative-serving.svc";
export const AFFINITY_DENIED = "validation failed: must not set the field(s): spec.template.spec.affinity";

/** Polls until `probe` gives something other than undefined/false; fails with `what` after `ms` (store-harness's eventually, with a longer default). */
export function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  return eventually(probe, what, ms);
}

/**
 * An HTTP proxy in front of the fake API server, on a port that stays the same across outages:
 * - `down()` closes the listener and resets every open connection (the API server is gone: watches drop,
 *   new connections are refused); `up()` listens again on the same port;
 * - `garbageLists` answers ConfigMap list requests with a 200 whose body is not JSON (a misbehaving proxy or load balancer);
 * - `corruptNextEvent()` truncates the next ADDED/MODIFIED event line on a watch stream (a garbled stream).
 */
export class FaultyProxy {
  garbageLists = false;
  private corruptEvents = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly upstreams = new Set<ClientRequest>();
  /** Requests answered with garbage, for assertions. */
  garbageAnswers = 0;
  corruptedEvents = 0;

  private constructor(
    private readonly target: FakeApiServer,
    private port: number,
  ) {}

  /** A proxy for `target`; `listening: false` reserves a port but refuses connections until `up()`. */
  static async start(target: FakeApiServer, opts: { listening?: boolean } = {}): Promise<FaultyProxy> {
    const proxy = new FaultyProxy(target, 0);
    await proxy.up();
    if (opts.listening === false) await proxy.down();
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  /** A kubeconfig (JSON) that points at the proxy with the fake API server's token. */
  kubeconfigYaml(): string {
    return JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "proxied", cluster: { server: this.url, "insecure-skip-tls-verify": true } }],
      users: [{ name: "proxied", user: { token: FakeApiServer.TOKEN } }],
      contexts: [{ name: "proxied", context: { cluster: "proxied", user: "proxied" } }],
      "current-context": "proxied",
    });
  }

  corruptNextEvent(): void {
    this.corruptEvents++;
  }

  async up(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer((req, res) => this.handle(req, res));
    server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops accepting connections and resets every open one (client side and upstream). */
  async down(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    for (const u of this.upstreams) u.destroy();
    await closed;
  }

  async close(): Promise<void> {
    await this.down();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://proxy");
    const watch = url.searchParams.get("watch") === "true";
    if (this.garbageLists && req.method === "GET" && !watch && /\/configmaps$/.test(url.pathname)) {
      this.garbageAnswers++;
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("<html><body>502 Bad Gateway</body></html>\n");
      return;
    }
    const upstream = httpRequest(`${this.target.url}${req.url ?? "/"}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      if (!watch) {
        up.pipe(res);
        return;
      }
      // Watch streams are newline-delimited JSON: forwarded line by line so one can be garbled.
      let pending = "";
      up.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        let nl: number;
        while ((nl = pending.indexOf("\n")) !== -1) {
          let line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (this.corruptEvents > 0 && /^\{"type":"(ADDED|MODIFIED)"/.test(line)) {
            this.corruptEvents--;
            this.corruptedEvents++;
            line = line.slice(0, Math.floor(line.length / 2));
          }
          res.write(`${line}\n`);
        }
      });
      up.on("end", () => res.end(pending));
      up.on("error", () => res.destroy());
    });
    this.upstreams.add(upstream);
    upstream.on("close", () => this.upstreams.delete(upstream));
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  }
}

/** A fake API server and a FaultyProxy in front of it, as the certificate and drain tests start them per test. */
export interface FaultyCluster {
  readonly api: FakeApiServer;
  readonly proxy: FaultyProxy;
}

/** Starts a FaultyCluster; `emptySecret` creates the webhook-certs Secret without data, for a leader to fill. */
export async function startFaultyCluster(opts: { emptySecret?: boolean } = {}): Promise<FaultyCluster> {
  const api = await FakeApiServer.start({ bookmarkIntervalMs: 200 });
  if (opts.emptySecret === true) api.create(SECRETS, { metadata: { name: "webhook-certs", namespace: NS } });
  return { api, proxy: await FaultyProxy.start(api) };
}

/** Stops the webhook (when one was started), then the proxy and the API server. */
export async function stopFaultyCluster(c: FaultyCluster, wh: ClusterWebhook | undefined): Promise<void> {
  await wh?.stop();
  await c.proxy.close();
  await c.api.close();
}

export interface ClusterWebhook {
  readonly running: RunningWebhook;
  readonly port: number;
  readonly lines: LogLine[];
  stop(): Promise<void>;
}

/**
 * `duckbill serve` in cluster mode (config from the ConfigMaps, certificate from the Secret) through `proxy`.
 * The backoffs are the product's defaults (200 ms doubling): outages in these tests last about a second.
 */
export async function startClusterWebhook(proxy: FaultyProxy, overrides: Partial<ServeSettings> = {}): Promise<ClusterWebhook> {
  const dir = await mkdtemp(join(tmpdir(), "duckbill-faults-"));
  const kubeconfig = join(dir, "kubeconfig");
  await writeFile(kubeconfig, proxy.kubeconfigYaml());
  const { logger, lines } = capturedLogger();
  const settings: ServeSettings = {
    ...resolveSettings({}, {}),
    port: "0",
    host: "127.0.0.1",
    "metrics-port": "0",
    kubeconfig,
    "config-source": "cluster",
    "tls-source": "secret",
    "reconcile-webhooks": "false",
    "disable-ha": "true",
    ...overrides,
  };
  const running = await startWebhook(parseServeSettings(settings), defaultDeps(), { logger });
  return {
    running,
    port: running.port,
    lines,
    async stop() {
      await running.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One HTTPS request on a fresh connection, its status and body. */
function call(options: RequestOptions, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: "127.0.0.1", agent: false, ...options }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A kubelet readiness probe: HTTPS without verifying the certificate, as kubelet does. */
export function probe(port: number): Promise<Answer> {
  return call({ port, path: "/", method: "GET", rejectUnauthorized: false, headers: { "User-Agent": "kube-probe/1.30" } });
}

/** A defaulted Service CREATE whose pod spec sets `affinity`, which config-features gates (kubernetes.podspec-affinity). */
export function affinityReview(uid: string): string {
  const review = serviceReview({ uid }) as { request: { object: { spec: { template: { spec: Record<string, unknown> }; traffic?: unknown } } } };
  review.request.object.spec.traffic = [{ latestRevision: true, percent: 100 }];
  review.request.object.spec.template.spec.affinity = {
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }] }] } },
  };
  return JSON.stringify(review);
}

/** One admission request over a fresh TLS connection that trusts only `ca` (undefined: no verification). */
export function admit(port: number, ca: string | undefined, path: string, body: string): Promise<Answer> {
  const trust = ca === undefined ? { rejectUnauthorized: false } : { ca };
  return call({ port, path, method: "POST", servername: SERVERNAME, ...trust, headers: { "Content-Type": "application/json" } }, body);
}

/** The affinity Service's decision (allowed, or the denial message) with a check that the answer carries `uid`. */
export async function affinityDecision(port: number, uid: string, ca?: string): Promise<{ allowed: boolean; message: string }> {
  const r = await admit(port, ca, "/resource-validation", affinityReview(uid));
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${r.body}`);
  const response = (JSON.parse(r.body) as { response: { uid: string; allowed: boolean; status?: { message?: string } } }).response;
  if (response.uid !== uid) throw new Error(`answer for ${response.uid}, want ${uid}`);
  return { allowed: response.allowed, message: response.status?.message ?? "" };
}

/** The Secret's data, decoded. */
export function secretData(api: FakeApiServer, name = "webhook-certs"): Record<string, string> {
  const data = (api.get(SECRETS, name, NS)?.data as Record<string, string> | undefined) ?? {};
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]));
}
