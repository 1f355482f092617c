/**
 * `config-features` (knative.dev/serving v0.44.2 pkg/apis/config/features.go: NewFeaturesConfigFromMap;
 * docs/knative-behavior.md#config-features). Each known key is compared
 * case-insensitively with Enabled / Allowed / Disabled; anything else keeps the default, so this parser never
 * fails. v0.44.2 has `kubernetes.podspec-dryrun` (default Allowed), no csi/ephemeral/image/mount-propagation
 * keys, and `secure-pod-defaults` uses the same three values.
 */
import { equalFoldAscii } from "../go/strings/fold.js";
import { lookup } from "./configmap-parse.js";
import { FEATURE_FLAGS } from "./feature-flags.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile, type VolumeFlagKey } from "./profile.js";
import type { ConfigData } from "./types.js";
import type { FeaturesConfig, Flag } from "./types.js";

export const FEATURES_CONFIG_NAME = "config-features";

/** Knative's defaults (FEATURE_FLAGS). */
export const DEFAULT_FEATURES: FeaturesConfig = Object.freeze(Object.fromEntries(FEATURE_FLAGS.map((f) => [f.field, f.default])) as unknown as FeaturesConfig);

/** ConfigMap key → field of FeaturesConfig. */
const KEYS: ReadonlyArray<readonly [string, keyof FeaturesConfig]> = FEATURE_FLAGS.map((f) => [f.key, f.field] as const);

const FLAGS: readonly Flag[] = ["Enabled", "Allowed", "Disabled"];

/** Flags only Knative's controllers read, added after v0.44.2: parsed where the release has them (profile.controllerFlags). */
const LATER_CONTROLLER_FLAGS: ReadonlySet<string> = new Set(["domainmapping-direct-route-traffic"]);

/** Volume flags added after v0.44.2 (knative.dev/serving pkg/apis/config/features.go): parsed where the release has them. */
const LATER_VOLUME_FLAGS: ReadonlySet<string> = new Set<VolumeFlagKey>([
  "kubernetes.podspec-volumes-csi",
  "kubernetes.podspec-volumes-mount-propagation",
  "kubernetes.podspec-volumes-image",
  "kubernetes.podspec-volumes-ephemeral",
]);

/**
 * Whether `key` is a config-features flag of the release `profile` (knative.dev/serving pkg/apis/config/features.go:
 * NewFeaturesConfigFromMap): the volume flags added after v0.44.2 where `volumes.flags` lists them, the controller
 * flags where `controllerFlags` does, and `kubernetes.podspec-dryrun` until v0.47.0 removed it (`podSpecDryRun`).
 * The one answer parsing (parseFeaturesConfig) and listing (featureGatesOf) both take.
 */
export function releaseHasFlag(key: string, profile: KnativeProfile): boolean {
  if (LATER_VOLUME_FLAGS.has(key)) return (profile.volumes.flags as readonly string[]).includes(key);
  if (LATER_CONTROLLER_FLAGS.has(key)) return profile.controllerFlags.includes(key);
  if (key === "kubernetes.podspec-dryrun") return profile.podSpecDryRun === "flag";
  return true;
}

/** asFlag: the matching Flag, or undefined for anything else. */
export function parseFlag(raw: string): Flag | undefined {
  for (const flag of FLAGS) if (equalFoldAscii(raw, flag)) return flag;
  return undefined;
}

/**
 * asSecurePodDefaultsFlag (knative.dev/serving pkg/apis/config/features.go; v0.44.2 used asFlag): the value of
 * `secure-pod-defaults` among the release's (`profile.securePodDefaults.values`), or undefined for anything else.
 */
export function parseSecurePodDefaults(raw: string, profile: KnativeProfile): Flag | undefined {
  for (const flag of profile.securePodDefaults.values) if (equalFoldAscii(raw, flag)) return flag;
  return undefined;
}

/**
 * The values the `config-features` key `key` takes in the release `profile`, in Knative's order: asFlag's three, or
 * those of secure-pod-defaults (`profile.securePodDefaults.values`).
 */
export function flagValues(key: string, profile: KnativeProfile): readonly Flag[] {
  return key === "secure-pod-defaults" ? profile.securePodDefaults.values : FLAGS;
}

/** `value` of the key `key` as the release `profile` reads it, or undefined when Knative ignores it. */
export function parseFlagOf(key: string, value: string, profile: KnativeProfile): Flag | undefined {
  return key === "secure-pod-defaults" ? parseSecurePodDefaults(value, profile) : parseFlag(value);
}

/**
 * NewFeaturesConfigFromMap, as the release `profile` parses it. Never fails; returns the shared defaults when nothing
 * changes them.
 */
export function parseFeaturesConfig(data: ConfigData, profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION]): FeaturesConfig {
  let out: Record<string, Flag> | undefined;
  for (const [key, field] of KEYS) {
    const raw = lookup(data, key);
    if (raw === undefined || !releaseHasFlag(key, profile)) continue;
    const flag = field === "secureDefaults" ? parseSecurePodDefaults(raw, profile) : parseFlag(raw);
    if (flag === undefined || flag === DEFAULT_FEATURES[field]) continue;
    out ??= { ...DEFAULT_FEATURES };
    out[field] = flag;
  }
  return out === undefined ? DEFAULT_FEATURES : (Object.freeze(out) as unknown as FeaturesConfig);
}
