import { decodeGo, type GoType } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import { formatGvk } from "../apis/gvk.js";
import type { KnativeProfile } from "../config/profile.js";
import type { KindRules, KObject } from "../serving/registry.js";
import { decodeOptionsOf } from "./decode-options.js";

export type ObjectDecode = { ok: true; value: KObject | undefined } | { ok: false; error: string };

const TYPE_OF_KIND = new WeakMap<KindRules, GoType | undefined>();

/** The Go type of the rules' kind (knativeTypes), looked up once per rules. */
function goTypeOfKind(rules: KindRules): GoType | undefined {
  if (TYPE_OF_KIND.has(rules)) return TYPE_OF_KIND.get(rules);
  const type = knativeTypes.get(formatGvk(rules.gvk));
  TYPE_OF_KIND.set(rules, type);
  return type;
}

/**
 * Decodes `request.object` / `request.oldObject` into the kind's Go shape (knative.dev/pkg
 * webhook/resourcesemantics/defaulting/defaulting.go: mutate, roundTripPatch): the result
 * is what Knative's `json.Marshal(decoded)` gives, i.e. the round-tripped object, freshly built and owned by
 * the caller. Absent or null objects decode to undefined (Go's empty RawExtension).
 */
export function decodeObject(rules: KindRules, raw: unknown, which: "new" | "old", profile: KnativeProfile): ObjectDecode {
  if (raw === undefined) return { ok: true, value: undefined };
  const type = goTypeOfKind(rules);
  if (type === undefined) return { ok: false, error: `unhandled kind: ${formatGvk(rules.gvk)}` };
  const r = decodeGo(type, raw, decodeOptionsOf(profile));
  if (!r.ok) return { ok: false, error: `cannot decode incoming ${which} object: ${r.error}` };
  return { ok: true, value: r.value as KObject };
}
