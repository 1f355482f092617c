/**
 * Typed, parsed views of the ConfigMaps that steer admission decisions (docs/knative-behavior.md#configmaps), as
 * rules see
 * them. One instance per ConfigSnapshot, parsed once when the snapshot is built, immutable afterwards.
 */
import type { FeatureFlagField } from "./feature-flags.js";

/**
 * A `config-features` value (knative.dev/serving pkg/apis/config/features.go: Flag). `AllowRootBounded` exists only for
 * `secure-pod-defaults`, and only from Knative 1.20.
 */
export type Flag = "Enabled" | "Allowed" | "Disabled" | "AllowRootBounded";

/**
 * `config-features`, one field per flag of FEATURE_FLAGS (config/feature-flags.ts). Field masks test
 * `!== "Disabled"`; explicit checks test `=== "Enabled"` (docs/knative-behavior.md#config-features).
 */
export type FeaturesConfig = { readonly [F in FeatureFlagField]: Flag };

/**
 * A Go int64 read from a ConfigMap (knative.dev/pkg/configmap/parse.go: AsInt64): a number while it is a safe
 * integer, the exact bigint beyond ±(2^53 − 1), so comparisons stay exact and messages print Go's digits.
 */
export type Int64 = number | bigint;

/**
 * `config-defaults` (serving pkg/apis/config/defaults.go). Quantities are kept as the configured strings
 * (canonicalised when applied). The int64 values are exact (Int64): the bounds validation compares with and prints,
 * and the values defaulting writes into objects, whose JSON carries bigints exactly (go/encoding/json/json-bigint.ts).
 */
export interface DefaultsConfig {
  readonly revisionTimeoutSeconds: Int64;
  readonly maxRevisionTimeoutSeconds: Int64;
  readonly revisionResponseStartTimeoutSeconds: Int64;
  readonly revisionIdleTimeoutSeconds: Int64;
  readonly containerConcurrency: Int64;
  readonly containerConcurrencyMaxLimit: Int64;
  readonly allowContainerConcurrencyZero: boolean;
  /** Tri-state: undefined leaves `enableServiceLinks` unset. */
  readonly enableServiceLinks: boolean | undefined;
  /** Renders the container name template for a parent ObjectMeta (Go text/template); "" on execution error. */
  readonly userContainerName: (parentMeta: Readonly<Record<string, unknown>> | undefined) => string;
  readonly initContainerName: (parentMeta: Readonly<Record<string, unknown>> | undefined) => string;
  readonly revisionCpuRequest: string | undefined;
  readonly revisionMemoryRequest: string | undefined;
  readonly revisionEphemeralStorageRequest: string | undefined;
  readonly revisionCpuLimit: string | undefined;
  readonly revisionMemoryLimit: string | undefined;
  readonly revisionEphemeralStorageLimit: string | undefined;
}

/**
 * `config-autoscaler` (knative.dev/serving pkg/autoscaler/config/autoscalerconfig: Config); durations in nanoseconds
 * as bigint-free numbers of seconds where exact.
 */
export interface AutoscalerConfig {
  readonly podAutoscalerClass: string;
  readonly enableScaleToZero: boolean;
  readonly allowZeroInitialScale: boolean;
  readonly maxScaleUpRate: number;
  readonly maxScaleDownRate: number;
  /** Stored as a fraction (70 → 0.7), as Knative does. */
  readonly containerConcurrencyTargetFraction: number;
  readonly containerConcurrencyTargetDefault: number;
  readonly rpsTargetDefault: number;
  readonly targetBurstCapacity: number;
  readonly panicWindowPercentage: number;
  readonly activatorCapacity: number;
  readonly panicThresholdPercentage: number;
  readonly initialScale: number;
  readonly minScale: number;
  readonly maxScale: number;
  readonly maxScaleLimit: number;
  readonly stableWindowSeconds: number;
  readonly scaleDownDelaySeconds: number;
  readonly scaleToZeroGracePeriodSeconds: number;
  readonly scaleToZeroPodRetentionPeriodSeconds: number;
}

/** The parsed configuration a rule receives (through RequestContext.config). */
export interface AdmissionConfig {
  readonly features: FeaturesConfig;
  readonly defaults: DefaultsConfig;
  readonly autoscaler: AutoscalerConfig;
}

/** A ConfigMap's data. */
export type ConfigData = Readonly<Record<string, string>>;
