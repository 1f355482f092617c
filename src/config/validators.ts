/**
 * /config-validation: ConfigMap name → its parser's verdict (knative.dev/pkg webhook/configmaps/configmaps.go;
 * docs/knative-behavior.md#config-validation).
 * A validator returns Knative's error text, or undefined when the data is acceptable. Names without a
 * validator are allowed without inspection (knative.dev/serving cmd/webhook/main.go: the constructors map).
 */
import { OTHER_CONFIGMAP_PARSERS, type ConfigMapParser } from "./configmaps/index.js";
import { AUTOSCALER_CONFIG_NAME, parseAutoscalerConfig } from "./autoscaler.js";
import { DEFAULTS_CONFIG_NAME, parseDefaultsConfig } from "./defaults.js";
import { checkExample } from "./example-checksum.js";
import { FEATURE_SCOPES_CONFIG_NAME, parseFeatureScopes } from "./feature-scopes.js";
import { FEATURES_CONFIG_NAME, parseFeaturesConfig } from "./features.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "./profile.js";

/** A ConfigMap's verdict as the release `profile` (default: DEFAULT_PROFILE) validates it. */
export type ConfigMapValidator = (data: Readonly<Record<string, string>>, annotations: Readonly<Record<string, string>>, profile?: KnativeProfile) => string | undefined;

export type { ConfigMapParser } from "./configmaps/index.js";

export class ConfigMapValidators {
  private readonly byName: ReadonlyMap<string, ConfigMapValidator>;

  constructor(entries: Iterable<readonly [string, ConfigMapValidator]> = []) {
    this.byName = new Map(entries);
  }

  lookup(name: string): ConfigMapValidator | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}

/** The webhook's order for a known ConfigMap: the `_example` checksum guard first, then the constructor. */
export function guardedValidator(parse: ConfigMapParser): ConfigMapValidator {
  return (data, annotations, profile = DEFAULT_PROFILE) => checkExample(data, annotations) ?? parse(data, profile);
}

function errorOf(r: { ok: true } | { ok: false; error: string }): string | undefined {
  return r.ok ? undefined : r.error;
}

/**
 * Every ConfigMap Knative 1.17's config webhook validates (knative.dev/serving v0.44.2 cmd/webhook/main.go): the
 * three that steer admission, and config-gc, -network, -deployment, -observability, -logging, -leader-election,
 * -domain, -certmanager, -tracing; and Duckbill's config-features-scopes (config/feature-scopes.ts), a name Knative
 * admits without inspection.
 */
export function knativeConfigMapValidators(): ConfigMapValidators {
  return new ConfigMapValidators([
    [
      FEATURES_CONFIG_NAME,
      guardedValidator((data) => {
        parseFeaturesConfig(data); // never fails (docs/knative-behavior.md#config-features)
        return undefined;
      }),
    ],
    [DEFAULTS_CONFIG_NAME, guardedValidator((data, profile) => errorOf(parseDefaultsConfig(data, profile)))],
    [AUTOSCALER_CONFIG_NAME, guardedValidator((data, profile) => errorOf(parseAutoscalerConfig(data, profile)))],
    ...OTHER_CONFIGMAP_PARSERS.map(([name, parse]) => [name, guardedValidator(parse)] as const),
    [FEATURE_SCOPES_CONFIG_NAME, guardedValidator((data, profile) => errorOf(parseFeatureScopes(data, profile)))],
  ]);
}
