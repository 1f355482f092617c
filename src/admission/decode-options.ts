import { goTypeOf } from "../apis/knative-types.js";
import type { KnativeProfile } from "../config/profile.js";
import type { DecodeOptions } from "../go/encoding/json/index.js";
import type { GoField } from "../go/encoding/json/types.js";

const optionsByProfile = new WeakMap<KnativeProfile, DecodeOptions>();

/**
 * How the release's webhook binary decodes JSON into Go types: its Go toolchain's decode-error field paths
 * (profile.toolchain.jsonEmbeddedFieldNames) and its k8s.io/api's fields (profile.unknownK8sFields hidden from the
 * type tables, which hold the union of the releases; shared by every struct that embeds them). Built once a profile.
 */
export function decodeOptionsOf(profile: KnativeProfile): DecodeOptions {
  let options = optionsByProfile.get(profile);
  if (options === undefined) {
    const hidden = new Set<GoField>();
    for (const [expr, fields] of Object.entries(profile.unknownK8sFields)) {
      const t = goTypeOf(expr);
      if (t.kind !== "struct") continue;
      for (const name of fields) {
        const f = t.exact.get(name);
        if (f !== undefined) hidden.add(f);
      }
    }
    options = Object.freeze({ embeddedFieldNames: profile.toolchain.jsonEmbeddedFieldNames, hiddenFields: hidden });
    optionsByProfile.set(profile, options);
  }
  return options;
}
