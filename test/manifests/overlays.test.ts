/**
 * The two installs as `kubectl apply -k` sees them (manifests/standalone, manifests/replace-knative) and the
 * replacement's uninstall set (manifests/base/rbac): what each contains, what it must not contain, and that
 * kustomize passes the objects through unchanged. Deleting an overlay deletes exactly what it renders, so "cannot
 * remove knative-serving" is a property of the rendered list.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { key, MANIFESTS, render, type Obj } from "./kustomize.js";

const NS = "knative-serving";

/** What a Knative Serving install has that a replacement must leave alone (config/core of knative/serving). */
const KNATIVE_KEEPS = [
  `Namespace/${NS}`,
  `Service/${NS}/webhook`,
  `Secret/${NS}/webhook-certs`,
  "MutatingWebhookConfiguration/webhook.serving.knative.dev",
  "ValidatingWebhookConfiguration/validation.webhook.serving.knative.dev",
  "ValidatingWebhookConfiguration/config.webhook.serving.knative.dev",
];
/** Knative's objects a replacement takes the place of (same names), restored from Knative's release on uninstall. */
const KNATIVE_REPLACED = [`Deployment/${NS}/webhook`, `PodDisruptionBudget/${NS}/webhook-pdb`, `HorizontalPodAutoscaler/${NS}/webhook`];
/** Duckbill's own objects: its identity and RBAC, named duckbill-webhook*. */
const DUCKBILL_OWN = [
  `ServiceAccount/${NS}/duckbill-webhook`,
  `Role/${NS}/duckbill-webhook`,
  `RoleBinding/${NS}/duckbill-webhook`,
  "ClusterRole/duckbill-webhook",
  "ClusterRoleBinding/duckbill-webhook",
  "ClusterRole/duckbill-webhook-podspec-dryrun",
  "ClusterRoleBinding/duckbill-webhook-podspec-dryrun",
];

const standalone = render("standalone");
const replace = render("replace-knative");
const replaceUninstall = render("base/rbac");

/** The objects of every file a kustomization below `dir` lists, read directly. */
function filesBelow(dir: string): Obj[] {
  const files = (readdirSync(join(MANIFESTS, dir), { recursive: true }) as string[]).filter((f) => f.endsWith(".yaml") && !f.endsWith("kustomization.yaml"));
  return files.flatMap((f) => parseAllDocuments(readFileSync(join(MANIFESTS, dir, f), "utf8")).map((d) => d.toJSON() as Obj));
}

describe("manifests/standalone", () => {
  it("holds the whole install: Knative's names, Duckbill's identity and the Namespace", () => {
    expect(standalone.map(key).sort()).toEqual([...KNATIVE_KEEPS, ...KNATIVE_REPLACED, ...DUCKBILL_OWN].sort());
  });

  it("applies the Namespace first and the fail-closed webhook configurations last", () => {
    expect(key(standalone[0]!)).toBe(`Namespace/${NS}`);
    const kinds = standalone.map((o) => o.kind as string);
    const firstConfiguration = kinds.findIndex((k) => k.endsWith("WebhookConfiguration"));
    expect(kinds.slice(firstConfiguration).every((k) => k.endsWith("WebhookConfiguration"))).toBe(true);
    expect(kinds.slice(firstConfiguration)).toHaveLength(3);
  });

  it("renders every file unchanged (kustomize adds no labels, names or namespaces)", () => {
    const byKey = new Map(standalone.map((o) => [key(o), o]));
    const files = [...filesBelow("standalone"), ...filesBelow("base")];
    expect(files).toHaveLength(standalone.length);
    for (const o of files) expect(byKey.get(key(o)), key(o)).toEqual(o);
  });
});

describe("manifests/replace-knative", () => {
  it("holds Duckbill's identity and the workload under Knative's names, nothing else", () => {
    expect(replace.map(key).sort()).toEqual([...KNATIVE_REPLACED, ...DUCKBILL_OWN].sort());
  });

  it("holds none of what Knative keeps: deleting it cannot remove the Namespace, Service, Secret or configurations", () => {
    const keys = new Set(replace.map(key));
    for (const k of KNATIVE_KEEPS) expect(keys.has(k), k).toBe(false);
    expect(replace.some((o) => o.kind === "Namespace" || o.kind === "ConfigMap" || String(o.kind).endsWith("WebhookConfiguration"))).toBe(false);
  });

  it("is the standalone install without the Namespace, Secret, Service and configurations, object for object", () => {
    const same = standalone.filter((o) => !KNATIVE_KEEPS.includes(key(o)));
    expect(replace).toEqual(same);
  });
});

describe("the replacement's uninstall (manifests/base/rbac)", () => {
  it("deletes exactly Duckbill's own objects", () => {
    expect(replaceUninstall.map(key).sort()).toEqual([...DUCKBILL_OWN].sort());
  });

  it("shares no name with Knative's objects, so it cannot delete one of them", () => {
    for (const o of replaceUninstall) expect(o.metadata.name).toMatch(/^duckbill-webhook/);
  });

  it("with Knative's own webhook objects restored, leaves nothing of the replacement behind", () => {
    const left = replace.map(key).filter((k) => !replaceUninstall.map(key).includes(k));
    expect(left.sort()).toEqual([...KNATIVE_REPLACED].sort());
  });
});
