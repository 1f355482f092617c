/**
 * manifests/: every object is a valid Kubernetes object (OpenAPI shapes, required fields, enums), and the install
 * has the properties issue [5] asks for (replicas, probes, security, spreading, the webhook settings and the
 * exclusions that keep the cluster's own machinery out of the fail-closed path).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { knativeWebhookTargets } from "../../src/kube/webhook-config.js";
import { KNATIVE_KINDS } from "../../src/serving/kinds.js";
import { manifestProblems, shapeProblems } from "./k8s-shape.js";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are read as loose JSON

const DIR = join(import.meta.dirname, "..", "..", "manifests");
/** Every object file under manifests/ (kustomizations and the CRDs, checked elsewhere, aside), as paths below it. */
const FILES = (readdirSync(DIR, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".yaml") && !f.endsWith("kustomization.yaml") && !f.startsWith("crds"))
  .sort();

function load(): Array<{ file: string; obj: Obj }> {
  const out: Array<{ file: string; obj: Obj }> = [];
  for (const file of FILES) {
    for (const doc of parseAllDocuments(readFileSync(join(DIR, file), "utf8"))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
      const obj = doc.toJSON() as Obj | null;
      if (obj !== null) out.push({ file, obj });
    }
  }
  return out;
}

const OBJECTS = load();

function find(kind: string, name: string): Obj {
  const hit = OBJECTS.find((o) => o.obj.kind === kind && o.obj.metadata?.name === name);
  if (hit === undefined) throw new Error(`no ${kind} ${name} in manifests/`);
  return hit.obj;
}

const NS = "knative-serving";
const deployment = find("Deployment", "webhook");
const podSpec = deployment.spec.template.spec;
const container = podSpec.containers[0];

describe("the shape checker", () => {
  it.each([
    { what: "an unknown field", obj: { apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { selectr: {} } }, want: "x.spec.selectr: unknown field (not in V1ServiceSpec)" },
    { what: "a wrong type", obj: { apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { ports: [{ port: "443" }] } }, want: "x.spec.ports[0].port: want a number, got string" },
    { what: "a missing required field", obj: { apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { ports: [{ name: "p" }] } }, want: "x.spec.ports[0].port: required (V1ServicePort)" },
    { what: "a bad enum value", obj: { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "p" }, spec: { unhealthyPodEvictionPolicy: "Always" } }, want: 'x.spec.unhealthyPodEvictionPolicy: "Always" is not one of IfHealthyBudget, AlwaysAllow' },
    { what: "a non-integer int32", obj: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 1.5, selector: {}, template: {} } }, want: "x.spec.replicas: want an integer, got 1.5" },
    { what: "an unknown kind", obj: { apiVersion: "example.dev/v1", kind: "Thing", metadata: { name: "t" } }, want: "x: no schema for example.dev/v1 Thing" },
  ])("reports $what", ({ obj, want }) => {
    expect(manifestProblems(obj, "x")).toContain(want);
  });

  it("accepts IntOrString and maps", () => {
    expect(shapeProblems({ port: "https", path: "/" }, "V1HTTPGetAction", "p")).toEqual([]);
    expect(shapeProblems({ a: "b" }, "{ [key: string]: string; }", "m")).toEqual([]);
  });
});

describe("manifests/", () => {
  it("holds the objects of a complete install and of its opt-in components", () => {
    const kinds = OBJECTS.map((o) => `${o.obj.kind}/${o.obj.metadata.name}`).sort();
    expect(kinds).toEqual(
      [
        "ClusterRole/duckbill-webhook",
        "ClusterRole/duckbill-webhook-feature-scopes",
        "ClusterRole/duckbill-webhook-impact-warnings",
        "ClusterRole/duckbill-webhook-podspec-dryrun",
        "ClusterRoleBinding/duckbill-webhook",
        "ClusterRoleBinding/duckbill-webhook-feature-scopes",
        "ClusterRoleBinding/duckbill-webhook-impact-warnings",
        "ClusterRoleBinding/duckbill-webhook-podspec-dryrun",
        "Deployment/webhook",
        "HorizontalPodAutoscaler/webhook",
        "MutatingWebhookConfiguration/webhook.serving.knative.dev",
        "Namespace/knative-serving",
        "PodDisruptionBudget/webhook-pdb",
        "Role/duckbill-webhook",
        "RoleBinding/duckbill-webhook",
        "Secret/webhook-certs",
        "Service/webhook",
        "ServiceAccount/duckbill-webhook",
        "ValidatingWebhookConfiguration/config.webhook.serving.knative.dev",
        "ValidatingWebhookConfiguration/validation.webhook.serving.knative.dev",
      ].sort(),
    );
  });

  it.each(OBJECTS.map((o) => [`${o.file}: ${o.obj.kind} ${o.obj.metadata?.name}`, o.obj] as const))("%s validates against the OpenAPI shapes", (where, obj) => {
    expect(manifestProblems(obj, where)).toEqual([]);
  });

  it("puts every namespaced object in knative-serving", () => {
    const clusterScoped = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]);
    for (const { obj } of OBJECTS) {
      if (clusterScoped.has(obj.kind)) expect(obj.metadata.namespace).toBeUndefined();
      else expect(obj.metadata.namespace).toBe(NS);
    }
  });
});

describe("the Deployment", () => {
  it("runs two replicas that the Service, PDB and HPA all find", () => {
    expect(deployment.spec.replicas).toBe(2);
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual({ app: "webhook", role: "webhook" });
    for (const [k, v] of Object.entries(deployment.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
    for (const [k, v] of Object.entries(find("Service", "webhook").spec.selector)) expect(labels[k]).toBe(v);
    for (const [k, v] of Object.entries(find("PodDisruptionBudget", "webhook-pdb").spec.selector.matchLabels)) expect(labels[k]).toBe(v);
    expect(find("HorizontalPodAutoscaler", "webhook").spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: "webhook" });
  });

  it("probes the HTTPS port as Knative does (spec §1.10)", () => {
    expect(container.readinessProbe).toEqual({ periodSeconds: 1, httpGet: { scheme: "HTTPS", port: 8443 } });
    expect(container.livenessProbe).toEqual({ periodSeconds: 10, failureThreshold: 6, initialDelaySeconds: 20, httpGet: { scheme: "HTTPS", port: 8443 } });
    expect(container.ports).toContainEqual({ name: "https-webhook", containerPort: 8443 });
  });

  it("requests 100m CPU (the HPA's unit, as Knative's) and limits CPU to two, which --workers auto turns into two serving processes", () => {
    expect(container.resources.requests).toEqual({ cpu: "100m", memory: "320Mi" });
    expect(container.resources.limits).toEqual({ cpu: "2", memory: "1Gi" });
    expect(container.env.find((e: { name: string }) => e.name === "DUCKBILL_WORKERS")).toBeUndefined();
  });

  it("runs non-root with a read-only root filesystem, no capabilities and the runtime's seccomp profile", () => {
    expect(podSpec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(podSpec.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    // Whatever the process writes goes to a volume.
    const env = Object.fromEntries(container.env.filter((e: Obj) => "value" in e).map((e: Obj) => [e.name, e.value]));
    const mounts = container.volumeMounts.map((m: Obj) => m.mountPath as string);
    expect(mounts.some((m: string) => env.DUCKBILL_GENERATED_CERT_DIR.startsWith(`${m}/`))).toBe(true);
  });

  it("spreads across nodes", () => {
    const anti = podSpec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
    expect(anti.topologyKey).toBe("kubernetes.io/hostname");
    expect(podSpec.topologySpreadConstraints.map((c: Obj) => c.topologyKey)).toContain("kubernetes.io/hostname");
    for (const c of podSpec.topologySpreadConstraints) expect(c.labelSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
  });

  it("gives the drain more time than it takes", () => {
    const drainSeconds = 45; // DUCKBILL_DRAIN_TIMEOUT's default (spec §1.10)
    expect(container.env.some((e: Obj) => e.name === "DUCKBILL_DRAIN_TIMEOUT")).toBe(false);
    expect(podSpec.terminationGracePeriodSeconds).toBeGreaterThan(drainSeconds);
  });

  it("tells the webhook its namespace, Service name and port", () => {
    const env = new Map(container.env.map((e: Obj) => [e.name, e]));
    expect(env.get("SYSTEM_NAMESPACE")).toEqual({ name: "SYSTEM_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } });
    expect(env.get("WEBHOOK_NAME")).toEqual({ name: "WEBHOOK_NAME", value: "webhook" });
    expect(env.get("WEBHOOK_PORT")).toEqual({ name: "WEBHOOK_PORT", value: "8443" });
    expect(podSpec.serviceAccountName).toBe("duckbill-webhook");
  });
});

describe("the Service, PDB, HPA and Secret", () => {
  it("maps 443 to 8443", () => {
    expect(find("Service", "webhook").spec.ports).toContainEqual({ name: "https-webhook", port: 443, targetPort: 8443 });
  });

  it("lets one pod go at a time and never scales below two", () => {
    expect(find("PodDisruptionBudget", "webhook-pdb").spec.maxUnavailable).toBe(1);
    const hpa = find("HorizontalPodAutoscaler", "webhook").spec;
    expect(hpa.minReplicas).toBe(2);
    expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
  });

  it("installs the certificate Secret empty", () => {
    const secret = find("Secret", "webhook-certs");
    expect(secret.data).toBeUndefined();
    expect(secret.stringData).toBeUndefined();
  });
});

describe("the webhook configurations", () => {
  const targets = knativeWebhookTargets(KNATIVE_KINDS);

  it.each(targets.map((t) => [t.name, t] as const))("%s has Knative's name, path and settings", (_name, t) => {
    const cfg = find(t.kind, t.name);
    expect(cfg.webhooks).toHaveLength(1);
    const [wh] = cfg.webhooks;
    expect(wh.name).toBe(t.name);
    expect(wh.clientConfig.service).toEqual({ name: "webhook", namespace: NS, path: t.path });
    expect(wh).toMatchObject({ failurePolicy: "Fail", sideEffects: "None", timeoutSeconds: 10, admissionReviewVersions: ["v1", "v1beta1"] });
  });

  /** Does a rule match a request for this group/resource (apiserver rule matching, versions and scope aside)? */
  function ruleMatches(rule: Obj, group: string, resource: string): boolean {
    const groupOk = rule.apiGroups.includes("*") || rule.apiGroups.includes(group);
    const resourceOk = (rule.resources as string[]).some((r) => r === "*" || r === "*/*" || r === resource || r === `${resource}/*` || r.split("/")[0] === resource);
    return groupOk && resourceOk;
  }

  const protectedResources = [
    { group: "coordination.k8s.io", resource: "leases" },
    { group: "", resource: "nodes" },
    { group: "certificates.k8s.io", resource: "certificatesigningrequests" },
  ];

  it.each(targets.map((t) => [t.name, t] as const))("%s never sees Leases, Nodes, CertificateSigningRequests or kube-system", (_name, t) => {
    const [wh] = find(t.kind, t.name).webhooks;
    // Both the installed rules and the ones the reconciler writes.
    for (const rules of [wh.rules, t.rules]) {
      for (const p of protectedResources) expect(rules.some((r: Obj) => ruleMatches(r, p.group, p.resource))).toBe(false);
    }
    expect(wh.namespaceSelector.matchExpressions).toContainEqual({ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] });
  });

  it("lets namespaces opt out of the resource webhooks", () => {
    for (const t of targets.filter((x) => x.excludeSelector)) {
      expect(find(t.kind, t.name).webhooks[0].namespaceSelector.matchExpressions).toContainEqual({ key: "webhooks.knative.dev/exclude", operator: "DoesNotExist" });
    }
  });

  it("validates only Knative's ConfigMaps on /config-validation", () => {
    const [wh] = find("ValidatingWebhookConfiguration", "config.webhook.serving.knative.dev").webhooks;
    expect(wh.objectSelector.matchExpressions[0]).toEqual({ key: "app.kubernetes.io/name", operator: "In", values: ["knative-serving"] });
  });
});
