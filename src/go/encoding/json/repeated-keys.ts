/**
 * Whether a JSON text repeats a key inside some object. JSON.parse keeps the last occurrence only, while Go's
 * encoding/json decodes every occurrence into what is already there (decode.go: (*decodeState).object), so such a
 * text is parsed again with every occurrence recorded (json-bigint.ts parseJsonExact's `annotate`). The API server
 * never sends one, so the check must cost next to nothing on a body without repeats: one native scan of the text
 * for `:` and one walk of the parsed tree.
 *
 * Exactness: every object member has exactly one `:` outside strings, so the text's `:` count is its member count
 * plus the `:` inside its strings. Without a `\u003a` escape a string's `:` are its value's, and without a repeated
 * key every string of the text (keys included) is in the tree once, so the counts match exactly. A repeated key
 * adds a member the tree lacks (and maybe strings it lacks), so the text's count is then strictly larger. A text
 * with a `\u003a` escape is scanned instead.
 *
 * Most texts are answered more cheaply (structuralColons): each `:` is told structural or in a string from the
 * characters just before it, which gives the member count without looking at the strings, and the walk of the tree
 * then only counts keys. The few texts where that is ambiguous take the counting walk above.
 */
import { stringEnd } from "./json-bigint.js";

const QUOTE = 0x22;
const COLON = 0x3a;
const BACKSLASH = 0x5c;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The member count of a valid JSON text (its `:` outside strings), told from the characters before each `:` alone;
 * -1 when that cannot be told for some `:`, or when there is none. Outside a string, a `:` follows the closing quote
 * of its key, perhaps after whitespace; so a `:` after anything but a quote or whitespace is in a string, and one
 * after whitespace is ambiguous. A `:` after a quote: an escaped quote (an odd run of backslashes before it) is
 * in a string, and so is the `:` after it; an unescaped one after a backslash (an escaped backslash) or after
 * anything but `:`, `,`, `[`, `{` or whitespace closes a string, as outside strings only those may come before an
 * opening quote, so the `:` is structural; after one of those, the quote may open a string that starts with `:`:
 * ambiguous.
 */
export function structuralColons(text: string): number {
  let members = 0;
  let i = text.indexOf(":");
  if (i === -1) return -1;
  for (; i !== -1; i = text.indexOf(":", i + 1)) {
    const p = text.charCodeAt(i - 1);
    if (p !== QUOTE) {
      if (isSpace(p)) return -1;
      continue;
    }
    let k = i - 2;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    const backslashes = i - 2 - k;
    if (backslashes % 2 === 1) continue;
    if (backslashes === 0) {
      const q = text.charCodeAt(k);
      if (q === COLON || q === 0x2c /* , */ || q === 0x5b /* [ */ || q === 0x7b /* { */ || isSpace(q) || Number.isNaN(q)) return -1;
    }
    members++;
  }
  return members;
}

/** Whether the text has a `\u003a` or `\u003A` escape (one native scan for the common prefix). */
function hasColonEscape(text: string): boolean {
  for (let i = text.indexOf("\\u003"); i !== -1; i = text.indexOf("\\u003", i + 5)) {
    const c = text.charCodeAt(i + 5);
    if (c === 0x61 || c === 0x41) return true;
  }
  return false;
}

/** The number of `:` outside strings: the member count of a valid JSON text. */
function membersInText(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === COLON) n++;
  }
  return n;
}

/** What walk counts: the keys of the objects, and the `:` in the strings (keys included) unless `escaped`. */
let keys = 0;
let colonsInStrings = 0;

function countColons(s: string): void {
  let i = s.indexOf(":");
  while (i !== -1) {
    colonsInStrings++;
    i = s.indexOf(":", i + 1);
  }
}

/** Recursion is the fast walk; a body may nest 10,000 deep, so past this depth the walk starts over iteratively. */
const MAX_RECURSION = 1000;

class TooDeep {}
const TOO_DEEP = new TooDeep();

function walk(v: unknown, escaped: boolean, depth: number): void {
  if (typeof v === "string") {
    if (!escaped) countColons(v);
  } else if (typeof v === "object" && v !== null) {
    if (depth === MAX_RECURSION) throw TOO_DEEP;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], escaped, depth + 1);
    } else {
      const obj = v as Record<string, unknown>;
      // JSON.parse's objects have own enumerable members only.
      for (const key in obj) {
        keys++;
        if (!escaped) countColons(key);
        walk(obj[key], escaped, depth + 1);
      }
    }
  }
}

/** walk without recursion. */
function walkIteratively(value: unknown, escaped: boolean): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (!escaped) countColons(v);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) pending.push(v[i]);
    } else if (typeof v === "object" && v !== null) {
      const obj = v as Record<string, unknown>;
      for (const key in obj) {
        keys++;
        if (!escaped) countColons(key);
        pending.push(obj[key]);
      }
    }
  }
}

/** The keys of the tree (JSON.parse's objects have own enumerable members only). */
function countKeys(v: object, depth: number): number {
  if (depth === MAX_RECURSION) throw TOO_DEEP;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === "object" && x !== null) n += countKeys(x, depth + 1);
    }
  } else {
    const obj = v as Record<string, unknown>;
    for (const key in obj) {
      n++;
      const x = obj[key];
      if (typeof x === "object" && x !== null) n += countKeys(x, depth + 1);
    }
  }
  return n;
}

/**
 * Whether `jsonText` (one valid JSON value, optionally surrounded by whitespace) has an object with a repeated
 * key; `value` is JSON.parse's value of it (bigints allowed).
 */
export function hasRepeatedKeys(jsonText: string, value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const members = structuralColons(jsonText);
  if (members !== -1) {
    try {
      return members > countKeys(value, 0);
    } catch (e) {
      if (e !== TOO_DEEP) throw e;
      // As deep as that: the counting walk, which can go on iteratively.
    }
  }
  let colons = 0;
  for (let i = jsonText.indexOf(":"); i !== -1; i = jsonText.indexOf(":", i + 1)) colons++;
  if (colons === 0) return false;
  const escaped = hasColonEscape(jsonText);
  keys = 0;
  colonsInStrings = 0;
  try {
    walk(value, escaped, 0);
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
    keys = 0;
    colonsInStrings = 0;
    walkIteratively(value, escaped);
  }
  return (escaped ? membersInText(jsonText) : colons - colonsInStrings) > keys;
}
