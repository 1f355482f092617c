/**
 * gopkg.in/yaml.v2's implicit typing of scalars (resolve.go): YAML 1.1 booleans (yes/no/on/off/y/n),
 * nulls, ints in any Go base-0 form (underscores ignored), floats, `.inf`/`.nan`, and timestamps
 * (kept as strings when decoding into interface{}).
 */
import { parseFloat, parseIntBig, parseUintBig } from "../strconv/strconv.js";
import { GoFloat, GoInt, type GoValue } from "./values.js";

export const TAG_PREFIX = "tag:yaml.org,2002:";
export const NULL_TAG = TAG_PREFIX + "null";
export const BOOL_TAG = TAG_PREFIX + "bool";
export const STR_TAG = TAG_PREFIX + "str";
export const INT_TAG = TAG_PREFIX + "int";
export const FLOAT_TAG = TAG_PREFIX + "float";
export const TIMESTAMP_TAG = TAG_PREFIX + "timestamp";
export const BINARY_TAG = TAG_PREFIX + "binary";
export const MERGE_TAG = TAG_PREFIX + "merge";

/** A Go panic raised through `failf`: the message already has its `yaml: ` prefix. */
export class YamlFailure extends Error {}

export function failf(message: string): never {
  throw new YamlFailure("yaml: " + message);
}

const MAP: ReadonlyMap<string, readonly [GoValue, string]> = (() => {
  const m = new Map<string, readonly [GoValue, string]>();
  const add = (value: GoValue, tag: string, words: readonly string[]): void => {
    for (const w of words) m.set(w, [value, tag]);
  };
  add(true, BOOL_TAG, ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]);
  add(false, BOOL_TAG, ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]);
  add(null, NULL_TAG, ["", "~", "null", "Null", "NULL"]);
  add(new GoFloat(NaN), FLOAT_TAG, [".nan", ".NaN", ".NAN"]);
  add(new GoFloat(Infinity), FLOAT_TAG, [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]);
  add(new GoFloat(-Infinity), FLOAT_TAG, ["-.inf", "-.Inf", "-.INF"]);
  add("<<", MERGE_TAG, ["<<"]);
  return m;
})();

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const MAX_INT64 = (1n << 63n) - 1n;

function hintOf(s: string): string {
  if (s === "") return "N";
  const c = s.charAt(0);
  if (c === "+" || c === "-") return "S";
  if (c >= "0" && c <= "9") return "D";
  if ("yYnNtTfFoO~".includes(c)) return "M";
  if (c === ".") return ".";
  return "";
}

export function shortTag(tag: string): string {
  return tag.startsWith(TAG_PREFIX) ? "!!" + tag.slice(TAG_PREFIX.length) : tag;
}

function resolvableTag(tag: string): boolean {
  return tag === "" || tag === STR_TAG || tag === BOOL_TAG || tag === INT_TAG || tag === FLOAT_TAG || tag === NULL_TAG || tag === TIMESTAMP_TAG;
}

function intValue(v: bigint): GoValue {
  return new GoInt(v, false);
}

/** resolve(tag, in): the resolved tag and value; a tag the value cannot satisfy fails as Go does. */
export function resolve(tag: string, input: string): [string, GoValue] {
  if (!resolvableTag(tag)) return [tag, input];
  const [rtag, out] = resolveUnchecked(tag, input);
  if (tag === "" || tag === rtag || tag === STR_TAG || tag === BINARY_TAG) return [rtag, out];
  if (tag === FLOAT_TAG && rtag === INT_TAG && out instanceof GoInt) return [FLOAT_TAG, new GoFloat(Number(out.value))];
  failf(`cannot decode ${shortTag(rtag)} \`${input}\` as a ${shortTag(tag)}`);
}

function resolveUnchecked(tag: string, input: string): [string, GoValue] {
  const hint = hintOf(input);
  if (hint === "" || tag === STR_TAG || tag === BINARY_TAG) return [STR_TAG, input];
  const mapped = MAP.get(input);
  if (mapped !== undefined) return [mapped[1], mapped[0]];
  if (hint === ".") {
    const f = parseFloat(input);
    if (f.ok) return [FLOAT_TAG, new GoFloat(f.value)];
  } else if (hint === "D" || hint === "S") {
    if ((tag === "" || tag === TIMESTAMP_TAG) && isTimestamp(input)) return [TIMESTAMP_TAG, input];
    const plain = input.replaceAll("_", "");
    const i = parseIntBig(plain, 0, 64);
    if (i.ok) return [INT_TAG, intValue(i.value)];
    const u = parseUintBig(plain, 0, 64);
    if (u.ok) return [INT_TAG, new GoInt(u.value, u.value > MAX_INT64)];
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = parseFloat(plain);
      if (f.ok) return [FLOAT_TAG, new GoFloat(f.value)];
    }
    if (plain.startsWith("0b")) {
      const b = parseIntBig(plain.slice(2), 2, 64);
      if (b.ok) return [INT_TAG, intValue(b.value)];
      const ub = parseUintBig(plain.slice(2), 2, 64);
      if (ub.ok) return [INT_TAG, new GoInt(ub.value, ub.value > MAX_INT64)];
    } else if (plain.startsWith("-0b")) {
      const b = parseIntBig("-" + plain.slice(3), 2, 64);
      if (b.ok) return [INT_TAG, intValue(b.value)];
    }
  }
  return [STR_TAG, input];
}

// The subset of http://yaml.org/type/timestamp.html go-yaml accepts through time.Parse.
const TIMESTAMP = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(Z|[+-]\d\d:\d\d)?)?$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (m === null) return false;
  const [, y, mo, d, sep, h, mi, se, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  if (sep === undefined) return true;
  // A space-separated timestamp carries no zone in go-yaml's layouts.
  if (sep === " " && zone !== undefined) return false;
  if ((sep === "T" || sep === "t") && zone === undefined) return false;
  if (Number(h) > 23 || Number(mi) > 59 || Number(se) > 59) return false;
  if (zone !== undefined && zone !== "Z" && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60)) return false;
  return true;
}
