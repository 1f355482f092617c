/**
 * `--impact-warnings` end to end against the in-process fake API server: `duckbill serve` in cluster mode lists
 * and watches Services and Configurations, and /config-validation's answer to a config-features change that
 * restricts a flag names the objects whose next update would be denied. Without the flag: no warnings, no watch.
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
import { BUILTIN_RESOURCES, configMap, CONFIGMAPS, FakeApiServer, NAMESPACES, type KubeObject, type ResourceType } from "../support/fake-apiserver.js";
import { configMapReview, httpsCall } from "../support/webhook.js";
import { eventually } from "../config/store-harness.js";

const NS = "knative-serving";
const SERVICES: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "services", kind: "Service", namespaced: true };
const CONFIGURATIONS: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "configurations", kind: "Configuration", namespaced: true };

function knative(kind: string, namespace: string, name: string, podSpec: Record<string, unknown>): KubeObject {
  return { apiVersion: "serving.knative.dev/v1", kind, metadata: { namespace, name }, spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go" }], ...podSpec } } } };
}

const AFFINITY = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "Exists" }] }] } } } };
const TOLERATIONS = { tolerations: [{ key: "dedicated", operator: "Exists" }] };

function featuresReview(operation: "CREATE" | "UPDATE", data: Record<string, string>, oldData?: Record<string, string>): string {
  return configMapReview({ name: "config-features", namespace: NS, operation, data, ...(oldData !== undefined ? { oldData } : {}) });
}

/** store-harness's eventually with this file's longer default. */
function waitFor<T>(get: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  return eventually(get, "the condition", ms);
}

interface Answer {
  allowed: boolean;
  warnings?: string[];
}

const AFFINITY_OFF = featuresReview("UPDATE", { "kubernetes.podspec-affinity": "disabled", "kubernetes.podspec-tolerations": "enabled" }, { "kubernetes.podspec-affinity": "enabled", "kubernetes.podspec-tolerations": "enabled" });

describe("--impact-warnings", () => {
  let api: FakeApiServer;
  let dir: string;
  const running: { with?: RunningWebhook; without?: RunningWebhook } = {};

  async function ask(which: "with" | "without", body: string): Promise<Answer> {
    const wh = running[which]!;
    const r = await httpsCall(wh.port, wh.tls.ca, { path: "/config-validation", body });
    expect(r.status).toBe(200);
    return (JSON.parse(r.body) as { response: Answer }).response;
  }

  beforeAll(async () => {
    api = await FakeApiServer.start({ bookmarkIntervalMs: 200, resources: [...BUILTIN_RESOURCES, SERVICES, CONFIGURATIONS] });
    api.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, uid: "ns-uid" } });
    api.create(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "enabled", "kubernetes.podspec-tolerations": "enabled" }));
    api.create(SERVICES, knative("Service", "team-a", "pinned", AFFINITY));
    api.create(SERVICES, knative("Service", "team-a", "plain", {}));
    api.create(CONFIGURATIONS, knative("Configuration", "team-b", "tolerant", TOLERATIONS));
    dir = await mkdtemp(join(tmpdir(), "duckbill-impact-"));
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(kubeconfig, api.kubeconfigYaml());
    const base = { ...resolveSettings({}, {}), port: "0", host: "127.0.0.1", "metrics-port": "0", kubeconfig, "disable-ha": "true", "tls-source": "generated", "generated-cert-dir": join(dir, "certs"), "reconcile-webhooks": "false" };
    const logger = pino({ level: "silent" });
    running.without = await startWebhook(parseServeSettings(base), defaultDeps(), { logger });
    const watchesBefore = api.count({ plural: "services" });
    running.with = await startWebhook(parseServeSettings({ ...base, "impact-warnings": "true" }), defaultDeps(), { logger });
    expect(watchesBefore).toBe(0);
  });

  afterAll(async () => {
    await running.with?.close();
    await running.without?.close();
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("names the objects whose next update a restricting change would deny, and still admits it", async () => {
    const r = await waitFor(async () => {
      const a = await ask("with", AFFINITY_OFF);
      return a.warnings?.[0]?.includes("not synced") === true ? undefined : a;
    });
    expect(r.allowed).toBe(true);
    expect(r.warnings).toEqual(["kubernetes.podspec-affinity Enabled → Disabled: the next update of 1 existing object will be denied (spec.template.spec.affinity): Service team-a/pinned"]);
    const both = await ask("with", featuresReview("UPDATE", {}, { "kubernetes.podspec-affinity": "Enabled", "kubernetes.podspec-tolerations": "Allowed" }));
    expect(both).toMatchObject({ allowed: true });
    expect(both.warnings).toEqual([
      "kubernetes.podspec-affinity Enabled → Disabled: the next update of 1 existing object will be denied (spec.template.spec.affinity): Service team-a/pinned",
      "kubernetes.podspec-tolerations Allowed → Disabled: the next update of 1 existing object will be denied (spec.template.spec.tolerations): Configuration team-b/tolerant",
    ]);
  });

  it("compares a CREATE with the configuration in effect", async () => {
    await waitFor(async () => ((await ask("with", AFFINITY_OFF)).warnings !== undefined ? true : undefined));
    const r = await waitFor(async () => {
      const a = await ask("with", featuresReview("CREATE", { "kubernetes.podspec-tolerations": "enabled" }));
      return a.warnings !== undefined ? a : undefined;
    });
    expect(r.warnings).toEqual(["kubernetes.podspec-affinity Enabled → Disabled: the next update of 1 existing object will be denied (spec.template.spec.affinity): Service team-a/pinned"]);
  });

  it("gives no warnings for a change that restricts nothing", async () => {
    const r = await ask("with", featuresReview("UPDATE", { "kubernetes.podspec-affinity": "enabled", "kubernetes.podspec-tolerations": "enabled", "kubernetes.podspec-nodeselector": "enabled" }, { "kubernetes.podspec-affinity": "enabled", "kubernetes.podspec-tolerations": "enabled" }));
    expect(r).toEqual({ uid: "0d7b8e2a-0000-4000-8000-000000000007", allowed: true });
    // Enabled → Allowed keeps a mask flag's fields permitted.
    const allowed = await ask("with", featuresReview("UPDATE", { "kubernetes.podspec-affinity": "allowed", "kubernetes.podspec-tolerations": "enabled" }, { "kubernetes.podspec-affinity": "enabled", "kubernetes.podspec-tolerations": "enabled" }));
    expect(allowed.warnings).toBeUndefined();
  });

  it("follows the watch: a deleted Service disappears from the next answer, a new one appears", async () => {
    api.create(SERVICES, knative("Service", "team-c", "late", AFFINITY));
    await waitFor(async () => ((await ask("with", AFFINITY_OFF)).warnings?.[0]?.includes("team-c/late") === true ? true : undefined));
    api.delete(SERVICES, "pinned", "team-a");
    api.delete(SERVICES, "late", "team-c");
    const r = await waitFor(async () => {
      const a = await ask("with", AFFINITY_OFF);
      return a.warnings === undefined ? a : undefined;
    });
    expect(r.allowed).toBe(true);
  });

  it("without the flag: no warnings and no Service or Configuration requests", async () => {
    const r = await ask("without", AFFINITY_OFF);
    expect(r).toEqual({ uid: "0d7b8e2a-0000-4000-8000-000000000007", allowed: true });
  });
});
