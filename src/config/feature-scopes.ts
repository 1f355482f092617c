/**
 * `config-features-scopes`: Duckbill's optional ConfigMap beside `config-features` that narrows flags to namespaces
 * (docs/feature-scopes.md, docs/adr/0019-feature-scopes.md). Knative has no such ConfigMap: absent, nothing here
 * changes an answer.
 *
 * Format, in the style of `config-domain` (knative.dev/serving pkg/reconciler/route/config/domain.go:
 * NewDomainFromConfigMap): every key but `_example` is a `config-features` flag and holds YAML for
 * `{selector: map[string]string, namespaces: []string}`, read with sigs.k8s.io/yaml. A namespace is in the flag's
 * scope when it is named in `namespaces` or carries every label of `selector` (labels.SelectorFromSet; an empty
 * selector matches no namespace here, so a scope is never "everything" by omission). Outside its scope the flag is
 * Disabled; inside it keeps its cluster-wide value. A scope only narrows: it never raises a flag.
 *
 * Pure data: the namespaces' labels come from the caller (src/kube/namespace-watch.ts in a cluster).
 */
import { goQuote } from "../go/strconv/quote.js";
import { isDNS1123Label } from "../go/apimachinery/validation.js";
import { validatedSelectorFromSetError } from "../go/apimachinery/label-selector.js";
import { STRING_MAP_TARGET, STRING_SLICE_TARGET, yamlUnmarshalInto, type Decoded, type JsonTarget } from "../go/yaml/yaml-to-json.js";
import { FEATURE_FLAGS, type FeatureFlagField } from "./feature-flags.js";
import { releaseHasFlag } from "./features.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "./profile.js";
import type { ConfigData, FeaturesConfig, Flag } from "./types.js";

export const FEATURE_SCOPES_CONFIG_NAME = "config-features-scopes";

const EXAMPLE_KEY = "_example";

/** One flag's scope. */
export interface FeatureScope {
  /** The `config-features` key. */
  readonly key: string;
  readonly field: FeatureFlagField;
  /** Labels a namespace must all carry (empty: no namespace matches by labels). */
  readonly selector: ReadonlyMap<string, string>;
  /** Namespaces in the scope by name. */
  readonly namespaces: readonly string[];
}

/** Flag key → scope, in key order. Empty when the ConfigMap is absent. */
export type FeatureScopes = ReadonlyMap<string, FeatureScope>;

export const NO_SCOPES: FeatureScopes = new Map();

/**
 * The flags that cannot be scoped: those the webhook reads without gating a pod-spec field with them (a dry run,
 * defaulting, or controllers only; serving/feature-gates.ts `check`). Disabling one of them outside a scope would
 * not narrow what a tenant may set: `kubernetes.podspec-dryrun` Disabled skips a check, `secure-pod-defaults`
 * Disabled changes defaulting, and the controller flags never reach an admission answer. A test holds this set
 * together with the gates' `check`.
 */
export const UNSCOPABLE_FLAGS: ReadonlySet<string> = new Set([
  "kubernetes.podspec-dryrun",
  "secure-pod-defaults",
  "tag-header-based-routing",
  "domainmapping-direct-route-traffic",
  "autodetect-http2",
  "queueproxy.mount-podinfo",
  "queueproxy.resource-defaults",
]);

const FIELD_OF: ReadonlyMap<string, FeatureFlagField> = new Map(FEATURE_FLAGS.map((f) => [f.key, f.field]));

const SCOPE_TARGET: JsonTarget = {
  kind: "struct",
  type: "config.featureScope",
  name: "featureScope",
  fields: [
    { json: "selector", target: STRING_MAP_TARGET },
    { json: "namespaces", target: STRING_SLICE_TARGET },
  ],
};

export type ParseScopesResult = { readonly ok: true; readonly value: FeatureScopes } | { readonly ok: false; readonly error: string };

function stringsOf(v: Decoded | undefined): string[] {
  return Array.isArray(v) ? v.map((e) => (typeof e === "string" ? e : "")) : [];
}

function selectorOf(v: Decoded | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (v instanceof Map) for (const [k, e] of v as ReadonlyMap<string, Decoded>) out.set(k, typeof e === "string" ? e : "");
  return out;
}

/** One key's scope, or Knative-style error text naming the key. */
function parseScope(key: string, text: string, profile: KnativeProfile): FeatureScope | string {
  const field = FIELD_OF.get(key);
  if (field === undefined || !releaseHasFlag(key, profile)) return `unknown feature flag ${goQuote(key)}: the key must be a config-features flag`;
  if (UNSCOPABLE_FLAGS.has(key)) return `feature flag ${goQuote(key)} cannot be scoped: the webhook gates no pod-spec field with it`;
  const parsed = yamlUnmarshalInto(text, SCOPE_TARGET);
  if (!parsed.ok) return `failed to parse ${goQuote(key)}: ${parsed.error}`;
  const value = parsed.value as { readonly [field: string]: Decoded };
  const selector = selectorOf(value.selector);
  const selectorError = validatedSelectorFromSetError(selector);
  if (selectorError !== undefined) return `invalid selector for ${goQuote(key)}: ${selectorError}`;
  const namespaces = stringsOf(value.namespaces);
  for (let i = 0; i < namespaces.length; i++) {
    const ns = namespaces[i] as string;
    const errs = isDNS1123Label(ns);
    if (errs.length > 0) return `invalid namespaces for ${goQuote(key)}: namespaces[${i}]: Invalid value: ${goQuote(ns)}: ${errs.join("; ")}`;
  }
  if (selector.size === 0 && namespaces.length === 0) return `invalid scope for ${goQuote(key)}: expected a selector or namespaces`;
  return Object.freeze({ key, field, selector, namespaces: Object.freeze([...new Set(namespaces)]) });
}

/**
 * The ConfigMap's scopes as the release `profile` reads them, or the first error in key order. Used both by
 * /config-validation (the error is the denial) and by the snapshot (an error keeps the last good scopes).
 */
export function parseFeatureScopes(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): ParseScopesResult {
  const keys = Object.keys(data)
    .filter((k) => k !== EXAMPLE_KEY)
    .sort();
  if (keys.length === 0) return { ok: true, value: NO_SCOPES };
  const out = new Map<string, FeatureScope>();
  for (const key of keys) {
    const scope = parseScope(key, data[key] as string, profile);
    if (typeof scope === "string") return { ok: false, error: scope };
    out.set(key, scope);
  }
  return { ok: true, value: out };
}

/** A namespace's labels; undefined when the namespace is not known (not yet seen, or gone). */
export type NamespaceLabels = ReadonlyMap<string, string> | undefined;

/** What the admission layer and the CLI ask about namespaces (src/kube/namespace-watch.ts answers in a cluster). */
export interface NamespaceLabelsView {
  /** The labels of `namespace`, or undefined when it is not known. */
  labels(namespace: string): NamespaceLabels;
  /** The namespaces were listed at least once. */
  synced(): boolean;
  /**
   * Reads a namespace not known yet (created a moment ago, its event not arrived) from the cluster; undefined when
   * it cannot be read. Absent: unknown namespaces stay unknown.
   */
  fetch?(namespace: string): Promise<NamespaceLabels>;
}

/** Whether `namespace`'s labels could change an answer: some scope selects on labels and does not name it. */
export function labelsMatter(scopes: FeatureScopes, namespace: string): boolean {
  for (const scope of scopes.values()) if (scope.selector.size > 0 && !scope.namespaces.includes(namespace)) return true;
  return false;
}

/** Whether `namespace` (with `labels`) is inside `scope`: named, or carrying every label of a non-empty selector. */
export function inScope(scope: FeatureScope, namespace: string, labels: NamespaceLabels): boolean {
  if (scope.namespaces.includes(namespace)) return true;
  if (scope.selector.size === 0 || labels === undefined) return false;
  for (const [k, v] of scope.selector) if (labels.get(k) !== v) return false;
  return true;
}

/**
 * The scopes that narrow a flag for `namespace`: the namespace is outside them and the flag is not already
 * Disabled cluster-wide. Empty (the common case, and always without the ConfigMap) when nothing changes.
 */
export function narrowingScopes(features: FeaturesConfig, scopes: FeatureScopes, namespace: string, labels: NamespaceLabels): FeatureScope[] {
  const out: FeatureScope[] = [];
  if (scopes.size === 0) return out;
  for (const scope of scopes.values()) {
    if (features[scope.field] !== "Disabled" && !inScope(scope, namespace, labels)) out.push(scope);
  }
  return out;
}

/** `features` with each flag of `narrowed` Disabled; `features` itself when there is none. */
export function narrowFeatures(features: FeaturesConfig, narrowed: readonly FeatureScope[]): FeaturesConfig {
  if (narrowed.length === 0) return features;
  const out: Record<string, Flag> = { ...features };
  for (const scope of narrowed) out[scope.field] = "Disabled";
  return Object.freeze(out) as unknown as FeaturesConfig;
}

/** The flag values in effect in `namespace`: the cluster-wide ones, each scoped flag Disabled outside its scope. */
export function featuresInNamespace(features: FeaturesConfig, scopes: FeatureScopes, namespace: string, labels: NamespaceLabels): FeaturesConfig {
  return narrowFeatures(features, narrowingScopes(features, scopes, namespace, labels));
}

/** How a scope reads in messages and listings: `selector tenant=platform; namespaces a, b`. */
export function describeScope(scope: FeatureScope): string {
  const parts: string[] = [];
  if (scope.selector.size > 0) parts.push(`selector ${[...scope.selector].map(([k, v]) => `${k}=${v}`).join(",")}`);
  if (scope.namespaces.length > 0) parts.push(`namespaces ${scope.namespaces.join(", ")}`);
  return parts.join("; ");
}

/**
 * The line a denial caused by a scope adds to Knative's message, naming the scope and the namespace, so that a
 * tenant knows whom to ask.
 */
export function scopeDenialLine(scope: FeatureScope, cluster: Flag, namespace: string): string {
  return `feature ${scope.key} is ${cluster} cluster-wide but Disabled in namespace ${goQuote(namespace)}: the namespace is outside its scope in ConfigMap ${FEATURE_SCOPES_CONFIG_NAME} (${describeScope(scope)})`;
}
