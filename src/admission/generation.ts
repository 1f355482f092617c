/**
 * Generation bumping for the kinds named by `--generational` (knative.dev/pkg webhook/webhook.go:
 * updateGeneration, removed in February 2019, and docs/knative-behavior.md#duck-types-and-generations for Knative's
 * 2018 rule, docs/adr/0005-duck-types.md for how Duckbill's differs). `/defaulting` keeps `spec.generation` as the
 * count of spec changes:
 * - CREATE: 1, whatever the client sent;
 * - UPDATE of the main resource: the old generation + 1 when the spec without its `generation` differs
 *   semantically from the old spec, otherwise the old value (absent stays absent): clients can neither bump
 *   nor reset the counter;
 * - UPDATE of a subresource (status): the old value.
 * The generation is read through the Generational duck and written as a patch between two duck views, so
 * nothing outside `spec.generation` is touched.
 */
import { formatGvk, type GroupVersionKind } from "../apis/gvk.js";
import { isDNS1035Label, isDNS1123Subdomain } from "../go/apimachinery/validation.js";
import { createPatch, type JsonPatchOperation } from "../duck/patch.js";
import { Generational, generationOf, type GenerationalView } from "../duck/generational.js";
import { jsonSemanticEqualExcept } from "../duck/json-equal.js";
import { readAs } from "../duck/read.js";

/**
 * Parses `--generational` / `DUCKBILL_GENERATIONAL`: comma-separated `group/version/Kind` entries, blanks
 * around entries ignored, repeats dropped. Group, version and kind follow the CRD naming rules (a DNS-1123
 * subdomain; a DNS-1035 label; a DNS-1035 label when lower-cased). An empty value names no kind.
 */
export function parseGenerationalKinds(value: string): GroupVersionKind[] {
  if (value.trim() === "") return [];
  const out: GroupVersionKind[] = [];
  const seen = new Set<string>();
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    const gvk = parseEntry(entry);
    const key = formatGvk(gvk);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(gvk);
  }
  return out;
}

function parseEntry(entry: string): GroupVersionKind {
  const fail = (why: string): Error => new Error(`invalid generational kind "${entry}": ${why}`);
  if (entry === "") throw fail("must be group/version/Kind, e.g. example.dev/v1/Widget (empty entry in the list)");
  const parts = entry.split("/");
  if (parts.length !== 3) throw fail("must be group/version/Kind, e.g. example.dev/v1/Widget");
  const [group, version, kind] = parts as [string, string, string];
  if (group === "") throw fail("group must not be empty (core kinds have no spec.generation to maintain)");
  const groupErrors = isDNS1123Subdomain(group);
  if (groupErrors.length > 0) throw fail(`group ${groupErrors.join("; ")}`);
  if (version === "") throw fail("version must not be empty");
  const versionErrors = isDNS1035Label(version);
  if (versionErrors.length > 0) throw fail(`version ${versionErrors.join("; ")}`);
  if (kind === "") throw fail("Kind must not be empty");
  const kindErrors = isDNS1035Label(kind.toLowerCase());
  if (kindErrors.length > 0) throw fail(`Kind must be a DNS-1035 label when lower-cased: ${kindErrors.join("; ")}`);
  return { group, version, kind };
}

/** The `AdmissionDeps.generational` set: formatGvk keys. */
export function generationalKeys(kinds: readonly GroupVersionKind[]): ReadonlySet<string> {
  return new Set(kinds.map(formatGvk));
}

/**
 * The resource (plural) a kind is most likely served as, for webhook rules: apimachinery's
 * meta.UnsafeGuessKindToResource (lower case; `s` → `ses`, `y` → `ies`, `endpoints` unchanged, else `+s`).
 * A CRD with an irregular plural is not matched by the guess.
 */
export function kindToResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular === "" || singular.endsWith("endpoints")) return singular;
  if (singular.endsWith("s")) return `${singular}es`;
  if (singular.endsWith("y")) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/**
 * The generational kinds the mutating webhook's rules must add to the registered ones, with their guessed
 * plural (`{gvk, plural}`, as KindRules and the webhook reconciler describe kinds). Knative's own kinds named
 * generational are already routed to /defaulting and are left out.
 */
export function generationalWebhookKinds(
  kinds: readonly GroupVersionKind[],
  registered: readonly { readonly gvk: GroupVersionKind }[],
): Array<{ gvk: GroupVersionKind; plural: string }> {
  const known = new Set(registered.map((k) => formatGvk(k.gvk)));
  return kinds.filter((k) => !known.has(formatGvk(k))).map((gvk) => ({ gvk, plural: kindToResource(gvk.kind) }));
}

/** The old object as the rule needs it: its generation (undefined when absent) and its spec. */
export interface OldGeneration {
  readonly generation: number | undefined;
  readonly spec: unknown;
}

/**
 * The generation the admitted object must carry, or undefined for none. `old` is undefined on CREATE;
 * `newSpec` is the spec as it will be stored (after defaulting, for Knative kinds).
 */
export function nextGeneration(old: OldGeneration | undefined, newSpec: unknown, subResource: string): number | undefined {
  if (old === undefined) return 1;
  if (subResource !== "") return old.generation;
  if (jsonSemanticEqualExcept(old.spec, newSpec, "generation")) return old.generation;
  return (old.generation ?? 0) + 1;
}

export type GenerationRead = { ok: true; now: GenerationalView; old: GenerationalView | undefined } | { ok: false; error: string };

/** Reads the new and (when present) old object as Generational; errors in Knative's decode-failure words. */
export function readGenerational(newObject: unknown, oldObject: unknown): GenerationRead {
  const now = readAs(newObject, Generational);
  if (!now.ok) return { ok: false, error: `cannot decode incoming new object: ${now.error}` };
  if (oldObject === undefined) return { ok: true, now: now.view, old: undefined };
  const old = readAs(oldObject, Generational);
  if (!old.ok) return { ok: false, error: `cannot decode incoming old object: ${old.error}` };
  return { ok: true, now: now.view, old: old.view };
}

/** The patch that gives the object behind `view` the generation `target` (none when it already has it). */
export function generationPatch(view: GenerationalView, target: number | undefined): JsonPatchOperation[] {
  const after = withGeneration(view, target);
  return after === view ? [] : createPatch(view, after);
}

/** `view` with `spec.generation` set to `target` (removed when undefined), or `view` itself when unchanged. */
export function withGeneration<V extends GenerationalView>(view: V, target: number | undefined): V {
  const spec = view.spec;
  const current = generationOf(view);
  if (current === target) return view;
  if (target === undefined) {
    const rest: Record<string, unknown> = { ...spec };
    delete rest.generation;
    return { ...view, spec: rest };
  }
  return { ...view, spec: { ...spec, generation: target } };
}

export function specOf(object: unknown): unknown {
  return typeof object === "object" && object !== null && !Array.isArray(object) ? (object as Record<string, unknown>).spec : undefined;
}
