/**
 * The Knative releases Duckbill answers as, and where their webhooks differ: one rule set, with each point of
 * difference a field here that the rules read from the request's snapshot (`snapshot.profile`). Adding a release
 * is adding its vectors and a profile with its deltas (docs/adr/0011-knative-profiles.md).
 */
export const KNATIVE_VERSIONS = ["1.24", "1.23", "1.17"] as const;
export type KnativeVersion = (typeof KNATIVE_VERSIONS)[number];

export interface KnativeProfile {
  readonly version: KnativeVersion;
  /** The knative.dev/serving module of the release. */
  readonly servingModule: string;
  /**
   * A body over 3 MiB: 1.17 had no limit (Duckbill answers 413); from 1.23 (v0.48.3, v0.49.1, v0.50.0)
   * knative.dev/pkg's webhook reads it through http.MaxBytesReader and answers 400 with the decode error.
   */
  readonly bodyTooLargeStatus: 400 | 413;
  /**
   * ConfigMaps of 1.17's /config-validation that the release no longer validates (admitted whatever they hold):
   * `config-tracing` left the webhook's constructors in v0.47.0 (knative.dev/serving cmd/webhook/main.go).
   */
  readonly unvalidatedConfigMaps: readonly string[];
}

export const PROFILES: Readonly<Record<KnativeVersion, KnativeProfile>> = Object.freeze({
  "1.17": Object.freeze({ version: "1.17", servingModule: "knative.dev/serving v0.44.2", bodyTooLargeStatus: 413, unvalidatedConfigMaps: [] }),
  "1.23": Object.freeze({ version: "1.23", servingModule: "knative.dev/serving v0.50.0", bodyTooLargeStatus: 400, unvalidatedConfigMaps: ["config-tracing"] }),
  "1.24": Object.freeze({ version: "1.24", servingModule: "knative.dev/serving v0.51.0", bodyTooLargeStatus: 400, unvalidatedConfigMaps: ["config-tracing"] }),
});

/**
 * The profile when none is asked for. Knative 1.17's, the one whose public vectors all pass; it becomes 1.24 once
 * the 1.24 profile passes every 1.24 vector (test/conformance/known-failures-1.24.txt is empty).
 */
export const DEFAULT_KNATIVE_VERSION: KnativeVersion = "1.17";

export function isKnativeVersion(v: string): v is KnativeVersion {
  return (KNATIVE_VERSIONS as readonly string[]).includes(v);
}

/** The profile a command runs with: `--knative-version`, else KNATIVE_VERSION, else the default. */
export function resolveKnativeProfile(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): KnativeProfile {
  const v = flag !== undefined && flag !== "" ? flag : (env.KNATIVE_VERSION ?? "");
  return knativeProfile(v === "" ? DEFAULT_KNATIVE_VERSION : v);
}

/** `--knative-version`: one of KNATIVE_VERSIONS; an error names them otherwise. */
export function knativeProfile(version: string): KnativeProfile {
  if (!isKnativeVersion(version)) throw new Error(`--knative-version (KNATIVE_VERSION) must be one of ${KNATIVE_VERSIONS.join(", ")}, got "${version}"`);
  return PROFILES[version];
}
