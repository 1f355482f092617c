import { describe, expect, it } from "vitest";
import { parseTracingConfig } from "./tracing.js";
import { PROFILES } from "../profile.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins), so they are parsed as Knative 1.17
// parses them. Knative 1.23 and 1.24 no longer validate config-tracing (config/profile.ts unvalidatedConfigMaps;
// index.test.ts runs each release's config_validation vectors).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"backend": "zipkin"}, "zipkin tracing enabled without a zipkin endpoint specified"],
  [{"backend": "zipkin", "zipkin-endpoint": "http://zipkin:9411"}, undefined],
  [{"backend": "Zipkin"}, "unsupported tracing backend value \"Zipkin\""],
  [{"backend": "none", "enable": "maybe"}, undefined],
  [{"enable": "maybe"}, "failed parsing tracing config \"enable\": strconv.ParseBool: parsing \"maybe\": invalid syntax"],
  [{"enable": "true"}, "zipkin tracing enabled without a zipkin endpoint specified"],
  [{"enable": "false"}, undefined],
  [{"debug": "x"}, "strconv.ParseBool: parsing \"x\": invalid syntax"],
  [{"sample-rate": "2"}, "sample-rate = 2 must be in [0, 1] range"],
  [{"sample-rate": "-0.5"}, "sample-rate = -0.5 must be in [0, 1] range"],
  [{"sample-rate": "1e-5"}, undefined],
  [{"sample-rate": "NaN"}, undefined],
  [{"sample-rate": "half"}, "failed to parse \"sample-rate\": strconv.ParseFloat: parsing \"half\": invalid syntax"],
  [{"backend": "zipkin", "sample-rate": "x"}, "failed to parse \"sample-rate\": strconv.ParseFloat: parsing \"x\": invalid syntax"],
];

describe("parseTracingConfig (Knative 1.17)", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseTracingConfig(data, PROFILES["1.17"])).toBe(error);
  });
});
