/**
 * knative/pkg `configmap.As*` parse functions (knative.dev/pkg/configmap/parse.go): a key that is absent keeps the
 * default, a key that is present must parse, and the error text is Knative's (`failed to parse "<key>": <Go
 * error>`). Where the release's knative.dev/pkg differs, the profile's `configMapParse` rules say how
 * (config/profile.ts: ConfigMapParseRules): 1.17's AsString passes the value through as-is and its AsBool returns
 * Go's error unwrapped; from 1.19 (knative.dev/pkg configmap/parser/parse.go: parse[T]) strings are TrimSpace'd and
 * bool errors wrapped. Integers are parsed exactly, as strconv.ParseInt does (bigint, so int64 values beyond 2^53
 * keep their digits and range errors are strconv's).
 */
import { goQuote } from "../go/strconv/quote.js";
import { parseDuration, type Duration } from "../go/time/duration.js";
import { parseBool, parseFloat, parseIntBig, type GoParse } from "../go/strconv/strconv.js";
import { formatQuantity, parseQuantity } from "../go/apimachinery/quantity.js";
import type { ConfigMapParseRules } from "./profile.js";
import type { ConfigData } from "./types.js";
import type { Int64 } from "./types.js";
import { goTrimSpace } from "../go/strings/trim.js";

/** The value at `key` when the map really has it (never an inherited property). */
export function lookup(data: ConfigData, key: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(data, key)) return undefined;
  const v = data[key];
  return typeof v === "string" ? v : undefined;
}

function wrap<T>(key: string, r: GoParse<T>): GoParse<T> {
  return r.ok ? r : { ok: false, error: `failed to parse ${goQuote(key)}: ${r.error}` };
}

function present<T>(value: T): GoParse<T> {
  return { ok: true, value };
}

/** configmap.AsString: the value as-is (1.17) or TrimSpace'd (1.19+, configmap/parser/parse.go: parse[string]). */
export function asString(data: ConfigData, key: string, fallback: string, rules: ConfigMapParseRules): string {
  const raw = lookup(data, key);
  if (raw === undefined) return fallback;
  return rules.trimStrings ? goTrimSpace(raw) : raw;
}

/** configmap.AsBool: Go's ParseBool error, bare (1.17) or wrapped (1.19+, configmap/parser/parse.go: AsFunc). */
export function asBool(data: ConfigData, key: string, fallback: boolean, rules: ConfigMapParseRules): GoParse<boolean> {
  const raw = lookup(data, key);
  if (raw === undefined) return present(fallback);
  const r = parseBool(raw);
  return rules.wrapBoolErrors ? wrap(key, r) : r;
}

/** configmap.AsInt64: strconv.ParseInt(raw, 10, 64), exact (int64 values beyond 2^53 keep their digits). */
export function asInt64(data: ConfigData, key: string, fallback: bigint): GoParse<bigint> {
  const raw = lookup(data, key);
  return raw === undefined ? present(fallback) : wrap(key, parseIntBig(raw, 10, 64));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An exactly parsed int64 as rules hold it: a number while that is exact, else the bigint. */
export function int64Value(v: bigint): Int64 {
  return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

/** configmap.AsInt32 (strconv.ParseInt(raw, 10, 32): every int32 is a safe number). */
export function asInt32(data: ConfigData, key: string, fallback: number): GoParse<number> {
  const raw = lookup(data, key);
  if (raw === undefined) return present(fallback);
  const r = wrap(key, parseIntBig(raw, 10, 32));
  return r.ok ? present(Number(r.value)) : r;
}

/** configmap.AsFloat64. */
export function asFloat64(data: ConfigData, key: string, fallback: number): GoParse<number> {
  const raw = lookup(data, key);
  return raw === undefined ? present(fallback) : wrap(key, parseFloat(raw));
}

/** configmap.AsDuration. */
export function asDuration(data: ConfigData, key: string, fallback: Duration): GoParse<Duration> {
  const raw = lookup(data, key);
  return raw === undefined ? present(fallback) : wrap(key, parseDuration(raw));
}

/** configmap.AsQuantity: the quantity as Go's `Quantity.String()` prints it, or undefined when absent. */
export function asQuantity(data: ConfigData, key: string): GoParse<string | undefined> {
  const raw = lookup(data, key);
  if (raw === undefined) return present(undefined);
  const q = parseQuantity(raw);
  return q.ok ? present(formatQuantity(q.quantity)) : { ok: false, error: `failed to parse ${goQuote(key)}: ${q.error}` };
}

/**
 * The error for a ConfigMap whose parser threw RangeError. Knative's parsers answer every input (Go's stacks
 * grow); the ports here recurse on explicit stacks wherever Go recurses, so this is a fault of the port, reported
 * as that ConfigMap's error (its last good value stays in effect) instead of failing the request or the store.
 */
export function stackOverflowError(name: string, e: RangeError): string {
  return `${name}: its values nest deeper than this webhook can parse (${e.message})`;
}
