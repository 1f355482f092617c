import { describe, expect, it } from "vitest";
import { parseObservabilityConfig } from "./observability.js";
import { PROFILES } from "../profile.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins), so they are parsed as Knative 1.17
// parses them. Knative 1.23 and 1.24 read the OpenTelemetry keys instead (observability-otel.test.ts; index.test.ts
// runs each release's config_validation vectors).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"metrics.reporting-period-seconds": "abc"}, "invalid metrics.reporting-period-seconds value \"abc\""],
  [{"metrics.reporting-period-seconds": ""}, undefined],
  [{"metrics.reporting-period-seconds": "abc", "profiling.enable": "x"}, "invalid metrics.reporting-period-seconds value \"abc\""],
  [{"metrics.request-metrics-reporting-period-seconds": "1.5"}, "failed to parse \"metrics.request-metrics-reporting-period-seconds\": strconv.Atoi: parsing \"1.5\": invalid syntax"],
  [{"logging.enable-request-log": "true", "logging.request-log-template": ""}, "\"logging.enable-request-log\" was set to true, but no \"logging.request-log-template\" was specified"],
  [{"logging.enable-request-log": "true"}, undefined],
  [{"logging.request-log-template": "{{.Request.Method"}, "template: requestLog:1: unclosed action"],
  [{"logging.request-log-template": "{{nope}}"}, "template: requestLog:1: function \"nope\" not defined"],
  [{"logging.enable-probe-request-log": "maybe"}, "strconv.ParseBool: parsing \"maybe\": invalid syntax"],
  [{"metrics.backend-destination": "bogus", "metrics.request-metrics-backend-destination": "bogus"}, undefined],
];

describe("parseObservabilityConfig (Knative 1.17)", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseObservabilityConfig(data, PROFILES["1.17"])).toBe(error);
  });
});
