import { omitZeroFields } from "../apis/go-types.generated.js";
import { goTypeOf } from "../apis/knative-types.js";
import { urlRulesOfToolchain, type KnativeProfile } from "../config/profile.js";
import type { DecodeOptions } from "../go/encoding/json/index.js";
import type { GoField } from "../go/encoding/json/types.js";

const optionsByProfile = new WeakMap<KnativeProfile, DecodeOptions>();

/**
 * How the release's webhook binary decodes JSON into Go types: its Go toolchain's decode-error field paths
 * (profile.toolchain.jsonEmbeddedFieldNames) and url.Parse (profile.toolchain.urlIpLiterals, urlStrictColons), and its k8s.io/api's fields (profile.unknownK8sFields hidden from the
 * type tables, which hold the union of the releases; shared by every struct that embeds them). Built once a profile.
 */
export function decodeOptionsOf(profile: KnativeProfile): DecodeOptions {
  let options = optionsByProfile.get(profile);
  if (options === undefined) {
    const hidden = fieldsOf(profile.unknownK8sFields);
    options = Object.freeze({ embeddedFieldNames: profile.toolchain.jsonEmbeddedFieldNames, hiddenFields: hidden, omitZeroFields: OMIT_ZERO ? omitZeroFieldsOf(profile) : undefined, urlRules: urlRulesOfToolchain(profile.toolchain) });
    optionsByProfile.set(profile, options);
  }
  return options;
}

/**
 * Whether decoding applies the release's `omitzero` tags (the generated model's omitZeroFields: 1.23 and 1.24 leave a
 * zero ObjectMeta.creationTimestamp out where 1.17 writes null); `duckbill upgrade-check` does not count that
 * null-versus-absent as a defaults change (the API server stores both alike). docs/adr/0018-generated-go-type-model.md.
 */
const OMIT_ZERO = true;

/** The fields the release's Go types tag `omitzero`. */
export function omitZeroFieldsOf(profile: KnativeProfile): ReadonlySet<GoField> {
  return fieldsOf(omitZeroFields[profile.version]);
}

/** The table fields named by `{type expression: [JSON names]}`. */
function fieldsOf(byType: Readonly<Record<string, readonly string[]>>): Set<GoField> {
  const out = new Set<GoField>();
  for (const [expr, fields] of Object.entries(byType)) {
    const t = goTypeOf(expr);
    if (t.kind !== "struct") continue;
    for (const name of fields) {
      const f = t.exact.get(name);
      if (f !== undefined) out.add(f);
    }
  }
  return out;
}
