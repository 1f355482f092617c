/**
 * Feature scopes at admission (config/feature-scopes.ts): the configuration a request in a namespace is validated
 * with, and the line a denial caused by a scope adds to Knative's message. Without config-features-scopes, or in a
 * namespace inside every scope, the request gets the snapshot itself, so every answer is Knative's.
 */
import { featuresInNamespace, labelsMatter, narrowFeatures, narrowingScopes, scopeDenialLine, type FeatureScope, type NamespaceLabels } from "../config/feature-scopes.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { namespacedImpactWarnings, type GatedUsageView } from "../serving/gated-usage.js";
import type { RequestEnv } from "./deps.js";

/** The configuration for one namespace and the scopes that narrowed it (empty: the snapshot itself). */
export interface ScopedConfig {
  readonly config: ConfigSnapshot;
  readonly narrowed: readonly FeatureScope[];
}

/** Derived snapshots per snapshot and set of narrowed flags, so a request allocates nothing once one was seen. */
const derived = new WeakMap<ConfigSnapshot, Map<string, ConfigSnapshot>>();
/** Sets of narrowed flags kept per snapshot (each set is a handful of objects); past it, derived afresh. */
const MAX_DERIVED = 256;

/** `snapshot` with the flags of `narrowed` Disabled. */
export function narrowedSnapshot(snapshot: ConfigSnapshot, narrowed: readonly FeatureScope[]): ConfigSnapshot {
  if (narrowed.length === 0) return snapshot;
  const key = narrowed.map((s) => s.key).join("\n");
  let byKey = derived.get(snapshot);
  const cached = byKey?.get(key);
  if (cached !== undefined) return cached;
  const features = narrowFeatures(snapshot.admission.features, narrowed);
  const out: ConfigSnapshot = Object.freeze({ ...snapshot, admission: Object.freeze({ ...snapshot.admission, features }) });
  if (byKey === undefined) derived.set(snapshot, (byKey = new Map()));
  if (byKey.size < MAX_DERIVED) byKey.set(key, out);
  return out;
}

/**
 * The labels of `namespace` as far as the scopes need them: from the watch, else read once from the cluster (a
 * namespace created a moment ago), else unknown.
 */
async function namespaceLabels(env: RequestEnv, namespace: string): Promise<NamespaceLabels> {
  const view = env.namespaces;
  const known = view?.labels(namespace);
  if (known !== undefined || view?.fetch === undefined || !labelsMatter(env.config.featureScopes, namespace)) return known;
  return view.fetch(namespace);
}

/** The configuration `namespace` is validated with: env.config with each flag Disabled outside its scope. */
export async function configForNamespace(env: RequestEnv, namespace: string): Promise<ScopedConfig> {
  const snapshot = env.config;
  if (snapshot.featureScopes.size === 0) return { config: snapshot, narrowed: [] };
  const narrowed = narrowingScopes(snapshot.admission.features, snapshot.featureScopes, namespace, await namespaceLabels(env, namespace));
  return { config: narrowedSnapshot(snapshot, narrowed), narrowed };
}

/**
 * The scopes a denial is due to, and their lines: each narrowed flag that alone changes the error text from the
 * cluster-wide answer; when none does alone but all together do, every narrowed flag. `scopedErrors` is the denial's
 * error text.
 */
export function scopesDenying(
  scoped: ScopedConfig,
  cluster: ConfigSnapshot,
  namespace: string,
  scopedErrors: string,
  errorsWith: (config: ConfigSnapshot) => string | undefined,
): { readonly keys: string[]; readonly lines: string[] } {
  if (scoped.narrowed.length === 0) return { keys: [], lines: [] };
  const clusterWide = errorsWith(cluster);
  if (clusterWide === scopedErrors) return { keys: [], lines: [] };
  let due = scoped.narrowed.filter((scope) => errorsWith(narrowedSnapshot(cluster, [scope])) !== clusterWide);
  if (due.length === 0) due = [...scoped.narrowed];
  return { keys: due.map((s) => s.key), lines: due.map((s) => scopeDenialLine(s, cluster.admission.features[s.field], namespace)) };
}

/** What a namespace's relabelling changes: its flags (`key from → to`) and, with a usage index, the impact warnings. */
export interface RelabelImpact {
  readonly changes: readonly string[];
  readonly warnings: readonly string[];
}

/**
 * A namespace relabelled from `before` to `after` labels under the scopes of `config`: the flags whose state in the
 * namespace changed and, with `usage` (`--impact-warnings`), the warnings for its existing objects the new state
 * would deny on their next update (serving/gated-usage.ts: namespacedImpactWarnings).
 */
export function relabelImpact(config: ConfigSnapshot, namespace: string, before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, usage: GatedUsageView | undefined): RelabelImpact {
  if (config.featureScopes.size === 0) return { changes: [], warnings: [] };
  const features = config.admission.features;
  const was = featuresInNamespace(features, config.featureScopes, namespace, before);
  const is = featuresInNamespace(features, config.featureScopes, namespace, after);
  const changes: string[] = [];
  for (const scope of config.featureScopes.values()) {
    if (was[scope.field] !== is[scope.field]) changes.push(`${scope.key} ${was[scope.field]} → ${is[scope.field]}`);
  }
  if (changes.length === 0 || usage === undefined) return { changes, warnings: [] };
  return { changes, warnings: namespacedImpactWarnings(() => was, () => is, usage, namespace) };
}
