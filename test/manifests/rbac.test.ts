/**
 * The RBAC of each install (manifests/replace-knative, manifests/standalone, each with and without the opt-in
 * components) against what the code does in that install's configuration: the webhook-configuration reconciler
 * (with leader election), the PodSpec dry run, the config store and the release watch run against the in-process
 * API server, and every request they send must be allowed to the webhook's ServiceAccount; conversely every verb
 * granted must be used by some request (least privilege). The certificate controller's requests are listed by hand
 * from src/kube/cert-controller.ts and secret-watch.ts. The impact-warnings watch runs only where the install turns
 * --impact-warnings on (manifests/components/impact-warnings), the namespace watch only where it turns
 * --feature-scopes on (manifests/components/feature-scopes). The authorization checks the
 * OwnerReferencesPermissionEnforcement admission plugin makes of the reconciler's updates count as requests too
 * (ownerReferenceChecks).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { render } from "./kustomize.js";
import { isDeepStrictEqual } from "node:util";
import { pino } from "pino";
import { Registry } from "prom-client";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { createConfigStore } from "../../src/config/store.js";
import { clusterConfigSource } from "../../src/kube/config-source.js";
import { createPodDryRun } from "../../src/kube/dry-run.js";
import { GatedUsageWatch } from "../../src/kube/gated-usage-watch.js";
import { NamespaceWatch } from "../../src/kube/namespace-watch.js";
import { createKubeApi } from "../../src/kube/json-api.js";
import { detectKnativeRelease, KnativeReleaseWatch } from "../../src/kube/knative-release.js";
import { PROFILES } from "../../src/config/profile.js";
import { knativeWebhookTargets, startWebhookConfigReconciliation } from "../../src/kube/webhook-config.js";
import { KNATIVE_KINDS } from "../../src/serving/kinds.js";
import { eventually } from "../config/store-harness.js";
import { BUILTIN_RESOURCES, configMap, CONFIGMAPS, CUSTOM_RESOURCE_DEFINITIONS as CRDS, FakeApiServer, MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS, type KubeObject, type RecordedRequest, type ResourceType } from "../support/fake-apiserver.js";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are read as loose JSON

const NS = "knative-serving";
const MANIFESTS = join(import.meta.dirname, "..", "..", "manifests");
const SA = { kind: "ServiceAccount", name: "duckbill-webhook", namespace: NS };
const PODS: ResourceType = { group: "", version: "v1", plural: "pods", kind: "Pod", namespaced: true };
const KSERVICES: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "services", kind: "Service", namespaced: true };
const KCONFIGURATIONS: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "configurations", kind: "Configuration", namespaced: true };

/** One API request as the RBAC authorizer sees it. */
export interface Attributes {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  /** "" for cluster-scoped requests. */
  readonly namespace: string;
  /** "" for create and for list/watch without a metadata.name field selector. */
  readonly name: string;
}

function attributesOf(r: RecordedRequest): Attributes | undefined {
  const seg = r.path.split("/").filter((s) => s !== "");
  let group: string;
  let rest: string[];
  if (seg[0] === "api") {
    group = "";
    rest = seg.slice(2);
  } else if (seg[0] === "apis") {
    group = seg[1] ?? "";
    rest = seg.slice(3);
  } else {
    return undefined; // /version and other non-resource URLs
  }
  let namespace = "";
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1] ?? "";
    rest = rest.slice(2);
  }
  const [resource = "", pathName = ""] = rest;
  const selected = /(?:^|,)metadata\.name=([^,]*)/.exec(r.query.get("fieldSelector") ?? "")?.[1] ?? "";
  const verb = r.method === "GET" ? (pathName !== "" ? "get" : r.watch ? "watch" : "list") : ({ POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" } as Record<string, string>)[r.method] ?? r.method;
  return { verb, group, resource, namespace, name: pathName !== "" ? pathName : verb === "list" || verb === "watch" ? selected : "" };
}

interface GrantedRule {
  readonly where: string;
  /** undefined: every namespace (ClusterRoleBinding). */
  readonly namespace: string | undefined;
  readonly rule: Obj;
}

/** The rules an install grants the webhook's ServiceAccount. */
function loadRbac(docs: readonly Obj[]): GrantedRule[] {
  const roles = new Map(docs.filter((d) => d.kind === "Role" || d.kind === "ClusterRole").map((d) => [`${d.kind}/${d.metadata.namespace ?? ""}/${d.metadata.name}`, d]));
  const out: GrantedRule[] = [];
  for (const b of docs.filter((d) => d.kind === "RoleBinding" || d.kind === "ClusterRoleBinding")) {
    if (!b.subjects.some((s: Obj) => s.kind === SA.kind && s.name === SA.name && s.namespace === SA.namespace)) continue;
    const roleNs = b.roleRef.kind === "Role" ? b.metadata.namespace : "";
    const role = roles.get(`${b.roleRef.kind}/${roleNs}/${b.roleRef.name}`);
    if (role === undefined) throw new Error(`${b.kind} ${b.metadata.name} refers to a missing ${b.roleRef.kind} ${b.roleRef.name}`);
    role.rules.forEach((rule: Obj, i: number) => out.push({ where: `${role.kind} ${role.metadata.name} rule ${i}`, namespace: b.kind === "RoleBinding" ? b.metadata.namespace : undefined, rule }));
  }
  return out;
}

/** The RBAC authorizer's rule match (no wildcards are used in these manifests, but they are honoured). */
function ruleAllows(g: GrantedRule, a: Attributes, verb = a.verb): boolean {
  if (g.namespace !== undefined && g.namespace !== a.namespace) return false;
  const has = (list: unknown, v: string): boolean => Array.isArray(list) && (list.includes(v) || list.includes("*"));
  if (!has(g.rule.apiGroups, a.group) || !has(g.rule.resources, a.resource) || !has(g.rule.verbs, verb)) return false;
  const names = g.rule.resourceNames as string[] | undefined;
  return names === undefined || names.length === 0 || (a.name !== "" && names.includes(a.name));
}

/** The certificate controller (another module, not run here): read from its source. */
const CERT_CONTROLLER: Attributes[] = [
  { verb: "list", group: "", resource: "secrets", namespace: NS, name: "webhook-certs" },
  { verb: "watch", group: "", resource: "secrets", namespace: NS, name: "webhook-certs" },
  { verb: "get", group: "", resource: "secrets", namespace: NS, name: "webhook-certs" },
  { verb: "update", group: "", resource: "secrets", namespace: NS, name: "webhook-certs" },
  { verb: "get", group: "coordination.k8s.io", resource: "leases", namespace: NS, name: "webhook.webhookcertificates.00-of-01" },
  { verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: NS, name: "" },
  { verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: NS, name: "webhook.webhookcertificates.00-of-01" },
];

/** The resource of each owner kind the reconciler refers to (the RESTMapper's answer, for the kinds used here). */
const OWNER_RESOURCES: Readonly<Record<string, string>> = { Namespace: "namespaces" };

/**
 * The authorization checks the OwnerReferencesPermissionEnforcement admission plugin makes of an update from
 * `before` to `after` (k8s.io/kubernetes plugin/pkg/admission/gc/gc_admission.go, Validate): none while the
 * ownerReferences stay the same; otherwise `delete` on the object itself and, for each reference that newly blocks
 * its owner's deletion (newBlockingOwnerDeletionRefs), `update` on the owner's `finalizers` subresource.
 */
export function ownerReferenceChecks(before: Obj, after: Obj, object: Attributes): Attributes[] {
  const oldRefs = (before.metadata?.ownerReferences ?? []) as Obj[];
  const newRefs = (after.metadata?.ownerReferences ?? []) as Obj[];
  if (isDeepStrictEqual(oldRefs, newRefs)) return [];
  const checks: Attributes[] = [{ ...object, verb: "delete" }];
  for (const ref of newRefs) {
    if (ref.blockOwnerDeletion !== true) continue;
    if (oldRefs.some((old) => old.uid === ref.uid && old.blockOwnerDeletion === true)) continue;
    const resource = OWNER_RESOURCES[ref.kind as string];
    if (resource === undefined) throw new Error(`no resource known for owner kind ${ref.kind}`);
    const apiVersion = ref.apiVersion as string;
    const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
    // gc_admission uses the dependent's namespace: "" for the cluster-scoped configurations.
    checks.push({ verb: "update", group, resource: `${resource}/finalizers`, namespace: object.namespace, name: ref.name as string });
  }
  return checks;
}

describe("OwnerReferencesPermissionEnforcement's checks", () => {
  const config: Attributes = { verb: "update", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", namespace: "", name: "v" };
  const owner = { apiVersion: "v1", kind: "Namespace", name: NS, uid: "u1", controller: true, blockOwnerDeletion: true };
  it("asks for nothing while the owner references stay the same", () => {
    expect(ownerReferenceChecks({ metadata: { ownerReferences: [owner] } }, { metadata: { ownerReferences: [owner] } }, config)).toEqual([]);
    expect(ownerReferenceChecks({ metadata: {} }, { metadata: {} }, config)).toEqual([]);
  });
  it("asks for delete on the object and update on the owner's finalizers for a new blocking reference", () => {
    expect(ownerReferenceChecks({ metadata: {} }, { metadata: { ownerReferences: [owner] } }, config)).toEqual([
      { ...config, verb: "delete" },
      { verb: "update", group: "", resource: "namespaces/finalizers", namespace: "", name: NS },
    ]);
  });
  it("asks only for delete when the reference does not newly block", () => {
    expect(ownerReferenceChecks({ metadata: {} }, { metadata: { ownerReferences: [{ ...owner, blockOwnerDeletion: false }] } }, config)).toEqual([{ ...config, verb: "delete" }]);
    expect(ownerReferenceChecks({ metadata: { ownerReferences: [owner] } }, { metadata: { ownerReferences: [{ ...owner, controller: false }] } }, config)).toEqual([{ ...config, verb: "delete" }]);
  });
});

/** What no install may do. */
const DENIED = [
  { what: "reading another Secret", a: { verb: "get", group: "", resource: "secrets", namespace: NS, name: "other" } },
  { what: "listing every Secret", a: { verb: "list", group: "", resource: "secrets", namespace: NS, name: "" } },
  { what: "creating a webhook configuration", a: { verb: "create", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", namespace: "", name: "" } },
  { what: "updating someone else's webhook configuration", a: { verb: "update", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", namespace: "", name: "istio-sidecar-injector" } },
  { what: "reading another CRD", a: { verb: "get", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", namespace: "", name: "certificates.networking.internal.knative.dev" } },
  { what: "listing every CRD", a: { verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", namespace: "", name: "" } },
  { what: "deleting someone else's webhook configuration", a: { verb: "delete", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", namespace: "", name: "istio-validator" } },
  { what: "blocking the deletion of another namespace", a: { verb: "update", group: "", resource: "namespaces/finalizers", namespace: "", name: "default" } },
  { what: "deleting its own namespace", a: { verb: "delete", group: "", resource: "namespaces", namespace: "", name: NS } },
  { what: "deleting pods", a: { verb: "delete", group: "", resource: "pods", namespace: "team-a", name: "p" } },
  { what: "reading ConfigMaps elsewhere", a: { verb: "list", group: "", resource: "configmaps", namespace: "team-a", name: "" } },
  { what: "renewing a foreign Lease", a: { verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: NS, name: "controller.knative.dev.serving.pkg.reconciler.route.reconciler.00-of-01" } },
];

/** Each install, and whether it runs with --impact-warnings and --feature-scopes. */
const INSTALLS = [
  { name: "replace-knative", components: [] },
  { name: "standalone", components: [] },
  { name: "replace-knative", components: ["impact-warnings"] },
  { name: "standalone", components: ["impact-warnings"] },
  { name: "replace-knative", components: ["feature-scopes"] },
  { name: "standalone", components: ["impact-warnings", "feature-scopes"] },
].map((i) => {
  const docs = render(i.name, i.components);
  const env = (docs.find((d) => d.kind === "Deployment")?.spec.template.spec.containers[0].env ?? []) as Obj[];
  const on = (name: string): boolean => env.some((e) => e.name === name && e.value === "true");
  return { ...i, label: [i.name, ...i.components].join(" + "), docs, impactWarnings: on("DUCKBILL_IMPACT_WARNINGS"), featureScopes: on("DUCKBILL_FEATURE_SCOPES") };
});

describe("RBAC of each install", () => {
  let recorded: Attributes[] = [];
  /** What only --impact-warnings sends. */
  let impactRecorded: Attributes[] = [];
  /** What only --feature-scopes sends. */
  let scopesRecorded: Attributes[] = [];
  const ownerChecks: Attributes[] = [];

  beforeAll(async () => {
    const fake = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, CRDS, PODS, KSERVICES, KCONFIGURATIONS] });
    try {
      fake.create(NAMESPACES, { metadata: { name: NS } });
      fake.create(SECRETS, { metadata: { name: "webhook-certs", namespace: NS }, data: { "ca-cert.pem": "Y2E=" } });
      const installed = parseAllDocuments(readFileSync(join(MANIFESTS, "standalone", "700-webhooks.yaml"), "utf8")).map((doc) => doc.toJSON() as KubeObject);
      const typeOf = (obj: KubeObject): ResourceType => (obj.kind === "MutatingWebhookConfiguration" ? MUTATING_WEBHOOK_CONFIGURATIONS : VALIDATING_WEBHOOK_CONFIGURATIONS);
      for (const obj of installed) fake.create(typeOf(obj), obj);
      fake.create(CONFIGMAPS, configMap(NS, "config-features", {}));
      const logger = pino({ level: "silent" });
      const targets = knativeWebhookTargets(KNATIVE_KINDS);

      // The reconciler with leader election; a second pass after a CA change exercises update again.
      const running = await startWebhookConfigReconciliation({ kubeConfig: fake.kubeConfig(), namespace: NS, targets, identity: "pod-a", leaseDurationMs: 600, renewDeadlineMs: 400, retryPeriodMs: 50, logger });
      await eventually(() => fake.count({ method: "PUT", plural: "validatingwebhookconfigurations" }) >= 2 && fake.count({ method: "PUT", plural: "mutatingwebhookconfigurations" }) >= 1, "reconciled");
      await eventually(() => fake.count({ method: "PUT", plural: "leases" }) >= 1, "a lease renewal");
      await running.close();
      // What the updates changed from the configurations as installed, as the owner-reference admission plugin sees it.
      for (const obj of installed) {
        const name = (obj.metadata as Obj).name as string;
        const stored = fake.get(typeOf(obj), name);
        if (stored === undefined) throw new Error(`${name} is gone`);
        ownerChecks.push(...ownerReferenceChecks(obj, stored, { verb: "update", group: "admissionregistration.k8s.io", resource: typeOf(obj).plural, namespace: "", name }));
      }

      // The PodSpec dry run, in a user's namespace.
      const api = createKubeApi(fake.kubeConfig());
      expect(await createPodDryRun({ api })({ apiVersion: "v1", kind: "Pod", metadata: { generateName: "dry-run-validation", namespace: "team-a" }, spec: { containers: [{ name: "c", image: "i" }] } }, "team-a")).toEqual({ ok: true });
      api.close();

      // The config store in cluster mode.
      const store = createConfigStore({ mode: "cluster", namespace: NS, cluster: clusterConfigSource({ kubeConfig: fake.kubeConfig() }), logger, registry: new Registry() });
      await store.start();
      await eventually(() => fake.count({ plural: "configmaps", watch: true }) >= 1, "the ConfigMap watch");
      await store.close();

      // The impact-warnings usage index (--impact-warnings): Services and Configurations in every namespace.
      const beforeUsage = fake.requests.length;
      const usage = new GatedUsageWatch({ kubeConfig: fake.kubeConfig(), logger });
      usage.start();
      await eventually(() => fake.count({ plural: "services", watch: true }) >= 1 && fake.count({ plural: "configurations", watch: true }) >= 1, "the usage watches");
      await usage.close();
      impactRecorded = fake.requests.slice(beforeUsage).map(attributesOf).filter((a): a is Attributes => a !== undefined);
      const usageRequests = new Set(fake.requests.slice(beforeUsage));

      // The feature scopes' namespace index (--feature-scopes): list and watch Namespaces, get one not seen yet.
      const beforeScopes = fake.requests.length;
      const namespaces = new NamespaceWatch({ kubeConfig: fake.kubeConfig(), logger });
      namespaces.start();
      await eventually(() => fake.requests.slice(beforeScopes).some((r) => r.watch && r.path === "/api/v1/namespaces"), "the namespace watch");
      fake.create(NAMESPACES, { metadata: { name: "team-new", labels: { tenant: "a" } } });
      await namespaces.view.fetch?.("team-new");
      await namespaces.close();
      scopesRecorded = fake.requests.slice(beforeScopes).map(attributesOf).filter((a): a is Attributes => a !== undefined);
      for (const r of fake.requests.slice(beforeScopes)) usageRequests.add(r);

      // --knative-version auto: the release from the Service CRD's label, then followed.
      fake.create(CRDS, { metadata: { name: "services.serving.knative.dev", labels: { "app.kubernetes.io/version": "1.24.0" } } });
      const releaseApi = createKubeApi(fake.kubeConfig());
      expect((await detectKnativeRelease(releaseApi, NS)).source).toBe("crd");
      const releaseWatch = new KnativeReleaseWatch({ kubeConfig: fake.kubeConfig(), api: releaseApi, initial: PROFILES["1.24"], onProfile: () => undefined, logger, watchdogMs: 60_000 });
      releaseWatch.start();
      await eventually(() => fake.count({ plural: "customresourcedefinitions", watch: true }) >= 1, "the release label watch");
      await releaseWatch.close();
      releaseApi.close();

      recorded = fake.requests.filter((r) => !usageRequests.has(r)).map(attributesOf).filter((a): a is Attributes => a !== undefined);
    } finally {
      await fake.close();
    }
  });
  it("the impact-warnings component turns --impact-warnings on, the feature-scopes component --feature-scopes, and only they", () => {
    expect(INSTALLS.map((i) => [i.label, i.impactWarnings, i.featureScopes])).toEqual([
      ["replace-knative", false, false],
      ["standalone", false, false],
      ["replace-knative + impact-warnings", true, false],
      ["standalone + impact-warnings", true, false],
      ["replace-knative + feature-scopes", false, true],
      ["standalone + impact-warnings + feature-scopes", true, true],
    ]);
  });

  describe.each(INSTALLS)("$label", ({ docs, impactWarnings, featureScopes }) => {
    const granted = loadRbac(docs);
    const uses = (): Attributes[] => [...recorded, ...(impactWarnings ? impactRecorded : []), ...(featureScopes ? scopesRecorded : []), ...CERT_CONTROLLER, ...ownerChecks];

    it("binds the ServiceAccount the Deployment runs as", () => {
      const deployment = docs.find((d) => d.kind === "Deployment");
      expect(deployment?.spec.template.spec.serviceAccountName).toBe(SA.name);
      expect(granted.length).toBeGreaterThan(0);
    });

    it("allows every request the code sends in this install's configuration", () => {
      const denied = uses().filter((a) => !granted.some((g) => ruleAllows(g, a)));
      expect(denied).toEqual([]);
      // What ran really covered each component.
      const seen = new Set(uses().map((a) => `${a.verb} ${a.resource}`));
      for (const want of ["get secrets", "watch secrets", "get mutatingwebhookconfigurations", "update validatingwebhookconfigurations", "watch validatingwebhookconfigurations", "get namespaces", "create pods", "list configmaps", "watch configmaps", "create leases", "update leases", "get customresourcedefinitions", "list customresourcedefinitions", "watch customresourcedefinitions"]) {
        expect(seen).toContain(want);
      }
      for (const want of ["list services", "watch services", "list configurations", "watch configurations"]) expect(seen.has(want)).toBe(impactWarnings);
      for (const want of ["list namespaces", "watch namespaces"]) expect(seen.has(want)).toBe(featureScopes);
      // The reconciler made the Namespace the owner of all three configurations, which the plugin checks.
      expect(ownerChecks.map((a) => `${a.verb} ${a.resource} ${a.name}`).sort()).toEqual(
        [
          "delete mutatingwebhookconfigurations webhook.serving.knative.dev",
          "delete validatingwebhookconfigurations config.webhook.serving.knative.dev",
          "delete validatingwebhookconfigurations validation.webhook.serving.knative.dev",
          `update namespaces/finalizers ${NS}`,
          `update namespaces/finalizers ${NS}`,
          `update namespaces/finalizers ${NS}`,
        ].sort(),
      );
    });

    it("grants no verb that nothing uses in this install's configuration", () => {
      const unused: string[] = [];
      for (const g of granted) {
        for (const verb of g.rule.verbs as string[]) {
          if (!uses().some((a) => a.verb === verb && ruleAllows(g, a))) unused.push(`${g.where}: ${verb} ${(g.rule.resources as string[]).join(",")}`);
        }
        for (const name of (g.rule.resourceNames as string[] | undefined) ?? []) {
          // Lease names of the certificate controller come from the hand list; the others must have been used.
          if (!uses().some((a) => a.name === name && ruleAllows(g, a))) unused.push(`${g.where}: resourceName ${name}`);
        }
      }
      expect(unused).toEqual([]);
    });

    it.each(DENIED)("denies $what", ({ a }) => {
      expect(granted.some((g) => ruleAllows(g, a))).toBe(false);
    });

    it(`${impactWarnings ? "allows" : "denies"} listing and watching Services and Configurations in every namespace, which only --impact-warnings needs`, () => {
      expect(impactRecorded.length).toBeGreaterThan(0);
      for (const a of impactRecorded) expect(granted.some((g) => ruleAllows(g, a))).toBe(impactWarnings);
    });

    it(`${featureScopes ? "allows" : "denies"} reading Namespaces other than knative-serving, which only --feature-scopes needs`, () => {
      expect(scopesRecorded.length).toBeGreaterThan(0);
      for (const a of scopesRecorded) expect(granted.some((g) => ruleAllows(g, a))).toBe(featureScopes);
    });
  });
});
