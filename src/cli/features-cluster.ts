/**
 * `duckbill features --kubeconfig`: reads the admission ConfigMaps and the live Services and Configurations of a
 * cluster with @kubernetes/client-node. features-command.ts imports this module on demand, so client-node (kept
 * external by scripts/bundle.mjs) is loaded only when a cluster is asked for. Every function here only talks to
 * the API server; failures are thrown as Errors whose message names what was being read and the API's answer.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { knativeVersionSetting, PROFILES, type KnativeProfile } from "../config/profile.js";
import { ADMISSION_CONFIGMAPS, snapshotFrom, type ConfigSnapshot } from "../config/snapshot.js";
import { describeApiError, statusCodeOf } from "../kube/api-request.js";
import { loadKubeConfig, type LoadedKubeConfig } from "../kube/client.js";
import { createKubeApi } from "../kube/json-api.js";
import { detectKnativeRelease } from "../kube/knative-release.js";

/** kubectl's default --chunk-size. */
export const LIST_PAGE_SIZE = 500;

const SERVING_GROUP = "serving.knative.dev";
const SERVING_VERSION = "v1";

/** The kinds `features impact --kubeconfig` reads, with their resource names. */
export const LIVE_KINDS = [
  { kind: "Service", plural: "services" },
  { kind: "Configuration", plural: "configurations" },
] as const;

/** Credentials from the `--kubeconfig` file only (no fallback to $KUBECONFIG or in-cluster). */
export function connect(kubeconfig: string): LoadedKubeConfig {
  return loadKubeConfig({ kubeconfig });
}

/**
 * config-features, config-defaults and config-autoscaler from `namespace`. A ConfigMap that does not exist means
 * Knative's defaults for it, as in the webhook; any other failure is thrown.
 */
export async function readAdmissionConfig(kc: KubeConfig, namespace: string, profile?: KnativeProfile): Promise<ConfigSnapshot> {
  const api = kc.makeApiClient(CoreV1Api);
  const configs: Record<string, Record<string, string>> = {};
  for (const name of ADMISSION_CONFIGMAPS) {
    try {
      const cm = await api.readNamespacedConfigMap({ name, namespace });
      configs[name] = cm.data ?? {};
    } catch (e) {
      if (statusCodeOf(e) === 404) continue;
      throw new Error(`reading ConfigMap ${namespace}/${name}: ${describeApiError(e)}`);
    }
  }
  return snapshotFrom(configs, `cluster:${namespace}`, profile);
}

/**
 * The Knative release to answer as with a cluster at hand: the one `--knative-version` names, or with `auto` the
 * cluster's (src/kube/knative-release.ts). `note` says where an `auto` release came from, for stderr.
 */
export async function clusterProfile(kc: KubeConfig, namespace: string, flag: string | undefined): Promise<{ profile: KnativeProfile; note?: string }> {
  const setting = knativeVersionSetting(flag);
  if (setting !== "auto") return { profile: PROFILES[setting] };
  const api = createKubeApi(kc);
  try {
    const d = await detectKnativeRelease(api, namespace, AbortSignal.timeout(30_000));
    const where = d.source === "crd" ? "the Serving CRDs' label" : d.source === "namespace" ? `the ${namespace} namespace's label` : "no release label found in the cluster";
    const nearest = d.exact ? "" : ` (${d.release ?? "?"} has no profile of its own; the nearest)`;
    return { profile: d.profile, note: `answering as Knative ${d.profile.version}${nearest}: ${d.release === undefined ? where : `${d.release}, from ${where}`}; pin one with --knative-version` };
  } finally {
    api.close();
  }
}

/**
 * Every serving.knative.dev/v1 Service and Configuration, in all namespaces or only in `namespace`, listed in pages
 * of `pageSize` with `continue`. List items carry no apiVersion/kind: they are set on each object.
 */
export async function listServingObjects(kc: KubeConfig, namespace: string | undefined, pageSize = LIST_PAGE_SIZE): Promise<Record<string, unknown>[]> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const out: Record<string, unknown>[] = [];
  for (const { kind, plural } of LIVE_KINDS) {
    let cont: string | undefined;
    do {
      const common = { group: SERVING_GROUP, version: SERVING_VERSION, plural, limit: pageSize, _continue: cont };
      let page: { items?: unknown; metadata?: { continue?: unknown } };
      try {
        page = (namespace === undefined
          ? await api.listCustomObjectForAllNamespaces(common)
          : await api.listNamespacedCustomObject({ ...common, namespace })) as typeof page;
      } catch (e) {
        throw new Error(`listing ${plural}.${SERVING_GROUP} ${namespace === undefined ? "in all namespaces" : `in namespace ${namespace}`}: ${describeApiError(e)}`);
      }
      for (const item of Array.isArray(page.items) ? (page.items as unknown[]) : []) {
        if (typeof item === "object" && item !== null && !Array.isArray(item)) out.push({ ...(item as Record<string, unknown>), apiVersion: `${SERVING_GROUP}/${SERVING_VERSION}`, kind });
      }
      const next = page.metadata?.continue;
      cont = typeof next === "string" && next !== "" ? next : undefined;
    } while (cont !== undefined);
  }
  return out;
}
