/**
 * `config-tracing` (knative.dev/pkg tracing/config/tracing.go: NewTracingConfigFromMap; validated by serving v0.44.2,
 * dropped from cmd/webhook/main.go's constructors in v0.47.0): backend `zipkin` | `none` (or the legacy `enable`
 * flag), a zipkin endpoint when zipkin is on, and a sample rate in [0, 1].
 */
import { goFormatFloat } from "../../go/strconv/ftoa.js";
import { goQuote } from "../../go/strconv/quote.js";
import { parseBool } from "../../go/strconv/strconv.js";
import { asBool, asFloat64, asString, lookup } from "../configmap-parse.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../profile.js";
import type { ConfigData } from "../types.js";

export const TRACING_CONFIG_NAME = "config-tracing";

export function parseTracingConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): string | undefined {
  const rules = profile.configMapParse;
  let zipkin = false;
  const backend = lookup(data, "backend");
  if (backend !== undefined) {
    if (backend !== "zipkin" && backend !== "none") return `unsupported tracing backend value ${goQuote(backend)}`;
    zipkin = backend === "zipkin";
  } else {
    const enable = lookup(data, "enable");
    if (enable !== undefined) {
      const on = parseBool(enable);
      if (!on.ok) return `failed parsing tracing config "enable": ${on.error}`;
      zipkin = on.value;
    }
  }
  const endpoint = asString(data, "zipkin-endpoint", "", rules);
  const debug = asBool(data, "debug", false, rules);
  if (!debug.ok) return debug.error;
  const rate = asFloat64(data, "sample-rate", 0.1);
  if (!rate.ok) return rate.error;
  if (zipkin && endpoint === "") return "zipkin tracing enabled without a zipkin endpoint specified";
  // NaN passes, as in Go: both comparisons are false.
  if (rate.value < 0 || rate.value > 1) return `sample-rate = ${goFormatFloat(rate.value)} must be in [0, 1] range`;
  return undefined;
}
