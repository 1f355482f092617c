/**
 * config-features-scopes in the CLI (config/feature-scopes.ts): a namespace's labels from `--namespace-labels` or a
 * cluster, the configuration as a namespace sees it, and how a flag's scope reads in `duckbill features`.
 */
import { narrowedSnapshot } from "../admission/scoped-config.js";
import { describeScope, inScope, narrowingScopes, NO_SCOPES, type FeatureScope, type NamespaceLabels, type NamespaceLabelsView } from "../config/feature-scopes.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { validatedSelectorFromSetError } from "../go/apimachinery/label-selector.js";
import { UsageError } from "./io.js";

/** `--namespace-labels a=b,c=d`: the labels, checked as label keys and values. */
export function parseNamespaceLabels(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq === -1) throw new UsageError(`--namespace-labels takes key=value pairs separated by commas, got "${part}"`);
    out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const err = validatedSelectorFromSetError(out);
  if (err !== undefined) throw new UsageError(`--namespace-labels: ${err}`);
  return out;
}

/** A view that knows one namespace's labels (`--namespace` with `--namespace-labels`). */
export function fixedNamespaceLabels(namespace: string, labels: ReadonlyMap<string, string>): NamespaceLabelsView {
  return { labels: (ns) => (ns === namespace ? labels : undefined), synced: () => true };
}

/** The cluster-wide configuration: the flags as config-features sets them, no scope applied. */
export function withoutScopes(config: ConfigSnapshot): ConfigSnapshot {
  return config.featureScopes.size === 0 ? config : Object.freeze({ ...config, featureScopes: NO_SCOPES });
}

/** A namespace and what its scopes make of it. */
export interface NamespaceScopes {
  readonly namespace: string;
  /** Undefined: not known (no cluster, no --namespace-labels); only scopes naming the namespace take it in. */
  readonly labels: NamespaceLabels;
  /** The configuration as requests in the namespace are validated: the narrowed flags Disabled, no scope left to apply. */
  readonly config: ConfigSnapshot;
  readonly narrowed: readonly FeatureScope[];
}

/** The configuration `namespace` (with `labels`) is validated with. */
export function inNamespace(config: ConfigSnapshot, namespace: string, labels: NamespaceLabels): NamespaceScopes {
  const narrowed = narrowingScopes(config.admission.features, config.featureScopes, namespace, labels);
  return { namespace, labels, config: withoutScopes(narrowedSnapshot(config, narrowed)), narrowed };
}

/** A flag's scope as `duckbill features` shows it: `-` without one; with a namespace, whether it is inside. */
export function scopeCell(config: ConfigSnapshot, key: string, ns?: NamespaceScopes): string {
  const scope = config.featureScopes.get(key);
  if (scope === undefined) return "-";
  if (ns === undefined) return describeScope(scope);
  return `${inScope(scope, ns.namespace, ns.labels) ? "inside" : "outside"}: ${describeScope(scope)}`;
}

/** The scope as JSON: its selector and names, and with a namespace whether it is inside. */
export function scopeJson(config: ConfigSnapshot, key: string, ns?: NamespaceScopes): Record<string, unknown> | undefined {
  const scope = config.featureScopes.get(key);
  if (scope === undefined) return undefined;
  return { selector: Object.fromEntries(scope.selector), namespaces: scope.namespaces, ...(ns === undefined ? {} : { inside: inScope(scope, ns.namespace, ns.labels) }) };
}
