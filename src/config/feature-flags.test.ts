/**
 * The one table of config-features flags (feature-flags.ts) and what serving/feature-gates.ts says each gates: the
 * same flags, keys and fields, so that a flag added to one and not the other fails here.
 */
import { describe, expect, it } from "vitest";
import { FEATURE_GATES } from "../serving/feature-gates.js";
import { DEFAULT_FEATURES } from "./features.js";
import { FEATURE_FLAGS } from "./feature-flags.js";

describe("FEATURE_FLAGS", () => {
  it("has each key and each field once", () => {
    expect(new Set(FEATURE_FLAGS.map((f) => f.key)).size).toBe(FEATURE_FLAGS.length);
    expect(new Set(FEATURE_FLAGS.map((f) => f.field)).size).toBe(FEATURE_FLAGS.length);
  });

  it("is what feature-gates.ts describes: the same keys, each with the same field", () => {
    expect(FEATURE_GATES.map((g) => [g.key, g.field]).sort()).toEqual(FEATURE_FLAGS.map((f) => [f.key, f.field]).sort());
  });

  it("gives the defaults: multi-container and emptyDir volumes Enabled, the PodSpec dry run Allowed, the rest Disabled", () => {
    const notDisabled = Object.entries(DEFAULT_FEATURES).filter(([, v]) => v !== "Disabled");
    expect(notDisabled.sort()).toEqual([["multiContainer", "Enabled"], ["podSpecDryRun", "Allowed"], ["podSpecVolumesEmptyDir", "Enabled"]]);
    expect(Object.keys(DEFAULT_FEATURES)).toHaveLength(FEATURE_FLAGS.length);
  });
});
