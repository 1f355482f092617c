/**
 * serving's `autoscaling.ValidateAnnotations` (pkg/apis/autoscaling/annotation_validation.go, v0.44.2; the rules
 * in docs/knative-behavior.md#autoscaling-annotations). All checks run and accumulate; paths are the annotation keys
 * (the caller adds the prefix). Out-of-bounds messages print the raw annotation text, bounds are Go-formatted.
 */
import { also, errGeneric, errInvalidValue, errOutOfBoundsValue, type FieldError } from "../apis/field-error.js";
import { atoi, parseFloat, parseInt, type GoParse } from "../go/strconv/strconv.js";
import { Duration, SECOND } from "../go/time/duration.js";
import type { AutoscalerConfig } from "../config/types.js";
import { durationNanos, firstPresentKey, roundsToWholeSeconds } from "./annotations.js";
import type { RequestContext } from "./context.js";

const KEY_PREFIX = "autoscaling.knative.dev/";
const KPA = "kpa.autoscaling.knative.dev";
const HPA = "hpa.autoscaling.knative.dev";

// Keys in priority order (Knative's kmap.KeyPriority aliases).
const CLASS = ["autoscaling.knative.dev/class"] as const;
const MIN_SCALE = ["autoscaling.knative.dev/min-scale", "autoscaling.knative.dev/minScale"] as const;
const MAX_SCALE = ["autoscaling.knative.dev/max-scale", "autoscaling.knative.dev/maxScale"] as const;
const ACTIVATION_SCALE = ["autoscaling.knative.dev/activation-scale"] as const;
const PANIC_WINDOW = ["autoscaling.knative.dev/panic-window-percentage", "autoscaling.knative.dev/panicWindowPercentage"] as const;
const PANIC_THRESHOLD = [
  "autoscaling.knative.dev/panic-threshold-percentage",
  "autoscaling.knative.dev/panicThresholdPercentage",
] as const;
const TARGET = ["autoscaling.knative.dev/target"] as const;
const TARGET_UTILIZATION = [
  "autoscaling.knative.dev/target-utilization-percentage",
  "autoscaling.knative.dev/targetUtilizationPercentage",
] as const;
const TARGET_BURST_CAPACITY = ["autoscaling.knative.dev/target-burst-capacity", "autoscaling.knative.dev/targetBurstCapacity"] as const;
const WINDOW = ["autoscaling.knative.dev/window"] as const;
const POD_RETENTION = [
  "autoscaling.knative.dev/scale-to-zero-pod-retention-period",
  "autoscaling.knative.dev/scaleToZeroPodRetentionPeriod",
] as const;
const SCALE_DOWN_DELAY = ["autoscaling.knative.dev/scale-down-delay", "autoscaling.knative.dev/scaleDownDelay"] as const;
const METRIC = ["autoscaling.knative.dev/metric"] as const;
const AGGREGATION_ALGORITHM = [
  "autoscaling.knative.dev/metric-aggregation-algorithm",
  "autoscaling.knative.dev/metricAggregationAlgorithm",
] as const;
const INITIAL_SCALE = ["autoscaling.knative.dev/initial-scale", "autoscaling.knative.dev/initialScale"] as const;

const MIN_SCALE_KEY = MIN_SCALE[0];
const MAX_SCALE_KEY = MAX_SCALE[0];
const WINDOW_KEY = WINDOW[0];
const METRIC_KEY = METRIC[0];

const MAX_INT32 = 2147483647;
const WINDOW_MIN = 6n * SECOND;
const WINDOW_MAX = 3600n * SECOND;
const WINDOW_MIN_TEXT = "6s";
const WINDOW_MAX_TEXT = "1h0m0s";
const ZERO_DURATION_TEXT = "0s";
const AGGREGATION_ALGORITHMS: ReadonlySet<string> = new Set(["linear", "weighted-exponential", "weightedExponential"]);

/** Autoscaling annotation rules with the request's `config-autoscaler`. */
export function validateAutoscalingAnnotations(
  annotations: Record<string, string> | undefined,
  ctx: RequestContext,
): FieldError | undefined {
  // Every rule needs one of its keys, so maps without an autoscaling key (nearly all) stop here.
  if (!hasAutoscalingKey(annotations)) return undefined;
  return validateAll(annotations, ctx.config.admission.autoscaler);
}

/** The same rules with an explicit `config-autoscaler` (max-scale-limit, allow-zero-initial-scale, class). */
export function validateAutoscalingAnnotationsWith(
  annotations: Record<string, string> | undefined,
  config: AutoscalerConfig,
): FieldError | undefined {
  if (!hasAutoscalingKey(annotations)) return undefined;
  return validateAll(annotations, config);
}

function validateAll(m: Record<string, string>, config: AutoscalerConfig): FieldError | undefined {
  return also(
    validateClass(m),
    validateMinMaxScale(config, m),
    validateFloats(m),
    validateWindow(m),
    validateLastPodRetention(m),
    validateScaleDownDelay(m),
    validateMetric(config, m),
    validateAlgorithm(m),
    validateInitialScale(config, m),
  );
}

function hasAutoscalingKey(m: Record<string, string> | undefined): m is Record<string, string> {
  if (m === undefined) return false;
  for (const k in m) if (Object.hasOwn(m, k) && k.startsWith(KEY_PREFIX)) return true;
  return false;
}

function validateClass(m: Record<string, string>): FieldError | undefined {
  const k = firstPresentKey(m, CLASS);
  if (k === undefined) return undefined;
  const v = m[k] as string;
  return v.endsWith(".knative.dev") && v !== KPA && v !== HPA ? errInvalidValue(v, k) : undefined;
}

/** Go's getIntGE0: the parsed int32 (0 when absent or invalid) and its error. */
interface ScaleBound {
  readonly value: number;
  readonly error: FieldError | undefined;
}

const ABSENT_BOUND: ScaleBound = { value: 0, error: undefined };

function getIntGE0(m: Record<string, string>, keys: readonly string[]): ScaleBound {
  const k = firstPresentKey(m, keys);
  if (k === undefined) return ABSENT_BOUND;
  const v = m[k] as string;
  const r = parseInt(v, 32);
  if (!r.ok) {
    // Range errors (beyond int32) read as bounds errors, syntax errors as invalid values.
    const error = isRangeError(r) ? errOutOfBoundsValue(v, 0, MAX_INT32, k) : errInvalidValue(v, k);
    return { value: 0, error };
  }
  if (r.value < 0) return { value: 0, error: errOutOfBoundsValue(v, 0, MAX_INT32, k) };
  return { value: r.value, error: undefined };
}

function validateMinMaxScale(config: AutoscalerConfig, m: Record<string, string>): FieldError | undefined {
  const min = getIntGE0(m, MIN_SCALE);
  const max = getIntGE0(m, MAX_SCALE);
  let errs = also(min.error, max.error);

  if (max.value !== 0 && max.value < min.value) {
    errs = also(errs, errGeneric(`max-scale=${max.value} is less than min-scale=${min.value}`, MAX_SCALE_KEY, MIN_SCALE_KEY));
  }

  const maxKey = firstPresentKey(m, MAX_SCALE);
  if (maxKey !== undefined) errs = also(errs, validateMaxScaleWithinLimit(maxKey, max.value, config.maxScaleLimit));

  const activationKey = firstPresentKey(m, ACTIVATION_SCALE);
  if (activationKey !== undefined) {
    const v = m[activationKey] as string;
    const r = parseInt(v, 32);
    if (!r.ok) errs = also(errs, errInvalidValue(v, activationKey));
    else if (min.value > r.value) {
      errs = also(errs, errGeneric(`min-scale=${min.value} is greater than activation-scale=${r.value}`, activationKey));
    } else if (max.value < r.value && max.value !== 0) {
      errs = also(errs, errGeneric(`max-scale=${max.value} is less than activation-scale=${r.value}`, activationKey));
    } else if (r.value < 2) {
      errs = also(errs, errGeneric(`activation-scale=${r.value} must be greater than 1`, activationKey));
    }
  }
  return errs;
}

function validateMaxScaleWithinLimit(key: string, maxScale: number, maxScaleLimit: number): FieldError | undefined {
  if (maxScaleLimit === 0) return undefined;
  let errs: FieldError | undefined;
  if (maxScale > maxScaleLimit) errs = errOutOfBoundsValue(maxScale, 1, maxScaleLimit, key);
  if (maxScale === 0) errs = also(errs, errGeneric(`max-scale=0 (unlimited), must be less than ${maxScaleLimit}`, key));
  return errs;
}

function validateFloats(m: Record<string, string>): FieldError | undefined {
  let errs: FieldError | undefined;
  let k = firstPresentKey(m, PANIC_WINDOW);
  if (k !== undefined) {
    const v = m[k] as string;
    const r = parseFloat(v);
    if (!r.ok) errs = also(errs, errInvalidValue(v, k));
    // Go assigns (not appends) here; as the first check it makes no difference.
    else if (r.value < 1 || r.value > 100) errs = errOutOfBoundsValue(v, 1, 100, k);
  }

  k = firstPresentKey(m, PANIC_THRESHOLD);
  if (k !== undefined) {
    const v = m[k] as string;
    const r = parseFloat(v);
    if (!r.ok) errs = also(errs, errInvalidValue(v, k));
    else if (r.value < 110 || r.value > 1000) errs = also(errs, errOutOfBoundsValue(v, 110, 1000, k));
  }

  k = firstPresentKey(m, TARGET);
  if (k !== undefined) {
    const v = m[k] as string;
    const r = parseFloat(v);
    if (!r.ok) errs = also(errs, errInvalidValue(v, k));
    else if (r.value < 0.01) errs = also(errs, errGeneric(`target ${v} should be at least 0.01`, k));
  }

  k = firstPresentKey(m, TARGET_UTILIZATION);
  if (k !== undefined) {
    const v = m[k] as string;
    const r = parseFloat(v);
    if (!r.ok) errs = also(errs, errInvalidValue(v, k));
    else if (r.value < 1 || r.value > 100) errs = also(errs, errOutOfBoundsValue(v, 1, 100, k));
  }

  k = firstPresentKey(m, TARGET_BURST_CAPACITY);
  if (k !== undefined) {
    const v = m[k] as string;
    const r = parseFloat(v);
    // -1 means unlimited; NaN passes (every comparison is false).
    if (!r.ok || (r.value < 0 && r.value !== -1)) errs = also(errs, errInvalidValue(v, k));
  }
  return errs;
}

function validateWindow(m: Record<string, string>): FieldError | undefined {
  const k = firstPresentKey(m, WINDOW);
  if (k === undefined) return undefined;
  const v = m[k] as string;
  const d = durationNanos(v);
  if (d === undefined) return errInvalidValue(v, WINDOW_KEY);
  if (d < WINDOW_MIN || d > WINDOW_MAX) return errOutOfBoundsValue(v, WINDOW_MIN_TEXT, WINDOW_MAX_TEXT, WINDOW_KEY);
  // validateWindow: `d.Truncate(time.Second) != d` (within the bounds above it cannot differ from Round).
  if (!new Duration(d).truncatesToWholeSeconds()) return errGeneric("must be specified with at most second precision", WINDOW_KEY);
  return undefined;
}

function validateLastPodRetention(m: Record<string, string>): FieldError | undefined {
  const k = firstPresentKey(m, POD_RETENTION);
  if (k === undefined) return undefined;
  const v = m[k] as string;
  const d = durationNanos(v);
  if (d === undefined) return errInvalidValue(v, k);
  // Bounded like the window; no precision rule here.
  if (d < 0n || d > WINDOW_MAX) return errOutOfBoundsValue(v, ZERO_DURATION_TEXT, WINDOW_MAX_TEXT, k);
  return undefined;
}

function validateScaleDownDelay(m: Record<string, string>): FieldError | undefined {
  const k = firstPresentKey(m, SCALE_DOWN_DELAY);
  if (k === undefined) return undefined;
  const v = m[k] as string;
  const d = durationNanos(v);
  if (d === undefined) return errInvalidValue(v, k);
  if (d < 0n || d > WINDOW_MAX) return errOutOfBoundsValue(v, ZERO_DURATION_TEXT, WINDOW_MAX_TEXT, k);
  // validateScaleDownDelay: `d.Round(time.Second) != d`.
  if (!roundsToWholeSeconds(d)) return errGeneric("must be specified with at most second precision", k);
  return undefined;
}

/**
 * The metric must suit the class: the class annotation, else the cluster default (annotation_validation.go:
 * validateMetric).
 */
function validateMetric(config: AutoscalerConfig, m: Record<string, string>): FieldError | undefined {
  const k = firstPresentKey(m, METRIC);
  if (k === undefined) return undefined;
  const metric = m[k] as string;
  const classKey = firstPresentKey(m, CLASS);
  const cls = classKey === undefined ? config.podAutoscalerClass : (m[classKey] as string);
  switch (cls) {
    case KPA:
      if (metric === "concurrency" || metric === "rps") return undefined;
      break;
    case HPA:
      if (metric !== "") return undefined;
      break;
    default:
      // Other autoscaler classes define their own metrics.
      return undefined;
  }
  return errInvalidValue(metric, METRIC_KEY);
}

/** Only validated when the class annotation is explicitly KPA (custom autoscalers may differ). */
function validateAlgorithm(m: Record<string, string>): FieldError | undefined {
  const classKey = firstPresentKey(m, CLASS);
  if (classKey === undefined || m[classKey] !== KPA) return undefined;
  const k = firstPresentKey(m, AGGREGATION_ALGORITHM);
  if (k === undefined) return undefined;
  const v = m[k] as string;
  return v === "" || AGGREGATION_ALGORITHMS.has(v) ? undefined : errInvalidValue(v, k);
}

/** Explanations go into the path, as Knative builds them (annotation_validation.go: validateInitialScale). */
function validateInitialScale(config: AutoscalerConfig, m: Record<string, string>): FieldError | undefined {
  const k = firstPresentKey(m, INITIAL_SCALE);
  if (k === undefined) return undefined;
  const v = m[k] as string;
  const r = atoi(v);
  if (!r.ok) return errInvalidValue(v, k);
  if (r.value < 0) return errInvalidValue(v, `${k} must be greater than 0`);
  if (!config.allowZeroInitialScale && r.value === 0) return errInvalidValue(v, `${k}=0 not allowed by cluster`);
  return undefined;
}

function isRangeError(r: GoParse<number> & { ok: false }): boolean {
  return r.error.endsWith(": value out of range");
}
