import { describe, expect, it } from "vitest";
import { renderFieldError } from "../apis/field-error.js";
import { DEFAULT_AUTOSCALER } from "../config/autoscaler.js";
import type { AdmissionConfig, AutoscalerConfig } from "../config/types.js";
import { validateAutoscalingAnnotations, validateAutoscalingAnnotationsWith } from "./autoscaling-annotations.js";
import type { RequestContext } from "./context.js";

/**
 * config-autoscaler with Knative's defaults (knative.dev/serving pkg/autoscaler/config/config.go: defaultConfig);
 * only class, limit and zero-initial-scale matter here.
 */
const DEFAULTS: AutoscalerConfig = DEFAULT_AUTOSCALER;

const A = "autoscaling.knative.dev/";
const CLASS = A + "class";
const MIN = A + "min-scale";
const MAX = A + "max-scale";
const ACTIVATION = A + "activation-scale";
const PANIC_WINDOW = A + "panic-window-percentage";
const PANIC_THRESHOLD = A + "panic-threshold-percentage";
const TARGET = A + "target";
const TU = A + "target-utilization-percentage";
const TBC = A + "target-burst-capacity";
const WINDOW = A + "window";
const RETENTION = A + "scale-to-zero-pod-retention-period";
const SDD = A + "scale-down-delay";
const METRIC = A + "metric";
const ALGORITHM = A + "metric-aggregation-algorithm";
const INITIAL = A + "initial-scale";
const KPA = "kpa.autoscaling.knative.dev";
const HPA = "hpa.autoscaling.knative.dev";

interface Case {
  readonly name: string;
  readonly annotations: Record<string, string> | undefined;
  readonly want?: string;
  readonly config?: Partial<AutoscalerConfig>;
}

const cases: Case[] = [
  // Scale bounds.
  { name: "nil annotations", annotations: undefined },
  { name: "empty annotations", annotations: {} },
  { name: "unrelated annotations", annotations: { "foo/bar": "x", "serving.knative.dev/x": "-1" } },
  { name: "unknown autoscaling key", annotations: { [A + "does-not-exist"]: "-1" } },
  { name: "minScale is 0", annotations: { [MIN]: "0" } },
  { name: "maxScale is 0", annotations: { [MAX]: "0" } },
  { name: "minScale is -1", annotations: { [MIN]: "-1" }, want: `expected 0 <= -1 <= 2147483647: ${MIN}` },
  { name: "maxScale is -1", annotations: { [MAX]: "-1" }, want: `expected 0 <= -1 <= 2147483647: ${MAX}` },
  { name: "minScale is foo", annotations: { [MIN]: "foo" }, want: `invalid value: foo: ${MIN}` },
  { name: "maxScale is bar", annotations: { [MAX]: "bar" }, want: `invalid value: bar: ${MAX}` },
  { name: "max/minScale is bar", annotations: { [MAX]: "bar", [MIN]: "bar" }, want: `invalid value: bar: ${MAX}, ${MIN}` },
  { name: "minScale is 5", annotations: { [MIN]: "5" } },
  { name: "maxScale is 2", annotations: { [MAX]: "2" } },
  { name: "minScale is 2, maxScale is 5", annotations: { [MIN]: "2", [MAX]: "5" } },
  {
    name: "minScale is 5, maxScale is 2",
    annotations: { [MIN]: "5", [MAX]: "2" },
    want: `max-scale=2 is less than min-scale=5: ${MAX}, ${MIN}`,
  },
  { name: "minScale is 0, maxScale is 0", annotations: { [MIN]: "0", [MAX]: "0" } },
  { name: "minScale is 5, maxScale is 0 (unlimited)", annotations: { [MIN]: "5", [MAX]: "0" } },
  { name: "minScale beyond int32", annotations: { [MIN]: "2147483648" }, want: `expected 0 <= 2147483648 <= 2147483647: ${MIN}` },
  { name: "minScale at int32 max", annotations: { [MIN]: "2147483647" } },
  { name: "minScale far below int32", annotations: { [MIN]: "-99999999999" }, want: `expected 0 <= -99999999999 <= 2147483647: ${MIN}` },
  { name: "minScale with a space", annotations: { [MIN]: " 2" }, want: `invalid value:  2: ${MIN}` },
  { name: "minScale as a float", annotations: { [MIN]: "1.5" }, want: `invalid value: 1.5: ${MIN}` },
  { name: "minScale alias", annotations: { [A + "minScale"]: "-3" }, want: `expected 0 <= -3 <= 2147483647: ${A}minScale` },
  { name: "maxScale alias", annotations: { [A + "maxScale"]: "many" }, want: `invalid value: many: ${A}maxScale` },
  { name: "canonical key wins over alias", annotations: { [MIN]: "1", [A + "minScale"]: "bogus" } },
  {
    name: "cross check uses canonical keys for aliases",
    annotations: { [A + "minScale"]: "5", [A + "maxScale"]: "2" },
    want: `max-scale=2 is less than min-scale=5: ${MAX}, ${MIN}`,
  },
  {
    name: "maxScale is 0 with max-scale-limit",
    annotations: { [MAX]: "0" },
    config: { maxScaleLimit: 10 },
    want: `max-scale=0 (unlimited), must be less than 10: ${MAX}`,
  },
  {
    name: "maxScale is greater than max-scale-limit",
    annotations: { [MAX]: "11" },
    config: { maxScaleLimit: 10 },
    want: `expected 1 <= 11 <= 10: ${MAX}`,
  },
  { name: "maxScale within max-scale-limit", annotations: { [MAX]: "10" }, config: { maxScaleLimit: 10 } },
  { name: "maxScale absent with max-scale-limit", annotations: { [MIN]: "1" }, config: { maxScaleLimit: 10 } },
  {
    name: "unparsable maxScale with max-scale-limit reads as unlimited too",
    annotations: { [MAX]: "abc" },
    config: { maxScaleLimit: 100 },
    want: `invalid value: abc: ${MAX}\nmax-scale=0 (unlimited), must be less than 100: ${MAX}`,
  },
  {
    name: "maxScale limit prints the parsed number",
    annotations: { [MAX]: "0101" },
    config: { maxScaleLimit: 100 },
    want: `expected 1 <= 101 <= 100: ${MAX}`,
  },

  // Activation scale.
  { name: "activation-scale 2 with min 1 max 10", annotations: { [ACTIVATION]: "2", [MIN]: "1", [MAX]: "10" } },
  { name: "activation-scale 2 equal to min", annotations: { [ACTIVATION]: "2", [MIN]: "2" } },
  { name: "activation-scale 3 with unlimited max", annotations: { [ACTIVATION]: "3", [MIN]: "0", [MAX]: "0" } },
  { name: "activation-scale 1", annotations: { [ACTIVATION]: "1" }, want: `activation-scale=1 must be greater than 1: ${ACTIVATION}` },
  { name: "activation-scale invalid", annotations: { [ACTIVATION]: "x" }, want: `invalid value: x: ${ACTIVATION}` },
  { name: "activation-scale beyond int32", annotations: { [ACTIVATION]: "2147483648" }, want: `invalid value: 2147483648: ${ACTIVATION}` },
  {
    name: "activation-scale below min-scale",
    annotations: { [ACTIVATION]: "2", [MIN]: "3" },
    want: `min-scale=3 is greater than activation-scale=2: ${ACTIVATION}`,
  },
  {
    name: "activation-scale above max-scale",
    annotations: { [ACTIVATION]: "5", [MAX]: "3" },
    want: `max-scale=3 is less than activation-scale=5: ${ACTIVATION}`,
  },
  {
    name: "negative activation-scale is below the default min-scale",
    annotations: { [ACTIVATION]: "-5" },
    want: `min-scale=0 is greater than activation-scale=-5: ${ACTIVATION}`,
  },
  {
    name: "activation-scale only reports its first failure",
    annotations: { [ACTIVATION]: "3", [MIN]: "4", [MAX]: "2" },
    want: `max-scale=2 is less than min-scale=4: ${MAX}, ${MIN}\nmin-scale=4 is greater than activation-scale=3: ${ACTIVATION}`,
  },

  // Floats.
  { name: "panic window percentage bad", annotations: { [PANIC_WINDOW]: "-1" }, want: `expected 1 <= -1 <= 100: ${PANIC_WINDOW}` },
  { name: "panic window percentage bad2", annotations: { [PANIC_WINDOW]: "202" }, want: `expected 1 <= 202 <= 100: ${PANIC_WINDOW}` },
  { name: "panic window percentage bad3", annotations: { [PANIC_WINDOW]: "fifty" }, want: `invalid value: fifty: ${PANIC_WINDOW}` },
  { name: "panic window percentage good", annotations: { [PANIC_WINDOW]: "20" } },
  { name: "panic window percentage NaN passes", annotations: { [PANIC_WINDOW]: "NaN" } },
  { name: "panic window percentage exponent form", annotations: { [PANIC_WINDOW]: "1e2" } },
  { name: "panic window percentage Inf", annotations: { [PANIC_WINDOW]: "+Inf" }, want: `expected 1 <= +Inf <= 100: ${PANIC_WINDOW}` },
  { name: "panic window alias", annotations: { [A + "panicWindowPercentage"]: "0" }, want: `expected 1 <= 0 <= 100: ${A}panicWindowPercentage` },
  { name: "panic threshold percentage good", annotations: { [PANIC_THRESHOLD]: "210" } },
  { name: "panic threshold percentage bad", annotations: { [PANIC_THRESHOLD]: "109" }, want: `expected 110 <= 109 <= 1000: ${PANIC_THRESHOLD}` },
  { name: "panic threshold percentage bad2", annotations: { [PANIC_THRESHOLD]: "10009" }, want: `expected 110 <= 10009 <= 1000: ${PANIC_THRESHOLD}` },
  { name: "panic threshold percentage bad3", annotations: { [PANIC_THRESHOLD]: "fifty" }, want: `invalid value: fifty: ${PANIC_THRESHOLD}` },
  { name: "target negative", annotations: { [TARGET]: "-11" }, want: `target -11 should be at least 0.01: ${TARGET}` },
  { name: "target 0", annotations: { [TARGET]: "0" }, want: `target 0 should be at least 0.01: ${TARGET}` },
  { name: "target keeps its spelling", annotations: { [TARGET]: "1e-3" }, want: `target 1e-3 should be at least 0.01: ${TARGET}` },
  { name: "target at minimum", annotations: { [TARGET]: "0.01" } },
  { name: "target okay", annotations: { [TARGET]: "11" } },
  { name: "target invalid", annotations: { [TARGET]: "a lot" }, want: `invalid value: a lot: ${TARGET}` },
  { name: "TBC negative", annotations: { [TBC]: "-11" }, want: `invalid value: -11: ${TBC}` },
  { name: "TBC 0", annotations: { [TBC]: "0" } },
  { name: "TBC 19880709", annotations: { [TBC]: "19880709" } },
  { name: "TBC -1 (unlimited)", annotations: { [TBC]: "-1" } },
  { name: "TBC invalid", annotations: { [TBC]: "qarashen" }, want: `invalid value: qarashen: ${TBC}` },
  { name: "TBC alias", annotations: { [A + "targetBurstCapacity"]: "-7" }, want: `invalid value: -7: ${A}targetBurstCapacity` },
  { name: "TU too small", annotations: { [TU]: "0" }, want: `expected 1 <= 0 <= 100: ${TU}` },
  { name: "TU too big", annotations: { [TU]: "100.0000001" }, want: `expected 1 <= 100.0000001 <= 100: ${TU}` },
  { name: "TU invalid", annotations: { [TU]: "dghyak" }, want: `invalid value: dghyak: ${TU}` },
  { name: "TU bounds", annotations: { [TU]: "1", [A + "targetUtilizationPercentage"]: "-5" } },

  // Durations.
  { name: "window invalid", annotations: { [WINDOW]: "jerry-was-here" }, want: `invalid value: jerry-was-here: ${WINDOW}` },
  { name: "window without unit", annotations: { [WINDOW]: "60" }, want: `invalid value: 60: ${WINDOW}` },
  { name: "window too short", annotations: { [WINDOW]: "1s" }, want: `expected 6s <= 1s <= 1h0m0s: ${WINDOW}` },
  { name: "window just too short", annotations: { [WINDOW]: "5999ms" }, want: `expected 6s <= 5999ms <= 1h0m0s: ${WINDOW}` },
  { name: "window too long", annotations: { [WINDOW]: "365h" }, want: `expected 6s <= 365h <= 1h0m0s: ${WINDOW}` },
  { name: "window at bounds", annotations: { [WINDOW]: "6s" } },
  { name: "window at upper bound", annotations: { [WINDOW]: "1h" } },
  { name: "window in ms", annotations: { [WINDOW]: "60000ms" } },
  { name: "window sub-second", annotations: { [WINDOW]: "10.5s" }, want: `must be specified with at most second precision: ${WINDOW}` },
  { name: "retention negative", annotations: { [RETENTION]: "-1s" }, want: `expected 0s <= -1s <= 1h0m0s: ${RETENTION}` },
  { name: "retention too long", annotations: { [RETENTION]: "120m" }, want: `expected 0s <= 120m <= 1h0m0s: ${RETENTION}` },
  { name: "retention invalid", annotations: { [RETENTION]: "x" }, want: `invalid value: x: ${RETENTION}` },
  { name: "retention sub-second is fine", annotations: { [RETENTION]: "1.5s" } },
  {
    name: "retention alias",
    annotations: { [A + "scaleToZeroPodRetentionPeriod"]: "-5m" },
    want: `expected 0s <= -5m <= 1h0m0s: ${A}scaleToZeroPodRetentionPeriod`,
  },
  { name: "scale down delay negative", annotations: { [SDD]: "-1s" }, want: `expected 0s <= -1s <= 1h0m0s: ${SDD}` },
  { name: "scale down delay too long", annotations: { [SDD]: "1h1s" }, want: `expected 0s <= 1h1s <= 1h0m0s: ${SDD}` },
  { name: "scale down delay sub-second", annotations: { [SDD]: "1.5s" }, want: `must be specified with at most second precision: ${SDD}` },
  { name: "scale down delay invalid", annotations: { [SDD]: "x" }, want: `invalid value: x: ${SDD}` },
  { name: "scale down delay ok", annotations: { [SDD]: "15m" } },
  { name: "scale down delay alias", annotations: { [A + "scaleDownDelay"]: "2h" }, want: `expected 0s <= 2h <= 1h0m0s: ${A}scaleDownDelay` },

  // Class and metric.
  { name: "class kpa", annotations: { [CLASS]: KPA } },
  { name: "class hpa", annotations: { [CLASS]: HPA } },
  { name: "custom class", annotations: { [CLASS]: "example.com/autoscaler" } },
  { name: "empty class", annotations: { [CLASS]: "" } },
  { name: "bogus knative class", annotations: { [CLASS]: "bogus.knative.dev" }, want: `invalid value: bogus.knative.dev: ${CLASS}` },
  { name: "metric concurrency on default class", annotations: { [METRIC]: "concurrency" } },
  { name: "metric rps on kpa", annotations: { [CLASS]: KPA, [METRIC]: "rps" } },
  { name: "metric cpu on kpa", annotations: { [CLASS]: KPA, [METRIC]: "cpu" }, want: `invalid value: cpu: ${METRIC}` },
  { name: "metric empty on kpa", annotations: { [METRIC]: "" }, want: `invalid value: : ${METRIC}` },
  { name: "metric memory on hpa", annotations: { [CLASS]: HPA, [METRIC]: "memory" } },
  { name: "metric rps on hpa", annotations: { [CLASS]: HPA, [METRIC]: "rps" } },
  { name: "metric empty on hpa", annotations: { [CLASS]: HPA, [METRIC]: "" }, want: `invalid value: : ${METRIC}` },
  { name: "metric anything on a custom class", annotations: { [CLASS]: "example.com/x", [METRIC]: "" } },
  { name: "metric falls back to the cluster class", annotations: { [METRIC]: "cpu" }, config: { podAutoscalerClass: HPA } },
  {
    name: "class annotation wins over the cluster class",
    annotations: { [CLASS]: KPA, [METRIC]: "cpu" },
    config: { podAutoscalerClass: HPA },
    want: `invalid value: cpu: ${METRIC}`,
  },
  { name: "algorithm linear on kpa", annotations: { [CLASS]: KPA, [ALGORITHM]: "linear" } },
  { name: "algorithm weighted-exponential on kpa", annotations: { [CLASS]: KPA, [ALGORITHM]: "weighted-exponential" } },
  { name: "algorithm weightedExponential on kpa", annotations: { [CLASS]: KPA, [ALGORITHM]: "weightedExponential" } },
  { name: "algorithm empty on kpa", annotations: { [CLASS]: KPA, [ALGORITHM]: "" } },
  { name: "algorithm bogus on kpa", annotations: { [CLASS]: KPA, [ALGORITHM]: "bogus" }, want: `invalid value: bogus: ${ALGORITHM}` },
  {
    name: "algorithm alias on kpa",
    annotations: { [CLASS]: KPA, [A + "metricAggregationAlgorithm"]: "median" },
    want: `invalid value: median: ${A}metricAggregationAlgorithm`,
  },
  { name: "algorithm unchecked without an explicit class", annotations: { [ALGORITHM]: "foo" } },
  { name: "algorithm unchecked on hpa", annotations: { [CLASS]: HPA, [ALGORITHM]: "foo" } },

  // Initial scale.
  { name: "initial scale zero not allowed", annotations: { [INITIAL]: "0" }, want: `invalid value: 0: ${INITIAL}=0 not allowed by cluster` },
  { name: "initial scale zero allowed", annotations: { [INITIAL]: "0" }, config: { allowZeroInitialScale: true } },
  { name: "initial scale positive", annotations: { [INITIAL]: "10" } },
  { name: "initial scale negative", annotations: { [INITIAL]: "-1" }, want: `invalid value: -1: ${INITIAL} must be greater than 0` },
  { name: "initial scale not an integer", annotations: { [INITIAL]: "1.0" }, want: `invalid value: 1.0: ${INITIAL}` },
  { name: "initial scale beyond int64", annotations: { [INITIAL]: "9223372036854775808" }, want: `invalid value: 9223372036854775808: ${INITIAL}` },
  {
    name: "initial scale alias",
    annotations: { [A + "initialScale"]: "-2" },
    want: `invalid value: -2: ${A}initialScale must be greater than 0`,
  },

  // Everything at once.
  {
    name: "all together now fail",
    annotations: { [PANIC_THRESHOLD]: "fifty", [PANIC_WINDOW]: "-11", [MIN]: "-4", [MAX]: "never" },
    want:
      `expected 0 <= -4 <= 2147483647: ${MIN}\n` +
      `expected 1 <= -11 <= 100: ${PANIC_WINDOW}\n` +
      `invalid value: fifty: ${PANIC_THRESHOLD}\n` +
      `invalid value: never: ${MAX}`,
  },
  {
    name: "all together now, succeed",
    annotations: { [PANIC_THRESHOLD]: "125", [PANIC_WINDOW]: "75", [MIN]: "5", [MAX]: "8", [WINDOW]: "60s", [TARGET]: "70" },
  },
];

describe("validateAutoscalingAnnotationsWith", () => {
  it.each(cases)("$name", ({ annotations, want, config }) => {
    const got = validateAutoscalingAnnotationsWith(annotations, { ...DEFAULTS, ...config });
    expect(renderFieldError(got)).toBe(want ?? "");
  });
});

describe("validateAutoscalingAnnotations", () => {
  it("reads config-autoscaler from the request context", () => {
    const admission = { autoscaler: { ...DEFAULTS, allowZeroInitialScale: true } } as unknown as AdmissionConfig;
    const ctx = { config: { admission } } as unknown as RequestContext;
    expect(validateAutoscalingAnnotations({ [INITIAL]: "0" }, ctx)).toBeUndefined();
    expect(renderFieldError(validateAutoscalingAnnotations({ [INITIAL]: "-1" }, ctx))).toBe(
      `invalid value: -1: ${INITIAL} must be greater than 0`,
    );
  });

  it("does not touch the configuration when no autoscaling key is present", () => {
    const ctx = { config: {} } as unknown as RequestContext;
    expect(validateAutoscalingAnnotations({ "serving.knative.dev/creator": "alice" }, ctx)).toBeUndefined();
  });
});
