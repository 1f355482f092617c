/**
 * `config-domain` (knative.dev/serving pkg/reconciler/route/config/domain.go: NewDomainFromConfigMap): every key but
 * `_example` holds YAML for `{selector: map[string]string, type: string}`, read with sigs.k8s.io/yaml.
 */
import type { ConfigData } from "../types.js";
import { STRING_MAP_TARGET, STRING_TARGET, yamlUnmarshalInto, type JsonTarget } from "../../go/yaml/yaml-to-json.js";

export const DOMAIN_CONFIG_NAME = "config-domain";

const EXAMPLE_KEY = "_example";

const DOMAIN_INTERNAL_CONFIG: JsonTarget = {
  kind: "struct",
  type: "config.domainInternalConfig",
  name: "domainInternalConfig",
  fields: [
    { json: "selector", target: STRING_MAP_TARGET },
    { json: "type", target: STRING_TARGET },
  ],
};

export function parseDomainConfig(data: ConfigData): string | undefined {
  // Go ranges over the map in random order; any failing key's error is a faithful answer.
  for (const key of Object.keys(data)) {
    if (key === EXAMPLE_KEY) continue;
    const parsed = yamlUnmarshalInto(data[key] as string, DOMAIN_INTERNAL_CONFIG);
    if (!parsed.ok) return parsed.error;
  }
  return undefined;
}
