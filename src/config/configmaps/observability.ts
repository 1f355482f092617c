/**
 * `config-observability` as serving v0.44.2 validated it: knative/pkg's OpenCensus-era
 * `metrics.NewObservabilityConfigFromConfigMap` (knative.dev/pkg metrics/config_observability.go; not the
 * OpenTelemetry keys of serving's pkg/observability, which replaced it in Knative 1.19). The global reporting period
 * is checked first, then the typed keys in order, then the request-log template. A profile whose
 * `observabilitySchema` is "opentelemetry" (Knative 1.19 on) is checked by observability-otel.ts instead.
 */
import { goQuote } from "../../go/strconv/quote.js";
import { parseGoTemplate } from "../../go/text/template/template.js";
import { atoi } from "../../go/strconv/strconv.js";
import { asBool, asString, lookup } from "../configmap-parse.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../profile.js";
import type { ConfigData } from "../types.js";
import { asInt } from "./configmap-ints.js";
import { parseOtelObservabilityConfig } from "./observability-otel.js";

export const OBSERVABILITY_CONFIG_NAME = "config-observability";

const REPORTING_PERIOD_KEY = "metrics.reporting-period-seconds";
const REQ_LOG_TEMPLATE_KEY = "logging.request-log-template";
const ENABLE_REQ_LOG_KEY = "logging.enable-request-log";

/** metrics.DefaultRequestLogTemplate: the template used when the key is absent. */
const DEFAULT_REQUEST_LOG_TEMPLATE =
  '{"httpRequest": {"requestMethod": "{{.Request.Method}}", "requestUrl": "{{js .Request.RequestURI}}", "requestSize": "{{.Request.ContentLength}}", "status": {{.Response.Code}}, "responseSize": "{{.Response.Size}}", "userAgent": "{{js .Request.UserAgent}}", "remoteIp": "{{js .Request.RemoteAddr}}", "serverIp": "{{.Revision.PodIP}}", "referer": "{{js .Request.Referer}}", "latency": "{{.Response.Latency}}s", "protocol": "{{.Request.Proto}}"}, "traceId": "{{index .Request.Header "X-B3-Traceid"}}"}';

export function parseObservabilityConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): string | undefined {
  const rules = profile.configMapParse;
  if (profile.observabilitySchema === "opentelemetry") return parseOtelObservabilityConfig(data, rules, profile.toolchain);
  // getDefaultRequestMetricsReportingPeriod: only a non-empty global period is parsed.
  const period = lookup(data, REPORTING_PERIOD_KEY);
  if (period !== undefined && period !== "" && !atoi(period).ok) return `invalid ${REPORTING_PERIOD_KEY} value ${goQuote(period)}`;
  // cm.Parse, in order; the string keys cannot fail.
  const varLog = asBool(data, "logging.enable-var-log-collection", false, rules);
  if (!varLog.ok) return varLog.error;
  const template = asString(data, REQ_LOG_TEMPLATE_KEY, DEFAULT_REQUEST_LOG_TEMPLATE, rules);
  const enableReqLog = asBool(data, ENABLE_REQ_LOG_KEY, false, rules);
  if (!enableReqLog.ok) return enableReqLog.error;
  const probeLog = asBool(data, "logging.enable-probe-request-log", false, rules);
  if (!probeLog.ok) return probeLog.error;
  const reportingPeriod = asInt(data, "metrics.request-metrics-reporting-period-seconds", 0n, rules);
  if (!reportingPeriod.ok) return reportingPeriod.error;
  const profiling = asBool(data, "profiling.enable", false, rules);
  if (!profiling.ok) return profiling.error;

  if (template === "" && enableReqLog.value) return `${goQuote(ENABLE_REQ_LOG_KEY)} was set to true, but no ${goQuote(REQ_LOG_TEMPLATE_KEY)} was specified`;
  // The default template is known to parse.
  if (template !== "" && template !== DEFAULT_REQUEST_LOG_TEMPLATE) {
    const t = parseGoTemplate("requestLog", template, { maxStackDepth: profile.toolchain.templateMaxStackDepth });
    if (!t.ok) return t.error;
  }
  return undefined;
}
