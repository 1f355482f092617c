/**
 * `config-network` (knative.dev/networking pkg/config/config.go: NewConfigFromMap): legacy camelCase keys are
 * parsed before the current ones, then the rollout duration, the domain and tag templates (executed
 * against sample values), and the enumerated http-protocol / TLS settings.
 */
import { goQuote } from "../../go/strconv/quote.js";
import { parseGoTemplate } from "../../go/text/template/template.js";
import { STRING, type GoType, type GoValue, type StructGetter, type StructType } from "../../go/text/template/values.js";
import type { GoParse } from "../../go/strconv/strconv.js";
import { asBool, asString, lookup } from "../configmap-parse.js";
import { DEFAULT_PROFILE, urlRulesOfToolchain, type KnativeProfile } from "../profile.js";
import type { ConfigData } from "../types.js";
import { asInt } from "./configmap-ints.js";
import { checkRenderedDomain } from "./domain-url.js";
import { goLowerEquals } from "../../go/strings/lower.js";
import { STRING_MAP_TARGET, STRING_SLICE_TARGET, STRING_TARGET, yamlUnmarshalInto, type JsonTarget } from "../../go/yaml/yaml-to-json.js";

export const NETWORK_CONFIG_NAME = "config-network";

const DEFAULT_DOMAIN_TEMPLATE = "{{.Name}}.{{.Namespace}}.{{.Domain}}";
const DEFAULT_TAG_TEMPLATE = "{{.Tag}}-{{.Name}}";


/** metav1.LabelSelector as encoding/json sees it. */
const LABEL_SELECTOR: JsonTarget = {
  kind: "struct",
  type: "v1.LabelSelector",
  name: "LabelSelector",
  fields: [
    { json: "matchLabels", target: STRING_MAP_TARGET },
    {
      json: "matchExpressions",
      target: {
        kind: "slice",
        type: "[]v1.LabelSelectorRequirement",
        elem: {
          kind: "struct",
          type: "v1.LabelSelectorRequirement",
          name: "LabelSelectorRequirement",
          fields: [
            { json: "key", target: STRING_TARGET },
            { json: "operator", target: { kind: "string", type: "v1.LabelSelectorOperator" } },
            { json: "values", target: STRING_SLICE_TARGET },
          ],
        },
      },
    },
  ],
};

const NIL_STRING_MAP: GoValue = { type: { kind: "map", name: "map[string]string", elem: STRING } as GoType, v: null };

function structValue(name: string, fields: Readonly<Record<string, GoValue>>): GoValue {
  const type: StructType = { kind: "struct", name, fields: Object.keys(fields) };
  const get: StructGetter = (f) => fields[f] as GoValue;
  return { type, v: get };
}

/** DomainTemplateValues{Name: "foo", Namespace: "bar", Domain: "baz.com"} (nil maps). */
const DOMAIN_TEMPLATE_SAMPLE = structValue("config.DomainTemplateValues", {
  Name: { type: STRING, v: "foo" },
  Namespace: { type: STRING, v: "bar" },
  Domain: { type: STRING, v: "baz.com" },
  Annotations: NIL_STRING_MAP,
  Labels: NIL_STRING_MAP,
});

/** TagTemplateValues{Name: "foo", Tag: "v2"}. */
const TAG_TEMPLATE_SAMPLE = structValue("config.TagTemplateValues", {
  Name: { type: STRING, v: "foo" },
  Tag: { type: STRING, v: "v2" },
});

/** The parse steps that can fail, in cm.Parse order (string keys cannot fail). */
const FALLIBLE_KEYS: ReadonlyArray<readonly [string, "int" | "bool"]> = [
  ["rolloutDuration", "int"],
  ["autocreateClusterDomainClaims", "bool"],
  ["rollout-duration", "int"],
  ["autocreate-cluster-domain-claims", "bool"],
  ["enable-mesh-pod-addressability", "bool"],
  ["internal-encryption", "bool"],
];

function checkEnum(key: string, value: string, words: readonly string[]): string | undefined {
  return words.some((w) => goLowerEquals(value, w)) ? undefined : `${key} with value: ${goQuote(value)} in config-network ConfigMap is not supported`;
}

export function parseNetworkConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): string | undefined {
  const rules = profile.configMapParse;
  let rollout = 0n;
  for (const [key, kind] of FALLIBLE_KEYS) {
    const r: GoParse<unknown> = kind === "int" ? asInt(data, key, rollout, rules) : asBool(data, key, false, rules);
    if (!r.ok) return r.error;
    if (kind === "int") rollout = r.value as bigint;
  }
  const selector = lookup(data, "namespace-wildcard-cert-selector");
  if (selector !== undefined && selector.length > 0) {
    const parsed = yamlUnmarshalInto(selector, LABEL_SELECTOR);
    if (!parsed.ok) return parsed.error;
  }
  if (rollout < 0n) return `rollout-duration must be a positive integer, but was ${rollout}`;

  const go = { maxStackDepth: profile.toolchain.templateMaxStackDepth };
  const domainTemplate = parseGoTemplate("domain-template", asString(data, "domain-template", asString(data, "domainTemplate", DEFAULT_DOMAIN_TEMPLATE, rules), rules), go);
  if (!domainTemplate.ok) return domainTemplate.error;
  const rendered = domainTemplate.template.execute(DOMAIN_TEMPLATE_SAMPLE);
  if (!rendered.ok) return rendered.error;
  const urlErr = checkRenderedDomain(rendered.value, urlRulesOfToolchain(profile.toolchain));
  if (urlErr !== undefined) return urlErr;

  const tagTemplate = parseGoTemplate("tag-template", asString(data, "tag-template", asString(data, "tagTemplate", DEFAULT_TAG_TEMPLATE, rules), rules), go);
  if (!tagTemplate.ok) return tagTemplate.error;
  const tag = tagTemplate.template.execute(TAG_TEMPLATE_SAMPLE);
  if (!tag.ok) return tag.error;

  const httpProtocol = lookup(data, "http-protocol") ?? lookup(data, "httpProtocol") ?? "";
  if (!["", "enabled", "disabled", "redirected"].some((w) => goLowerEquals(httpProtocol, w))) {
    return `httpProtocol ${lookup(data, "http-protocol") ?? ""} in config-network ConfigMap is not supported`;
  }
  return (
    checkEnum("system-internal-tls", lookup(data, "system-internal-tls") ?? "", ["", "disabled", "enabled"]) ??
    checkEnum("cluster-local-domain-tls", lookup(data, "cluster-local-domain-tls") ?? "", ["", "disabled", "enabled"])
  );
}
