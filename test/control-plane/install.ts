/**
 * A Knative Serving release's own install, read from its Go modules (the versions
 * test/control-plane/controller/knative-<release>/go.mod builds the controller from): the CRDs of serving's
 * `config/core/300-resources`, networking's `config/` (Certificate, Ingress, ServerlessService, ClusterDomainClaim)
 * and caching's `config/image.yaml`; the namespace, ServiceAccounts and cluster roles of `config/core`; the
 * ConfigMaps of `config/core/configmaps` and networking's `config-network.yaml`; the `webhook-certs` Secret and the
 * three webhook configurations of `config/core/webhooks`. Nothing of Knative's is copied into this repository.
 *
 * What a release's serving-core.yaml build changes is done here as well: `app.kubernetes.io/version: devel`
 * becomes the release (`1.24.0`), and `ko://` images become images with digests.
 */
import { join } from "node:path";
import { readdirSync, readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { REPO, run } from "../e2e/harness.js";

export type Obj = Record<string, unknown>;
export type ControlPlaneRelease = "1.17" | "1.23" | "1.24";

export const SYSTEM_NAMESPACE = "knative-serving";
export const VERSION_LABEL = "app.kubernetes.io/version";

/** The queue-proxy image the release's config-deployment names (`ko://knative.dev/serving/cmd/queue`), with a digest. */
export const QUEUE_IMAGE = "registry.example.com/knative/queue@sha256:1111111111111111111111111111111111111111111111111111111111111111";

export interface KnativeInstall {
  /** The release's CRDs, labelled with the release. */
  readonly crds: Obj[];
  /** Namespace, ServiceAccounts, cluster roles and bindings, ConfigMaps, the webhook-certs Secret. */
  readonly base: Obj[];
  /** The three webhook configurations, as the manifests have them (a service reference, no caBundle). */
  readonly webhooks: Obj[];
}

interface ModuleDirs {
  readonly serving: string;
  readonly networking: string;
  readonly caching: string;
}

/** The directories of the release's modules (downloaded if needed), as the controller's go.mod resolves them. */
async function moduleDirs(release: ControlPlaneRelease): Promise<ModuleDirs> {
  const cwd = join(REPO, "test", "control-plane", "controller", `knative-${release}`);
  const r = await run("go", ["mod", "download", "-json", "knative.dev/serving", "knative.dev/networking", "knative.dev/caching"], { cwd, timeoutMs: 600_000, env: { ...process.env, GOFLAGS: "-mod=readonly" } });
  if (r.code !== 0) throw new Error(`go mod download in ${cwd} failed (${r.code}): ${r.stderr}${r.stdout}`);
  const dirs: Record<string, string> = {};
  // `go mod download -json` prints one JSON object per module, one after another.
  for (const chunk of r.stdout.split(/\n(?=\{)/)) {
    const m = JSON.parse(chunk) as { Path: string; Dir: string };
    dirs[m.Path] = m.Dir;
  }
  const get = (p: string): string => {
    const d = dirs[p];
    if (d === undefined) throw new Error(`go mod download did not report ${p}`);
    return d;
  };
  return { serving: get("knative.dev/serving"), networking: get("knative.dev/networking"), caching: get("knative.dev/caching") };
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(".yaml"))
    .sort()
    .map((n) => join(dir, n));
}

/** The objects of YAML files, `devel` versions replaced by the release. */
function objectsOf(paths: readonly string[], version: string): Obj[] {
  const out: Obj[] = [];
  for (const p of paths) {
    for (const doc of parseAllDocuments(readFileSync(p, "utf8"))) {
      const o = doc.toJS() as Obj | null;
      if (o === null || typeof o !== "object") continue;
      const labels = (o.metadata as Obj | undefined)?.labels as Record<string, string> | undefined;
      if (labels?.[VERSION_LABEL] === "devel") labels[VERSION_LABEL] = version;
      out.push(o);
    }
  }
  return out;
}

/**
 * kube-controller-manager's clusterrole-aggregation controller, which the harness does not run: an aggregated
 * ClusterRole (`knative-serving-admin`, the controller's) gets the rules of every ClusterRole its selectors match.
 */
export function aggregateClusterRoles(objects: Obj[]): void {
  const roles = objects.filter((o) => o.kind === "ClusterRole");
  for (const role of roles) {
    const selectors = ((role.aggregationRule as Obj | undefined)?.clusterRoleSelectors ?? []) as Array<{ matchLabels?: Record<string, string> }>;
    if (selectors.length === 0) continue;
    const rules: unknown[] = [];
    for (const other of roles) {
      if (other === role) continue;
      const labels = ((other.metadata as Obj).labels ?? {}) as Record<string, string>;
      if (selectors.some((s) => Object.entries(s.matchLabels ?? {}).every(([k, v]) => labels[k] === v))) rules.push(...((other.rules ?? []) as unknown[]));
    }
    role.rules = rules;
  }
}

/** Reads the release's install from its modules. */
export async function knativeInstall(release: ControlPlaneRelease): Promise<KnativeInstall> {
  const dirs = await moduleDirs(release);
  const version = `${release}.0`;
  const core = join(dirs.serving, "config", "core");
  const crds = objectsOf(
    [
      ...yamlFiles(join(core, "300-resources")),
      ...["certificate.yaml", "ingress.yaml", "serverlessservice.yaml", "domain-claim.yaml"].map((f) => join(dirs.networking, "config", f)),
      join(dirs.caching, "config", "image.yaml"),
    ],
    version,
  );
  const base = objectsOf(
    [
      join(core, "100-namespace.yaml"),
      join(core, "200-serviceaccount.yaml"),
      ...yamlFiles(join(core, "200-roles")),
      ...yamlFiles(join(core, "configmaps")),
      join(dirs.networking, "config", "config-network.yaml"),
      join(core, "webhooks", "secret.yaml"),
    ],
    version,
  );
  aggregateClusterRoles(base);
  for (const o of base) {
    const data = o.data as Record<string, string> | undefined;
    if (o.kind === "ConfigMap" && data?.["queue-sidecar-image"]?.startsWith("ko://") === true) data["queue-sidecar-image"] = QUEUE_IMAGE;
  }
  const webhooks = objectsOf(["defaulting.yaml", "resource-validation.yaml", "configmap-validation.yaml"].map((f) => join(core, "webhooks", f)), version);
  return { crds, base, webhooks };
}

/** A kubectl-appliable List of objects. */
export function list(items: readonly Obj[]): string {
  return JSON.stringify({ apiVersion: "v1", kind: "List", items });
}
