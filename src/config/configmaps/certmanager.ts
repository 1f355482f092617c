/**
 * `config-certmanager` (knative.dev/serving pkg/reconciler/certificate/config/cert_manager.go:
 * NewCertManagerConfigFromConfigMap): each issuer key holds YAML
 * for a cert-manager `ObjectReference`, read with sigs.k8s.io/yaml; only decoding errors are reported.
 */
import { lookup } from "../configmap-parse.js";
import type { ConfigData } from "../types.js";
import { STRING_TARGET, yamlUnmarshalInto, type JsonTarget } from "../../go/yaml/yaml-to-json.js";

export const CERTMANAGER_CONFIG_NAME = "config-certmanager";

const ISSUER_KEYS = ["issuerRef", "clusterLocalIssuerRef", "systemInternalIssuerRef"] as const;

const OBJECT_REFERENCE: JsonTarget = {
  kind: "struct",
  type: "v1.ObjectReference",
  name: "ObjectReference",
  fields: [
    { json: "name", target: STRING_TARGET },
    { json: "kind", target: STRING_TARGET },
    { json: "group", target: STRING_TARGET },
  ],
};

export function parseCertManagerConfig(data: ConfigData): string | undefined {
  for (const key of ISSUER_KEYS) {
    const raw = lookup(data, key);
    if (raw === undefined) continue;
    const parsed = yamlUnmarshalInto(raw, OBJECT_REFERENCE);
    if (!parsed.ok) return parsed.error;
  }
  return undefined;
}
