/**
 * Go's `json.NewDecoder(body).Decode(&v)` as Knative uses it on the admission request body
 * (knative.dev/pkg webhook/admission.go: admissionHandler): skip leading whitespace, read exactly the first JSON
 * value, ignore whatever follows it, and report failures with Go's texts (`EOF`, `unexpected EOF`, `*json.SyntaxError`).
 *
 * Type mismatches ("cannot unmarshal string into Go value of type ...") are the caller's business:
 * this module only finds and parses the first value.
 *
 * Sources: golang/go src/encoding/json/stream.go (Decoder.readValue), scanner.go (the state
 * machine, maxNestingDepth, quoteChar), decode.go (unquote: invalid UTF-8 and lone surrogates
 * become U+FFFD).
 */
import { isUtf8 } from "node:buffer";
import { hasLongIntegerLiteral, mayHaveFractionOrExponent, parseJsonExact } from "./json-bigint.js";
import { markGoStrings } from "./go-strings.js";
import { hasRepeatedKeys } from "./repeated-keys.js";

export type StreamDecodeResult = { ok: true; value: unknown } | { ok: false; error: string };

/** scanner.go maxNestingDepth: pushing container number 10001 is a syntax error. */
const MAX_NESTING_DEPTH = 10000;

/** A JSON text nested deeper than MAX_NESTING_DEPTH needs at least this many characters. */
const MIN_LENGTH_FOR_DEPTH_ERROR = 2 * (MAX_NESTING_DEPTH + 1);

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A lone surrogate in a string input (with the u flag a paired surrogate is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The first JSON value of the body as `Decode` into an `interface{}` sees it, or Go's error text.
 * A string body stands for its UTF-8 encoding. Objects are JSON.parse's, so a `__proto__`
 * key is an own data property and never a prototype; integer literals JSON.parse would round are bigints
 * (json-bigint.ts), as Go reads numbers from their text. No string or key of the value holds a lone
 * surrogate (the text is well-formed UTF-8 and lone surrogate escapes become U+FFFD before parsing),
 * so its strings are already Go's and the value may be passed to markGoStrings (a value whose text repeats no key is
 * marked so already, which says that too, and the subtrees may be marked alike). An object whose text repeats a key
 * keeps the last occurrence as its property (as JSON.parse does) and all occurrences, in document order, under
 * json-value.ts REPEATED_MEMBERS, which the typed decoders walk as Go's decoder does.
 */
export function decodeFirstJsonValue(body: Buffer | string): StreamDecodeResult {
  let text: string;
  let bytes: Buffer | undefined;
  if (typeof body === "string") {
    if (LONE_SURROGATE.test(body)) {
      // A string body stands for its UTF-8 encoding, which cannot carry lone surrogates.
      bytes = Buffer.from(body, "utf8");
      text = decodeUtf8LikeGo(bytes);
    } else {
      text = body;
    }
  } else {
    bytes = body;
    text = decodeUtf8LikeGo(body);
  }

  // Fast path: a body that is exactly one JSON value (plus whitespace) decodes the same in Go,
  // except for nesting deeper than Go allows, which only a long body can have.
  let value: unknown;
  let parsed = false;
  const jsonText = hasSurrogateEscape(text) ? replaceLoneSurrogateEscapes(text) : text;
  try {
    value = JSON.parse(jsonText);
    parsed = true;
  } catch {
    // Not a single clean value: fall through to the byte scanner for Go's answer.
  }
  if (parsed && (text.length < MIN_LENGTH_FOR_DEPTH_ERROR || countOpeningBrackets(text) <= MAX_NESTING_DEPTH || validJsonDepth(text) <= MAX_NESTING_DEPTH)) {
    return { ok: true, value: goView(jsonText, value) };
  }

  bytes ??= Buffer.from(text, "utf8");
  const end = scanFirstValue(bytes);
  if (typeof end === "string") return { ok: false, error: end };
  const valueText = decodeUtf8LikeGo(bytes.subarray(0, end));
  const valueJson = hasSurrogateEscape(valueText) ? replaceLoneSurrogateEscapes(valueText) : valueText;
  return { ok: true, value: goView(valueJson, JSON.parse(valueJson)) };
}

/**
 * JSON.parse's `value` of `jsonText` as Go's decoder needs it: exact integers (json-bigint.ts), and where the text
 * repeats a key, every object that does so annotated with all its members in document order (json-value.ts
 * REPEATED_MEMBERS, repeated-keys.ts). The properties stay JSON.parse's last-wins view, Go's interface{} view.
 */
function goView(jsonText: string, value: unknown): unknown {
  // Numbers with a fraction or an exponent keep their literal for the typed decoder (json-bigint.ts NUMBER_LITERALS).
  const literals = typeof value === "object" && value !== null && mayHaveFractionOrExponent(jsonText);
  if (hasRepeatedKeys(jsonText, value)) return parseJsonExact(jsonText, true, literals);
  const readLiterals = literals || hasLongIntegerLiteral(jsonText);
  const exact = readLiterals ? parseJsonExact(jsonText, false, literals) : value;
  // Known here at no cost: no object of the value repeats a key, and whether a number's literal matters
  // (answerReview passes both on to request.object).
  markGoStrings(exact, false, readLiterals);
  return exact;
}

/**
 * The nesting depth of a text JSON.parse accepted (so strings are well formed): brackets inside strings do not
 * count. A million `{}` in one list are a million brackets but depth 2; without this such a body was parsed twice.
 */
function validJsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: to the next quote not escaped by a backslash.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return max;
}

/** Upper bound of the nesting depth: every `[` or `{`, including those inside strings. */
function countOpeningBrackets(text: string): number {
  // indexOf scans natively; a per-character loop is several times slower on large bodies.
  let n = 0;
  for (let i = text.indexOf("["); i !== -1; i = text.indexOf("[", i + 1)) n++;
  for (let i = text.indexOf("{"); i !== -1; i = text.indexOf("{", i + 1)) n++;
  return n;
}

/** Whether the text may hold `\uD800`–`\uDFFF` escapes, which Go and JSON.parse decode differently. */
function hasSurrogateEscape(text: string): boolean {
  return text.includes("\\u") && SURROGATE_ESCAPE.test(text);
}

// ---------------------------------------------------------------------------------------------
// String contents the way Go's unquote produces them.

/**
 * UTF-8 decoding as Go's utf8.DecodeRune does it: every byte that does not start a well-formed
 * sequence becomes one U+FFFD (WHATWG decoding, used by Buffer#toString, may merge several bytes
 * of a broken sequence into one U+FFFD). Outside strings such bytes are syntax errors anyway.
 */
export function decodeUtf8LikeGo(buf: Buffer): string {
  if (isUtf8(buf)) return buf.toString("utf8");
  let out = "";
  let runStart = 0;
  let i = 0;
  while (i < buf.length) {
    const len = validSequenceLength(buf, i);
    if (len > 0) {
      i += len;
      continue;
    }
    out += buf.toString("utf8", runStart, i) + "\uFFFD";
    i++;
    runStart = i;
  }
  return out + buf.toString("utf8", runStart, i);
}

/** Length of the well-formed UTF-8 sequence starting at i, or 0 (unicode/utf8 acceptRanges). */
function validSequenceLength(b: Uint8Array, i: number): number {
  const c0 = b[i]!;
  if (c0 < 0x80) return 1;
  let len: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c0 >= 0xc2 && c0 <= 0xdf) len = 2;
  else if (c0 >= 0xe0 && c0 <= 0xef) {
    len = 3;
    if (c0 === 0xe0) lo = 0xa0; // no overlong forms
    else if (c0 === 0xed) hi = 0x9f; // no surrogates
  } else if (c0 >= 0xf0 && c0 <= 0xf4) {
    len = 4;
    if (c0 === 0xf0) lo = 0x90; // no overlong forms
    else if (c0 === 0xf4) hi = 0x8f; // nothing above U+10FFFF
  } else return 0;
  if (i + len > b.length) return 0;
  const c1 = b[i + 1]!;
  if (c1 < lo || c1 > hi) return 0;
  for (let k = 2; k < len; k++) {
    const ck = b[i + k]!;
    if (ck < 0x80 || ck > 0xbf) return 0;
  }
  return len;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** The code unit of the `\uXXXX` escape at i, or -1 when there is none (decode.go getu4). */
function escapedCodeUnit(text: string, i: number): number {
  if (i + 6 > text.length || text.charCodeAt(i) !== 0x5c || text.charCodeAt(i + 1) !== 0x75) return -1;
  let r = 0;
  for (let k = 2; k < 6; k++) {
    const h = hexValue(text.charCodeAt(i + k));
    if (h < 0) return -1;
    r = r * 16 + h;
  }
  return r;
}

/**
 * Rewrites `\uXXXX` surrogate escapes that do not form a high+low pair to `\ufffd`, as Go's
 * unquote decodes them (decode.go: "Invalid surrogate; fall back to replacement rune"), so that
 * JSON.parse then yields Go's strings, keys included. Same length and structure as the input.
 */
function replaceLoneSurrogateEscapes(text: string): string {
  let out = "";
  let copied = 0;
  let i = text.indexOf("\\");
  while (i !== -1) {
    const unit = escapedCodeUnit(text, i);
    if (unit < 0xd800 || unit > 0xdfff) {
      // Any other escape is two or six characters long; skipping two is enough to stay aligned.
      i = text.indexOf("\\", i + 2);
      continue;
    }
    if (unit <= 0xdbff) {
      const next = escapedCodeUnit(text, i + 6);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i = text.indexOf("\\", i + 12);
        continue;
      }
    }
    out += text.slice(copied, i) + "\\ufffd";
    copied = i + 6;
    i = text.indexOf("\\", copied);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// ---------------------------------------------------------------------------------------------
// The scanner: Go's step functions (scanner.go) as one switch over integer states.

const BEGIN_VALUE = 0; // stateBeginValue
const BEGIN_VALUE_OR_EMPTY = 1; // after `[`
const BEGIN_STRING_OR_EMPTY = 2; // after `{`
const BEGIN_STRING = 3; // after `{"key": value,`
const END_VALUE = 4;
const IN_STRING = 5;
const IN_STRING_ESC = 6;
const IN_STRING_ESC_U = 7;
const IN_STRING_ESC_U1 = 8;
const IN_STRING_ESC_U12 = 9;
const IN_STRING_ESC_U123 = 10;
const NEG = 11; // after `-`
const NUM_1 = 12; // state1: in a non-zero integer part
const NUM_0 = 13; // state0: after the integer part
const DOT = 14;
const DOT_0 = 15;
const EXP = 16;
const EXP_SIGN = 17;
const EXP_0 = 18;
const T = 19;
const TR = 20;
const TRU = 21;
const F = 22;
const FA = 23;
const FAL = 24;
const FALS = 25;
const N = 26;
const NU = 27;
const NUL = 28;

// parseState stack entries.
const PARSE_OBJECT_KEY = 0;
const PARSE_OBJECT_VALUE = 1;
const PARSE_ARRAY_VALUE = 2;

let parseStack: Uint8Array | undefined;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** scanner.error: `invalid character <quoteChar(c)> <context>`. */
function syntaxError(c: number, context: string): string {
  return `invalid character ${quoteChar(c)} ${context}`;
}

const SIMPLE_ESCAPES: Readonly<Record<number, string>> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };

/**
 * scanner.go quoteChar: `'\''`, `'"'`, otherwise strconv.Quote(string(c)) between single quotes.
 * string(c) of a byte is the rune with that code point, so 0x80–0xFF print as U+0080–U+00FF
 * unless strconv.IsPrint says no (U+0080–U+00A0 and U+00AD, isprint.go), which get `\u00XX`.
 */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  if (c === 0x5c) return "'\\\\'";
  let body: string;
  if ((c >= 0x20 && c < 0x7f) || (c >= 0xa1 && c <= 0xff && c !== 0xad)) body = String.fromCharCode(c);
  else if (c < 0x20 || c === 0x7f) body = SIMPLE_ESCAPES[c] ?? `\\x${c.toString(16).padStart(2, "0")}`;
  else body = `\\u${c.toString(16).padStart(4, "0")}`;
  return `'${body}'`;
}

/**
 * Decoder.readValue over a complete body: the byte length of the first value (including leading
 * whitespace), or Go's error text. Objects and arrays end at their closing bracket; numbers,
 * strings and literals end at the next byte (scanEnd is delayed one byte) or at end of input.
 */
function scanFirstValue(b: Uint8Array): number | string {
  const stack = (parseStack ??= new Uint8Array(MAX_NESTING_DEPTH + 1));
  let depth = 0;
  let state = BEGIN_VALUE;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    // Several Go step functions hand the same byte on to another state: loop until consumed.
    for (;;) {
      switch (state) {
        case BEGIN_VALUE_OR_EMPTY:
          if (isSpace(c)) break;
          state = c === 0x5d ? END_VALUE : BEGIN_VALUE;
          continue;
        case BEGIN_VALUE:
          if (isSpace(c)) break;
          if (c === 0x7b || c === 0x5b) {
            if (depth === MAX_NESTING_DEPTH) return syntaxError(c, "exceeded max depth");
            stack[depth++] = c === 0x7b ? PARSE_OBJECT_KEY : PARSE_ARRAY_VALUE;
            state = c === 0x7b ? BEGIN_STRING_OR_EMPTY : BEGIN_VALUE_OR_EMPTY;
          } else if (c === 0x22) state = IN_STRING;
          else if (c === 0x2d) state = NEG;
          else if (c === 0x30) state = NUM_0;
          else if (c >= 0x31 && c <= 0x39) state = NUM_1;
          else if (c === 0x74) state = T;
          else if (c === 0x66) state = F;
          else if (c === 0x6e) state = N;
          else return syntaxError(c, "looking for beginning of value");
          break;
        case BEGIN_STRING_OR_EMPTY:
          if (isSpace(c)) break;
          if (c === 0x7d) {
            stack[depth - 1] = PARSE_OBJECT_VALUE;
            state = END_VALUE;
          } else state = BEGIN_STRING;
          continue;
        case BEGIN_STRING:
          if (isSpace(c)) break;
          if (c !== 0x22) return syntaxError(c, "looking for beginning of object key string");
          state = IN_STRING;
          break;
        case END_VALUE: {
          // Top-level value completed before this byte (stateEndTop answers scanEnd whatever c is).
          if (depth === 0) return i;
          if (isSpace(c)) break;
          const ps = stack[depth - 1];
          if (ps === PARSE_OBJECT_KEY) {
            if (c !== 0x3a) return syntaxError(c, "after object key");
            stack[depth - 1] = PARSE_OBJECT_VALUE;
            state = BEGIN_VALUE;
            break;
          }
          const close = ps === PARSE_OBJECT_VALUE ? 0x7d : 0x5d;
          if (c === 0x2c) {
            if (ps === PARSE_OBJECT_VALUE) {
              stack[depth - 1] = PARSE_OBJECT_KEY;
              state = BEGIN_STRING;
            } else state = BEGIN_VALUE;
            break;
          }
          if (c === close) {
            // Closing the outermost container ends the value with this byte.
            if (--depth === 0) return i + 1;
            break;
          }
          return syntaxError(c, ps === PARSE_OBJECT_VALUE ? "after object key:value pair" : "after array element");
        }
        case IN_STRING:
          if (c === 0x22) state = END_VALUE;
          else if (c === 0x5c) state = IN_STRING_ESC;
          else if (c < 0x20) return syntaxError(c, "in string literal");
          else {
            // Plain string bytes are most of a body: skip the run without re-dispatching.
            while (i + 1 < b.length) {
              const next = b[i + 1]!;
              if (next === 0x22 || next === 0x5c || next < 0x20) break;
              i++;
            }
          }
          break;
        case IN_STRING_ESC:
          if (c === 0x75) state = IN_STRING_ESC_U;
          else if (c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74 || c === 0x5c || c === 0x2f || c === 0x22) {
            state = IN_STRING;
          } else return syntaxError(c, "in string escape code");
          break;
        case IN_STRING_ESC_U:
        case IN_STRING_ESC_U1:
        case IN_STRING_ESC_U12:
        case IN_STRING_ESC_U123:
          if (hexValue(c) < 0) return syntaxError(c, "in \\u hexadecimal character escape");
          state = state === IN_STRING_ESC_U123 ? IN_STRING : state + 1;
          break;
        case NEG:
          if (c === 0x30) state = NUM_0;
          else if (c >= 0x31 && c <= 0x39) state = NUM_1;
          else return syntaxError(c, "in numeric literal");
          break;
        case NUM_1:
          if (isDigit(c)) break;
          state = NUM_0;
          continue;
        case NUM_0:
          if (c === 0x2e) state = DOT;
          else if (c === 0x65 || c === 0x45) state = EXP;
          else {
            state = END_VALUE;
            continue;
          }
          break;
        case DOT:
          if (!isDigit(c)) return syntaxError(c, "after decimal point in numeric literal");
          state = DOT_0;
          break;
        case DOT_0:
          if (isDigit(c)) break;
          if (c === 0x65 || c === 0x45) {
            state = EXP;
            break;
          }
          state = END_VALUE;
          continue;
        case EXP:
          if (c === 0x2b || c === 0x2d) {
            state = EXP_SIGN;
            break;
          }
          state = EXP_SIGN;
          continue;
        case EXP_SIGN:
          if (!isDigit(c)) return syntaxError(c, "in exponent of numeric literal");
          state = EXP_0;
          break;
        case EXP_0:
          if (isDigit(c)) break;
          state = END_VALUE;
          continue;
        case T:
          if (c !== 0x72) return syntaxError(c, "in literal true (expecting 'r')");
          state = TR;
          break;
        case TR:
          if (c !== 0x75) return syntaxError(c, "in literal true (expecting 'u')");
          state = TRU;
          break;
        case TRU:
          if (c !== 0x65) return syntaxError(c, "in literal true (expecting 'e')");
          state = END_VALUE;
          break;
        case F:
          if (c !== 0x61) return syntaxError(c, "in literal false (expecting 'a')");
          state = FA;
          break;
        case FA:
          if (c !== 0x6c) return syntaxError(c, "in literal false (expecting 'l')");
          state = FAL;
          break;
        case FAL:
          if (c !== 0x73) return syntaxError(c, "in literal false (expecting 's')");
          state = FALS;
          break;
        case FALS:
          if (c !== 0x65) return syntaxError(c, "in literal false (expecting 'e')");
          state = END_VALUE;
          break;
        case N:
          if (c !== 0x75) return syntaxError(c, "in literal null (expecting 'u')");
          state = NU;
          break;
        case NU:
          if (c !== 0x6c) return syntaxError(c, "in literal null (expecting 'l')");
          state = NUL;
          break;
        case NUL:
          if (c !== 0x6c) return syntaxError(c, "in literal null (expecting 'l')");
          state = END_VALUE;
          break;
      }
      break;
    }
  }
  // End of input: readValue feeds one more space; a finished top-level value ends here.
  if (depth === 0 && (state === END_VALUE || state === NUM_1 || state === NUM_0 || state === DOT_0 || state === EXP_0)) {
    return b.length;
  }
  // Only whitespace seen → io.EOF; a value started but not finished → io.ErrUnexpectedEOF.
  return depth === 0 && state === BEGIN_VALUE ? "EOF" : "unexpected EOF";
}
