import { describe, expect, it } from "vitest";
import { parseGcConfig } from "./gc.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"retain-since-create-time": "disabled", "retain-since-last-active-time": "Disabled", "max-non-active-revisions": "DISABLED"}, undefined],
  [{"retain-since-create-time": "di\u017fabled"}, undefined],
  [{"retain-since-create-time": "-1h"}, "failed to parse retain-since-create-time: must be non-negative"],
  [{"retain-since-last-active-time": "forever"}, "failed to parse retain-since-last-active-time: time: invalid duration \"forever\""],
  [{"min-non-active-revisions": "x"}, "failed to parse data: failed to parse \"min-non-active-revisions\": strconv.ParseInt: parsing \"x\": invalid syntax"],
  [{"min-non-active-revisions": "-1"}, "min-non-active-revisions must be non-negative, was: -1"],
  [{"max-non-active-revisions": "-3"}, "failed to parse max-non-active-revisions: strconv.ParseUint: parsing \"-3\": invalid syntax"],
  [{"min-non-active-revisions": "10", "max-non-active-revisions": "5"}, "min-non-active-revisions(10) must be <= max-non-active-revisions(5)"],
  [{"min-non-active-revisions": "10", "max-non-active-revisions": "disabled"}, undefined],
  [{"min-non-active-revisions": "", "retain-since-create-time": "x"}, "failed to parse data: failed to parse \"min-non-active-revisions\": strconv.ParseInt: parsing \"\": invalid syntax"],
];

describe("parseGcConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseGcConfig(data)).toBe(error);
  });
});
