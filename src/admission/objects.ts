import { decodeGo } from "../go/encoding/json/index.js";
import { goTypeOf, knativeTypes } from "../apis/knative-types.js";
import type { GoField } from "../go/encoding/json/types.js";
import { formatGvk } from "../apis/gvk.js";
import type { KnativeProfile } from "../config/profile.js";
import type { KindRules, KObject } from "../serving/registry.js";

const hiddenByProfile = new WeakMap<KnativeProfile, ReadonlySet<GoField>>();

/** The release's unknownK8sFields as fields of the tables (shared by every struct that embeds them; built once). */
function hiddenFieldsOf(profile: KnativeProfile): ReadonlySet<GoField> {
  let hidden = hiddenByProfile.get(profile);
  if (hidden === undefined) {
    const m = new Set<GoField>();
    for (const [expr, fields] of Object.entries(profile.unknownK8sFields)) {
      const t = goTypeOf(expr);
      if (t.kind !== "struct") continue;
      for (const name of fields) {
        const f = t.exact.get(name);
        if (f !== undefined) m.add(f);
      }
    }
    hidden = m;
    hiddenByProfile.set(profile, hidden);
  }
  return hidden;
}

export type ObjectDecode = { ok: true; value: KObject | undefined } | { ok: false; error: string };

/**
 * Decodes `request.object` / `request.oldObject` into the kind's Go shape (knative.dev/pkg
 * webhook/resourcesemantics/defaulting/defaulting.go: mutate, roundTripPatch): the result
 * is what Knative's `json.Marshal(decoded)` gives, i.e. the round-tripped object, freshly built and owned by
 * the caller. Absent or null objects decode to undefined (Go's empty RawExtension).
 */
export function decodeObject(rules: KindRules, raw: unknown, which: "new" | "old", profile: KnativeProfile): ObjectDecode {
  if (raw === undefined) return { ok: true, value: undefined };
  const type = knativeTypes.get(formatGvk(rules.gvk));
  if (type === undefined) return { ok: false, error: `unhandled kind: ${formatGvk(rules.gvk)}` };
  const r = decodeGo(type, raw, { embeddedFieldNames: profile.toolchain.jsonEmbeddedFieldNames, hiddenFields: hiddenFieldsOf(profile) });
  if (!r.ok) return { ok: false, error: `cannot decode incoming ${which} object: ${r.error}` };
  return { ok: true, value: r.value as KObject };
}
