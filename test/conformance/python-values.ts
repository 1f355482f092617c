/**
 * Python's value semantics and text forms for decoded JSON, so compare.ts can judge exactly like compare.py:
 * truthiness (`x or default`), `==` (True == 1, 1 == 1.0), `repr`, `%s`, `json.dumps` (", " / ": " separators,
 * ensure_ascii=False), `str.strip`, `str.isdigit` + `int`, `sorted` on strings (by code point).
 *
 * JSON.parse cannot tell `1.0` from `1`: integral numbers below 1e16 are treated as Python ints, everything else as
 * floats. That only changes how a number is spelled in a reason, never a verdict.
 */

export type Dict = Record<string, unknown>;

/** A Python exception other than compare.py's PatchError (AttributeError, ...): compare.py's main reports it as
 * "comparison error: <type>: <message>" and counts the case as failed. */
export class PythonError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

export function isDict(v: unknown): v is Dict {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function hasKey(d: Dict, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(d, key);
}

/** `d.get(key)` (None when absent); AttributeError when `d` is not a dict, as in Python. */
export function pyGet(d: unknown, key: string, fallback: unknown = null): unknown {
  if (!isDict(d)) throw attributeError(d, "get");
  return hasKey(d, key) ? d[key] : fallback;
}

export function attributeError(v: unknown, attr: string): PythonError {
  return new PythonError("AttributeError", `'${pyTypeName(v)}' object has no attribute '${attr}'`);
}

function isPyInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 1e16;
}

export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return isPyInt(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  return Array.isArray(v) ? "list" : "dict";
}

/** Python's bool(v). */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

/** Python's `==` on decoded JSON: bools compare as 0/1 with numbers; containers compare deeply. */
export function pyEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if ((typeof a === "number" || typeof a === "boolean") && (typeof b === "number" || typeof b === "boolean")) return Number(a) === Number(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!pyEqual(a[i], b[i])) return false;
    return true;
  }
  if (isDict(a)) {
    if (!isDict(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const k of keys) if (!hasKey(b, k) || !pyEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

/** Python's float.__repr__: shortest round-trip digits, exponent form outside 1e-4 <= |x| < 1e16. */
function floatRepr(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mantissa = "", expText = "0"] = n.toExponential().split("e");
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    return `${sign}${intPart}.${digits.slice(exp + 1) || "0"}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

function numberText(n: number): string {
  return isPyInt(n) ? String(n) : floatRepr(n);
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hexEscape(cp: number): string {
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\U${cp.toString(16).padStart(8, "0")}`;
}

/** Python's repr(str). */
function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += hexEscape(cp);
    else if (cp < 0x7f || ch === " " || !NON_PRINTABLE.test(ch)) out += ch;
    else out += hexEscape(cp);
  }
  return out + quote;
}

/** Python's repr() of a decoded JSON value. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return numberText(v);
  if (typeof v === "string") return strRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  const d = v as Dict;
  return `{${Object.keys(d)
    .map((k) => `${strRepr(k)}: ${pyRepr(d[k])}`)
    .join(", ")}}`;
}

/** Python's `"%s" % v`. */
export function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pyRepr(v);
}

const JSON_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function jsonString(s: string): string {
  // json.dumps(ensure_ascii=False) escapes only quotes, backslashes and C0 controls (not lone surrogates).
  // eslint-disable-next-line no-control-regex
  return `"${s.replace(/[\u0000-\u001f"\\]/g, (c) => JSON_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/** Python's json.dumps(v, ensure_ascii=False). */
export function jsonDumps(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return Number.isFinite(v) ? numberText(v) : Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  if (typeof v === "string") return jsonString(v);
  if (Array.isArray(v)) return `[${v.map(jsonDumps).join(", ")}]`;
  const d = v as Dict;
  return `{${Object.keys(d)
    .map((k) => `${jsonString(k)}: ${jsonDumps(d[k])}`)
    .join(", ")}}`;
}

// str.isspace(): differs from String.prototype.trim (which strips U+FEFF but not U+001C..U+001F or U+0085).
const PY_SPACE = "[\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, "g");

/** Python's str.strip(). */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}

/** Python's `s[:n] + "..."` when `len(s) > n` (lengths in code points). */
export function truncate(s: string, n: number): string {
  if (s.length <= n) return s;
  const cps = Array.from(s);
  return cps.length <= n ? s : cps.slice(0, n).join("") + "...";
}

/** Python's sorted() order on strings: by code point (JS sorts by UTF-16 unit). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** `int(tok)` if `tok.isdigit()` holds for decimal digits (any script, as Python accepts), else undefined. */
export function decimalValue(tok: string): bigint | undefined {
  if (tok === "") return undefined;
  let value = 0n;
  for (const ch of tok) {
    if (ch >= "0" && ch <= "9") {
      value = value * 10n + BigInt(ch.charCodeAt(0) - 48);
      continue;
    }
    if (!DECIMAL_DIGIT.test(ch)) return undefined;
    // Unicode encodes each script's decimal digits as aligned runs of ten starting at zero.
    let cp = ch.codePointAt(0) ?? 0;
    let offset = 0;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(cp - 1))) {
      cp--;
      offset++;
    }
    value = value * 10n + BigInt(offset % 10);
  }
  return value;
}
