/**
 * metav1.Time's JSON: `time.Parse(time.RFC3339, s)` with Go's error texts on the way in, and
 * `t.UTC().Format(time.RFC3339)` (or null for the zero time) on the way out (apimachinery v0.31
 * pkg/apis/meta/v1/time.go; golang/go src/time/format.go `parse`).
 *
 * Go parses the layout generically, so its leniencies and messages are those of the layout
 * "2006-01-02T15:04:05Z07:00": a one-digit hour, fractional seconds after `.` or `,`, offsets up to
 * ±24:60, and errors like `parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`.
 * Byte offsets matter in those messages, so the value is handled as UTF-8 bytes.
 */
import { utf8Bytes } from "../encoding/json/go-strings.js";

export const RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00";

export type TimeParse = { ok: true; json: string | null } | { ok: false; error: string };

/** time.quote: bytes outside printable ASCII as \xNN, `"` and `\` escaped. */
function timeQuote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c < 0x20 || c >= 0x80) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c === 0x22 || c === 0x5c) out += `\\${bytes[i] as string}`;
    else out += bytes[i] as string;
  }
  return `${out}"`;
}

function isDigitAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/** time.getnum: one or two digits (exactly two when fixed); undefined is errBad. */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) return fixed ? undefined : { n: s.charCodeAt(0) - 48, rest: s.slice(1) };
  return { n: (s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), rest: s.slice(2) };
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return (DAYS_BEFORE[month] as number) - (DAYS_BEFORE[month - 1] as number);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Seconds since the Unix epoch of Go's zero Time, 0001-01-01T00:00:00Z. */
const GO_ZERO_SECONDS = daysFromCivil(1, 1, 1) * 86400;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Go's appendInt(year, 4): zero-padded to four digits, sign in front. */
function formatYear(y: number): string {
  return y < 0 ? `-${String(-y).padStart(4, "0")}` : String(y).padStart(4, "0");
}

/** RFC 3339 seconds in UTC, as metav1.Time.MarshalJSON writes it. */
function formatUtc(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const secOfDay = seconds - days * 86400;
  const [y, m, d] = civilFromDays(days);
  const hh = Math.floor(secOfDay / 3600);
  const mm = Math.floor((secOfDay % 3600) / 60);
  const ss = secOfDay % 60;
  return `${formatYear(y)}-${pad2(m)}-${pad2(d)}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}Z`;
}

/** The numeric layout elements after the year: literal before it, layout text, fixed width, maximum. */
const FIELDS: ReadonlyArray<readonly [literal: string, layout: string, fixed: boolean, max: number, what: string]> = [
  ["-", "01", true, 12, "month"],
  ["-", "02", true, 99, ""],
  ["T", "15", false, 23, "hour"],
  [":", "04", true, 59, "minute"],
  [":", "05", true, 59, "second"],
];

function cannotParse(all: string, valueElem: string, layoutElem: string): TimeParse {
  return {
    ok: false,
    error: `parsing time ${timeQuote(all)} as ${timeQuote(RFC3339_LAYOUT)}: cannot parse ${timeQuote(valueElem)} as ${timeQuote(layoutElem)}`,
  };
}

function outOfRange(all: string, what: string): TimeParse {
  return { ok: false, error: `parsing time ${timeQuote(all)}: ${what} out of range` };
}

const FOUR_DIGITS = /^[0-9]{4}/;

/**
 * metav1.Time round trip of a JSON string: the re-serialised value (null for Go's zero time) or the
 * time.ParseError text.
 */
export function roundTripRfc3339(value: string): TimeParse {
  if (isCanonicalUtc(value)) return { ok: true, json: value };
  return roundTripParsed(value);
}

/** `YYYY-MM-DDThh:mm:ssZ`, ASCII digits, year 1000 to 9999: the form metav1.Time.MarshalJSON writes. */
const CANONICAL_UTC = /^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;

/**
 * Whether `value` is a time Go parses and writes back unchanged (what the API server sends, nearly every time):
 * metav1.Time.MarshalJSON's own form, in range, and not Go's zero time (year 1, below the years taken here).
 */
function isCanonicalUtc(value: string): boolean {
  if (value.length !== 20 || !CANONICAL_UTC.test(value)) return false;
  const two = (i: number): number => (value.charCodeAt(i) - 48) * 10 + value.charCodeAt(i + 1) - 48;
  const year = Number(value.slice(0, 4));
  const month = two(5);
  const day = two(8);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year) && two(11) <= 23 && two(14) <= 59 && two(17) <= 59;
}

/**
 * time.Parse(time.RFC3339, value) and metav1.Time's MarshalJSON of the result, field by field: roundTripRfc3339
 * without its shortcut for the canonical form (the tests hold the two to the same answers).
 */
export function roundTripParsed(value: string): TimeParse {
  const all = utf8Bytes(value);
  let v = all;
  // 2006
  if (!FOUR_DIGITS.test(v)) return cannotParse(all, v, "2006");
  const year = Number(v.slice(0, 4));
  v = v.slice(4);

  // -01, -02, T15, :04, :05: each a literal then a number.
  const nums: number[] = [];
  for (const [literal, layout, fixed, max, what] of FIELDS) {
    if (v.length === 0 || v[0] !== literal) return cannotParse(all, v, literal);
    v = v.slice(1);
    const got = getnum(v, fixed);
    if (got === undefined) return cannotParse(all, v, layout);
    if (what === "month" ? got.n < 1 || got.n > max : got.n > max) return outOfRange(all, what);
    nums.push(got.n);
    v = got.rest;
  }
  const [month, day, hour, minute, second] = nums as [number, number, number, number, number];

  // A fractional second is accepted although the layout has none.
  let nanos = 0;
  if (v.length >= 2 && (v[0] === "." || v[0] === ",") && isDigitAt(v, 1)) {
    let n = 2;
    while (n < v.length && isDigitAt(v, n)) n++;
    const digits = v.slice(1, Math.min(n, 10));
    nanos = Number(digits) * 10 ** (9 - digits.length);
    v = v.slice(n);
  }

  // Z07:00
  let offset = 0;
  if (v.length >= 1 && v[0] === "Z") {
    v = v.slice(1);
  } else {
    const hold = v;
    if (v.length < 6 || v[3] !== ":") return cannotParse(all, hold, "Z07:00");
    const sign = v[0];
    const hr = getnum(v.slice(1, 3), true);
    const mm = hr === undefined ? undefined : getnum(v.slice(4, 6), true);
    v = v.slice(6);
    const hours = hr?.n ?? 0;
    const minutes = mm?.n ?? 0;
    // Go checks the range (with > so that 24:00 and :60 pass) before the syntax.
    if (minutes > 60) return outOfRange(all, "time zone offset minute");
    if (hours > 24) return outOfRange(all, "time zone offset hour");
    if (hr === undefined || mm === undefined || (sign !== "+" && sign !== "-")) return cannotParse(all, hold, "Z07:00");
    offset = (hours * 60 + minutes) * 60 * (sign === "-" ? -1 : 1);
  }
  if (v.length !== 0) return { ok: false, error: `parsing time ${timeQuote(all)}: extra text: ${timeQuote(v)}` };
  if (day < 1 || day > daysIn(month, year)) return outOfRange(all, "day");

  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  if (seconds === GO_ZERO_SECONDS && nanos === 0) return { ok: true, json: null };
  return { ok: true, json: formatUtc(seconds) };
}
