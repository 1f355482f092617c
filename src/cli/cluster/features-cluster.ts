/**
 * `duckbill features --kubeconfig`, `check --kubeconfig` and `upgrade-check --kubeconfig`: read Knative's ConfigMaps,
 * CRD schemas and the live Knative objects of a cluster with @kubernetes/client-node. The commands import this module on demand, so
 * client-node (kept external by scripts/bundle.mjs) is loaded only when a cluster is asked for. Every function here only talks to
 * the API server; failures are thrown as Errors whose message names what was being read and the API's answer.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import type { NamespaceLabels, NamespaceLabelsView } from "../../config/feature-scopes.js";
import { knativeVersionSetting, PROFILES, type KnativeProfile } from "../../config/profile.js";
import { ADMISSION_CONFIGMAPS, snapshotFrom, type ConfigSnapshot } from "../../config/snapshot.js";
import { describeApiError, statusCodeOf } from "../../kube/api-request.js";
import { loadKubeConfig, type LoadedKubeConfig } from "../../kube/client.js";
import { createKubeApi, KubeApiError } from "../../kube/json-api.js";
import { detectKnativeRelease, type DetectedRelease } from "../../kube/knative-release.js";
import { structuralOf, type StructuralSchema } from "../kubectl/strict-decoding.js";

/** kubectl's default --chunk-size. */
export const LIST_PAGE_SIZE = 500;

const SERVING_GROUP = "serving.knative.dev";
const SERVING_VERSION = "v1";

/** A kind of custom object to list. */
export interface LiveKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** The kinds `features impact --kubeconfig` reads. */
export const LIVE_KINDS: readonly LiveKind[] = [
  { group: SERVING_GROUP, version: SERVING_VERSION, kind: "Service", plural: "services" },
  { group: SERVING_GROUP, version: SERVING_VERSION, kind: "Configuration", plural: "configurations" },
];

/** Credentials from the `--kubeconfig` file only (no fallback to $KUBECONFIG or in-cluster). */
export function connect(kubeconfig: string): LoadedKubeConfig {
  return loadKubeConfig({ kubeconfig, env: {} });
}

/**
 * The ConfigMaps `names` of `namespace` that exist, as the API returns them (with metadata). A ConfigMap that does
 * not exist is left out (Knative's defaults for it, as in the webhook); any other failure is thrown.
 */
export async function readConfigMaps(kc: KubeConfig, namespace: string, names: readonly string[]): Promise<Map<string, V1ConfigMap>> {
  const api = kc.makeApiClient(CoreV1Api);
  const out = new Map<string, V1ConfigMap>();
  for (const name of names) {
    try {
      out.set(name, await api.readNamespacedConfigMap({ name, namespace }));
    } catch (e) {
      if (statusCodeOf(e) === 404) continue;
      throw new Error(`reading ConfigMap ${namespace}/${name}: ${describeApiError(e)}`);
    }
  }
  return out;
}

/** The data of each ConfigMap, as snapshotFrom takes it. */
export function configMapData(configMaps: ReadonlyMap<string, V1ConfigMap>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [name, cm] of configMaps) out[name] = cm.data ?? {};
  return out;
}

/**
 * config-features, config-defaults and config-autoscaler from `namespace`. A ConfigMap that does not exist means
 * Knative's defaults for it, as in the webhook; any other failure is thrown.
 */
export async function readAdmissionConfig(kc: KubeConfig, namespace: string, profile?: KnativeProfile): Promise<ConfigSnapshot> {
  return snapshotFrom(configMapData(await readConfigMaps(kc, namespace, ADMISSION_CONFIGMAPS)), `cluster:${namespace}`, profile);
}

/** A Namespace's labels (config-features-scopes selects on them); undefined when it does not exist. */
export async function readNamespaceLabels(kc: KubeConfig, namespace: string): Promise<NamespaceLabels> {
  try {
    const ns = await kc.makeApiClient(CoreV1Api).readNamespace({ name: namespace });
    return new Map(Object.entries(ns.metadata?.labels ?? {}));
  } catch (e) {
    if (statusCodeOf(e) === 404) return undefined;
    throw new Error(`reading Namespace ${namespace}: ${describeApiError(e)}`);
  }
}

/** The namespaces' labels, each read once when a scope needs it (`check --kubeconfig`). */
export function clusterNamespaceLabels(kc: KubeConfig): NamespaceLabelsView {
  const known = new Map<string, NamespaceLabels>();
  return {
    labels: (ns) => known.get(ns),
    synced: () => true,
    fetch: async (ns) => {
      if (!known.has(ns)) known.set(ns, await readNamespaceLabels(kc, ns));
      return known.get(ns);
    },
  };
}

/**
 * The Knative release to answer as with a cluster at hand: the one `--knative-version` names, or with `auto` the
 * cluster's (src/kube/knative-release.ts). `note` says where an `auto` release came from, for stderr.
 */
export async function clusterProfile(kc: KubeConfig, namespace: string, knativeVersion: string): Promise<{ profile: KnativeProfile; note?: string }> {
  const setting = knativeVersionSetting(knativeVersion);
  if (setting !== "auto") return { profile: PROFILES[setting] };
  const d = await detectRelease(kc, namespace);
  const where = d.source === "crd" ? "the Serving CRDs' label" : d.source === "namespace" ? `the ${namespace} namespace's label` : "no release label found in the cluster";
  const nearest = d.exact ? "" : ` (${d.release ?? "?"} has no profile of its own; the nearest)`;
  return { profile: d.profile, note: `answering as Knative ${d.profile.version}${nearest}: ${d.release === undefined ? where : `${d.release}, from ${where}`}; pin one with --knative-version` };
}

/** The release the cluster runs, as `--knative-version auto` reads it (src/kube/knative-release.ts), read once. */
export async function detectRelease(kc: KubeConfig, namespace: string): Promise<DetectedRelease> {
  const api = createKubeApi(kc);
  try {
    return await detectKnativeRelease(api, namespace, AbortSignal.timeout(30_000));
  } finally {
    api.close();
  }
}

/** Where a manifest's live object would be: `check --kubeconfig` reads it to check the manifest as an update of it. */
export interface LiveRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespace: string;
  readonly name: string;
}

/**
 * The live object at each of `refs` that exists, as the API returns it. None there (404, also for a kind the
 * cluster does not serve) leaves it out; not allowed to read it (403) leaves it out with a note; any other failure is
 * thrown.
 */
export async function readLiveObjects(kc: KubeConfig, refs: readonly LiveRef[]): Promise<{ objects: Record<string, unknown>[]; notes: string[] }> {
  const api = createKubeApi(kc);
  const objects: Record<string, unknown>[] = [];
  const notes: string[] = [];
  try {
    for (const r of refs) {
      const path = `${r.group === "" ? "/api" : `/apis/${r.group}`}/${r.version}/namespaces/${encodeURIComponent(r.namespace)}/${r.plural}/${encodeURIComponent(r.name)}`;
      try {
        const obj = await api.request({ method: "GET", path, signal: AbortSignal.timeout(30_000) });
        if (typeof obj === "object" && obj !== null && !Array.isArray(obj)) objects.push(obj as Record<string, unknown>);
      } catch (e) {
        if (e instanceof KubeApiError && e.status === 404) continue;
        if (e instanceof KubeApiError && e.status === 403) {
          notes.push(`${e.message}: checked as a create`);
          continue;
        }
        throw new Error(`reading ${r.plural}${r.group === "" ? "" : `.${r.group}`} ${r.namespace}/${r.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } finally {
    api.close();
  }
  return { objects, notes };
}

/**
 * Every object of `kinds` (default: Services and Configurations), in all namespaces or only in `namespace`, listed
 * in pages of `pageSize` with `continue`. List items carry no apiVersion/kind: they are set on each object. With
 * `skipMissing`, a kind the cluster does not serve (404: its CRD is not installed) is left out.
 */
export async function listServingObjects(
  kc: KubeConfig,
  namespace: string | undefined,
  pageSize = LIST_PAGE_SIZE,
  kinds: readonly LiveKind[] = LIVE_KINDS,
  skipMissing = false,
): Promise<Record<string, unknown>[]> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const out: Record<string, unknown>[] = [];
  for (const { group, version, kind, plural } of kinds) {
    let cont: string | undefined;
    do {
      const common = { group, version, plural, limit: pageSize, _continue: cont };
      let page: { items?: unknown; metadata?: { continue?: unknown } };
      try {
        page = (namespace === undefined
          ? await api.listCustomObjectForAllNamespaces(common)
          : await api.listNamespacedCustomObject({ ...common, namespace })) as typeof page;
      } catch (e) {
        if (skipMissing && statusCodeOf(e) === 404) break;
        throw new Error(`listing ${plural}.${group} ${namespace === undefined ? "in all namespaces" : `in namespace ${namespace}`}: ${describeApiError(e)}`);
      }
      for (const item of Array.isArray(page.items) ? (page.items as unknown[]) : []) {
        if (typeof item === "object" && item !== null && !Array.isArray(item)) out.push({ ...(item as Record<string, unknown>), apiVersion: `${group}/${version}`, kind });
      }
      const next = page.metadata?.continue;
      cont = typeof next === "string" && next !== "" ? next : undefined;
    } while (cont !== undefined);
  }
  return out;
}

/** A kind whose CRD schema `check --kubeconfig` reads. */
export interface CrdKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/**
 * The structural schemas of the cluster's CRDs for `kinds`, by `group/version/Kind`, as its API server decodes them
 * strictly; a CRD that cannot be read (not installed, or no `get` on customresourcedefinitions) is left out with a
 * note naming the API's answer.
 */
export async function readCrdSchemas(kc: KubeConfig, kinds: readonly CrdKind[]): Promise<{ schemas: Map<string, StructuralSchema>; notes: string[] }> {
  // The JSON as the API server sends it: client-node's typed model would rename `x-kubernetes-preserve-unknown-fields`
  // and `x-kubernetes-embedded-resource`, which the structural schema is read from.
  const api = createKubeApi(kc);
  const schemas = new Map<string, StructuralSchema>();
  const notes: string[] = [];
  try {
    for (const k of kinds) {
      const name = `${k.plural}.${k.group}`;
      try {
        const crd = (await api.request({ method: "GET", path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, signal: AbortSignal.timeout(30_000) })) as {
          spec?: { versions?: Array<{ name?: unknown; schema?: { openAPIV3Schema?: unknown } }> };
        };
        const version = crd.spec?.versions?.find((v) => v.name === k.version);
        if (version?.schema?.openAPIV3Schema === undefined) notes.push(`CRD ${name} has no schema for ${k.version}`);
        else schemas.set(`${k.group}/${k.version}/${k.kind}`, structuralOf(version.schema.openAPIV3Schema));
      } catch (e) {
        notes.push(`reading CRD ${name}: ${e instanceof KubeApiError && e.status !== undefined ? `HTTP ${e.status}: ${e.message}` : describeApiError(e)}`);
      }
    }
  } finally {
    api.close();
  }
  return { schemas, notes };
}
