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
 */
import { stringEnd } from "./json-bigint.js";

const QUOTE = 0x22;
const COLON = 0x3a;

function colonsIn(s: string): number {
  let n = 0;
  for (let i = s.indexOf(":"); i !== -1; i = s.indexOf(":", i + 1)) n++;
  return n;
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

/**
 * Whether `jsonText` (one valid JSON value, optionally surrounded by whitespace) has an object with a repeated
 * key; `value` is JSON.parse's value of it (bigints allowed).
 */
export function hasRepeatedKeys(jsonText: string, value: unknown): boolean {
  const colons = colonsIn(jsonText);
  if (colons === 0) return false;
  const escaped = jsonText.includes("\\u003a") || jsonText.includes("\\u003A");
  let keys = 0;
  let colonsInStrings = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (!escaped) colonsInStrings += colonsIn(v);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) pending.push(v[i]);
    } else if (typeof v === "object" && v !== null) {
      const obj = v as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        keys++;
        if (!escaped) colonsInStrings += colonsIn(key);
        pending.push(obj[key]);
      }
    }
  }
  return (escaped ? membersInText(jsonText) : colons - colonsInStrings) > keys;
}
