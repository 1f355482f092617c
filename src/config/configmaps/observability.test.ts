import { describe, expect, it } from "vitest";
import { parseObservabilityConfig } from "./observability.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins).
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

describe("parseObservabilityConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseObservabilityConfig(data)).toBe(error);
  });
});
