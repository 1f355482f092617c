/**
 * Go's `strconv` number and bool parsing with Go's exact grammar and error texts (Go 1.23 src/strconv/atoi.go,
 * atof.go, atob.go):
 * `ParseInt`, `Atoi`, `ParseUint`, `ParseFloat(s, 64)`, `ParseBool`.
 *
 * Integers are accumulated exactly (bigint once they leave the safe range) so that range errors match Go;
 * the number-returning functions round values beyond 2^53, the `*Big` variants return them exactly.
 */
import { goQuote } from "./quote.js";

export type GoParse<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const SYNTAX = "invalid syntax";
const RANGE = "value out of range";

/** Go's `*strconv.NumError` text. */
export function numError(fn: string, input: string, cause: string): string {
  return `strconv.${fn}: parsing ${goQuote(input)}: ${cause}`;
}

function fail(fn: string, input: string, cause: string): { ok: false; error: string } {
  return { ok: false, error: numError(fn, input, cause) };
}

// ---------------------------------------------------------------------------------------------
// Integers

type UintScan = { kind: "ok"; value: bigint } | { kind: "syntax" } | { kind: "range" };

const MAX_UINT64 = (1n << 64n) - 1n;
const SYNTAX_SCAN: UintScan = { kind: "syntax" };
const RANGE_SCAN: UintScan = { kind: "range" };

function lower(c: number): number {
  return c | 0x20;
}

/** Go's ParseUint core (strconv/atoi.go): digits of `base` (0 = prefix-determined, underscores allowed). */
function scanUint(s: string, base: number, bitSize: number): UintScan {
  if (s === "") return SYNTAX_SCAN;
  const base0 = base === 0;
  const s0 = s;
  let i = 0;
  if (base0) {
    base = 10;
    if (s.charCodeAt(0) === 0x30) {
      if (s.length >= 3 && lower(s.charCodeAt(1)) === 0x62) {
        base = 2;
        i = 2;
      } else if (s.length >= 3 && lower(s.charCodeAt(1)) === 0x6f) {
        base = 8;
        i = 2;
      } else if (s.length >= 3 && lower(s.charCodeAt(1)) === 0x78) {
        base = 16;
        i = 2;
      } else {
        base = 8;
        i = 1;
      }
    }
  } else if (base < 2 || base > 36) {
    throw new RangeError(`strconv: invalid base ${base}`);
  }
  if (bitSize === 0) bitSize = 64;
  if (bitSize < 1 || bitSize > 64) throw new RangeError(`strconv: invalid bit size ${bitSize}`);
  // Fast path: a short run of decimal digits cannot overflow a double's exact range. As in the loop below, a
  // prefix that overflows bitSize is a range error even when a bad character follows (`9223372036.5s` at 32 bits).
  if (base === 10 && !base0 && s.length <= 15) {
    const max = bitSize < 53 ? 2 ** bitSize - 1 : Number.MAX_SAFE_INTEGER;
    let n = 0;
    for (let j = 0; j < s.length; j++) {
      const d = s.charCodeAt(j) - 0x30;
      if (d < 0 || d > 9) return SYNTAX_SCAN;
      n = n * 10 + d;
      if (n > max) return RANGE_SCAN;
    }
    return { kind: "ok", value: BigInt(n) };
  }
  const maxVal = bitSize === 64 ? MAX_UINT64 : (1n << BigInt(bitSize)) - 1n;
  const bigBase = BigInt(base);
  const cutoff = MAX_UINT64 / bigBase + 1n;
  let underscores = false;
  let n = 0n;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c === 0x5f && base0) {
      underscores = true;
      continue;
    } else if (c >= 0x30 && c <= 0x39) {
      d = c - 0x30;
    } else if (lower(c) >= 0x61 && lower(c) <= 0x7a) {
      d = lower(c) - 0x61 + 10;
    } else {
      return SYNTAX_SCAN;
    }
    if (d >= base) return SYNTAX_SCAN;
    // Go reports overflow as soon as it happens, even if a bad character follows.
    if (n >= cutoff) return RANGE_SCAN;
    n = n * bigBase + BigInt(d);
    if (n > maxVal) return RANGE_SCAN;
  }
  if (underscores && !underscoreOK(s0)) return SYNTAX_SCAN;
  return { kind: "ok", value: n };
}

/** `strconv.ParseUint(s, base, bitSize)`, exact. */
export function parseUintBig(s: string, base = 10, bitSize = 64): GoParse<bigint> {
  const r = scanUint(s, base, bitSize);
  if (r.kind === "ok") return { ok: true, value: r.value };
  return fail("ParseUint", s, r.kind === "syntax" ? SYNTAX : RANGE);
}

/** `strconv.ParseInt(s, base, bitSize)`, exact. */
export function parseIntBig(s: string, base = 10, bitSize = 64, fn = "ParseInt"): GoParse<bigint> {
  if (s === "") return fail(fn, s, SYNTAX);
  if (bitSize === 0) bitSize = 64;
  let body = s;
  let neg = false;
  const c = s.charCodeAt(0);
  if (c === 0x2b) body = s.slice(1);
  else if (c === 0x2d) {
    neg = true;
    body = s.slice(1);
  }
  const r = scanUint(body, base, bitSize);
  if (r.kind === "syntax") return fail(fn, s, SYNTAX);
  if (r.kind === "range") return fail(fn, s, RANGE);
  const cutoff = 1n << BigInt(bitSize - 1);
  if (!neg && r.value >= cutoff) return fail(fn, s, RANGE);
  if (neg && r.value > cutoff) return fail(fn, s, RANGE);
  return { ok: true, value: neg ? -r.value : r.value };
}

function toNumber(r: GoParse<bigint>): GoParse<number> {
  return r.ok ? { ok: true, value: Number(r.value) } : r;
}

/** `strconv.ParseInt(s, 10, bitSize)` (bitSize 64 by default); values beyond 2^53 are rounded. */
export function parseInt(s: string, bitSize = 64, base = 10): GoParse<number> {
  return toNumber(parseIntBig(s, base, bitSize));
}

/** `strconv.ParseUint(s, 10, bitSize)`; values beyond 2^53 are rounded. */
export function parseUint(s: string, bitSize = 64, base = 10): GoParse<number> {
  return toNumber(parseUintBig(s, base, bitSize));
}

/** `strconv.Atoi(s)` on a 64-bit platform: ParseInt(s, 10, 0) reported as `strconv.Atoi`. */
export function atoi(s: string): GoParse<number> {
  return toNumber(parseIntBig(s, 10, 64, "Atoi"));
}

/**
 * Go's underscoreOK: underscores must separate digits (or follow a base prefix) and the number may not
 * end in one.
 */
export function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s.length >= 1 && (s[0] === "-" || s[0] === "+")) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0") {
    const p = lower(s.charCodeAt(1));
    if (p === 0x62 || p === 0x6f || p === 0x78) {
      i = 2;
      saw = "0";
      hex = p === 0x78;
    }
  }
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (hex && lower(c) >= 0x61 && lower(c) <= 0x66)) {
      saw = "0";
      continue;
    }
    if (c === 0x5f) {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

// ---------------------------------------------------------------------------------------------
// Bool

/** `strconv.ParseBool`. */
export function parseBool(s: string): GoParse<boolean> {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "true":
    case "TRUE":
    case "True":
      return TRUE;
    case "0":
    case "f":
    case "F":
    case "false":
    case "FALSE":
    case "False":
      return FALSE;
  }
  return fail("ParseBool", s, SYNTAX);
}

const TRUE: GoParse<boolean> = Object.freeze({ ok: true, value: true });
const FALSE: GoParse<boolean> = Object.freeze({ ok: true, value: false });

// ---------------------------------------------------------------------------------------------
// Floats

/** Length of the common prefix of s (case-folded ASCII) and the lower-case `prefix`. */
function commonPrefixLenIgnoreCase(s: string, from: number, prefix: string): number {
  const n = Math.min(prefix.length, s.length - from);
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(from + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== prefix.charCodeAt(i)) return i;
  }
  return n;
}

/** Go's `special`: a prefix spelling inf / infinity / nan; returns the value and prefix length. */
function special(s: string): { value: number; n: number } | undefined {
  if (s.length === 0) return undefined;
  const c = s.charCodeAt(0);
  let sign = 1;
  let nsign = 0;
  if (c === 0x2b || c === 0x2d || c === 0x69 || c === 0x49) {
    if (c === 0x2d) sign = -1;
    if (c === 0x2b || c === 0x2d) nsign = 1;
    let n = commonPrefixLenIgnoreCase(s, nsign, "infinity");
    if (n > 3 && n < 8) n = 3;
    if (n === 3 || n === 8) return { value: sign * Infinity, n: nsign + n };
    return undefined;
  }
  if ((c === 0x6e || c === 0x4e) && commonPrefixLenIgnoreCase(s, 0, "nan") === 3) return { value: NaN, n: 3 };
  return undefined;
}

interface FloatScan {
  /** Bytes consumed. */
  readonly n: number;
  readonly ok: boolean;
  readonly neg: boolean;
  readonly hex: boolean;
  /** Decimal: the digits to hand to Number() (no underscores). Hex: the mantissa digits. */
  readonly digits: string;
  /** Hex only: binary exponent to apply to the integer mantissa. */
  readonly exp2: number;
}

/** Go's readFloat: the longest well-formed float prefix of s. */
function readFloat(s: string): FloatScan {
  let i = 0;
  let neg = false;
  let underscores = false;
  const bad = (): FloatScan => ({ n: i, ok: false, neg, hex: false, digits: "", exp2: 0 });
  if (i >= s.length) return bad();
  if (s[i] === "+") i++;
  else if (s[i] === "-") {
    i++;
    neg = true;
  }
  let hex = false;
  if (i + 2 < s.length && s[i] === "0" && lower(s.charCodeAt(i + 1)) === 0x78) {
    i += 2;
    hex = true;
  }
  let sawdot = false;
  let sawdigits = false;
  let digits = "";
  let fracDigits = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5f) {
      underscores = true;
      continue;
    }
    if (c === 0x2e) {
      if (sawdot) break;
      sawdot = true;
      digits += ".";
      continue;
    }
    if ((c >= 0x30 && c <= 0x39) || (hex && lower(c) >= 0x61 && lower(c) <= 0x66)) {
      sawdigits = true;
      digits += s[i];
      if (sawdot) fracDigits++;
      continue;
    }
    break;
  }
  if (!sawdigits) return bad();
  let exp2 = 0;
  let exponentText = "";
  const expChar = hex ? 0x70 : 0x65;
  if (i < s.length && lower(s.charCodeAt(i)) === expChar) {
    i++;
    if (i >= s.length) return bad();
    let esign = 1;
    let signText = "";
    if (s[i] === "+") {
      i++;
    } else if (s[i] === "-") {
      i++;
      esign = -1;
      signText = "-";
    }
    if (i >= s.length || s.charCodeAt(i) < 0x30 || s.charCodeAt(i) > 0x39) return bad();
    let e = 0;
    let eDigits = "";
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x5f) {
        underscores = true;
        continue;
      }
      if (c < 0x30 || c > 0x39) break;
      eDigits += s[i];
      // Go stops accumulating past 10000: the result is ±Inf or 0 either way.
      if (e < 10000) e = e * 10 + (c - 0x30);
    }
    exp2 = e * esign;
    exponentText = "e" + signText + eDigits;
  } else if (hex) {
    return bad();
  }
  if (underscores && !underscoreOK(s.slice(0, i))) return bad();
  if (hex) return { n: i, ok: true, neg, hex, digits: digits.replace(".", ""), exp2: exp2 - 4 * fracDigits };
  return { n: i, ok: true, neg, hex, digits: digits + exponentText, exp2: 0 };
}

/** m × 2^e2 rounded to the nearest double (ties to even); Infinity when it overflows. */
function scaleToDouble(m: bigint, e2: number): number {
  if (m === 0n) return 0;
  const bitlen = m.toString(2).length;
  const lead = bitlen - 1 + e2;
  if (lead > 1023) return Infinity;
  const prec = lead < -1022 ? lead + 1075 : 53;
  if (prec < 0) return 0;
  const shift = bitlen - prec;
  if (shift <= 0) return Number(m) * Math.pow(2, e2);
  let q = m >> BigInt(shift);
  const rem = m & ((1n << BigInt(shift)) - 1n);
  const half = 1n << BigInt(shift - 1);
  if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  if (q === 1n << BigInt(prec) && lead + 1 > 1023) return Infinity;
  return Number(q) * Math.pow(2, e2 + shift);
}

/** `strconv.ParseFloat(s, 64)`: decimal and hex floats, underscores per Go syntax, inf/infinity/nan. */
export function parseFloat(s: string): GoParse<number> {
  const sp = special(s);
  if (sp !== undefined) return sp.n === s.length ? { ok: true, value: sp.value } : fail("ParseFloat", s, SYNTAX);
  const scan = readFloat(s);
  if (!scan.ok || scan.n !== s.length) return fail("ParseFloat", s, SYNTAX);
  let value: number;
  if (scan.hex) value = scaleToDouble(BigInt("0x" + scan.digits), scan.exp2);
  else value = Number(scan.digits);
  if (scan.neg) value = -value;
  if (value === Infinity || value === -Infinity) return fail("ParseFloat", s, RANGE);
  return { ok: true, value };
}

// ---------------------------------------------------------------------------------------------
// Quoted literals

/** One decoded character of a quoted literal: its code point (or raw byte for `\x`), and what follows. */
interface UnquotedChar {
  readonly value: number;
  /** True when the value is a code point to encode as UTF-8; false for a single byte. */
  readonly multibyte: boolean;
  readonly tail: number;
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

const SIMPLE_ESCAPES: Readonly<Record<number, number>> = { 0x61: 7, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9, 0x76: 11, 0x5c: 0x5c };

/** Go's strconv.UnquoteChar over UTF-8 bytes starting at `at`; undefined for ErrSyntax. */
export function unquoteCharBytes(s: Uint8Array, at: number, quote: number): UnquotedChar | undefined {
  if (at >= s.length) return undefined;
  const c = s[at] as number;
  if (c === quote && (quote === 0x27 || quote === 0x22)) return undefined;
  if (c >= 0x80) {
    const decoded = Buffer.from(s.subarray(at, Math.min(s.length, at + 4))).toString("utf8");
    const cp = decoded.codePointAt(0) as number;
    const size = cp === 0xfffd ? utf8Size(s, at) : Buffer.byteLength(String.fromCodePoint(cp), "utf8");
    return { value: cp, multibyte: true, tail: at + size };
  }
  if (c !== 0x5c) return { value: c, multibyte: false, tail: at + 1 };
  if (s.length - at <= 1) return undefined;
  const e = s[at + 1] as number;
  let i = at + 2;
  const simple = SIMPLE_ESCAPES[e];
  if (simple !== undefined) return { value: simple, multibyte: false, tail: i };
  if (e === 0x78 || e === 0x75 || e === 0x55) {
    const n = e === 0x78 ? 2 : e === 0x75 ? 4 : 8;
    if (s.length - i < n) return undefined;
    let v = 0;
    for (let j = 0; j < n; j++) {
      const x = unhex(s[i + j] as number);
      if (x < 0) return undefined;
      v = v * 16 + x;
    }
    i += n;
    if (e === 0x78) return { value: v, multibyte: false, tail: i };
    if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
    return { value: v, multibyte: true, tail: i };
  }
  if (e >= 0x30 && e <= 0x37) {
    let v = e - 0x30;
    if (s.length - i < 2) return undefined;
    for (let j = 0; j < 2; j++) {
      const x = (s[i + j] as number) - 0x30;
      if (x < 0 || x > 7) return undefined;
      v = (v << 3) | x;
    }
    i += 2;
    if (v > 255) return undefined;
    return { value: v, multibyte: false, tail: i };
  }
  if (e === 0x27 || e === 0x22) return e === quote ? { value: e, multibyte: false, tail: i } : undefined;
  return undefined;
}

/** Length of the (possibly invalid) UTF-8 sequence at `at`, as Go's DecodeRune consumes it: 1 when invalid. */
function utf8Size(s: Uint8Array, at: number): number {
  const c = s[at] as number;
  const n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
  if (n === 1 || at + n > s.length) return 1;
  const decoded = Buffer.from(s.subarray(at, at + n)).toString("utf8");
  return decoded.length > 0 && decoded.codePointAt(0) !== 0xfffd ? n : 1;
}

function appendChar(out: number[], ch: UnquotedChar): void {
  if (ch.value < 0x80 || !ch.multibyte) out.push(ch.value);
  else for (const b of Buffer.from(String.fromCodePoint(ch.value), "utf8")) out.push(b);
}

/** Go's strconv.Unquote for "…", '…' and `…` literals; invalid UTF-8 produced by `\x` escapes decodes as U+FFFD. */
export function unquote(s: string): GoParse<string> {
  const bad: GoParse<string> = { ok: false, error: SYNTAX };
  const b = Buffer.from(s, "utf8");
  if (b.length < 2) return bad;
  const quote = b[0] as number;
  if (quote === 0x60) {
    const end = b.indexOf(0x60, 1);
    if (end !== b.length - 1) return bad;
    return { ok: true, value: s.slice(1, -1).replace(/\r/g, "") };
  }
  if (quote !== 0x22 && quote !== 0x27) return bad;
  const out: number[] = [];
  let i = 1;
  while (i < b.length && b[i] !== quote) {
    if (b[i] === 0x0a) return bad;
    const ch = unquoteCharBytes(b, i, quote);
    if (ch === undefined) return bad;
    appendChar(out, ch);
    i = ch.tail;
    if (quote === 0x27) break;
  }
  if (!(i < b.length && b[i] === quote) || i + 1 !== b.length) return bad;
  return { ok: true, value: Buffer.from(out).toString("utf8") };
}

// ---------------------------------------------------------------------------------------------
// Formatting

/**
 * `strconv.FormatFloat(v, 'f', prec, 64)` as fmt's `%.<prec>f` prints it: the exact binary value rounded half
 * to even, `+Inf` / `-Inf` / `NaN` for the specials, and the sign of negative zero kept.
 */
export function formatFloatFixed(v: number, prec = 6): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  const neg = v < 0 || Object.is(v, -0);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(v));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (biased === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  const scale = 10n ** BigInt(prec);
  let q: bigint;
  if (exp >= 0) q = (mant << BigInt(exp)) * scale;
  else {
    const num = mant * scale;
    const den = 1n << BigInt(-exp);
    q = num / den;
    const rem2 = (num % den) * 2n;
    if (rem2 > den || (rem2 === den && (q & 1n) === 1n)) q += 1n;
  }
  const digits = q.toString().padStart(prec + 1, "0");
  const int = digits.slice(0, digits.length - prec);
  const frac = digits.slice(digits.length - prec);
  return (neg ? "-" : "") + int + (prec > 0 ? "." + frac : "");
}
