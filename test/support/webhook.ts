import { mkdtemp, rm } from "node:fs/promises";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { AdmissionDeps } from "../../src/admission/deps.js";
import { defaultDeps } from "../../src/cli/main.js";
import { resolveSettings, type ServeSettings } from "../../src/cli/settings/options.js";
import { parseServeSettings } from "../../src/cli/settings/serve-settings.js";
import { startWebhook, type RunningWebhook } from "../../src/cli/serve/serve.js";

export interface TestWebhook {
  readonly running: RunningWebhook;
  readonly port: number;
  readonly ca: string;
  readonly certDir: string;
  stop(): Promise<void>;
}

/** A real HTTPS webhook on 127.0.0.1 with freshly generated certificates in a temp dir. */
export async function startTestWebhook(overrides: Partial<ServeSettings> = {}, deps: AdmissionDeps = defaultDeps()): Promise<TestWebhook> {
  const certDir = await mkdtemp(join(tmpdir(), "duckbill-certs-"));
  const settings = { ...resolveSettings({}, {}), port: "0", host: "127.0.0.1", "metrics-port": "0", "generated-cert-dir": certDir, "config-source": overrides["config-dir"] ? "dir" : "defaults", ...overrides };
  // A start that fails (the tests of refused settings) leaves no directory behind either.
  const running = await startWebhook(parseServeSettings(settings), deps, { logger: pino({ level: "silent" }) }).catch(async (err: unknown) => {
    await rm(certDir, { recursive: true, force: true });
    throw err;
  });
  return {
    running,
    port: running.port,
    ca: running.tls.ca,
    certDir,
    async stop() {
      await running.close();
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request that trusts only `ca` and verifies the server name. */
export function httpsCall(
  port: number,
  ca: string,
  opts: { path?: string; method?: string; headers?: Record<string, string>; body?: string | Buffer; servername?: string; tls?: Partial<RequestOptions> } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        path: opts.path ?? "/resource-validation",
        method: opts.method ?? "POST",
        ca,
        servername: opts.servername ?? "localhost",
        headers: opts.headers ?? { "Content-Type": "application/json" },
        agent: false,
        ...opts.tls,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** A minimal valid Service CREATE review. */
export function serviceReview(opts: { uid?: string; apiVersion?: string; operation?: string; kind?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: opts.apiVersion ?? "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: opts.uid ?? "3f1c2d9e-0000-4000-8000-000000000001",
      kind: { group: "serving.knative.dev", version: "v1", kind: opts.kind ?? "Service" },
      resource: { group: "serving.knative.dev", version: "v1", resource: "services" },
      name: "hello",
      namespace: "default",
      operation: opts.operation ?? "CREATE",
      userInfo: { username: "alice@example.com" },
      object: {
        apiVersion: "serving.knative.dev/v1",
        kind: "Service",
        metadata: { name: "hello", namespace: "default" },
        spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go:latest" }] } } },
      },
    },
  };
}

/** An AdmissionReview of a ConfigMap in `namespace` (the shape /config-validation receives), as JSON. */
export function configMapReview(opts: { name: string; namespace: string; operation: "CREATE" | "UPDATE"; data: Record<string, string>; oldData?: Record<string, string>; uid?: string }): string {
  const cm = (d: Record<string, string>): Record<string, unknown> => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: opts.name, namespace: opts.namespace }, data: d });
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: opts.uid ?? "0d7b8e2a-0000-4000-8000-000000000007",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      name: opts.name,
      namespace: opts.namespace,
      operation: opts.operation,
      userInfo: { username: "admin" },
      object: cm(opts.data),
      ...(opts.oldData !== undefined ? { oldObject: cm(opts.oldData) } : {}),
    },
  });
}
