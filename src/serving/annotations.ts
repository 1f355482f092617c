/**
 * Small annotation helpers shared by the metadata and template rules: reading maps off decoded objects,
 * Knative's `kmap.KeyPriority` lookup, and the second-precision duration annotations (rollout duration and
 * progress deadline, docs/knative-behavior.md#duration-annotations).
 */
import { also, CURRENT_FIELD, errInvalidKeyName, errInvalidValue, FieldError } from "../apis/field-error.js";
import { Duration, parseDuration } from "../go/time/duration.js";
import { asJsonObject } from "../go/encoding/json/json-value.js";

/** Rollout duration keys in priority order (Service and Route metadata). */
export const ROLLOUT_DURATION_KEYS = ["serving.knative.dev/rollout-duration", "serving.knative.dev/rolloutDuration"] as const;
/** Progress deadline (template metadata). */
export const PROGRESS_DEADLINE_KEYS = ["serving.knative.dev/progress-deadline"] as const;

/** A decoded `map[string]string` (annotations, labels), or undefined when absent. */
export function stringMap(v: unknown): Record<string, string> | undefined {
  return asJsonObject(v) as Record<string, string> | undefined;
}

/** A decoded Go string field ("" when absent). */
export function stringValue(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * `kmap.KeyPriority.Get`: the first of `keys` present in `m` (even with an empty value), or undefined.
 * The value is `m[key]`.
 */
export function firstPresentKey(m: Record<string, string> | undefined, keys: readonly string[]): string | undefined {
  if (m === undefined) return undefined;
  for (const k of keys) if (Object.hasOwn(m, k)) return k;
  return undefined;
}

/** Go `time.ParseDuration` in nanoseconds, or undefined on a syntax error. */
export function durationNanos(s: string): bigint | undefined {
  const r = parseDuration(s);
  return r.ok ? r.value.ns : undefined;
}

/** `d.Round(time.Second) == d`, which the largest duration passes (Round saturates): Duration.isWholeSeconds. */
export function roundsToWholeSeconds(nanos: bigint): boolean {
  return new Duration(nanos).isWholeSeconds();
}

/**
 * serving's `ValidateRolloutDurationAnnotation` (pkg/apis/serving/metadata_validation.go) on an object's metadata;
 * paths are relative to
 * `metadata` (`annotations.<key>`).
 */
export function validateRolloutDuration(meta: Record<string, unknown> | undefined): FieldError | undefined {
  return validateSecondsDuration(stringMap(meta?.annotations), ROLLOUT_DURATION_KEYS, "rollout-duration")?.viaField("annotations");
}

/**
 * The progress-deadline annotation of a template (knative.dev/serving pkg/apis/serving/v1/revision_validation.go:
 * (*RevisionTemplateSpec).Validate); paths are annotation keys.
 */
export function validateProgressDeadline(annotations: Record<string, string> | undefined): FieldError | undefined {
  return validateSecondsDuration(annotations, PROGRESS_DEADLINE_KEYS, "progress-deadline");
}

/**
 * A non-negative Go duration at second precision under the first present of `keys`; an empty value is
 * not checked. Messages print the raw value (`%s`), never a re-formatted duration.
 */
function validateSecondsDuration(
  annotations: Record<string, string> | undefined,
  keys: readonly string[],
  label: string,
): FieldError | undefined {
  const key = firstPresentKey(annotations, keys);
  if (key === undefined) return undefined;
  const value = (annotations as Record<string, string>)[key] as string;
  if (value === "") return undefined;
  const nanos = durationNanos(value);
  if (nanos === undefined) return errInvalidValue(value, key);
  // metadata_validation.go and revision_validation.go: `d.Round(time.Second) != d`.
  if (!roundsToWholeSeconds(nanos)) return new FieldError({ message: `${label}=${value} is not at second precision`, paths: [key] });
  if (nanos < 0n) return new FieldError({ message: `${label}=${value} must be positive`, paths: [key] });
  return undefined;
}

/**
 * knative.dev/networking pkg/apis/networking/metadata_validation.go: ValidateAnnotations, which ServerlessService's
 * Validate calls, and RevisionTemplateSpec.Validate from serving v0.48.0: a key that starts with
 * `networking.knative.dev` (a plain string prefix: `networking.knative.devx/…` too) and is not one of `allowed` (the
 * release's allowedAnnotations; undefined: not checked) is an invalid key name.
 */
export function validateNetworkingAnnotations(annotations: Record<string, string> | undefined, allowed: readonly string[] | undefined): FieldError | undefined {
  if (annotations === undefined || allowed === undefined) return undefined;
  let errs: FieldError | undefined;
  for (const key of Object.keys(annotations)) {
    if (key.startsWith("networking.knative.dev") && !allowed.includes(key)) errs = also(errs, errInvalidKeyName(key, CURRENT_FIELD));
  }
  return errs;
}
