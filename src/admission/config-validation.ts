import { configMapType, decodeGo } from "../apis/gojson/index.js";
import { formatGvk } from "../apis/gvk.js";
import type { AdmissionDeps } from "./deps.js";
import { ALLOWED, deny, type Decision } from "./response.js";
import type { AdmissionRequest } from "./review.js";

const EMPTY: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);

function stringMap(v: unknown): Readonly<Record<string, string>> {
  return typeof v === "object" && v !== null ? (v as Record<string, string>) : EMPTY;
}

/** /config-validation (knative/pkg webhook/configmaps, spec §1.3 and §5.1). */
export function admitConfigMap(req: AdmissionRequest, deps: AdmissionDeps): Decision {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return ALLOWED;
  const { group, version, kind } = req.kind;
  if (group !== "" || version !== "v1" || kind !== "ConfigMap") {
    return deny(`validation failed: unhandled kind: ${formatGvk(req.kind)}`);
  }
  let name = "";
  let data = EMPTY;
  let annotations = EMPTY;
  if (req.object !== undefined) {
    const r = decodeGo(configMapType, req.object);
    if (!r.ok) return deny(`validation failed: cannot decode incoming new object: ${r.error}`);
    const cm = r.value as { metadata?: { name?: string; annotations?: unknown }; data?: unknown };
    name = cm.metadata?.name ?? "";
    annotations = stringMap(cm.metadata?.annotations);
    data = stringMap(cm.data);
  }
  const validator = deps.configMaps.lookup(name);
  if (validator === undefined) return ALLOWED;
  const failure = validator(data, annotations);
  return failure === undefined ? ALLOWED : deny(`validation failed: ${failure}`);
}
