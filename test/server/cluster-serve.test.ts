/**
 * `duckbill serve` in a cluster, end to end against the in-process fake API server: the empty webhook-certs
 * Secret gets filled, the server switches to the Secret's certificate, and the webhook configurations get the
 * Secret's CA, their rules and paths.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultDeps } from "../../src/cli/main.js";
import { resolveSettings } from "../../src/cli/settings/options.js";
import { parseServeSettings } from "../../src/cli/settings/serve-settings.js";
import { startWebhook, type RunningWebhook } from "../../src/cli/serve/serve.js";
import { configMap, CONFIGMAPS, FakeApiServer, MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS, type KubeObject } from "../support/fake-apiserver.js";
import { httpsCall, serviceReview } from "../support/webhook.js";

const NS = "knative-serving";

function webhookConfiguration(kind: string, name: string, path: string): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind,
    metadata: { name },
    webhooks: [{ name, admissionReviewVersions: ["v1"], sideEffects: "None", clientConfig: { service: { name: "webhook", namespace: NS, path } } }],
  };
}

async function eventually<T>(get: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

function secretData(api: FakeApiServer): Record<string, string> | undefined {
  const data = api.get(SECRETS, "webhook-certs", NS)?.data as Record<string, string> | undefined;
  if (data === undefined || data["ca-cert.pem"] === undefined) return undefined;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]));
}

describe("duckbill serve in a cluster", () => {
  let api: FakeApiServer;
  let dir: string;
  let running: RunningWebhook;

  beforeAll(async () => {
    api = await FakeApiServer.start({ bookmarkIntervalMs: 200 });
    api.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, uid: "ns-uid" } });
    api.create(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "webhook-certs", namespace: NS } });
    api.create(CONFIGMAPS, configMap(NS, "config-features", {}));
    api.create(MUTATING_WEBHOOK_CONFIGURATIONS, webhookConfiguration("MutatingWebhookConfiguration", "webhook.serving.knative.dev", "/defaulting"));
    api.create(VALIDATING_WEBHOOK_CONFIGURATIONS, webhookConfiguration("ValidatingWebhookConfiguration", "validation.webhook.serving.knative.dev", "/resource-validation"));
    api.create(VALIDATING_WEBHOOK_CONFIGURATIONS, webhookConfiguration("ValidatingWebhookConfiguration", "config.webhook.serving.knative.dev", "/config-validation"));
    dir = await mkdtemp(join(tmpdir(), "duckbill-cluster-"));
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(kubeconfig, api.kubeconfigYaml());
    const settings = { ...resolveSettings({}, {}), port: "0", host: "127.0.0.1", "metrics-port": "0", kubeconfig, "disable-ha": "true" };
    running = await startWebhook(parseServeSettings(settings), defaultDeps(), { logger: pino({ level: "silent" }) });
  });

  afterAll(async () => {
    await running?.close();
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("fills the Secret and serves its certificate to clients that trust the published CA", async () => {
    const data = await eventually(() => secretData(api));
    expect(Object.keys(data).sort()).toEqual(["ca-cert.pem", "ca-key.pem", "server-cert.pem", "server-key.pem"]);
    const ok = await eventually(async () => {
      try {
        const r = await httpsCall(running.port, data["ca-cert.pem"]!, { servername: "webhook.knative-serving.svc", path: "/defaulting", body: JSON.stringify(serviceReview()) });
        return r.status === 200 ? r : undefined;
      } catch {
        return undefined;
      }
    });
    expect(ok.status).toBe(200);
  });

  it("reconciles the three webhook configurations with the Secret's CA, Knative's rules and paths", async () => {
    const data = await eventually(() => secretData(api));
    const mutating = await eventually(() => {
      const m = api.get(MUTATING_WEBHOOK_CONFIGURATIONS, "webhook.serving.knative.dev") as { webhooks?: Array<{ clientConfig?: { caBundle?: string } }> } | undefined;
      const bundle = m?.webhooks?.[0]?.clientConfig?.caBundle;
      return bundle !== undefined && Buffer.from(bundle, "base64").toString("utf8") === data["ca-cert.pem"] ? m : undefined;
    });
    const hook = (mutating as { webhooks: Array<Record<string, unknown>> }).webhooks[0]!;
    expect(hook.reinvocationPolicy).toBe("IfNeeded");
    expect((hook.clientConfig as { service: { path: string } }).service.path).toBe("/defaulting");
    const rules = hook.rules as Array<{ apiGroups: string[]; resources: string[] }>;
    expect(rules.map((r) => `${r.apiGroups[0]}/${r.resources[0]}`)).toContain("serving.knative.dev/services");
    const config = await eventually(() => {
      const c = api.get(VALIDATING_WEBHOOK_CONFIGURATIONS, "config.webhook.serving.knative.dev") as { webhooks?: Array<{ clientConfig?: { caBundle?: string } }> } | undefined;
      return c?.webhooks?.[0]?.clientConfig?.caBundle !== undefined ? c : undefined;
    });
    expect(config).toBeDefined();
  });
});
