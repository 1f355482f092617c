/**
 * The parsed admission configuration of a snapshot (docs/knative-behavior.md#configmaps): each ConfigMap through
 * Knative's parser.
 * A ConfigMap that is absent has Knative's defaults; one that does not parse falls back to the defaults too, and
 * its error is reported so the caller can log it (Knative's config store keeps its previous value instead).
 */
import { AUTOSCALER_CONFIG_NAME, DEFAULT_AUTOSCALER, parseAutoscalerConfig } from "./autoscaler.js";
import { DEFAULT_DEFAULTS, DEFAULTS_CONFIG_NAME, parseDefaultsConfig } from "./defaults.js";
import { DEFAULT_FEATURES, FEATURES_CONFIG_NAME, parseFeaturesConfig } from "./features.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile } from "./profile.js";
import type { ConfigData } from "./types.js";
import type { AdmissionConfig } from "./types.js";

export const DEFAULT_ADMISSION_CONFIG: AdmissionConfig = Object.freeze({
  features: DEFAULT_FEATURES,
  defaults: DEFAULT_DEFAULTS,
  autoscaler: DEFAULT_AUTOSCALER,
});

export interface ParsedAdmissionConfig {
  readonly config: AdmissionConfig;
  /** ConfigMap name → Knative's error text, for the ConfigMaps that did not parse. */
  readonly errors: ReadonlyMap<string, string>;
}

const NO_ERRORS: ReadonlyMap<string, string> = new Map();

/** Each ConfigMap of `data` as the release `profile` parses it. */
export function parseAdmissionConfig(data: ReadonlyMap<string, ConfigData>, profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION]): ParsedAdmissionConfig {
  const featuresData = data.get(FEATURES_CONFIG_NAME);
  const defaultsData = data.get(DEFAULTS_CONFIG_NAME);
  const autoscalerData = data.get(AUTOSCALER_CONFIG_NAME);
  if (featuresData === undefined && defaultsData === undefined && autoscalerData === undefined) {
    return { config: DEFAULT_ADMISSION_CONFIG, errors: NO_ERRORS };
  }
  const errors = new Map<string, string>();
  const features = featuresData === undefined ? DEFAULT_FEATURES : parseFeaturesConfig(featuresData, profile);
  let defaults = DEFAULT_DEFAULTS;
  if (defaultsData !== undefined) {
    const r = parseDefaultsConfig(defaultsData, profile);
    if (r.ok) defaults = r.value;
    else errors.set(DEFAULTS_CONFIG_NAME, r.error);
  }
  let autoscaler = DEFAULT_AUTOSCALER;
  if (autoscalerData !== undefined) {
    const r = parseAutoscalerConfig(autoscalerData, profile);
    if (r.ok) autoscaler = r.value;
    else errors.set(AUTOSCALER_CONFIG_NAME, r.error);
  }
  return { config: Object.freeze({ features, defaults, autoscaler }), errors: errors.size === 0 ? NO_ERRORS : errors };
}
