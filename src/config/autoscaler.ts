/**
 * `config-autoscaler` (knative.dev/serving v0.44.2 pkg/autoscaler/config/config.go: NewConfigFromMap;
 * docs/knative-behavior.md#config-autoscaler): parse errors wrapped as
 * `failed to parse data: …`, then Knative's checks in order; the first failure wins.
 */
import { goFormatFloat } from "../go/strconv/ftoa.js";
import { Duration, HOUR, SECOND } from "../go/time/duration.js";
import { formatFloatFixed, type GoParse } from "../go/strconv/strconv.js";
import { asBool, asDuration, asFloat64, asInt32, asString } from "./configmap-parse.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "./profile.js";
import type { ConfigData } from "./types.js";
import type { AutoscalerConfig } from "./types.js";

export const AUTOSCALER_CONFIG_NAME = "config-autoscaler";
export const KPA_CLASS = "kpa.autoscaling.knative.dev";

/** autoscaling.TargetMin */
const TARGET_MIN = 0.01;
/** autoscaling.WindowMin / WindowMax */
const WINDOW_MIN = new Duration(6n * SECOND);
const WINDOW_MAX = new Duration(HOUR);
/** autoscaling.PanicWindowPercentageMin / Max */
const PANIC_WINDOW_PERCENTAGE_MIN = 1;
const PANIC_WINDOW_PERCENTAGE_MAX = 100;

const DEFAULT_STABLE_WINDOW = new Duration(60n * SECOND);
const DEFAULT_GRACE_PERIOD = new Duration(30n * SECOND);
const ZERO = new Duration(0n);

export const DEFAULT_AUTOSCALER: AutoscalerConfig = Object.freeze({
  podAutoscalerClass: KPA_CLASS,
  enableScaleToZero: true,
  allowZeroInitialScale: false,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 2,
  containerConcurrencyTargetFraction: 0.7,
  containerConcurrencyTargetDefault: 100,
  rpsTargetDefault: 200,
  targetBurstCapacity: 211,
  panicWindowPercentage: 10,
  activatorCapacity: 100,
  panicThresholdPercentage: 200,
  initialScale: 1,
  minScale: 0,
  maxScale: 0,
  maxScaleLimit: 0,
  stableWindowSeconds: 60,
  scaleDownDelaySeconds: 0,
  scaleToZeroGracePeriodSeconds: 30,
  scaleToZeroPodRetentionPeriodSeconds: 0,
});

type Parsed<T> = GoParse<T>;

function wrapped<T>(r: Parsed<T>): Parsed<T> {
  return r.ok ? r : { ok: false, error: `failed to parse data: ${r.error}` };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

const v = goFormatFloat;

/** NewConfigFromMap. */
export function parseAutoscalerConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): GoParse<AutoscalerConfig> {
  const d = DEFAULT_AUTOSCALER;
  const rules = profile.configMapParse;
  const podAutoscalerClass = asString(data, "pod-autoscaler-class", d.podAutoscalerClass, rules);
  const enableScaleToZero = wrapped(asBool(data, "enable-scale-to-zero", d.enableScaleToZero, rules));
  if (!enableScaleToZero.ok) return enableScaleToZero;
  const allowZeroInitialScale = wrapped(asBool(data, "allow-zero-initial-scale", d.allowZeroInitialScale, rules));
  if (!allowZeroInitialScale.ok) return allowZeroInitialScale;

  const floats: number[] = [];
  for (const [key, fallback] of [
    ["max-scale-up-rate", d.maxScaleUpRate],
    ["max-scale-down-rate", d.maxScaleDownRate],
    ["container-concurrency-target-percentage", d.containerConcurrencyTargetFraction],
    ["container-concurrency-target-default", d.containerConcurrencyTargetDefault],
    ["requests-per-second-target-default", d.rpsTargetDefault],
    ["target-burst-capacity", d.targetBurstCapacity],
    ["panic-window-percentage", d.panicWindowPercentage],
    ["activator-capacity", d.activatorCapacity],
    ["panic-threshold-percentage", d.panicThresholdPercentage],
  ] as const) {
    const r = wrapped(asFloat64(data, key, fallback));
    if (!r.ok) return r;
    floats.push(r.value);
  }
  const [maxScaleUpRate, maxScaleDownRate, percentage, ccTargetDefault, rpsTargetDefault, tbc, panicWindowPercentage, activatorCapacity, panicThresholdPercentage] =
    floats as [number, number, number, number, number, number, number, number, number];

  const ints: number[] = [];
  for (const [key, fallback] of [
    ["initial-scale", d.initialScale],
    ["min-scale", d.minScale],
    ["max-scale", d.maxScale],
    ["max-scale-limit", d.maxScaleLimit],
  ] as const) {
    const r = wrapped(asInt32(data, key, fallback));
    if (!r.ok) return r;
    ints.push(r.value);
  }
  const [initialScale, minScale, maxScale, maxScaleLimit] = ints as [number, number, number, number];

  const durations: Duration[] = [];
  for (const [key, fallback] of [
    ["stable-window", DEFAULT_STABLE_WINDOW],
    ["scale-down-delay", ZERO],
    ["scale-to-zero-grace-period", DEFAULT_GRACE_PERIOD],
    ["scale-to-zero-pod-retention-period", ZERO],
  ] as const) {
    const r = wrapped(asDuration(data, key, fallback));
    if (!r.ok) return r;
    durations.push(r.value);
  }
  const [stableWindow, scaleDownDelay, gracePeriod, retention] = durations as [Duration, Duration, Duration, Duration];

  // Percentages above 1 are divided by 100; (0, 1] is taken as a fraction already (legacy).
  const fraction = percentage > 1 ? percentage / 100 : percentage;

  if (gracePeriod.ns <= 0n) return fail(`scale-to-zero-grace-period must be positive, was: ${gracePeriod}`);
  if (scaleDownDelay.ns < 0n) return fail(`scale-down-delay cannot be negative, was: ${scaleDownDelay}`);
  if (!scaleDownDelay.isWholeSeconds()) return fail(`scale-down-delay = ${scaleDownDelay}, must be specified with at most second precision`);
  if (retention.ns < 0n) return fail(`scale-to-zero-pod-retention-period cannot be negative, was: ${retention}`);
  if (tbc < 0 && tbc !== -1) return fail(`target-burst-capacity must be either non-negative or -1 (for unlimited), was: ${formatFloatFixed(tbc)}`);
  if (fraction <= 0 || fraction > 1) return fail(`container-concurrency-target-percentage = ${formatFloatFixed(fraction)} is outside of valid range of (0, 100]`);
  const target = fraction * ccTargetDefault;
  if (target < TARGET_MIN) {
    return fail(`container-concurrency-target-percentage and container-concurrency-target-default yield target concurrency of ${v(target)}, can't be less than ${v(TARGET_MIN)}`);
  }
  if (rpsTargetDefault < TARGET_MIN) return fail(`requests-per-second-target-default must be at least ${v(TARGET_MIN)}, was: ${v(rpsTargetDefault)}`);
  if (activatorCapacity < 1) return fail(`activator-capacity = ${v(activatorCapacity)}, must be at least 1`);
  if (maxScaleUpRate <= 1) return fail(`max-scale-up-rate = ${v(maxScaleUpRate)}, must be greater than 1.0`);
  if (maxScaleDownRate <= 1) return fail(`max-scale-down-rate = ${v(maxScaleDownRate)}, must be greater than 1.0`);
  if (stableWindow.ns < WINDOW_MIN.ns || stableWindow.ns > WINDOW_MAX.ns) return fail(`stable-window = ${stableWindow}, must be in [${WINDOW_MIN}; ${WINDOW_MAX}] range`);
  if (!stableWindow.isWholeSeconds()) return fail(`stable-window = ${stableWindow}, must be specified with at most second precision`);
  if (panicWindowPercentage < PANIC_WINDOW_PERCENTAGE_MIN || panicWindowPercentage > PANIC_WINDOW_PERCENTAGE_MAX) {
    return fail(`panic-window-percentage = ${v(panicWindowPercentage)}, must be in [${v(PANIC_WINDOW_PERCENTAGE_MIN)}, ${v(PANIC_WINDOW_PERCENTAGE_MAX)}] interval`);
  }
  if (initialScale < 0 || (initialScale === 0 && !allowZeroInitialScale.value)) {
    return fail(`initial-scale = ${initialScale}, must be at least 0 (or at least 1 when allow-zero-initial-scale is false)`);
  }
  if (minScale < 0) return fail(`min-scale = ${minScale}, must be at least 0`);
  // A default max-scale is required once max-scale-limit is set.
  const minMaxScale = maxScaleLimit > 0 ? 1 : 0;
  if (maxScale < minMaxScale || (maxScaleLimit > 0 && maxScale > maxScaleLimit)) {
    return fail(`max-scale = ${maxScale}, must be in [${minMaxScale}, max-scale-limit(${maxScaleLimit})] range`);
  }
  if (maxScaleLimit < 0) return fail(`max-scale-limit = ${maxScaleLimit}, must be at least 0`);
  if (minScale > maxScale && maxScale > 0) return fail(`min-scale (${minScale}) must be less than max-scale (${maxScale})`);

  return {
    ok: true,
    value: Object.freeze({
      podAutoscalerClass,
      enableScaleToZero: enableScaleToZero.value,
      allowZeroInitialScale: allowZeroInitialScale.value,
      maxScaleUpRate,
      maxScaleDownRate,
      containerConcurrencyTargetFraction: fraction,
      containerConcurrencyTargetDefault: ccTargetDefault,
      rpsTargetDefault,
      targetBurstCapacity: tbc,
      panicWindowPercentage,
      activatorCapacity,
      panicThresholdPercentage,
      initialScale,
      minScale,
      maxScale,
      maxScaleLimit,
      stableWindowSeconds: stableWindow.seconds(),
      scaleDownDelaySeconds: scaleDownDelay.seconds(),
      scaleToZeroGracePeriodSeconds: gracePeriod.seconds(),
      scaleToZeroPodRetentionPeriodSeconds: retention.seconds(),
    }),
  };
}
