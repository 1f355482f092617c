/**
 * Webhook configuration reconciliation (src/kube/webhook-config.ts, spec §1.8) against the in-process API server
 * (real HTTP), starting from the configurations as manifests/standalone/700-webhooks.yaml installs them.
 */
import { parseWebhookUrl } from "../../src/kube/webhook-url.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { PROFILES } from "../../src/config/profile.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createKubeApi, type KubeApi } from "../../src/kube/json-api.js";
import {
  ensureExcludeSelector,
  knativeWebhookTargets,
  startWebhookConfigReconciliation,
  WebhookConfigController,
  type RunningWebhookConfigReconciliation,
  type WebhookConfigControllerOptions,
  type WebhookConfigTarget,
} from "../../src/kube/webhook-config.js";
import { KNATIVE_KINDS } from "../../src/serving/kinds.js";
import { eventually } from "../config/store-harness.js";
import { FakeApiServer, LEASES, MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS, type KubeObject, type ResourceType } from "../support/fake-apiserver.js";

/** Millisecond leases and live TLS under a shared 2-core CI machine: a run starved of CPU may retry (not a logic check). */
const TIMING_SENSITIVE = { retry: 2 } as const;

const NS = "knative-serving";
const MANIFEST = join(import.meta.dirname, "..", "..", "manifests", "standalone", "700-webhooks.yaml");
const CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n").toString("base64");
const NEW_CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIBrotated\n-----END CERTIFICATE-----\n").toString("base64");

const TARGETS = knativeWebhookTargets(KNATIVE_KINDS);
const [MUTATING, VALIDATION, CONFIG] = TARGETS as [WebhookConfigTarget, WebhookConfigTarget, WebhookConfigTarget];

function typeOf(kind: string): ResourceType {
  return kind === "MutatingWebhookConfiguration" ? MUTATING_WEBHOOK_CONFIGURATIONS : VALIDATING_WEBHOOK_CONFIGURATIONS;
}

function typeOfTarget(t: WebhookConfigTarget): ResourceType {
  return typeOf(t.kind);
}

/** The three configurations exactly as the manifest has them. */
function manifestConfigurations(): KubeObject[] {
  return parseAllDocuments(readFileSync(MANIFEST, "utf8")).map((d) => d.toJSON() as KubeObject);
}

/** Knative's rules for the registry's kinds, in Knative's order (spec §1.8), as the API server stores them. */
function resourceRules(operations: string[]): unknown[] {
  const rule = (group: string, version: string, plural: string) => ({ operations, apiGroups: [group], apiVersions: [version], resources: [plural, `${plural}/status`], scope: "*" });
  return [
    rule("autoscaling.internal.knative.dev", "v1alpha1", "metrics"),
    rule("autoscaling.internal.knative.dev", "v1alpha1", "podautoscalers"),
    rule("networking.internal.knative.dev", "v1alpha1", "certificates"),
    rule("networking.internal.knative.dev", "v1alpha1", "ingresses"),
    rule("networking.internal.knative.dev", "v1alpha1", "serverlessservices"),
    rule("serving.knative.dev", "v1", "configurations"),
    rule("serving.knative.dev", "v1", "revisions"),
    rule("serving.knative.dev", "v1", "routes"),
    rule("serving.knative.dev", "v1", "services"),
    rule("serving.knative.dev", "v1beta1", "domainmappings"),
  ];
}

const RESOURCE_SELECTOR = {
  matchExpressions: [
    { key: "webhooks.knative.dev/exclude", operator: "DoesNotExist" },
    { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
  ],
};

const COMMON = { admissionReviewVersions: ["v1", "v1beta1"], failurePolicy: "Fail", sideEffects: "None", timeoutSeconds: 10 };

function expectedEntries(caBundle: string): Record<string, unknown> {
  return {
    [MUTATING.name]: {
      ...COMMON,
      name: MUTATING.name,
      clientConfig: { service: { name: "webhook", namespace: NS, path: "/defaulting" }, caBundle },
      reinvocationPolicy: "IfNeeded",
      namespaceSelector: RESOURCE_SELECTOR,
      rules: resourceRules(["CREATE", "UPDATE"]),
    },
    [VALIDATION.name]: {
      ...COMMON,
      name: VALIDATION.name,
      clientConfig: { service: { name: "webhook", namespace: NS, path: "/resource-validation" }, caBundle },
      namespaceSelector: RESOURCE_SELECTOR,
      rules: resourceRules(["CREATE", "UPDATE", "DELETE"]),
    },
    [CONFIG.name]: {
      ...COMMON,
      name: CONFIG.name,
      clientConfig: { service: { name: "webhook", namespace: NS, path: "/config-validation" }, caBundle },
      namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }] },
      objectSelector: {
        matchExpressions: [
          { key: "app.kubernetes.io/name", operator: "In", values: ["knative-serving"] },
          { key: "app.kubernetes.io/component", operator: "In", values: ["autoscaler", "controller", "logging", "networking", "observability", "tracing", "net-certmanager"] },
        ],
      },
      rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps/*"], scope: "Namespaced" }],
    },
  };
}

describe("WebhookConfigController.reconcile", () => {
  let fake: FakeApiServer;
  let api: KubeApi;
  let nsUid: string;

  function controller(opts: Partial<WebhookConfigControllerOptions> = {}): WebhookConfigController {
    return new WebhookConfigController({ api, namespace: NS, targets: TARGETS, logger: pino({ level: "silent" }), ...opts });
  }

  function stored(t: WebhookConfigTarget): KubeObject {
    const obj = fake.get(typeOfTarget(t), t.name);
    if (obj === undefined) throw new Error(`${t.name} is missing`);
    return obj;
  }

  function puts(): number {
    return fake.count({ method: "PUT" });
  }

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    api = createKubeApi(fake.kubeConfig());
    nsUid = fake.create(NAMESPACES, { metadata: { name: NS } }).metadata.uid ?? "";
    fake.create(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": CA, "server-cert.pem": "eA==", "server-key.pem": "eA==" } });
    for (const obj of manifestConfigurations()) fake.create(typeOf(obj.kind ?? ""), obj);
  });
  afterEach(async () => {
    api.close();
    await fake.close();
  });

  it("writes exactly the expected configurations", async () => {
    const c = controller();
    for (const t of TARGETS) expect(await c.reconcile(t)).toBe("updated");
    expect(puts()).toBe(3);
    const wanted = expectedEntries(CA);
    for (const t of TARGETS) {
      const obj = stored(t);
      expect(obj.webhooks).toEqual([wanted[t.name]]);
      expect(obj.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Namespace", name: NS, uid: nsUid, controller: true, blockOwnerDeletion: true }]);
      expect(obj.metadata.labels).toEqual({ "app.kubernetes.io/component": "webhook", "app.kubernetes.io/name": "knative-serving" });
    }
  });

  it("writes the owner reference with controller: false when answering as Knative 1.23 or later, and follows a change of release", async () => {
    let profile = PROFILES["1.24"];
    const c = controller({ ownerController: () => profile.namespaceOwnerController });
    for (const t of TARGETS) expect(await c.reconcile(t)).toBe("updated");
    for (const t of TARGETS) expect(stored(t).metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Namespace", name: NS, uid: nsUid, controller: false, blockOwnerDeletion: true }]);
    profile = PROFILES["1.17"];
    for (const t of TARGETS) expect(await c.reconcile(t)).toBe("updated");
    for (const t of TARGETS) expect(stored(t).metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Namespace", name: NS, uid: nsUid, controller: true, blockOwnerDeletion: true }]);
  });

  it("is a no-op the second time", async () => {
    const c = controller();
    for (const t of TARGETS) await c.reconcile(t);
    const versions = TARGETS.map((t) => stored(t).metadata.resourceVersion);
    const before = puts();
    for (const t of TARGETS) expect(await c.reconcile(t)).toBe("unchanged");
    expect(puts()).toBe(before);
    expect(TARGETS.map((t) => stored(t).metadata.resourceVersion)).toEqual(versions);
  });

  it("touches only the entries named like the configuration", async () => {
    const obj = stored(MUTATING);
    const foreign = { name: "other.example.dev", admissionReviewVersions: ["v1"], sideEffects: "None", clientConfig: { url: "https://other.example.dev/mutate" }, rules: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], scope: "*" }] };
    obj.webhooks = [...(obj.webhooks as unknown[]), foreign];
    fake.replace(MUTATING_WEBHOOK_CONFIGURATIONS, obj);
    await controller().reconcile(MUTATING);
    const [ours, theirs] = stored(MUTATING).webhooks as unknown[];
    expect(ours).toEqual(expectedEntries(CA)[MUTATING.name]);
    expect(theirs).toEqual(foreign);
  });

  it("leaves ownerReferences alone when namespace ownership is disabled", async () => {
    const obj = stored(VALIDATION);
    const owner = { apiVersion: "v1", kind: "ConfigMap", name: "keeper", uid: "u-1" };
    obj.metadata.ownerReferences = [owner];
    fake.replace(VALIDATING_WEBHOOK_CONFIGURATIONS, obj);
    await controller({ namespaceOwnership: false }).reconcile(VALIDATION);
    expect(stored(VALIDATION).metadata.ownerReferences).toEqual([owner]);
    expect(fake.requests.some((r) => r.path === `/api/v1/namespaces/${NS}`)).toBe(false);
  });

  it("writes clientConfig.url instead of the service with --webhook-url, and keeps it", async () => {
    const c = controller({ webhookUrl: parseWebhookUrl("https://dev.example:8443") });
    for (const t of TARGETS) await c.reconcile(t);
    for (const t of TARGETS) expect((stored(t).webhooks as Array<{ clientConfig: unknown }>)[0]?.clientConfig).toEqual({ url: `https://dev.example:8443${t.path}`, caBundle: CA });
    for (const t of TARGETS) expect(await c.reconcile(t)).toBe("unchanged");
    // Back to the in-cluster Service, it needs the service reference the url replaced.
    await expect(controller().reconcile(MUTATING)).rejects.toThrow(`missing service reference for webhook: ${MUTATING.name}`);
  });

  it("picks up a new CA", async () => {
    const c = controller();
    for (const t of TARGETS) await c.reconcile(t);
    fake.apply(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": NEW_CA } });
    for (const t of TARGETS) expect(await c.reconcile(t)).toBe("updated");
    for (const t of TARGETS) expect((stored(t).webhooks as Array<{ clientConfig: { caBundle: string } }>)[0]?.clientConfig.caBundle).toBe(NEW_CA);
  });

  it.each([
    { what: "the Secret is missing", setup: (f: FakeApiServer) => f.delete(SECRETS, "webhook-certs", NS), error: 'secrets "webhook-certs" not found' },
    {
      what: "the Secret has no CA",
      setup: (f: FakeApiServer) => f.apply(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: {} }),
      error: 'secret "webhook-certs" is missing "ca-cert.pem" key',
    },
    {
      what: "the configuration is not installed",
      setup: (f: FakeApiServer) => f.delete(MUTATING_WEBHOOK_CONFIGURATIONS, MUTATING.name),
      error: `error retrieving webhook: mutatingwebhookconfigurations.admissionregistration.k8s.io "${MUTATING.name}" not found`,
    },
    { what: "the namespace cannot be read", setup: (f: FakeApiServer) => f.delete(NAMESPACES, NS), error: `failed to fetch namespace: namespaces "${NS}" not found` },
    {
      what: "our entry has no service reference",
      setup: (f: FakeApiServer) => {
        const obj = f.get(MUTATING_WEBHOOK_CONFIGURATIONS, MUTATING.name) as KubeObject;
        (obj.webhooks as Array<Record<string, unknown>>)[0]!.clientConfig = {};
        f.replace(MUTATING_WEBHOOK_CONFIGURATIONS, obj);
      },
      error: `missing service reference for webhook: ${MUTATING.name}`,
    },
  ])("fails with Knative's message when $what", async ({ setup, error }) => {
    setup(fake);
    const before = puts();
    await expect(controller().reconcile(MUTATING)).rejects.toThrow(error);
    expect(puts()).toBe(before);
  });

  it("names the update failure", async () => {
    fake.failNext(1, 409, { method: "PUT" });
    await expect(controller().reconcile(CONFIG)).rejects.toThrow("failed to update webhook: injected failure (409)");
  });

  it("does nothing when not the leader", async () => {
    const seen = fake.requests.length;
    expect(await controller({ isLeader: (t) => t.name !== CONFIG.name }).reconcile(CONFIG)).toBe("not-leader");
    expect(fake.requests.length).toBe(seen);
  });
});

describe("WebhookConfigController.start", TIMING_SENSITIVE, () => {
  let fake: FakeApiServer;
  let api: KubeApi;
  let c: WebhookConfigController | undefined;

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    api = createKubeApi(fake.kubeConfig());
    fake.create(NAMESPACES, { metadata: { name: NS } });
    fake.create(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": CA } });
    for (const obj of manifestConfigurations()) fake.create(typeOf(obj.kind ?? ""), obj);
  });
  afterEach(async () => {
    await c?.close();
    c = undefined;
    api.close();
    await fake.close();
  });

  const caBundleOf = (t: WebhookConfigTarget): unknown => (fake.get(typeOfTarget(t), t.name)?.webhooks as Array<{ clientConfig: { caBundle?: string } }> | undefined)?.[0]?.clientConfig.caBundle;

  it("reconciles at once, repairs edits and follows CA rotation through its watches", async () => {
    c = new WebhookConfigController({ api, namespace: NS, targets: TARGETS, logger: pino({ level: "silent" }), retry: { initialMs: 20, maxMs: 200 } });
    c.start();
    await eventually(() => TARGETS.every((t) => caBundleOf(t) === CA), "the first reconcile");
    expect(fake.openWatches(MUTATING_WEBHOOK_CONFIGURATIONS)).toBe(1);
    expect(fake.openWatches(VALIDATING_WEBHOOK_CONFIGURATIONS)).toBe(2);
    expect(fake.openWatches(SECRETS)).toBe(1);

    // Someone re-applies the static manifest: the rules and caBundle are back to the install's.
    const [mutating] = manifestConfigurations();
    fake.apply(MUTATING_WEBHOOK_CONFIGURATIONS, mutating as KubeObject);
    await eventually(() => caBundleOf(MUTATING) === CA, "the repair");
    expect((fake.get(MUTATING_WEBHOOK_CONFIGURATIONS, MUTATING.name)?.webhooks as Array<{ rules: unknown }>)[0]?.rules).toEqual(resourceRules(["CREATE", "UPDATE"]));

    fake.apply(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": NEW_CA } });
    await eventually(() => TARGETS.every((t) => caBundleOf(t) === NEW_CA), "the new CA in every configuration");
  });

  it("retries until the configuration is installed", async () => {
    fake.delete(VALIDATING_WEBHOOK_CONFIGURATIONS, CONFIG.name);
    c = new WebhookConfigController({ api, namespace: NS, targets: TARGETS, logger: pino({ level: "silent" }), retry: { initialMs: 20, maxMs: 100 } });
    c.start();
    await eventually(() => c?.status().find((s) => s.name === CONFIG.name)?.lastError?.startsWith("error retrieving webhook:"), "the error");
    const config = manifestConfigurations()[2] as KubeObject;
    fake.create(VALIDATING_WEBHOOK_CONFIGURATIONS, config);
    await eventually(() => caBundleOf(CONFIG) === CA, "the late configuration reconciled");
    // The controller wrote the late configuration, and its status no longer carries the error. The outcome may read
    // "unchanged" by then: the controller's own update comes back through its watch and is reconciled again.
    expect(fake.requests.some((r) => r.method === "PUT" && r.path.endsWith(`/validatingwebhookconfigurations/${CONFIG.name}`))).toBe(true);
    await eventually(() => c?.status().find((s) => s.name === CONFIG.name)?.lastError === undefined, "the error cleared").catch((e: unknown) => { throw new Error(`${String(e)} ${JSON.stringify(c?.status())}`); });
    expect(["updated", "unchanged"]).toContain(c.status().find((s) => s.name === CONFIG.name)?.lastOutcome);
  });

  it("rewatches after the server ends the streams", async () => {
    c = new WebhookConfigController({ api, namespace: NS, targets: TARGETS, logger: pino({ level: "silent" }), retry: { initialMs: 20, maxMs: 100 } });
    c.start();
    await eventually(() => TARGETS.every((t) => caBundleOf(t) === CA), "the first reconcile");
    fake.dropWatches({ abrupt: true });
    await eventually(() => fake.openWatches() === 4 || undefined, "four watches again");
    fake.apply(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": NEW_CA } });
    await eventually(() => TARGETS.every((t) => caBundleOf(t) === NEW_CA), "the new CA after the reconnect");
  });
});

describe("startWebhookConfigReconciliation", TIMING_SENSITIVE, () => {
  let fake: FakeApiServer;
  const running: RunningWebhookConfigReconciliation[] = [];

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    fake.create(NAMESPACES, { metadata: { name: NS } });
    fake.create(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": CA } });
    for (const obj of manifestConfigurations()) fake.create(typeOf(obj.kind ?? ""), obj);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.close()));
    await fake.close();
  });

  it("reconciles under Knative's Lease names, one holder per configuration", async () => {
    // Leases longer than a pause (test/support/timing.ts): one expiring under its holder would hand a configuration over.
    const timing = { leaseDurationMs: 4000, renewDeadlineMs: 2500, retryPeriodMs: 200 };
    for (const identity of ["pod-a", "pod-b"]) {
      running.push(await startWebhookConfigReconciliation({ kubeConfig: fake.kubeConfig(), namespace: NS, targets: TARGETS, identity, ...timing, logger: pino({ level: "silent" }) }));
    }
    await eventually(() => TARGETS.every((t) => (fake.get(typeOfTarget(t), t.name)?.webhooks as Array<{ clientConfig: { caBundle?: string } }>)[0]?.clientConfig.caBundle === CA), "every configuration reconciled");
    const leases = fake.list(LEASES, NS).map((l) => [l.metadata.name, (l.spec as { holderIdentity?: string }).holderIdentity]);
    expect(leases.map(([name]) => name).sort()).toEqual(["webhook.configmapwebhook.00-of-01", "webhook.defaultingwebhook.00-of-01", "webhook.validationwebhook.00-of-01"]);
    for (const [, holder] of leases) expect(["pod-a", "pod-b"]).toContain(holder);
    // The followers wrote nothing: each configuration was updated once.
    expect(fake.count({ method: "PUT", plural: "mutatingwebhookconfigurations" })).toBe(1);
    expect(fake.count({ method: "PUT", plural: "validatingwebhookconfigurations" })).toBe(2);
  });
});

describe("ensureExcludeSelector (knative/pkg EnsureLabelSelectorExpressions)", () => {
  const exclude = { key: "webhooks.knative.dev/exclude", operator: "DoesNotExist" };
  const other = { key: "team", operator: "In", values: ["a"] };
  it.each([
    { what: "no selector", current: undefined, want: { matchExpressions: [exclude] } },
    { what: "an empty selector", current: {}, want: { matchExpressions: [exclude] } },
    { what: "labels only", current: { matchLabels: { env: "prod" } }, want: { matchLabels: { env: "prod" }, matchExpressions: [exclude] } },
    {
      what: "Knative's and others' expressions",
      current: { matchExpressions: [other, { key: "old.knative.dev/x", operator: "Exists" }, exclude] },
      want: { matchExpressions: [exclude, other] },
    },
  ])("with $what", ({ current, want }) => {
    expect(ensureExcludeSelector(current)).toEqual(want);
  });
});

describe("settings", () => {
  it.each([
    { value: "https://dev.example:8443", want: "https://dev.example:8443" },
    { value: "https://dev.example:8443/", want: "https://dev.example:8443" },
    { value: "https://[::1]:8443", want: "https://[::1]:8443" },
    { value: "http://dev.example:8443", error: "--webhook-url must use https" },
    { value: "https://dev.example:8443/hooks", error: "--webhook-url is the scheme, host and port only" },
    { value: "dev.example:8443", error: "--webhook-url must use https" },
    { value: "not a url", error: "--webhook-url must be a URL" },
  ])("--webhook-url $value", ({ value, want, error }) => {
    if (error !== undefined) expect(() => parseWebhookUrl(value)).toThrow(error);
    else expect(parseWebhookUrl(value)).toBe(want);
  });

});
