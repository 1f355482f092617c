/**
 * The knative/pkg `configmap.As*` integer parsers that src/config/configmap-parse.ts does not cover:
 * `AsInt` (strconv.Atoi, or ParseInt from 1.19) and `AsUint32` (strconv.ParseUint(raw, 10, 32)), with Knative's
 * `failed to parse "<key>": <Go error>` wrapping. Values stay exact (bigint) for messages.
 */
import { goQuote } from "../../go/strconv/quote.js";
import { parseIntBig, parseUintBig, type GoParse } from "../../go/strconv/strconv.js";
import { lookup } from "../configmap-parse.js";
import type { ConfigMapParseRules } from "../profile.js";
import type { ConfigData } from "../types.js";

function wrap<T>(key: string, r: GoParse<T>): GoParse<T> {
  return r.ok ? r : { ok: false, error: `failed to parse ${goQuote(key)}: ${r.error}` };
}

/**
 * configmap.AsInt (a 64-bit int): strconv.Atoi in 1.17, strconv.ParseInt(raw, 10, 0) from 1.19
 * (knative.dev/pkg configmap/parser/parse.go: parse[int]); the two differ only in the function their errors name.
 */
export function asInt(data: ConfigData, key: string, fallback: bigint, rules: ConfigMapParseRules): GoParse<bigint> {
  const raw = lookup(data, key);
  return raw === undefined ? { ok: true, value: fallback } : wrap(key, parseIntBig(raw, 10, 64, rules.intParser));
}

/** configmap.AsUint32. */
export function asUint32(data: ConfigData, key: string, fallback: bigint): GoParse<bigint> {
  const raw = lookup(data, key);
  return raw === undefined ? { ok: true, value: fallback } : wrap(key, parseUintBig(raw, 10, 32));
}
