/**
 * What an upgrade changes in how Knative reads a ConfigMap, found from the two releases' profiles without asking
 * the webhook: keys the newer release ignores or starts to read, values it reads differently, ConfigMaps it stops
 * validating, defaults that change. Each note names the profile field it comes from. (Whether the ConfigMap stays
 * valid is asked of /config-validation itself: upgrade-compare.ts.)
 */
import { DEPLOYMENT_CONFIG_NAME } from "../../config/configmaps/deployment.js";
import { OPENTELEMETRY_COUNTERPARTS, readsObservabilityKey } from "../../config/configmaps/observability-keys.js";
import { OBSERVABILITY_CONFIG_NAME } from "../../config/configmaps/observability.js";
import { TRACING_CONFIG_NAME } from "../../config/configmaps/tracing.js";
import { EXAMPLE_KEY } from "../../config/example-checksum.js";
import { DEFAULT_FEATURES, FEATURES_CONFIG_NAME, flagValues, parseFlagOf } from "../../config/features.js";
import type { KnativeProfile } from "../../config/profile.js";
import type { ConfigData } from "../../config/types.js";
import { featureGate } from "../../serving/feature-gates.js";

export type ConfigMapNoteCategory = "unvalidated" | "validated" | "ignored" | "takes-effect" | "value-change" | "default-change";

export interface ConfigMapNote {
  readonly category: ConfigMapNoteCategory;
  /** The key the note is about, if one. */
  readonly key?: string;
  readonly message: string;
  /** The profile field (config/profile.ts) the note follows from. */
  readonly field: string;
}

/** The keys a user set: `_example` is documentation. */
function keysOf(data: ConfigData): string[] {
  return Object.keys(data)
    .filter((k) => k !== EXAMPLE_KEY)
    .sort();
}

/** `unvalidatedConfigMaps`: the webhook stops (or starts) validating the ConfigMap. */
function validationNotes(name: string, data: ConfigData, from: KnativeProfile, to: KnativeProfile): ConfigMapNote[] {
  const before = from.unvalidatedConfigMaps.includes(name);
  const after = to.unvalidatedConfigMaps.includes(name);
  if (before === after) return [];
  if (before) return [{ category: "validated", message: `Knative ${to.version}'s webhook validates ${name} (${from.version}'s admitted it whatever it held)`, field: "unvalidatedConfigMaps" }];
  const notes: ConfigMapNote[] = [{ category: "unvalidated", message: `Knative ${to.version}'s webhook no longer validates ${name}: it admits it whatever it holds`, field: "unvalidatedConfigMaps" }];
  // config-tracing left the webhook when tracing moved into config-observability's OpenTelemetry keys (serving v0.47.0).
  const keys = keysOf(data);
  if (name === TRACING_CONFIG_NAME && to.observabilitySchema === "opentelemetry" && keys.length > 0) {
    notes.push({
      category: "ignored",
      message: `${keys.join(", ")}: Knative ${to.version} takes tracing from ${OBSERVABILITY_CONFIG_NAME} (tracing-protocol, tracing-endpoint, tracing-sampling-rate) instead`,
      field: "observabilitySchema",
    });
  }
  return notes;
}

/** `observabilitySchema`: keys one schema reads and the other does not. */
function observabilityNotes(data: ConfigData, from: KnativeProfile, to: KnativeProfile): ConfigMapNote[] {
  if (from.observabilitySchema === to.observabilitySchema) return [];
  const field = "observabilitySchema";
  const notes: ConfigMapNote[] = [];
  for (const key of keysOf(data)) {
    const before = readsObservabilityKey(from.observabilitySchema, key);
    const after = readsObservabilityKey(to.observabilitySchema, key);
    if (before && !after) {
      const counterpart = to.observabilitySchema === "opentelemetry" ? OPENTELEMETRY_COUNTERPARTS[key] : undefined;
      const hint = counterpart === undefined ? "" : Object.hasOwn(data, counterpart) ? ` (${counterpart} is set)` : `; its ${to.observabilitySchema} counterpart is ${counterpart}`;
      notes.push({ category: "ignored", key, message: `not read by Knative ${to.version}'s ${to.observabilitySchema} schema${hint}`, field });
    } else if (!before && after) {
      notes.push({ category: "takes-effect", key, message: `read from Knative ${to.version} on (${from.version} ignores it)`, field });
    }
  }
  // knative.dev/pkg metrics/config.go exported to Prometheus unless told otherwise; observability/metrics/config.go's
  // default protocol is "none".
  const backend = data["metrics.backend-destination"] ?? "prometheus";
  if (from.observabilitySchema === "opencensus" && !Object.hasOwn(data, "metrics-protocol") && backend !== "none") {
    notes.push({
      category: "default-change",
      key: "metrics-protocol",
      message: `not set: Knative ${to.version} reads that as "none" and exports no metrics; ${from.version} exported them to ${JSON.stringify(backend)} (metrics.backend-destination)`,
      field,
    });
  }
  return notes;
}

/** The value of a config-features key as the release reads it: the parsed flag, or the default when the value is not one. */
function effectiveFlag(key: string, value: string, defaultFlag: string, profile: KnativeProfile): string {
  return parseFlagOf(key, value, profile) ?? defaultFlag;
}

/** The profile field that decides whether a release has the config-features flag `key`. */
function flagField(key: string, from: KnativeProfile, to: KnativeProfile): string {
  if ([...from.volumes.flags, ...to.volumes.flags].some((f) => f === key)) return "volumes.flags";
  if (from.controllerFlags.includes(key) || to.controllerFlags.includes(key)) return "controllerFlags";
  return featureGate(key)?.check === "dry-run" ? "podSpecDryRun" : "featureGatesOf";
}

/** What a flag that is gone does instead, where something does. */
const GONE_FLAG_HINT: Readonly<Record<string, string>> = {
  podSpecDryRun: "; the PodSpec dry run runs for every request with dryRun: true (kubectl apply --dry-run=server)",
};

/**
 * `volumes.flags`, `controllerFlags`, `podSpecDryRun` and `securePodDefaults.values`: flags one release has and the
 * other does not, values read differently.
 */
function featuresNotes(data: ConfigData, from: KnativeProfile, to: KnativeProfile): ConfigMapNote[] {
  const notes: ConfigMapNote[] = [];
  for (const key of keysOf(data)) {
    const value = data[key] ?? "";
    const before = featureGate(key, from);
    const after = featureGate(key, to);
    if (after === undefined) {
      const field = flagField(key, from, to);
      if (before !== undefined) notes.push({ category: "ignored", key, message: `not a Knative ${to.version} flag: ignored${to.podSpecDryRun === "request" ? (GONE_FLAG_HINT[field] ?? "") : ""}`, field });
      continue;
    }
    const defaultFlag = DEFAULT_FEATURES[after.field];
    const now = effectiveFlag(key, value, defaultFlag, to);
    if (before === undefined) {
      notes.push({ category: "takes-effect", key, message: `a Knative ${to.version} flag (${from.version} ignores it): ${JSON.stringify(value)} is read as ${now}`, field: flagField(key, from, to) });
      continue;
    }
    const was = effectiveFlag(key, value, defaultFlag, from);
    if (was === now) continue;
    const values = parseFlagOf(key, value, to) === undefined ? `, which takes ${flagValues(key, to).join(", ")}` : "";
    notes.push({
      category: "value-change",
      key,
      message: `${JSON.stringify(value)} is ${was} in Knative ${from.version} and ${now} in ${to.version}${values}`,
      field: key === "secure-pod-defaults" ? "securePodDefaults.values" : flagField(key, from, to),
    });
  }
  return notes;
}

/** `deploymentBoolKeys`: config-deployment keys one release reads and the other does not. */
function deploymentNotes(data: ConfigData, from: KnativeProfile, to: KnativeProfile): ConfigMapNote[] {
  const notes: ConfigMapNote[] = [];
  for (const key of keysOf(data)) {
    const before = from.deploymentBoolKeys.includes(key);
    const after = to.deploymentBoolKeys.includes(key);
    if (after && !before) notes.push({ category: "takes-effect", key, message: `read (as a bool) from Knative ${to.version} on (${from.version} ignores it)`, field: "deploymentBoolKeys" });
    if (before && !after) notes.push({ category: "ignored", key, message: `not read by Knative ${to.version}`, field: "deploymentBoolKeys" });
  }
  return notes;
}

/** Everything the profiles of `from` and `to` say about the ConfigMap `name` holding `data`. */
export function configMapNotes(name: string, data: ConfigData, from: KnativeProfile, to: KnativeProfile): ConfigMapNote[] {
  const notes = validationNotes(name, data, from, to);
  if (name === OBSERVABILITY_CONFIG_NAME) notes.push(...observabilityNotes(data, from, to));
  if (name === FEATURES_CONFIG_NAME) notes.push(...featuresNotes(data, from, to));
  if (name === DEPLOYMENT_CONFIG_NAME) notes.push(...deploymentNotes(data, from, to));
  return notes;
}
