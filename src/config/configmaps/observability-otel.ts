/**
 * `config-observability` in the OpenTelemetry schema that serving v0.46.0 (Knative 1.19) introduced:
 * knative.dev/serving pkg/observability/config.go: NewFromMap, over knative.dev/pkg observability/config.go:
 * NewFromMap. Each part is parsed and then validated before the next, and the first error wins:
 * tracing (knative.dev/pkg observability/tracing/config.go: NewFromMapWithPrefix, Validate), metrics
 * (observability/metrics/config.go: NewFromMapWithPrefix, Validate), runtime (observability/runtime/config.go:
 * NewFromMap, Validate), the request metrics (metrics with the prefix `request-`), then serving's logging keys and
 * its Validate. The keys go through knative.dev/pkg configmap/parser/parse.go: As[T], so strings are trimmed and
 * parse errors are `failed to parse "<key>": …` (the profile's configMapParse rules). The OpenCensus keys of 1.17
 * (`metrics.*`, `profiling.enable`) are no longer read.
 */
import { goQuote } from "../../go/strconv/quote.js";
import { formatFloatFixed } from "../../go/strconv/strconv.js";
import { Duration, SECOND } from "../../go/time/duration.js";
import { parseGoTemplate } from "../../go/text/template/template.js";
import { asBool, asDuration, asFloat64, asString, lookup } from "../configmap-parse.js";
import type { ConfigMapParseRules, Toolchain } from "../profile.js";
import type { ConfigData } from "../types.js";

const REQ_LOG_TEMPLATE_KEY = "logging.request-log-template";
const ENABLE_REQ_LOG_KEY = "logging.enable-request-log";

/** knative.dev/pkg observability/tracing/config.go: NewFromMapWithPrefix and (*Config).Validate. */
function checkTracing(data: ConfigData, rules: ConfigMapParseRules): string | undefined {
  const protocol = asString(data, "tracing-protocol", "none", rules);
  const endpoint = asString(data, "tracing-endpoint", "", rules);
  const rate = asFloat64(data, "tracing-sampling-rate", 0);
  if (!rate.ok) return rate.error;
  switch (protocol) {
    case "grpc":
    case "http/protobuf":
      if (endpoint === "") return `endpoint should be set for protocol ${goQuote(protocol)}`;
      break;
    case "none":
    case "stdout":
      if (endpoint !== "") return "endpoint should not be set when protocol is 'none'";
      break;
    default:
      return `unsupported protocol ${goQuote(protocol)}`;
  }
  // NaN passes, as in Go: both comparisons are false.
  if (rate.value < 0) return `sampling rate ${formatFloatFixed(rate.value)} should be greater or equal to zero`;
  if (rate.value > 1) return `sampling rate ${formatFloatFixed(rate.value)} should be less than or equal to one`;
  return undefined;
}

/** knative.dev/pkg observability/metrics/config.go: NewFromMapWithPrefix and (*Config).Validate. */
function checkMetrics(data: ConfigData, prefix: string, rules: ConfigMapParseRules): string | undefined {
  const protocol = asString(data, `${prefix}metrics-protocol`, "none", rules);
  const endpoint = asString(data, `${prefix}metrics-endpoint`, "", rules);
  const interval = asDuration(data, `${prefix}metrics-export-interval`, new Duration(0n));
  if (!interval.ok) return interval.error;
  switch (protocol) {
    case "grpc":
    case "http/protobuf":
      if (endpoint === "") return `endpoint should be set when protocol is ${goQuote(protocol)}`;
      break;
    case "none":
      if (endpoint !== "") return `endpoint should not be set when protocol is ${goQuote(protocol)}`;
      break;
    case "prometheus":
      break;
    default:
      return `unsupported protocol ${goQuote(protocol)}`;
  }
  return checkExportInterval(interval.value);
}

/** `export interval %q should be greater than zero`: %q of a time.Duration quotes its String(). */
function checkExportInterval(d: Duration): string | undefined {
  return d.ns < 0n ? `export interval ${goQuote(d.toString())} should be greater than zero` : undefined;
}

/** knative.dev/pkg observability/runtime/config.go: NewFromMap and (*Config).Validate (export interval 15s by default). */
function checkRuntime(data: ConfigData, rules: ConfigMapParseRules): string | undefined {
  const profiling = asString(data, "runtime-profiling", "disabled", rules);
  const interval = asDuration(data, "runtime-export-interval", new Duration(15n * SECOND));
  if (!interval.ok) return interval.error;
  if (profiling !== "enabled" && profiling !== "disabled") return `unsupported profile setting ${goQuote(profiling)}`;
  return checkExportInterval(interval.value);
}

/** knative.dev/serving pkg/observability/config.go: NewFromMap (the OpenTelemetry config-observability). */
export function parseOtelObservabilityConfig(data: ConfigData, rules: ConfigMapParseRules, toolchain: Toolchain): string | undefined {
  const base = checkTracing(data, rules) ?? checkMetrics(data, "", rules) ?? checkRuntime(data, rules) ?? checkMetrics(data, "request-", rules);
  if (base !== undefined) return base;
  // configmap.Parse in order; the string keys cannot fail.
  const varLog = asBool(data, "logging.enable-var-log-collection", false, rules);
  if (!varLog.ok) return varLog.error;
  const template = asString(data, REQ_LOG_TEMPLATE_KEY, "", rules);
  const enableReqLog = asBool(data, ENABLE_REQ_LOG_KEY, false, rules);
  if (!enableReqLog.ok) return enableReqLog.error;
  const probeLog = asBool(data, "logging.enable-probe-request-log", false, rules);
  if (!probeLog.ok) return probeLog.error;

  // (*Config).Validate. DefaultRequestLogTemplate (the value when the key is absent) is known to parse.
  const configured = lookup(data, REQ_LOG_TEMPLATE_KEY) !== undefined;
  if (configured && template === "" && enableReqLog.value) {
    return `${goQuote(ENABLE_REQ_LOG_KEY)} was set to true, but no ${goQuote(REQ_LOG_TEMPLATE_KEY)} was specified`;
  }
  if (configured && template !== "") {
    const t = parseGoTemplate("requestLog", template, { maxStackDepth: toolchain.templateMaxStackDepth });
    if (!t.ok) return t.error;
  }
  return undefined;
}
