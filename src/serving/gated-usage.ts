/**
 * Impact warnings for `config-features` changes: which existing Services and Configurations use a
 * gated field, kept as one small number per object, and the warnings /config-validation adds when a change
 * restricts a flag those objects rely on. Pure: src/kube/gated-usage-watch.ts feeds the index from a list/watch, the
 * admission layer reads it through the request env.
 */
import type { FeaturesConfig, Flag } from "../config/types.js";
import { isJsonObject, objectField, arrayField } from "./field-mask.js";
import { podSpecOf } from "../duck/podspecable.js";
import { FEATURE_GATES, gatedFieldsUsed, type FeatureGate, type GateCheck } from "./feature-gates.js";

export type UsageKind = "Service" | "Configuration";
export const USAGE_KINDS: readonly UsageKind[] = ["Service", "Configuration"];

/** The gates a pod-spec field can trip, each with one bit of an object's summary (28 today: an SMI). */
const BIT_GATES: readonly FeatureGate[] = FEATURE_GATES.filter((g) => g.fields.length > 0 && (g.check === "mask" || g.check === "enabled" || g.check === "mask+enabled"));
const BIT_OF = new Map<string, number>(BIT_GATES.map((g, i) => [g.key, 1 << i]));
/** A container adds exactly [NET_BIND_SERVICE], which secure-pod-defaults Enabled permits on its own. */
const NET_BIND_BIT = 1 << BIT_GATES.length;
const SECURITY_CONTEXT_BIT = BIT_OF.get("kubernetes.podspec-securitycontext") ?? 0;
const SECURE_POD_DEFAULTS = "secure-pod-defaults";
const TEMPLATE_PREFIX = "spec.template.spec.";

/** Default bound on stored objects (about 10 MB at the measured ~100 bytes each; docs/cli.md). */
export const DEFAULT_USAGE_CAPACITY = 100_000;

/** How many objects a warning names before "and N more". */
export const NAMES_PER_WARNING = 10;

function usesNetBindOnly(containers: readonly unknown[]): boolean {
  for (const c of containers) {
    if (!isJsonObject(c)) continue;
    const add = arrayField(objectField(objectField(c, "securityContext") ?? {}, "capabilities") ?? {}, "add");
    if (add.length === 1 && add[0] === "NET_BIND_SERVICE") return true;
  }
  return false;
}

/**
 * The summary of a Service or Configuration: one bit per gate whose fields its template uses (gatedFieldsUsed
 * on podSpecOf), plus whether a container adds exactly NET_BIND_SERVICE. 0: nothing gated (not stored).
 */
export function usageBits(kind: UsageKind, obj: unknown): number {
  const ps = podSpecOf(kind, obj);
  if (ps === undefined || !isJsonObject(ps.spec)) return 0;
  let bits = 0;
  for (const use of gatedFieldsUsed(ps.spec)) bits |= BIT_OF.get(use.key) ?? 0;
  if (usesNetBindOnly(arrayField(ps.spec, "containers")) || usesNetBindOnly(arrayField(ps.spec, "initContainers"))) bits |= NET_BIND_BIT;
  return bits;
}

/** A Configuration a Service controls: its template comes from the Service, whose update is the one denied. */
export function ownedByService(obj: unknown): boolean {
  const refs = isJsonObject(obj) ? arrayField(objectField(obj, "metadata") ?? {}, "ownerReferences") : [];
  return refs.some((r) => isJsonObject(r) && r.kind === "Service" && r.controller === true);
}

/** `namespace/name` of an object, or undefined when it has no name. */
export function objectKey(obj: unknown): string | undefined {
  const meta = isJsonObject(obj) ? objectField(obj, "metadata") : undefined;
  const name = meta?.name;
  if (typeof name !== "string" || name === "") return undefined;
  const ns = typeof meta?.namespace === "string" ? meta.namespace : "";
  return `${ns}/${name}`;
}

/** What the admission layer reads (RequestEnv.gatedUsage). */
export interface GatedUsageView {
  /** Both kinds were listed at least once. */
  synced(): boolean;
  /** Some object was not stored because the index reached its capacity: lists may be incomplete. */
  full(): boolean;
  readonly capacity: number;
  /** The stored objects of a kind: `namespace/name` → summary bits. */
  entries(kind: UsageKind): Iterable<readonly [string, number]>;
}

/**
 * The index: per kind, `namespace/name` → summary bits, only for objects that use a gated field. At most
 * `capacity` objects in all; beyond that adds are refused and full() says so until a list fits again.
 */
export class GatedUsageIndex implements GatedUsageView {
  private readonly maps: Record<UsageKind, Map<string, number>> = { Service: new Map(), Configuration: new Map() };
  private readonly listed: Record<UsageKind, boolean> = { Service: false, Configuration: false };
  private readonly dropped: Record<UsageKind, number> = { Service: 0, Configuration: 0 };

  constructor(readonly capacity = DEFAULT_USAGE_CAPACITY) {}

  synced(): boolean {
    return this.listed.Service && this.listed.Configuration;
  }

  full(): boolean {
    return this.dropped.Service + this.dropped.Configuration > 0;
  }

  size(): number {
    return this.maps.Service.size + this.maps.Configuration.size;
  }

  entries(kind: UsageKind): Iterable<readonly [string, number]> {
    return this.maps[kind].entries();
  }

  /** An ADDED or MODIFIED object (or one listed): stored when it uses a gated field, forgotten otherwise. */
  observe(kind: UsageKind, obj: unknown): void {
    const key = objectKey(obj);
    if (key === undefined) return;
    this.set(kind, key, kind === "Configuration" && ownedByService(obj) ? 0 : usageBits(kind, obj));
  }

  /** A DELETED object. */
  forget(kind: UsageKind, obj: unknown): void {
    const key = objectKey(obj);
    if (key !== undefined) this.maps[kind].delete(key);
  }

  set(kind: UsageKind, key: string, bits: number): void {
    const map = this.maps[kind];
    if (bits === 0) {
      map.delete(key);
      return;
    }
    if (!map.has(key) && this.size() >= this.capacity) {
      this.dropped[kind]++;
      return;
    }
    map.set(key, bits);
  }

  /** A complete list of a kind: replaces what was stored for it. */
  replace(kind: UsageKind, summaries: Iterable<readonly [string, number]>): void {
    this.maps[kind] = new Map();
    this.dropped[kind] = 0;
    for (const [key, bits] of summaries) this.set(kind, key, bits);
    this.listed[kind] = true;
  }
}

/** Whether a flag value lets the gated fields through, by how the webhook reads the flag (FeatureGate.check). */
export function permits(check: GateCheck, flag: Flag): boolean {
  return check === "mask" ? flag !== "Disabled" : flag === "Enabled";
}

/** A flag change that can deny objects which passed before. */
export interface Restriction {
  readonly key: string;
  readonly from: Flag;
  readonly to: Flag;
  /** Objects whose summary matches are affected. */
  readonly affects: (bits: number) => boolean;
  /** The fields concerned, for the warning. */
  readonly fields: readonly string[];
  readonly verdict: string;
}

/**
 * The restricting changes from `before` to `after`: a gated field no longer permitted (Enabled or Allowed →
 * Disabled; Enabled → Allowed for `enabled` and `mask+enabled` gates), and any change of secure-pod-defaults
 * (it permits the pod securityContext and capabilities.add [NET_BIND_SERVICE], and changes defaulting).
 */
export function restrictions(before: FeaturesConfig, after: FeaturesConfig): Restriction[] {
  const out: Restriction[] = [];
  for (const g of BIT_GATES) {
    const from = before[g.field];
    const to = after[g.field];
    if (!permits(g.check, from) || permits(g.check, to)) continue;
    const bit = BIT_OF.get(g.key) ?? 0;
    out.push({ key: g.key, from, to, affects: (b) => (b & bit) !== 0, fields: g.fields.map((f) => TEMPLATE_PREFIX + f), verdict: "will be denied" });
  }
  const from = before.secureDefaults;
  const to = after.secureDefaults;
  if (from !== to) {
    // The pod securityContext is permitted anyway while its own flag is not Disabled; capabilities.add while Enabled.
    const sc = after.podSpecSecurityContext === "Disabled";
    const add = after.containerSpecAddCapabilities !== "Enabled";
    out.push({
      key: SECURE_POD_DEFAULTS,
      from,
      to,
      affects: (b) => (sc && (b & SECURITY_CONTEXT_BIT) !== 0) || (add && (b & NET_BIND_BIT) !== 0),
      fields: [`${TEMPLATE_PREFIX}securityContext`, `${TEMPLATE_PREFIX}containers[*].securityContext.capabilities.add`],
      verdict: "may be denied or defaulted differently",
    });
  }
  return out;
}

/** `namespace/name` keys sorted by namespace, then name. */
function byNamespaceThenName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function affectedObjects(view: GatedUsageView, r: Restriction): string[] {
  const out: string[] = [];
  for (const kind of USAGE_KINDS) {
    const keys: string[] = [];
    for (const [key, bits] of view.entries(kind)) if (r.affects(bits)) keys.push(key);
    keys.sort(byNamespaceThenName);
    for (const k of keys) out.push(`${kind} ${k}`);
  }
  return out;
}

/**
 * The warnings for a change of `config-features` from `before` to `after`: one line per restricting change
 * that affects stored objects (Services first, then Configurations, each sorted by namespace and name, at most
 * NAMES_PER_WARNING named), a last line when the index is full (even if no line names an object); one line when it has not synced yet.
 */
export function impactWarnings(before: FeaturesConfig, after: FeaturesConfig, view: GatedUsageView): string[] {
  const changes = restrictions(before, after);
  if (changes.length === 0) return [];
  if (!view.synced()) {
    const what = changes.map((r) => `${r.key} ${r.from} → ${r.to}`).join(", ");
    return [`impact on existing Services and Configurations unknown (${what}): the usage index has not synced yet`];
  }
  const out: string[] = [];
  for (const r of changes) {
    const objects = affectedObjects(view, r);
    if (objects.length === 0) continue;
    const named = objects.slice(0, NAMES_PER_WARNING).join(", ");
    const more = objects.length > NAMES_PER_WARNING ? `, and ${objects.length - NAMES_PER_WARNING} more` : "";
    const noun = objects.length === 1 ? "1 existing object" : `${objects.length} existing objects`;
    out.push(`${r.key} ${r.from} → ${r.to}: the next update of ${noun} ${r.verdict} (${r.fields.join(", ")}): ${named}${more}`);
  }
  if (view.full()) out.push(`usage index full (${view.capacity} objects); the list may be incomplete`);
  return out;
}

/** The namespace of a `namespace/name` key. */
function namespaceOfKey(key: string): string {
  const slash = key.indexOf("/");
  return slash === -1 ? "" : key.slice(0, slash);
}

/**
 * The warnings for a change of the flags in effect per namespace, `before(ns)` to `after(ns)` (a scope changed in
 * config-features-scopes, a namespace relabelled out of a scope): one line per restricting change and namespace that
 * affects stored objects, in namespace order, as impactWarnings words them, with the namespace named. `only`
 * restricts the namespaces looked at (a relabelled namespace). One line when the index has not synced yet.
 */
export function namespacedImpactWarnings(before: (namespace: string) => FeaturesConfig, after: (namespace: string) => FeaturesConfig, view: GatedUsageView, only?: string): string[] {
  const perNamespace = new Map<string, Restriction[]>();
  const restrictionsIn = (ns: string): Restriction[] => {
    let r = perNamespace.get(ns);
    if (r === undefined) perNamespace.set(ns, (r = restrictions(before(ns), after(ns))));
    return r;
  };
  if (!view.synced()) {
    const changes = only === undefined ? [] : restrictionsIn(only);
    const what = changes.map((r) => `${r.key} ${r.from} → ${r.to}`).join(", ");
    return [`impact on existing Services and Configurations unknown${what === "" ? "" : ` (${what}${only === undefined ? "" : ` in namespace ${only}`})`}: the usage index has not synced yet`];
  }
  /** `key\nnamespace` → the restriction and the objects it affects there. */
  const affected = new Map<string, { readonly r: Restriction; readonly ns: string; readonly objects: string[] }>();
  for (const kind of USAGE_KINDS) {
    const keys = [...view.entries(kind)].filter(([key]) => only === undefined || namespaceOfKey(key) === only);
    keys.sort((a, b) => byNamespaceThenName(a[0], b[0]));
    for (const [key, bits] of keys) {
      const ns = namespaceOfKey(key);
      for (const r of restrictionsIn(ns)) {
        if (!r.affects(bits)) continue;
        const id = `${r.key}\n${ns}`;
        let entry = affected.get(id);
        if (entry === undefined) affected.set(id, (entry = { r, ns, objects: [] }));
        entry.objects.push(`${kind} ${key}`);
      }
    }
  }
  const out: string[] = [];
  const ordered = [...affected.values()].sort((a, b) => byNamespaceThenName(a.ns, b.ns) || byNamespaceThenName(a.r.key, b.r.key));
  for (const { r, ns, objects } of ordered) {
    const named = objects.slice(0, NAMES_PER_WARNING).join(", ");
    const more = objects.length > NAMES_PER_WARNING ? `, and ${objects.length - NAMES_PER_WARNING} more` : "";
    const noun = objects.length === 1 ? "1 existing object" : `${objects.length} existing objects`;
    out.push(`${r.key} ${r.from} → ${r.to} in namespace ${ns}: the next update of ${noun} ${r.verdict} (${r.fields.join(", ")}): ${named}${more}`);
  }
  if (out.length > 0 && view.full()) out.push(`usage index full (${view.capacity} objects); the list may be incomplete`);
  return out;
}
