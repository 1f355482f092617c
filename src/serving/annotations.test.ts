import { describe, expect, it } from "vitest";
import { renderFieldError } from "../apis/field-error.js";
import { firstPresentKey, validateProgressDeadline, validateRolloutDuration } from "./annotations.js";

const RD = "serving.knative.dev/rollout-duration";
const RD_ALIAS = "serving.knative.dev/rolloutDuration";
const PD = "serving.knative.dev/progress-deadline";

describe("firstPresentKey (kmap.KeyPriority.Get)", () => {
  it.each<[string, Record<string, string> | undefined, string | undefined]>([
    ["absent map", undefined, undefined],
    ["no key", { other: "x" }, undefined],
    ["alias only", { b: "1" }, "b"],
    ["first key wins", { a: "1", b: "2" }, "a"],
    ["an empty value still counts as present", { a: "", b: "2" }, "a"],
  ])("%s", (_name, m, want) => {
    expect(firstPresentKey(m, ["a", "b"])).toBe(want);
  });

  it("ignores inherited properties", () => {
    expect(firstPresentKey({}, ["toString", "constructor"])).toBeUndefined();
  });
});

describe("validateRolloutDuration", () => {
  it.each<[string, Record<string, string> | undefined, string]>([
    ["no annotations", undefined, ""],
    ["whole seconds", { [RD]: "10s" }, ""],
    ["minutes", { [RD]: "90m" }, ""],
    ["mixed units", { [RD]: "1h2m3s" }, ""],
    ["zero", { [RD]: "0" }, ""],
    ["empty value is not checked", { [RD]: "" }, ""],
    ["not a duration", { [RD]: "abc" }, `invalid value: abc: annotations.${RD}`],
    ["missing unit", { [RD]: "60" }, `invalid value: 60: annotations.${RD}`],
    ["sub-second", { [RD]: "1.5s" }, `rollout-duration=1.5s is not at second precision: annotations.${RD}`],
    ["milliseconds", { [RD]: "250ms" }, `rollout-duration=250ms is not at second precision: annotations.${RD}`],
    ["whole seconds in milliseconds", { [RD]: "2000ms" }, ""],
    ["negative", { [RD]: "-5s" }, `rollout-duration=-5s must be positive: annotations.${RD}`],
    ["precision is checked before sign", { [RD]: "-1.5s" }, `rollout-duration=-1.5s is not at second precision: annotations.${RD}`],
    ["alias", { [RD_ALIAS]: "0.5s" }, `rollout-duration=0.5s is not at second precision: annotations.${RD_ALIAS}`],
    ["canonical key wins over alias", { [RD]: "30s", [RD_ALIAS]: "x" }, ""],
    // d.Round(time.Second) saturates at the int64 limits: the largest duration is "at second precision".
    ["the largest duration", { [RD]: "9223372036854775807ns" }, ""],
    ["rounds up past the largest", { [RD]: "9223372036854775806ns" }, `rollout-duration=9223372036854775806ns is not at second precision: annotations.${RD}`],
    ["the smallest duration", { [RD]: "-9223372036854775808ns" }, `rollout-duration=-9223372036854775808ns must be positive: annotations.${RD}`],
    ["an empty canonical key hides the alias", { [RD]: "", [RD_ALIAS]: "x" }, ""],
  ])("%s", (_name, annotations, want) => {
    const meta = annotations === undefined ? {} : { annotations };
    expect(renderFieldError(validateRolloutDuration(meta))).toBe(want);
  });

  it("accepts missing metadata", () => {
    expect(validateRolloutDuration(undefined)).toBeUndefined();
  });
});

describe("validateProgressDeadline", () => {
  it.each<[string, Record<string, string> | undefined, string]>([
    ["absent", undefined, ""],
    ["minutes", { [PD]: "10m" }, ""],
    ["seconds", { [PD]: "30s" }, ""],
    ["zero", { [PD]: "0s" }, ""],
    ["empty", { [PD]: "" }, ""],
    ["sub-second", { [PD]: "1.5s" }, `progress-deadline=1.5s is not at second precision: ${PD}`],
    ["not a duration", { [PD]: "abc" }, `invalid value: abc: ${PD}`],
    ["negative", { [PD]: "-10s" }, `progress-deadline=-10s must be positive: ${PD}`],
    ["the largest duration", { [PD]: "9223372036854775807ns" }, ""],
    ["rounds up past the largest", { [PD]: "2562047h47m16.854775806s" }, `progress-deadline=2562047h47m16.854775806s is not at second precision: ${PD}`],
  ])("%s", (_name, annotations, want) => {
    expect(renderFieldError(validateProgressDeadline(annotations))).toBe(want);
  });
});
