/**
 * Go's `time.Duration`: `time.ParseDuration` (grammar, overflow rules and the three error texts) and
 * `Duration.String()` (Go 1.23 src/time/format.go: ParseDuration, src/time/time.go: Duration.String). Nanoseconds
 * are held as a bigint, as Go's int64.
 */
import type { GoParse } from "../strconv/strconv.js";

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const TWO_63 = 1n << 63n;

export class Duration {
  /** Signed nanoseconds, within int64. */
  readonly ns: bigint;

  constructor(ns: bigint) {
    this.ns = ns;
  }

  static fromSeconds(s: number): Duration {
    return new Duration(BigInt(s) * SECOND);
  }

  /** The duration in seconds as a float (Go's `Duration.Seconds()`). */
  seconds(): number {
    const whole = this.ns / SECOND;
    const frac = this.ns % SECOND;
    return Number(whole) + Number(frac) / 1e9;
  }

  /** Go's `Duration.Round(m)`: halves away from zero, saturating at the int64 limits. */
  round(m: bigint): Duration {
    const d = this.ns;
    if (m <= 0n) return this;
    let r = d % m;
    if (d < 0n) {
      r = -r;
      if (r + r < m) return new Duration(d + r);
      const d1 = d - m + r;
      return new Duration(d1 < MIN_INT64 ? MIN_INT64 : d1);
    }
    if (r + r < m) return new Duration(d - r);
    const d1 = d + m - r;
    return new Duration(d1 > MAX_INT64 ? MAX_INT64 : d1);
  }

  /** Go's `Duration.Truncate(m)`: toward zero to a multiple of m (m <= 0: unchanged); it cannot overflow. */
  truncate(m: bigint): Duration {
    return m <= 0n ? this : new Duration(this.ns - (this.ns % m));
  }

  /**
   * Knative's precision check `d.Round(time.Second) == d`. Not the same as `d.Truncate(time.Second) == d` at the
   * int64 edge: Round saturates, so the largest duration (`9223372036854775807ns`) rounds to itself.
   */
  isWholeSeconds(): boolean {
    return this.round(SECOND).ns === this.ns;
  }

  /** The other precision check Knative uses, `d.Truncate(time.Second) == d`. */
  truncatesToWholeSeconds(): boolean {
    return this.ns % SECOND === 0n;
  }

  /** Go's `Duration.String()`: `1h0m0s`, `1.5s`, `500ms`, `2µs`, `0s`, `-42s`. */
  toString(): string {
    return formatDuration(this.ns);
  }

  /** What Go's `%v` prints (field-error's goSprint calls this). */
  goString(): string {
    return formatDuration(this.ns);
  }
}

export const NANOSECOND = 1n;
export const MICROSECOND = 1000n;
export const MILLISECOND = 1_000_000n;
export const SECOND = 1_000_000_000n;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", NANOSECOND],
  ["us", MICROSECOND],
  ["\u00b5s", MICROSECOND], // U+00B5 micro sign
  ["\u03bcs", MICROSECOND], // U+03BC Greek mu
  ["ms", MILLISECOND],
  ["s", SECOND],
  ["m", MINUTE],
  ["h", HOUR],
]);

const ZERO: GoParse<Duration> = Object.freeze({ ok: true, value: new Duration(0n) });

/** The time package's own quote: ASCII printable as-is (with `"` and `\` escaped), every other byte as `\xNN`. */
export function timeQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x80) {
      if (c === 0x22 || c === 0x5c) out += "\\";
      out += s.charAt(i);
      continue;
    }
    let cp = s.codePointAt(i) as number;
    if (cp > 0xffff) i++;
    else if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate reaches Go as U+FFFD
    for (const b of Buffer.from(String.fromCodePoint(cp), "utf8")) out += "\\x" + (b < 16 ? "0" : "") + b.toString(16);
  }
  return out + '"';
}

function invalid(orig: string): GoParse<Duration> {
  return { ok: false, error: "time: invalid duration " + timeQuote(orig) };
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or a bare `0`. */
export function parseDuration(orig: string): GoParse<Duration> {
  let i = 0;
  const n = orig.length;
  let neg = false;
  if (n > 0) {
    const c = orig.charCodeAt(0);
    if (c === 0x2d || c === 0x2b) {
      neg = c === 0x2d;
      i = 1;
    }
  }
  if (n - i === 1 && orig.charCodeAt(i) === 0x30) return ZERO;
  if (i === n) return invalid(orig);
  let d = 0n;
  while (i < n) {
    const c0 = orig.charCodeAt(i);
    if (!(c0 === 0x2e || isDigit(c0))) return invalid(orig);
    // Integer part: leadingInt, failing on overflow past 2^63.
    const intStart = i;
    let v = 0n;
    let small = 0;
    for (; i < n && isDigit(orig.charCodeAt(i)); i++) {
      if (i - intStart < 15) {
        small = small * 10 + (orig.charCodeAt(i) - 0x30);
        continue;
      }
      if (i - intStart === 15) v = BigInt(small);
      if (v > TWO_63 / 10n) return invalid(orig);
      v = v * 10n + BigInt(orig.charCodeAt(i) - 0x30);
      if (v > TWO_63) return invalid(orig);
    }
    if (i - intStart <= 15) v = BigInt(small);
    const pre = i !== intStart;
    // Fraction: leadingFraction, which stops accumulating precision on overflow.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (i < n && orig.charCodeAt(i) === 0x2e) {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; i < n && isDigit(orig.charCodeAt(i)); i++) {
        if (overflow) continue;
        if (f > MAX_INT64 / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(orig.charCodeAt(i) - 0x30);
        if (y > TWO_63) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i !== fracStart;
    }
    if (!pre && !post) return invalid(orig);
    // Unit: everything up to the next '.' or digit.
    const unitStart = i;
    for (; i < n; i++) {
      const c = orig.charCodeAt(i);
      if (c === 0x2e || isDigit(c)) break;
    }
    if (i === unitStart) return { ok: false, error: "time: missing unit in duration " + timeQuote(orig) };
    const u = orig.slice(unitStart, i);
    const unit = UNITS.get(u);
    if (unit === undefined) return { ok: false, error: "time: unknown unit " + timeQuote(u) + " in duration " + timeQuote(orig) };
    if (v > TWO_63 / unit) return invalid(orig);
    v *= unit;
    if (f > 0n) {
      // float64 arithmetic, exactly as Go: v += uint64(float64(f) * (float64(unit) / scale)).
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) return invalid(orig);
    }
    d += v;
    if (d > TWO_63) return invalid(orig);
  }
  if (neg) return { ok: true, value: new Duration(-d) };
  if (d > MAX_INT64) return invalid(orig);
  return { ok: true, value: new Duration(d) };
}

/** Go's `Duration.String()`. */
export function formatDuration(ns: bigint): string {
  const neg = ns < 0n;
  const u = neg ? -ns : ns;
  let out: string;
  if (u < SECOND) {
    if (u === 0n) return "0s";
    let prec: number;
    let unit: string;
    if (u < MICROSECOND) {
      prec = 0;
      unit = "ns";
    } else if (u < MILLISECOND) {
      prec = 3;
      unit = "\u00b5s";
    } else {
      prec = 6;
      unit = "ms";
    }
    const [frac, rest] = formatFraction(u, prec);
    out = rest.toString() + frac + unit;
  } else {
    const [frac, secs] = formatFraction(u, 9);
    out = (secs % 60n).toString() + frac + "s";
    const mins = secs / 60n;
    if (mins > 0n) {
      out = (mins % 60n).toString() + "m" + out;
      const hours = mins / 60n;
      if (hours > 0n) out = hours.toString() + "h" + out;
    }
  }
  return neg ? "-" + out : out;
}

/** Go's fmtFrac: ".ddd" of v / 10^prec without trailing zeros ("" when zero), and the integer part. */
function formatFraction(v: bigint, prec: number): [string, bigint] {
  let digits = "";
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) digits = digit.toString() + digits;
    v /= 10n;
  }
  return [print ? "." + digits : "", v];
}
