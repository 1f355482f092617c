import { describe, expect, it } from "vitest";
import { PROFILES } from "../profile.js";
import { parseObservabilityConfig } from "./observability.js";
import { parseOtelObservabilityConfig } from "./observability-otel.js";

const RULES = PROFILES["1.23"].configMapParse;

// Expected texts are knative.dev/pkg observability/{tracing,metrics,runtime}/config.go's and knative.dev/serving
// pkg/observability/config.go's errors, as the 1.23/1.24 conformance vectors carry them.
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{}, undefined],
  // The OpenCensus keys of 1.17 are not read any more.
  [{ "metrics.backend-destination": "opencensus", "profiling.enable": "on", "metrics.reporting-period-seconds": "abc", "metrics.request-metrics-reporting-period-seconds": "x" }, undefined],
  // tracing
  [{ "tracing-protocol": "zipkin" }, 'unsupported protocol "zipkin"'],
  [{ "tracing-protocol": "GRPC", "tracing-endpoint": "x" }, 'unsupported protocol "GRPC"'],
  [{ "tracing-protocol": "http/protobuf" }, 'endpoint should be set for protocol "http/protobuf"'],
  [{ "tracing-protocol": "grpc", "tracing-endpoint": "collector:4317" }, undefined],
  [{ "tracing-protocol": "stdout", "tracing-endpoint": "x" }, "endpoint should not be set when protocol is 'none'"],
  [{ "tracing-endpoint": "x" }, "endpoint should not be set when protocol is 'none'"],
  [{ "tracing-endpoint": "   " }, undefined],
  [{ "tracing-sampling-rate": "1.5" }, "sampling rate 1.500000 should be less than or equal to one"],
  [{ "tracing-sampling-rate": "-0.1" }, "sampling rate -0.100000 should be greater or equal to zero"],
  [{ "tracing-sampling-rate": "Inf" }, "sampling rate +Inf should be less than or equal to one"],
  [{ "tracing-sampling-rate": "NaN" }, undefined],
  [{ "tracing-sampling-rate": "half" }, 'failed to parse "tracing-sampling-rate": strconv.ParseFloat: parsing "half": invalid syntax'],
  // tracing is checked before metrics
  [{ "tracing-protocol": "zipkin", "metrics-protocol": "statsd" }, 'unsupported protocol "zipkin"'],
  // metrics
  [{ "metrics-protocol": "opencensus" }, 'unsupported protocol "opencensus"'],
  [{ "metrics-protocol": " prometheus " }, undefined],
  [{ "metrics-protocol": "prometheus", "metrics-endpoint": ":9090" }, undefined],
  [{ "metrics-protocol": "grpc" }, 'endpoint should be set when protocol is "grpc"'],
  [{ "metrics-endpoint": "http://collector:4318" }, 'endpoint should not be set when protocol is "none"'],
  [{ "metrics-export-interval": "-5s" }, 'export interval "-5s" should be greater than zero'],
  [{ "metrics-export-interval": "5" }, 'failed to parse "metrics-export-interval": time: missing unit in duration "5"'],
  // runtime
  [{ "runtime-profiling": "true" }, 'unsupported profile setting "true"'],
  [{ "runtime-profiling": " enabled " }, undefined],
  [{ "runtime-export-interval": "-1m" }, 'export interval "-1m0s" should be greater than zero'],
  // request metrics (metrics with the prefix "request-"), after runtime
  [{ "request-metrics-protocol": "statsd" }, 'unsupported protocol "statsd"'],
  [{ "runtime-profiling": "on", "request-metrics-protocol": "statsd" }, 'unsupported profile setting "on"'],
  [{ "request-metrics-export-interval": "soon" }, 'failed to parse "request-metrics-export-interval": time: invalid duration "soon"'],
  [{ "request-metrics-protocol": "http/protobuf", "request-metrics-endpoint": "collector:4318" }, undefined],
  // logging, wrapped bool errors
  [{ "logging.enable-var-log-collection": "yes" }, 'failed to parse "logging.enable-var-log-collection": strconv.ParseBool: parsing "yes": invalid syntax'],
  [{ "logging.enable-probe-request-log": "maybe" }, 'failed to parse "logging.enable-probe-request-log": strconv.ParseBool: parsing "maybe": invalid syntax'],
  [{ "logging.enable-request-log": " true " }, 'failed to parse "logging.enable-request-log": strconv.ParseBool: parsing " true ": invalid syntax'],
  [{ "logging.enable-request-log": "true" }, undefined],
  [{ "logging.enable-request-log": "true", "logging.request-log-template": "  " }, '"logging.enable-request-log" was set to true, but no "logging.request-log-template" was specified'],
  [{ "logging.request-log-template": "{{.Request.Method" }, "template: requestLog:1: unclosed action"],
  [{ "logging.request-log-template": "" }, undefined],
];

describe("parseOtelObservabilityConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseOtelObservabilityConfig(data, RULES, PROFILES["1.23"].toolchain)).toBe(error);
  });
});

describe("parseObservabilityConfig picks the schema of the profile", () => {
  it("1.17 reads the OpenCensus keys, 1.23 and 1.24 the OpenTelemetry ones", () => {
    const data = { "metrics.reporting-period-seconds": "abc", "metrics-protocol": "statsd" };
    expect(parseObservabilityConfig(data, PROFILES["1.17"])).toBe('invalid metrics.reporting-period-seconds value "abc"');
    expect(parseObservabilityConfig(data, PROFILES["1.23"])).toBe('unsupported protocol "statsd"');
    expect(parseObservabilityConfig(data, PROFILES["1.24"])).toBe('unsupported protocol "statsd"');
    // Without a profile: the default release, 1.24.
    expect(parseObservabilityConfig(data)).toBe('unsupported protocol "statsd"');
  });
});
