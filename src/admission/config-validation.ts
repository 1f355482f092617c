import { decodeGo } from "../go/encoding/json/index.js";
import { configMapType } from "../apis/knative-types.js";
import { formatGvk } from "../apis/gvk.js";
import { stackOverflowError } from "../config/configmap-parse.js";
import { FEATURE_SCOPES_CONFIG_NAME, featuresInNamespace, parseFeatureScopes, type FeatureScopes } from "../config/feature-scopes.js";
import { FEATURES_CONFIG_NAME, parseFeaturesConfig } from "../config/features.js";
import { DEFAULT_PROFILE } from "../config/profile.js";
import type { FeaturesConfig } from "../config/types.js";
import { impactWarnings, namespacedImpactWarnings, type GatedUsageView } from "../serving/gated-usage.js";
import { decodeOptionsOf } from "./decode-options.js";
import type { AdmissionDeps, RequestEnv } from "./deps.js";
import { ALLOWED, deny, type Decision } from "./response.js";
import type { AdmissionRequest } from "./review.js";

const EMPTY: Readonly<Record<string, string>> = Object.freeze(Object.create(null) as Record<string, string>);

function stringMap(v: unknown): Readonly<Record<string, string>> {
  return typeof v === "object" && v !== null ? (v as Record<string, string>) : EMPTY;
}

/** The old object's data on UPDATE, else undefined. */
function previousData(req: AdmissionRequest, env: RequestEnv): Readonly<Record<string, string>> | undefined {
  if (req.operation !== "UPDATE" || req.oldObject === undefined || req.oldObject === null) return undefined;
  const r = decodeGo(configMapType, req.oldObject, decodeOptionsOf(env.config.profile));
  return r.ok ? stringMap((r.value as { data?: unknown }).data) : undefined;
}

/** The flags before the change: the review's oldObject on UPDATE, else the snapshot in effect (or defaults). */
function previousFeatures(req: AdmissionRequest, env: RequestEnv): FeaturesConfig {
  const data = previousData(req, env);
  return data === undefined ? env.config.admission.features : parseFeaturesConfig(data, env.config.profile);
}

/** The scopes before the change: the review's oldObject on UPDATE (when it parses), else the snapshot's. */
function previousScopes(req: AdmissionRequest, env: RequestEnv): FeatureScopes {
  const data = previousData(req, env);
  const parsed = data === undefined ? undefined : parseFeatureScopes(data, env.config.profile);
  return parsed?.ok === true ? parsed.value : env.config.featureScopes;
}

/**
 * Impact warnings for an admitted change of config-features-scopes: per namespace, the flags in effect before and
 * after (config/feature-scopes.ts: featuresInNamespace), with the namespaces' labels known now.
 */
function scopesImpact(req: AdmissionRequest, env: RequestEnv, usage: GatedUsageView, data: Readonly<Record<string, string>>): string[] | undefined {
  const after = parseFeatureScopes(data, env.config.profile);
  if (!after.ok) return undefined;
  const before = previousScopes(req, env);
  const features = env.config.admission.features;
  const labels = (ns: string): ReadonlyMap<string, string> | undefined => env.namespaces?.labels(ns);
  const warnings = namespacedImpactWarnings(
    (ns) => featuresInNamespace(features, before, ns, labels(ns)),
    (ns) => featuresInNamespace(features, after.value, ns, labels(ns)),
    usage,
  );
  return warnings.length === 0 ? undefined : warnings;
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
  if (env?.gatedUsage === undefined || (name !== FEATURES_CONFIG_NAME && name !== FEATURE_SCOPES_CONFIG_NAME)) return ALLOWED;
  const warnings = name === FEATURES_CONFIG_NAME ? featuresImpact(req, env, env.gatedUsage, data) : scopesImpact(req, env, env.gatedUsage, data);
  return warnings === undefined ? ALLOWED : { allowed: true, warnings };
}
