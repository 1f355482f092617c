/**
 * The text of a runtime.RawExtension member as Go's decoder keeps it (k8s.io/apimachinery pkg/runtime/extension.go:
 * RawExtension.UnmarshalJSON stores the member's raw bytes), for messages that quote it: Knative's unstructured
 * decoding of `request.object` reports `Object 'Kind' is missing in '<those bytes>'`. Found by scanning the body
 * text again, which only such a failure needs.
 */
import { foldKey } from "./decode.js";
import { skipSpace, stringEnd, stringValue } from "./json-bigint.js";
import { decodeUtf8LikeGo } from "./stream.js";

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The index after the JSON value that starts at `i` (the text is valid JSON). */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i) + 1;
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    // A number or a literal: up to the next delimiter.
    let j = i + 1;
    while (j < text.length && !/[\s,\]}]/.test(text[j] as string)) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) j = stringEnd(text, j);
    else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if ((d === CLOSE_BRACE || d === CLOSE_BRACKET) && --depth === 0) return j + 1;
  }
  return text.length;
}

/**
 * The raw text of the RawExtension at `path` (struct field names, e.g. ["request", "object"]) in the first JSON
 * value of `body`, which decodeFirstJsonValue accepted; undefined when it is absent or null. Members match a field
 * as encoding/json matches them (foldName; the fields on the path have names no other field of their struct folds
 * to), the last non-null one wins (RawExtension ignores null), and a null struct pointer on the way (`"request":
 * null`) drops what an earlier member had set.
 */
export function rawMemberText(body: Buffer | string, path: readonly string[]): string | undefined {
  const text = typeof body === "string" ? body : decodeUtf8LikeGo(body);
  const wanted = path.map((p) => foldKey(p));
  let found: string | undefined;
  const visit = (open: number, depth: number): void => {
    let i = skipSpace(text, open + 1);
    while (text.charCodeAt(i) === QUOTE) {
      const keyEnd = stringEnd(text, i);
      const folded = foldKey(stringValue(text, i, keyEnd));
      const start = skipSpace(text, skipSpace(text, keyEnd + 1) + 1);
      const end = valueEnd(text, start);
      if (folded !== undefined && folded === wanted[depth]) {
        const isNull = text.startsWith("null", start);
        if (depth === path.length - 1) {
          if (!isNull) found = text.slice(start, end);
        } else if (isNull) found = undefined;
        else if (text.charCodeAt(start) === OPEN_BRACE) visit(start, depth + 1);
      }
      i = skipSpace(text, end);
      if (text.charCodeAt(i) !== COMMA) return;
      i = skipSpace(text, i + 1);
    }
  };
  const start = skipSpace(text, 0);
  if (text.charCodeAt(start) === OPEN_BRACE) visit(start, 0);
  return found;
}

/**
 * The raw text of the top-level member `key` of a JSON object text (valid JSON), as a Go `map[string]json.RawMessage`
 * holds it after json.Unmarshal: the key matched exactly, the last occurrence winning (null included, as the text
 * `null`); undefined when the text is not an object or has no such member.
 */
export function lastTopLevelMemberText(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let found: string | undefined;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const name = stringValue(text, i, keyEnd);
    const start = skipSpace(text, skipSpace(text, keyEnd + 1) + 1);
    const end = valueEnd(text, start);
    if (name === key) found = text.slice(start, end);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return found;
}
