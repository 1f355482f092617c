/**
 * One immutable view of the ConfigMaps that influence admission decisions, handed to every request.
 * Rules never read configuration from anywhere else (config is data, passed in, not global: README.md's Layout
 * section, docs/adr/0010-layout.md).
 * The raw `data` is kept for logs and tooling; rules use the parsed `admission` view, computed once here.
 */
import { FEATURE_SCOPES_CONFIG_NAME, NO_SCOPES, parseFeatureScopes, type FeatureScopes } from "./feature-scopes.js";
import { DEFAULT_ADMISSION_CONFIG, parseAdmissionConfig } from "./parse.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile } from "./profile.js";
import type { AdmissionConfig, ConfigData } from "./types.js";

export type { ConfigData } from "./types.js";

export interface ConfigSnapshot {
  /** ConfigMap name → data; a missing name means Knative's defaults (a fresh install's ConfigMap holds only `_example`). */
  readonly data: ReadonlyMap<string, ConfigData>;
  /** Where this snapshot came from, for logs and readiness ("defaults", "dir:/etc/config", "cluster"). */
  readonly source: string;
  /** The typed configuration rules read (docs/knative-behavior.md#configmaps). */
  readonly admission: AdmissionConfig;
  /** ConfigMap name → Knative's parse error for ConfigMaps that fell back to defaults (empty when all parsed). */
  readonly configErrors: ReadonlyMap<string, string>;
  /** The Knative release answered as (`--knative-version`). */
  readonly profile: KnativeProfile;
  /**
   * Duckbill's `config-features-scopes` (config/feature-scopes.ts): flags narrowed to namespaces. Empty without the
   * ConfigMap, and then no answer differs from Knative's.
   */
  readonly featureScopes: FeatureScopes;
}

/**
 * The ConfigMaps whose contents affect /defaulting and /resource-validation (the ones knative.dev/serving
 * pkg/apis/config/store.go watches), and Duckbill's config-features-scopes.
 */
export const ADMISSION_CONFIGMAPS = ["config-defaults", "config-features", "config-autoscaler", FEATURE_SCOPES_CONFIG_NAME] as const;

const EMPTY = new Map(
  Object.values(PROFILES).map((profile) => [
    profile,
    Object.freeze({ data: new Map<string, ConfigData>(), source: "defaults", admission: DEFAULT_ADMISSION_CONFIG, configErrors: new Map<string, string>(), profile, featureScopes: NO_SCOPES }),
  ]),
) as ReadonlyMap<KnativeProfile, ConfigSnapshot>;

/** Knative's defaults, as the release `profile` answers (default: DEFAULT_KNATIVE_VERSION's). */
export function defaultSnapshot(profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION]): ConfigSnapshot {
  return EMPTY.get(profile) ?? Object.freeze({ data: new Map<string, ConfigData>(), source: "defaults", admission: DEFAULT_ADMISSION_CONFIG, configErrors: new Map<string, string>(), profile, featureScopes: NO_SCOPES });
}

/** Builds a frozen snapshot from plain ConfigMap data (copied, so callers cannot change it later). */
export function snapshotFrom(
  configs: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  source: string,
  profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION],
): ConfigSnapshot {
  const data = new Map<string, ConfigData>();
  for (const name of Object.keys(configs)) {
    const raw = configs[name];
    if (raw === undefined || raw === null) continue;
    const copy: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const key of Object.keys(raw)) {
      const value = raw[key];
      if (typeof value === "string") copy[key] = value;
    }
    data.set(name, Object.freeze(copy));
  }
  const { config, errors } = parseAdmissionConfig(data, profile);
  const scopesData = data.get(FEATURE_SCOPES_CONFIG_NAME);
  const scopes = scopesData === undefined ? undefined : parseFeatureScopes(scopesData, profile);
  if (scopes === undefined || scopes.ok) {
    return Object.freeze({ data, source, admission: config, configErrors: errors, profile, featureScopes: scopes?.value ?? NO_SCOPES });
  }
  const configErrors = new Map(errors).set(FEATURE_SCOPES_CONFIG_NAME, scopes.error);
  return Object.freeze({ data, source, admission: config, configErrors, profile, featureScopes: NO_SCOPES });
}

/** The same ConfigMaps as the release `profile` reads them. */
export function withProfile(snapshot: ConfigSnapshot, profile: KnativeProfile): ConfigSnapshot {
  if (snapshot.profile === profile) return snapshot;
  return snapshotFrom(Object.fromEntries(snapshot.data), snapshot.source, profile);
}
