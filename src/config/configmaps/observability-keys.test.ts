import { describe, expect, it } from "vitest";
import { PROFILES } from "../profile.js";
import { OPENTELEMETRY_COUNTERPARTS, OPENTELEMETRY_KEYS, readsObservabilityKey } from "./observability-keys.js";
import { parseObservabilityConfig } from "./observability.js";

/** A value each OpenTelemetry key rejects (with tracing-endpoint and metrics-endpoint rejected as set while the protocol is none). */
const BAD_VALUE = "not-a-value";

describe("the config-observability keys of each schema", () => {
  it.each(OPENTELEMETRY_KEYS)("%s: read (and rejected when invalid) by the OpenTelemetry schema only", (key) => {
    expect(readsObservabilityKey("opentelemetry", key)).toBe(true);
    expect(readsObservabilityKey("opencensus", key)).toBe(false);
    expect(parseObservabilityConfig({ [key]: BAD_VALUE }, PROFILES["1.24"])).toBeDefined();
    expect(parseObservabilityConfig({ [key]: BAD_VALUE }, PROFILES["1.17"])).toBeUndefined();
  });

  it.each(["metrics.reporting-period-seconds", "metrics.request-metrics-reporting-period-seconds", "profiling.enable"])(
    "%s: read (and rejected when invalid) by the OpenCensus schema only",
    (key) => {
      expect(readsObservabilityKey("opencensus", key)).toBe(true);
      expect(readsObservabilityKey("opentelemetry", key)).toBe(false);
      expect(parseObservabilityConfig({ [key]: BAD_VALUE }, PROFILES["1.17"])).toBeDefined();
      expect(parseObservabilityConfig({ [key]: BAD_VALUE }, PROFILES["1.24"])).toBeUndefined();
    },
  );

  it("both read the request-log keys; neither reads _example or an unknown key", () => {
    for (const schema of ["opencensus", "opentelemetry"] as const) {
      expect(readsObservabilityKey(schema, "logging.enable-request-log")).toBe(true);
      expect(readsObservabilityKey(schema, "_example")).toBe(false);
      expect(readsObservabilityKey(schema, "colour")).toBe(false);
    }
  });

  it("names OpenTelemetry counterparts only for OpenCensus keys", () => {
    for (const [key, counterpart] of Object.entries(OPENTELEMETRY_COUNTERPARTS)) {
      expect(readsObservabilityKey("opencensus", key)).toBe(true);
      expect(OPENTELEMETRY_KEYS).toContain(counterpart);
    }
  });
});
