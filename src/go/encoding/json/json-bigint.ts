/**
 * JSON integers as Go reads them: from their literal text. Go's decoder never holds a number as a float64 before
 * it knows the target (encoding/json/decode.go: (*decodeState).literalStore passes the literal to strconv.ParseInt,
 * ParseUint or ParseFloat for that target's kind), so `9223372036854775807` is a valid int64 and
 * `9007199254740993` stays itself; JSON.parse rounds both to the nearest double.
 *
 * A parsed request body therefore holds, where JSON.parse would have lost digits, the exact value: an integer
 * literal (no fraction, no exponent) beyond ±(2^53 − 1) is a bigint; every other value is what JSON.parse gives
 * (so a safe integer stays a number, and a body without such literals is JSON.parse's value itself). This is the
 * Int64 convention of config/types.ts: a number while that is exact, else the bigint. Consumers compare with `<`
 * and `>` (exact between number and bigint) and print with String() (the literal's digits); writing JSON must go
 * through stringifyJson, as JSON.stringify throws on a bigint.
 *
 * Integer literals longer than MAX_EXACT_DIGITS keep JSON.parse's value (±Infinity or a rounded double): see there.
 */
import { setOwn, setRepeatedMembers, type JsonObject } from "./json-value.js";

/**
 * The longest integer literal read exactly. Every Go integer type ends at 20 digits (uint64) and float64 at 309, so
 * a longer literal is an error or ±Inf for every typed target; only a RawExtension or FieldsV1 would keep its text.
 * Converting text to a bigint and back costs time quadratic in its length (a 3 MiB body of million-digit literals:
 * 0.8 s, against 10 ms for a body of 1,000-digit ones), which a hostile body must not buy.
 */
export const MAX_EXACT_DIGITS = 1000;

/** 2^53 − 1: integers up to here are exact as numbers. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Sixteen digits in a row: the shortest integer literal JSON.parse may round has 16 (2^53 + 1). Written out, not
 * `\d{16}`: V8 then skips ahead 16 characters at a time, five times faster on bodies without such a run.
 */
const SIXTEEN_DIGITS = /\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** A character that continues a number token: digits, `.`, `e`, `E`, `+`, `-`. */
function isNumberChar(c: number): boolean {
  return isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the quote that closes the string whose opening quote is at `open`, or text.length. */
export function stringEnd(text: string, open: number): number {
  for (let i = text.indexOf('"', open + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    // The quote is escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    for (let k = i - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return text.length;
}

/** The index after the number token starting at `start`. */
function numberEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
  return i;
}

/** Whether the number token text[start, end) is an integer literal of 16 to MAX_EXACT_DIGITS digits. */
function isLongInteger(text: string, start: number, end: number): boolean {
  const digits = end - start - (text.charCodeAt(start) === MINUS ? 1 : 0);
  if (digits < 16 || digits > MAX_EXACT_DIGITS) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c) && c !== MINUS) return false;
  }
  return true;
}

/**
 * Whether the JSON text (one valid value) has an integer literal JSON.parse may round: one of 16 digits or more
 * outside strings. A text without 16 digits in a row anywhere (nearly every body) is answered by one regex test.
 */
export function hasLongIntegerLiteral(text: string): boolean {
  if (!SIXTEEN_DIGITS.test(text)) return false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (c === MINUS || isDigit(c)) {
      const end = numberEnd(text, i);
      if (isLongInteger(text, i, end)) return true;
      i = end - 1;
    }
  }
  return false;
}

/** An exactly read integer as the tree holds it: a number while that is exact, else the bigint. */
function exactInteger(literal: string): number | bigint {
  const b = BigInt(literal);
  return b >= -MAX_SAFE && b <= MAX_SAFE ? Number(b) : b;
}

/**
 * JSON.parse of a valid JSON text, except that integer literals of 16 to MAX_EXACT_DIGITS digits are read exactly
 * (see the module comment). The text must be one valid JSON value with optional surrounding whitespace (JSON.parse
 * accepted it): this parser does not check syntax. Objects are built as JSON.parse builds them (a later duplicate
 * key replaces the value in place, `__proto__` is an own member). Iterative: nesting depth cannot overflow the stack.
 * With `annotate`, every object whose text repeats a key also records all its members in document order
 * (json-value.ts REPEATED_MEMBERS), for the typed decoders.
 */
/**
 * The literal text of number tokens JSON.parse's value does not show, by container and member name (or index):
 * those with a fraction or an exponent (`1.0`, `1e3`, `5e-1`, `1e400`). Go decodes every number from its literal
 * (decode.go literalStore: strconv.ParseInt for an integer field fails on `1.0`, and its error prints `1e400`, not
 * what a double holds). Recorded by parseJsonExact with `literals`; read by the typed decoder (decode.ts).
 */
const NUMBER_LITERALS = new WeakMap<object, Map<string | number, string>>();

/** Whether any literal was ever recorded: until one is, the typed decoder's lookups cost nothing. */
let literalsRecorded = false;

/** The literals recorded for the members of `container` (parseJsonExact with `literals`), if any. */
export function numberLiteralsOf(container: object): ReadonlyMap<string | number, string> | undefined {
  return literalsRecorded ? NUMBER_LITERALS.get(container) : undefined;
}

/**
 * The end of a number token with a fraction or an exponent: a digit, `.`, `e` or `E`, digits, then whitespace, `,`,
 * `}` or `]` (`1.0,`, `5e-1}`, `1.5e3]`); strings rarely hold one. Starting at a digit, V8 scans 1.6 kB in 1.6 µs
 * here, against 2.2–2.6 µs for the same pattern without the leading digit.
 */
const FRACTION_OR_EXPONENT_TOKEN = /\d[.eE][+-]?\d+[\s,}\]]/;

/**
 * Whether the text may hold a number token with a fraction or an exponent: a match may lie inside a string, which
 * costs a parseJsonExact and nothing else; no token with one is missed.
 */
export function mayHaveFractionOrExponent(text: string): boolean {
  return FRACTION_OR_EXPONENT_TOKEN.test(text);
}

function recordLiteral(container: object, key: string | number, literal: string): void {
  literalsRecorded = true;
  let m = NUMBER_LITERALS.get(container);
  if (m === undefined) NUMBER_LITERALS.set(container, (m = new Map()));
  m.set(key, literal);
}

/** Whether a number token is written with a fraction or an exponent. */
function hasFractionOrExponent(literal: string): boolean {
  for (let k = 0; k < literal.length; k++) {
    const c = literal.charCodeAt(k);
    if (c === 0x2e || c === 0x65 || c === 0x45) return true;
  }
  return false;
}

export function parseJsonExact(text: string, annotate = false, literals = false): unknown {
  const containers: Array<JsonObject | unknown[]> = [];
  /** The member name each open object is reading (undefined for arrays). */
  const names: Array<string | undefined> = [];
  /** With `annotate`: each open object's members so far (undefined for arrays), and whether a key repeated. */
  const members: Array<Array<readonly [string, unknown]> | undefined> = [];
  const repeated: boolean[] = [];
  /** With `literals`: the literal of the number just read, when it has a fraction or an exponent. */
  let pendingLiteral: string | undefined;
  let i = 0;
  for (;;) {
    // Read one value at i; containers are opened here and filled below.
    i = skipSpace(text, i);
    let value: unknown;
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const isObject = c === 0x7b;
      i = skipSpace(text, i + 1);
      const empty = text.charCodeAt(i) === (isObject ? 0x7d : 0x5d);
      if (!empty) {
        containers.push(isObject ? {} : []);
        if (annotate) {
          members.push(isObject ? [] : undefined);
          repeated.push(false);
        }
        if (isObject) {
          const key = readKey(text, i);
          names.push(key.name);
          i = key.next;
        } else {
          names.push(undefined);
        }
        continue;
      }
      value = isObject ? {} : [];
      i++;
    } else if (c === QUOTE) {
      const end = stringEnd(text, i);
      value = stringValue(text, i, end);
      i = end + 1;
    } else if (c === MINUS || isDigit(c)) {
      const end = numberEnd(text, i);
      const literal = text.slice(i, end);
      value = isLongInteger(text, i, end) ? exactInteger(literal) : Number(literal);
      if (literals && hasFractionOrExponent(literal)) pendingLiteral = literal;
      i = end;
    } else if (c === 0x74 /* t */) {
      value = true;
      i += 4;
    } else if (c === 0x66 /* f */) {
      value = false;
      i += 5;
    } else if (c === 0x6e /* n */) {
      value = null;
      i += 4;
    } else {
      throw new SyntaxError(`parseJsonExact: unexpected character at ${i}`);
    }

    // Store the value, then close every container that ends here; a comma starts the next member.
    for (;;) {
      const top = containers[containers.length - 1];
      if (top === undefined) return value;
      if (pendingLiteral !== undefined) {
        recordLiteral(top, Array.isArray(top) ? top.length : (names[names.length - 1] as string), pendingLiteral);
        pendingLiteral = undefined;
      }
      if (Array.isArray(top)) top.push(value);
      else {
        const name = names[names.length - 1] as string;
        if (annotate) {
          if (Object.hasOwn(top, name)) repeated[repeated.length - 1] = true;
          members[members.length - 1]?.push([name, value]);
        }
        setOwn(top, name, value);
      }
      i = skipSpace(text, i);
      if (text.charCodeAt(i) === 0x2c /* , */) {
        if (!Array.isArray(top)) {
          const key = readKey(text, skipSpace(text, i + 1));
          names[names.length - 1] = key.name;
          i = key.next;
        } else {
          i++;
        }
        break;
      }
      // `}` or `]`: the container is complete and is the value stored into its parent.
      value = containers.pop();
      names.pop();
      if (annotate) {
        const list = members.pop();
        if (repeated.pop() === true && list !== undefined) setRepeatedMembers(value as JsonObject, list);
      }
      i++;
    }
  }
}

export function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The string whose quotes are at `open` and `end`: sliced when it has no escapes, else decoded by JSON.parse. */
export function stringValue(text: string, open: number, end: number): string {
  const body = text.slice(open + 1, end);
  return body.includes("\\") ? (JSON.parse(text.slice(open, end + 1)) as string) : body;
}

/** An object member's name at `open` (its quote) and the index after the `:` that follows it. */
function readKey(text: string, open: number): { name: string; next: number } {
  const end = stringEnd(text, open);
  return { name: stringValue(text, open, end), next: skipSpace(text, end + 1) + 1 };
}

/**
 * `value`, JSON.parse's result for `jsonText`, or the text re-read by parseJsonExact when it has integer literals
 * JSON.parse may round: Go decodes numbers from their literal text (decode.go: (*decodeState).literalStore).
 */
export function exactNumbers(jsonText: string, value: unknown): unknown {
  return hasLongIntegerLiteral(jsonText) ? parseJsonExact(jsonText) : value;
}

/** JSON.parse with exact integers (exactNumbers); throws JSON.parse's SyntaxError on invalid text. */
export function parseJsonText(text: string): unknown {
  return exactNumbers(text, JSON.parse(text));
}

/**
 * JSON.stringify for parsed JSON trees that may hold bigints, which are written with all their digits (JSON.stringify
 * throws on them), and may be nested deeper than JSON.stringify's recursion reaches (about 4,000 levels; a body may
 * nest 10,000). Everything else is written exactly as JSON.stringify writes it; a tree that JSON.stringify can write
 * costs one JSON.stringify.
 */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    // A bigint ("Do not know how to serialize a BigInt") or the stack; anything else (a cycle) is not ours.
    if (!(e instanceof RangeError) && !(e instanceof TypeError && /BigInt/.test(e.message))) throw e;
  }
  return stringifyIteratively(value);
}

interface Frame {
  readonly node: JsonObject | unknown[];
  /** An object's keys; undefined for an array. */
  readonly keys: string[] | undefined;
  next: number;
  written: number;
}

/** JSON.stringify's text of a non-container value; undefined where it writes nothing (undefined, functions, symbols). */
function scalarText(v: unknown): string | undefined {
  return typeof v === "bigint" ? v.toString() : (JSON.stringify(v) as string | undefined);
}

/** JSON.stringify of plain JSON trees (no toJSON, no cycles) with bigints, iterative like parseJsonExact. */
function stringifyIteratively(root: unknown): string {
  if (typeof root !== "object" || root === null) return scalarText(root) as string;
  let out = "";
  const stack: Frame[] = [];
  const open = (node: object): void => {
    const isArray = Array.isArray(node);
    out += isArray ? "[" : "{";
    stack.push({ node: node as JsonObject | unknown[], keys: isArray ? undefined : Object.keys(node), next: 0, written: 0 });
  };
  open(root);
  while (stack.length > 0) {
    const f = stack[stack.length - 1] as Frame;
    const length = f.keys === undefined ? (f.node as unknown[]).length : f.keys.length;
    if (f.next >= length) {
      out += f.keys === undefined ? "]" : "}";
      stack.pop();
      continue;
    }
    let v: unknown;
    if (f.keys === undefined) {
      v = (f.node as unknown[])[f.next++];
      if (f.written++ > 0) out += ",";
    } else {
      const key = f.keys[f.next++] as string;
      v = (f.node as JsonObject)[key];
      // Members JSON.stringify leaves out.
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      out += (f.written++ > 0 ? "," : "") + JSON.stringify(key) + ":";
    }
    if (typeof v === "object" && v !== null) open(v);
    else out += scalarText(v) ?? "null";
  }
  return out;
}
