import { decodeGo } from "../go/encoding/json/index.js";
import { configMapType } from "../apis/knative-types.js";
import { formatGvk } from "../apis/gvk.js";
import { stackOverflowError } from "../config/configmap-parse.js";
import { FEATURES_CONFIG_NAME, parseFeaturesConfig } from "../config/features.js";
import { DEFAULT_PROFILE } from "../config/profile.js";
import type { FeaturesConfig } from "../config/types.js";
import { impactWarnings, type GatedUsageView } from "../serving/gated-usage.js";
import { decodeOptionsOf } from "./decode-options.js";
import type { AdmissionDeps, RequestEnv } from "./deps.js";
import { ALLOWED, deny, type Decision } from "./response.js";
import type { AdmissionRequest } from "./review.js";

const EMPTY: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);

function stringMap(v: unknown): Readonly<Record<string, string>> {
  return typeof v === "object" && v !== null ? (v as Record<string, string>) : EMPTY;
}

/** The flags before the change: the review's oldObject on UPDATE, else the snapshot in effect (or defaults). */
function previousFeatures(req: AdmissionRequest, env: RequestEnv): FeaturesConfig {
  if (req.operation === "UPDATE" && req.oldObject !== undefined && req.oldObject !== null) {
    const r = decodeGo(configMapType, req.oldObject, decodeOptionsOf(env.config.profile));
    if (r.ok) return parseFeaturesConfig(stringMap((r.value as { data?: unknown }).data), env.config.profile);
  }
  return env.config.admission.features;
}

/** Impact warnings for an admitted change of config-features; undefined when there are none. */
function featuresImpact(req: AdmissionRequest, env: RequestEnv, usage: GatedUsageView, data: Readonly<Record<string, string>>): string[] | undefined {
  const warnings = impactWarnings(previousFeatures(req, env), parseFeaturesConfig(data, env.config.profile), usage);
  return warnings.length === 0 ? undefined : warnings;
}

/**
 * /config-validation (knative.dev/pkg webhook/configmaps/configmaps.go: (*reconciler).Admit, validate;
 * docs/knative-behavior.md#config-validation). With `env.gatedUsage` an admitted
 * change of config-features also carries impact warnings (serving/gated-usage.ts).
 */
export function admitConfigMap(req: AdmissionRequest, deps: AdmissionDeps, env?: RequestEnv): Decision {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return ALLOWED;
  const { group, version, kind } = req.kind;
  if (group !== "" || version !== "v1" || kind !== "ConfigMap") {
    return deny(`validation failed: unhandled kind: ${formatGvk(req.kind)}`);
  }
  let name = "";
  let data = EMPTY;
  let annotations = EMPTY;
  if (req.object !== undefined) {
    // The ConfigMap is decoded as the release's Go decodes it: Go 1.24+ names the embedded TypeMeta in error paths
    // (`ConfigMap.TypeMeta.kind`; golang/go src/encoding/json/decode.go (*decodeState).object).
    const r = decodeGo(configMapType, req.object, decodeOptionsOf(env?.config.profile ?? DEFAULT_PROFILE));
    if (!r.ok) return deny(`validation failed: cannot decode incoming new object: ${r.error}`);
    const cm = r.value as { metadata?: { name?: string; annotations?: unknown }; data?: unknown };
    name = cm.metadata?.name ?? "";
    annotations = stringMap(cm.metadata?.annotations);
    data = stringMap(cm.data);
  }
  // A release that stopped validating a ConfigMap admits it whatever it holds (config/profile.ts).
  if (env?.config.profile.unvalidatedConfigMaps.includes(name) === true) return ALLOWED;
  const validator = deps.configMaps.lookup(name);
  if (validator === undefined) return ALLOWED;
  let failure: string | undefined;
  try {
    failure = validator(data, annotations, env?.config.profile);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    failure = stackOverflowError(name, e);
  }
  if (failure !== undefined) return deny(`validation failed: ${failure}`);
  if (env?.gatedUsage === undefined || name !== FEATURES_CONFIG_NAME) return ALLOWED;
  const warnings = featuresImpact(req, env, env.gatedUsage, data);
  return warnings === undefined ? ALLOWED : { allowed: true, warnings };
}
