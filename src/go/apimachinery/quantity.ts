/**
 * Kubernetes resource quantities (k8s.io/apimachinery v0.31 pkg/api/resource/quantity.go, suffix.go):
 * `ParseQuantity`, `Quantity.String()` / `MarshalJSON` and `Cmp`.
 *
 * A quantity is held exactly as `mantissa × 10^exponent` (bigint mantissa), which covers both of Go's
 * representations (int64Amount and inf.Dec) with the same arithmetic results. Go keeps the input string
 * when it is already canonical and prints that instead of re-canonicalising (`q.s`); `cached` mirrors it,
 * which is why `"+1"`, `"01"` or `"1.500"` survive a round trip while `"1000m"` becomes `"1"`.
 */

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

export interface Quantity {
  /** Signed; the value is exactly `mantissa × 10^exponent`. */
  readonly mantissa: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
  /** Go's cached string: what `String()` returns without canonicalising. */
  readonly cached: string | undefined;
}

export type QuantityParse = { ok: true; quantity: Quantity } | { ok: false; error: string };

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC_ERROR = "unable to parse numeric part of quantity";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

const FORMAT_WRONG: QuantityParse = { ok: false, error: QUANTITY_FORMAT_ERROR };
const NUMERIC_WRONG: QuantityParse = { ok: false, error: QUANTITY_NUMERIC_ERROR };
const SUFFIX_WRONG: QuantityParse = { ok: false, error: QUANTITY_SUFFIX_ERROR };

const MAX_INT64 = (1n << 63n) - 1n;
/** resource.Nano: parsed quantities are rounded up (away from zero) to this many decimals. */
const NANO = -9;
/** maxInt64Factors: a decimal mantissa of at most this many digits takes Go's int64 fast path. */
const MAX_INT64_FACTORS = 18;

const DECIMAL_SI_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const BINARY_SI_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const DECIMAL_SI_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_SI_SUFFIXES].map(([s, e]) => [e, s]),
);
const BINARY_SI_BY_POWER: readonly string[] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

const ZERO_DECIMAL_SI: Quantity = { mantissa: 0n, exponent: 0, format: "DecimalSI", cached: "0" };

interface QuantityParts {
  positive: boolean;
  /** The numeric text with sign, as inf.Dec.SetString reads it on the slow path. */
  value: string;
  /** Integer digits without leading zeros ("0" when there are none). */
  num: string;
  denom: string;
  suffix: string;
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

const SUFFIX_LETTERS = "eEinumkKMGTP";

/** parseQuantityString: splits a quantity into sign, digits and suffix, or undefined on ErrFormatWrong. */
function splitQuantity(str: string): QuantityParts | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    const c = str.charCodeAt(0);
    if (c === 45 /* - */) {
      positive = false;
      pos++;
    } else if (c === 43 /* + */) {
      pos++;
    }
  }
  // Leading zeros; an all-zero string ends here (and nothing after it is read).
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
    if (str.charCodeAt(i) !== 48) break;
    pos++;
  }
  let num: string;
  let i = pos;
  while (i < end && isDigitCode(str.charCodeAt(i))) i++;
  if (i >= end) {
    num = str.slice(pos, end);
    return { positive, value: str, num: num.length === 0 ? "0" : num, denom: "", suffix: "" };
  }
  num = str.slice(pos, i);
  pos = i;
  if (num.length === 0) num = "0";
  let denom = "";
  if (pos < end && str.charCodeAt(pos) === 46 /* . */) {
    pos++;
    let j = pos;
    while (j < end && isDigitCode(str.charCodeAt(j))) j++;
    denom = str.slice(pos, j);
    if (j >= end) return { positive, value: str, num, denom, suffix: "" };
    pos = j;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  let k = pos;
  while (k < end && SUFFIX_LETTERS.includes(str[k] as string)) k++;
  if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[k] === "-" || str[k] === "+") k++;
  while (k < end && isDigitCode(str.charCodeAt(k))) k++;
  if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  return undefined;
}

interface SuffixMeaning {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

/** quantitySuffixer.interpret. */
function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  const dec = DECIMAL_SI_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SI_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "E" || suffix[0] === "e")) {
    const exp = parseGoInt64(suffix.slice(1));
    if (exp === undefined) return undefined;
    // Go stores the exponent in an int32.
    return { base: 10, exponent: Number(BigInt.asIntN(32, exp)), format: "DecimalExponent" };
  }
  return undefined;
}

/** strconv.ParseInt(s, 10, 64) without the error text. */
function parseGoInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v > MAX_INT64 || v < -MAX_INT64 - 1n ? undefined : v;
}

/** ParseQuantity: Go's grammar, rounding and error texts (k8s.io/apimachinery pkg/api/resource/quantity.go). */
export function parseQuantity(str: string): QuantityParse {
  if (str.length === 0) return FORMAT_WRONG;
  if (str === "0") return { ok: true, quantity: ZERO_DECIMAL_SI };
  const parts = splitQuantity(str);
  if (parts === undefined) return FORMAT_WRONG;
  const meaning = interpretSuffix(parts.suffix);
  if (meaning === undefined) return SUFFIX_WRONG;
  const { positive, num, denom } = parts;
  const { base, exponent } = meaning;
  let format = meaning.format;

  // Go's int64 fast path: decides whether the input string is kept as the canonical form.
  let precision: number;
  let scale = 0;
  let multiplier = 1n;
  if (format === "BinarySI") {
    if (exponent >= 0 && denom.length === 0) {
      multiplier = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const value = BigInt(shifted);
      const product = value * multiplier;
      if (product <= MAX_INT64) {
        const canonicalInput =
          format === "BinarySI"
            ? exponent % 10 === 0 && (value & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        return {
          ok: true,
          quantity: { mantissa: positive ? product : -product, exponent: scale, format, cached: canonicalInput ? str : undefined },
        };
      }
    }
  }

  // inf.Dec slow path: exact decimal, scaled by the suffix, rounded up to nano precision.
  const decimal = parseDecimal(parts.value);
  if (decimal === undefined) return NUMERIC_WRONG;
  let mantissa = decimal.mantissa < 0n ? -decimal.mantissa : decimal.mantissa;
  let exp = decimal.exponent;
  const negative = decimal.mantissa < 0n;
  if (base === 10) exp += exponent;
  else mantissa <<= BigInt(exponent);
  if (mantissa !== 0n && exp < NANO) {
    mantissa = divideRoundingUp(mantissa, NANO - exp);
    exp = NANO;
  }
  if (format === "BinarySI") {
    if (compareMagnitude(mantissa, exp, MAX_INT64, 0) > 0) {
      mantissa = MAX_INT64;
      exp = 0;
    }
    if (mantissa !== 0n && compareMagnitude(mantissa, exp, 1n, 0) < 0) format = "DecimalSI";
  }
  return { ok: true, quantity: { mantissa: negative ? -mantissa : mantissa, exponent: exp, format, cached: undefined } };
}

/** inf.Dec.SetString for `[+-]?digits[.digits]`; undefined when there are no digits. */
function parseDecimal(text: string): { mantissa: bigint; exponent: number } | undefined {
  let sign = "";
  let body = text;
  if (body[0] === "+" || body[0] === "-") {
    sign = body[0] === "-" ? "-" : "";
    body = body.slice(1);
  }
  const dot = body.indexOf(".");
  const intPart = dot < 0 ? body : body.slice(0, dot);
  const fracPart = dot < 0 ? "" : body.slice(dot + 1);
  const digits = intPart + fracPart;
  if (digits.length === 0 || !/^[0-9]+$/.test(digits)) return undefined;
  return { mantissa: BigInt(sign + digits), exponent: -fracPart.length };
}

/** ceil(m / 10^drop) for m > 0, without building huge powers when the result is 1. */
function divideRoundingUp(m: bigint, drop: number): bigint {
  if (m.toString().length <= drop) return 1n;
  const divisor = 10n ** BigInt(drop);
  const q = m / divisor;
  return q * divisor === m ? q : q + 1n;
}

/** Compares |a|·10^ea with |b|·10^eb (both magnitudes non-negative). */
function compareMagnitude(a: bigint, ea: number, b: bigint, eb: number): number {
  if (a === 0n || b === 0n) return a === b ? 0 : a === 0n ? -1 : 1;
  const orderA = a.toString().length + ea;
  const orderB = b.toString().length + eb;
  if (orderA !== orderB) return orderA < orderB ? -1 : 1;
  // Same order of magnitude: the exponent gap is bounded by the digit counts.
  let x = a;
  let y = b;
  if (ea > eb) x *= 10n ** BigInt(ea - eb);
  else if (eb > ea) y *= 10n ** BigInt(eb - ea);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Quantity.Cmp: -1, 0 or 1, exact. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = a.mantissa === 0n ? 0 : a.mantissa < 0n ? -1 : 1;
  const sb = b.mantissa === 0n ? 0 : b.mantissa < 0n ? -1 : 1;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const c = compareMagnitude(sa < 0 ? -a.mantissa : a.mantissa, a.exponent, sa < 0 ? -b.mantissa : b.mantissa, b.exponent);
  const r = sa < 0 ? -c : c;
  return r < 0 ? -1 : r > 0 ? 1 : 0;
}

/** Quantity.Sign. */
export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.mantissa === 0n ? 0 : q.mantissa < 0n ? -1 : 1;
}

/** Quantity.String() / MarshalJSON: the cached input when it was canonical, else CanonicalizeBytes. */
export function formatQuantity(q: Quantity): string {
  return q.cached ?? canonicalizeQuantity(q);
}

/** Quantity.CanonicalizeBytes (number followed by suffix). */
export function canonicalizeQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return "0";
  const negative = q.mantissa < 0n;
  let m = negative ? -q.mantissa : q.mantissa;
  let e = q.exponent;
  let format = q.format;
  if (format === "BinarySI") {
    // Small or fractional binary quantities print in decimal SI.
    if (compareMagnitude(m, e, 1024n, 0) < 0) format = "DecimalSI";
    else if (e < 0 && m % 10n ** BigInt(-e) !== 0n) format = "DecimalSI";
  }
  const sign = negative ? "-" : "";
  if (format === "BinarySI") {
    let v = e >= 0 ? m * 10n ** BigInt(e) : m / 10n ** BigInt(-e);
    let power = 0;
    while (v >= 1024n && v % 1024n === 0n) {
      v /= 1024n;
      power++;
    }
    // A power past Ei has no suffix in Go's table and prints without one.
    return sign + v.toString() + (BINARY_SI_BY_POWER[power] ?? "");
  }
  while (m >= 10n && m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  while (e % 3 !== 0) {
    m *= 10n;
    e--;
  }
  // An exponent outside Go's decimal SI table (e.g. 10^21) prints without suffix, as Go does.
  const suffix = format === "DecimalSI" ? (DECIMAL_SI_BY_EXPONENT.get(e) ?? "") : e === 0 ? "" : `e${e}`;
  return sign + m.toString() + suffix;
}

/** ParseQuantity then String(): the text Go's Quantity round trip produces, or the parse error. */
export function canonicalQuantityString(str: string): { ok: true; value: string } | { ok: false; error: string } {
  const parsed = parseQuantity(str);
  return parsed.ok ? { ok: true, value: formatQuantity(parsed.quantity) } : parsed;
}
