/**
 * Integers beyond 2^53 in ConfigMaps, as Knative's Go parsers see them: knative.dev/pkg/configmap/parse.go (Knative
 * 1.17) and configmap/parser/parse.go (from serving v0.46.0) (AsInt64, AsInt32, AsUint32, AsInt) over
 * strconv.ParseInt / ParseUint / Atoi parse exactly, range errors are strconv's, and messages print an int64 with all
 * its digits (`%d`, `%v`). float64 keys keep Go's float format. Without a profile: the default release, 1.24.
 */
import { describe, expect, it } from "vitest";
import { answerReview } from "../../src/admission/http.js";
import { defaultDeps } from "../../src/cli/main.js";
import { parseDefaultsConfig } from "../../src/config/defaults.js";
import { PROFILES, type KnativeProfile } from "../../src/config/profile.js";
import { snapshotFrom } from "../../src/config/snapshot.js";
import { knativeConfigMapValidators } from "../../src/config/validators.js";
import { renderFieldError } from "../../src/apis/field-error.js";
import { validateContainerConcurrency } from "../../src/serving/podspec.js";

const I64_MAX = "9223372036854775807";
const I64_MAX_PLUS_1 = "9223372036854775808";
const I64_MIN = "-9223372036854775808";
const I64_MIN_MINUS_1 = "-9223372036854775809";
const P53_PLUS_1 = "9007199254740993"; // 2^53 + 1: a double rounds it to 9007199254740992
const P53 = "9007199254740992";

const validators = knativeConfigMapValidators();

/** The ConfigMap validator's verdict as the release `profile` gives it: Knative's error text, or "allowed". */
function verdict(configMap: string, data: Record<string, string>, profile?: KnativeProfile): string {
  const validate = validators.lookup(configMap);
  if (validate === undefined) throw new Error(`no validator for ${configMap}`);
  return validate(data, {}, profile) ?? "allowed";
}

const rangeInt = (key: string, raw: string): string => `failed to parse "${key}": strconv.ParseInt: parsing "${raw}": value out of range`;
const rangeUint = (key: string, raw: string): string => `failed to parse "${key}": strconv.ParseUint: parsing "${raw}": value out of range`;
const rangeAtoi = (key: string, raw: string): string => `failed to parse "${key}": strconv.Atoi: parsing "${raw}": value out of range`;

interface Case {
  readonly data: Record<string, string>;
  readonly want: string;
}

function table(configMap: string, cases: readonly Case[], profile?: KnativeProfile): void {
  const release = profile === undefined ? "" : `Knative ${profile.version}: `;
  it.each(cases.map((c) => ({ ...c, shown: JSON.stringify(c.data) })))(`${release}${configMap} $shown`, ({ data, want }) => {
    expect(verdict(configMap, data, profile)).toBe(want);
  });
}

describe("int64 keys (configmap.AsInt64: strconv.ParseInt(raw, 10, 64))", () => {
  table("config-defaults", [
    { data: { "revision-timeout-seconds": I64_MAX }, want: `revision-timeout-seconds (${I64_MAX}) cannot be greater than max-revision-timeout-seconds (600)` },
    { data: { "revision-timeout-seconds": I64_MAX_PLUS_1 }, want: rangeInt("revision-timeout-seconds", I64_MAX_PLUS_1) },
    { data: { "revision-timeout-seconds": P53_PLUS_1 }, want: `revision-timeout-seconds (${P53_PLUS_1}) cannot be greater than max-revision-timeout-seconds (600)` },
    { data: { "revision-timeout-seconds": I64_MIN }, want: "allowed" },
    { data: { "revision-timeout-seconds": I64_MIN_MINUS_1 }, want: rangeInt("revision-timeout-seconds", I64_MIN_MINUS_1) },
    // Compared exactly: 2^53 + 1 > 2^53 although both are the same double.
    { data: { "revision-timeout-seconds": P53_PLUS_1, "max-revision-timeout-seconds": P53 }, want: `revision-timeout-seconds (${P53_PLUS_1}) cannot be greater than max-revision-timeout-seconds (${P53})` },
    { data: { "revision-timeout-seconds": I64_MAX, "max-revision-timeout-seconds": I64_MAX }, want: "allowed" },
    { data: { "max-revision-timeout-seconds": I64_MAX }, want: "allowed" },
    { data: { "max-revision-timeout-seconds": I64_MAX_PLUS_1 }, want: rangeInt("max-revision-timeout-seconds", I64_MAX_PLUS_1) },
    { data: { "max-revision-timeout-seconds": I64_MIN }, want: `revision-timeout-seconds (300) cannot be greater than max-revision-timeout-seconds (${I64_MIN})` },
    { data: { "max-revision-timeout-seconds": I64_MIN_MINUS_1 }, want: rangeInt("max-revision-timeout-seconds", I64_MIN_MINUS_1) },
    { data: { "revision-response-start-timeout-seconds": I64_MAX }, want: `revision-response-start-timeout-seconds (${I64_MAX}) cannot be greater than revision-timeout-seconds (300)` },
    { data: { "revision-response-start-timeout-seconds": I64_MAX_PLUS_1 }, want: rangeInt("revision-response-start-timeout-seconds", I64_MAX_PLUS_1) },
    { data: { "revision-response-start-timeout-seconds": I64_MIN }, want: "allowed" },
    { data: { "revision-idle-timeout-seconds": P53_PLUS_1 }, want: `revision-idle-timeout-seconds (${P53_PLUS_1}) cannot be greater than revision-timeout-seconds (300)` },
    { data: { "revision-idle-timeout-seconds": I64_MIN_MINUS_1 }, want: rangeInt("revision-idle-timeout-seconds", I64_MIN_MINUS_1) },
    { data: { "container-concurrency": I64_MAX }, want: `expected 0 <= ${I64_MAX} <= 1000: container-concurrency` },
    { data: { "container-concurrency": I64_MAX_PLUS_1 }, want: rangeInt("container-concurrency", I64_MAX_PLUS_1) },
    { data: { "container-concurrency": I64_MIN }, want: `expected 0 <= ${I64_MIN} <= 1000: container-concurrency` },
    { data: { "container-concurrency": P53_PLUS_1, "container-concurrency-max-limit": P53 }, want: `expected 0 <= ${P53_PLUS_1} <= ${P53}: container-concurrency` },
    { data: { "container-concurrency": I64_MAX, "container-concurrency-max-limit": I64_MAX }, want: "allowed" },
    { data: { "container-concurrency-max-limit": I64_MAX_PLUS_1 }, want: rangeInt("container-concurrency-max-limit", I64_MAX_PLUS_1) },
    { data: { "container-concurrency-max-limit": I64_MIN }, want: `expected 1 <= ${I64_MIN} <= 2147483647: container-concurrency-max-limit` },
    { data: { "container-concurrency-max-limit": I64_MIN_MINUS_1 }, want: rangeInt("container-concurrency-max-limit", I64_MIN_MINUS_1) },
  ]);

  // serving pkg/gc: min-non-active-revisions is AsInt64; max-non-active-revisions is strconv.ParseUint(raw, 10, 64)
  // guarded to int64 ("value should be lower than 9223372036854775807").
  table("config-gc", [
    { data: { "min-non-active-revisions": I64_MAX }, want: `min-non-active-revisions(${I64_MAX}) must be <= max-non-active-revisions(1000)` },
    { data: { "min-non-active-revisions": I64_MAX_PLUS_1 }, want: `failed to parse data: ${rangeInt("min-non-active-revisions", I64_MAX_PLUS_1)}` },
    { data: { "min-non-active-revisions": I64_MIN }, want: `min-non-active-revisions must be non-negative, was: ${I64_MIN}` },
    { data: { "min-non-active-revisions": I64_MIN_MINUS_1 }, want: `failed to parse data: ${rangeInt("min-non-active-revisions", I64_MIN_MINUS_1)}` },
    { data: { "min-non-active-revisions": P53_PLUS_1, "max-non-active-revisions": P53 }, want: `min-non-active-revisions(${P53_PLUS_1}) must be <= max-non-active-revisions(${P53})` },
    { data: { "min-non-active-revisions": I64_MAX, "max-non-active-revisions": I64_MAX }, want: "allowed" },
    { data: { "max-non-active-revisions": I64_MAX_PLUS_1 }, want: `failed to parse max-non-active-revisions: value should be lower than ${I64_MAX}` },
    { data: { "max-non-active-revisions": "18446744073709551615" }, want: `failed to parse max-non-active-revisions: value should be lower than ${I64_MAX}` },
    { data: { "max-non-active-revisions": "18446744073709551616" }, want: 'failed to parse max-non-active-revisions: strconv.ParseUint: parsing "18446744073709551616": value out of range' },
    { data: { "max-non-active-revisions": I64_MIN }, want: `failed to parse max-non-active-revisions: strconv.ParseUint: parsing "${I64_MIN}": invalid syntax` },
  ]);
});

describe("int32 keys (configmap.AsInt32: strconv.ParseInt(raw, 10, 32))", () => {
  const wrapped = (key: string, raw: string): string => `failed to parse data: ${rangeInt(key, raw)}`;
  table("config-autoscaler", [
    { data: { "max-scale-limit": "2147483647" }, want: "max-scale = 0, must be in [1, max-scale-limit(2147483647)] range" },
    { data: { "max-scale-limit": "2147483648" }, want: wrapped("max-scale-limit", "2147483648") },
    { data: { "max-scale-limit": I64_MAX }, want: wrapped("max-scale-limit", I64_MAX) },
    { data: { "max-scale-limit": P53_PLUS_1 }, want: wrapped("max-scale-limit", P53_PLUS_1) },
    { data: { "max-scale-limit": "-2147483648" }, want: "max-scale-limit = -2147483648, must be at least 0" },
    { data: { "max-scale-limit": "-2147483649" }, want: wrapped("max-scale-limit", "-2147483649") },
    { data: { "max-scale": "2147483647", "max-scale-limit": "2147483647" }, want: "allowed" },
    { data: { "max-scale": I64_MAX_PLUS_1 }, want: wrapped("max-scale", I64_MAX_PLUS_1) },
    { data: { "min-scale": "-2147483648" }, want: "min-scale = -2147483648, must be at least 0" },
    { data: { "min-scale": I64_MIN }, want: wrapped("min-scale", I64_MIN) },
    { data: { "initial-scale": "2147483647" }, want: "allowed" },
    { data: { "initial-scale": "-2147483648" }, want: "initial-scale = -2147483648, must be at least 0 (or at least 1 when allow-zero-initial-scale is false)" },
    { data: { "initial-scale": I64_MIN_MINUS_1 }, want: wrapped("initial-scale", I64_MIN_MINUS_1) },
  ]);
});

describe("uint32 keys (configmap.AsUint32: strconv.ParseUint(raw, 10, 32))", () => {
  table("config-leader-election", [
    { data: { buckets: "4294967295" }, want: "buckets: value must be between 1 <= 4294967295 <= 10" },
    { data: { buckets: "4294967296" }, want: rangeUint("buckets", "4294967296") },
    { data: { buckets: I64_MAX }, want: rangeUint("buckets", I64_MAX) },
    { data: { buckets: P53_PLUS_1 }, want: rangeUint("buckets", P53_PLUS_1) },
    { data: { buckets: I64_MIN }, want: `failed to parse "buckets": strconv.ParseUint: parsing "${I64_MIN}": invalid syntax` },
  ]);
});

// The release decides how AsInt parses: strconv.Atoi in Knative 1.17, strconv.ParseInt from serving v0.46.0
// (config_validation/network-rollout-duration-invalid); and from then config-observability ignores the OpenCensus
// keys (config_validation/observability-reporting-period-invalid).
describe("int keys (configmap.AsInt, 64-bit)", () => {
  for (const [version, range] of [["1.17", rangeAtoi], ["1.24", rangeInt]] as const) {
    table(
      "config-network",
      [
        { data: { "rollout-duration": I64_MAX }, want: "allowed" },
        { data: { "rollout-duration": I64_MAX_PLUS_1 }, want: range("rollout-duration", I64_MAX_PLUS_1) },
        { data: { "rollout-duration": I64_MIN }, want: `rollout-duration must be a positive integer, but was ${I64_MIN}` },
        { data: { "rollout-duration": `-${P53_PLUS_1}` }, want: `rollout-duration must be a positive integer, but was -${P53_PLUS_1}` },
        { data: { "rollout-duration": I64_MIN_MINUS_1 }, want: range("rollout-duration", I64_MIN_MINUS_1) },
      ],
      PROFILES[version],
    );
  }
  table(
    "config-observability",
    [
      { data: { "metrics.request-metrics-reporting-period-seconds": I64_MAX }, want: "allowed" },
      { data: { "metrics.request-metrics-reporting-period-seconds": I64_MAX_PLUS_1 }, want: rangeAtoi("metrics.request-metrics-reporting-period-seconds", I64_MAX_PLUS_1) },
      { data: { "metrics.request-metrics-reporting-period-seconds": I64_MIN_MINUS_1 }, want: rangeAtoi("metrics.request-metrics-reporting-period-seconds", I64_MIN_MINUS_1) },
      // The global reporting period is only checked with strconv.Atoi, and reported in Knative's own words.
      { data: { "metrics.reporting-period-seconds": I64_MIN }, want: "allowed" },
      { data: { "metrics.reporting-period-seconds": I64_MAX_PLUS_1 }, want: `invalid metrics.reporting-period-seconds value "${I64_MAX_PLUS_1}"` },
    ],
    PROFILES["1.17"],
  );
  table(
    "config-observability",
    [
      { data: { "metrics.request-metrics-reporting-period-seconds": I64_MAX_PLUS_1 }, want: "allowed" },
      { data: { "metrics.reporting-period-seconds": I64_MAX_PLUS_1 }, want: "allowed" },
    ],
    PROFILES["1.24"],
  );
});

describe("float64 keys keep Go's float format (configmap.AsFloat64)", () => {
  table("config-autoscaler", [{ data: { "panic-window-percentage": P53_PLUS_1 }, want: "panic-window-percentage = 9.007199254740992e+15, must be in [1, 100] interval" }]);
});

describe("the configured int64 bounds in admission answers", () => {
  it("keeps config-defaults' bounds exact for the rules: compared and printed with every digit", () => {
    const r = parseDefaultsConfig({ "max-revision-timeout-seconds": I64_MAX, "container-concurrency-max-limit": P53_PLUS_1 });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.maxRevisionTimeoutSeconds).toBe(BigInt(I64_MAX));
    expect(r.value.containerConcurrencyMaxLimit).toBe(BigInt(P53_PLUS_1));
    // Safe values stay plain numbers.
    const small = parseDefaultsConfig({ "max-revision-timeout-seconds": "9007199254740991" });
    expect(small.ok ? small.value.maxRevisionTimeoutSeconds : small.error).toBe(9007199254740991);
    expect(renderFieldError(validateContainerConcurrency(-1, r.value))).toBe(`expected 0 <= -1 <= ${P53_PLUS_1}: `);
    expect(validateContainerConcurrency(Number.MAX_SAFE_INTEGER, r.value)).toBeUndefined();
  });

  const deps = defaultDeps();

  function review(object: Record<string, unknown>, kind: { group: string; version: string; kind: string }, resource: string): string {
    return JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { uid: "9e2b7c1a-0000-4000-8000-000000000053", kind, resource: { group: kind.group, version: kind.version, resource }, operation: "CREATE", userInfo: { username: "alice" }, object },
    });
  }

  async function message(path: "/resource-validation" | "/config-validation", body: string, configDefaults: Record<string, string> = {}): Promise<string | undefined> {
    const answer = await answerReview(path, body, deps, { config: snapshotFrom({ "config-defaults": configDefaults }, "test") });
    const response = (JSON.parse(answer.body) as { response: { allowed: boolean; status?: { message?: string } } }).response;
    return response.allowed ? undefined : response.status?.message;
  }

  function service(spec: Record<string, unknown>): string {
    const object = {
      apiVersion: "serving.knative.dev/v1",
      kind: "Service",
      metadata: { name: "hello", namespace: "default" },
      spec: { template: { spec: { ...spec, containers: [{ image: "ghcr.io/knative/helloworld-go" }] } }, traffic: [{ latestRevision: true, percent: 100 }] },
    };
    return review(object, { group: "serving.knative.dev", version: "v1", kind: "Service" }, "services");
  }

  it.each([
    { key: "max-revision-timeout-seconds", value: I64_MAX, spec: { timeoutSeconds: -1 }, want: `validation failed: expected 0 <= -1 <= ${I64_MAX}: spec.template.spec.timeoutSeconds` },
    { key: "max-revision-timeout-seconds", value: P53_PLUS_1, spec: { timeoutSeconds: -1 }, want: `validation failed: expected 0 <= -1 <= ${P53_PLUS_1}: spec.template.spec.timeoutSeconds` },
    { key: "container-concurrency-max-limit", value: I64_MAX, spec: { containerConcurrency: -1 }, want: `validation failed: expected 0 <= -1 <= ${I64_MAX}: spec.template.spec.containerConcurrency` },
    { key: "container-concurrency-max-limit", value: P53_PLUS_1, spec: { containerConcurrency: -1 }, want: `validation failed: expected 0 <= -1 <= ${P53_PLUS_1}: spec.template.spec.containerConcurrency` },
  ])("/resource-validation prints $key = $value with Go's digits", async ({ key, value, spec, want }) => {
    expect(await message("/resource-validation", service(spec), { [key]: value })).toBe(want);
  });

  it("/config-validation denies with strconv's range error and accepts int64 max", async () => {
    const configMap = (data: Record<string, string>): string =>
      review({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "config-defaults", namespace: "knative-serving" }, data }, { group: "", version: "v1", kind: "ConfigMap" }, "configmaps");
    expect(await message("/config-validation", configMap({ "max-revision-timeout-seconds": I64_MAX }))).toBeUndefined();
    expect(await message("/config-validation", configMap({ "max-revision-timeout-seconds": I64_MAX_PLUS_1 }))).toBe(
      `validation failed: failed to parse "max-revision-timeout-seconds": strconv.ParseInt: parsing "${I64_MAX_PLUS_1}": value out of range`,
    );
    expect(await message("/config-validation", configMap({ "container-concurrency": P53_PLUS_1 }))).toBe(`validation failed: expected 0 <= ${P53_PLUS_1} <= 1000: container-concurrency`);
  });
});
