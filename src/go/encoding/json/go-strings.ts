/** Go string semantics the JSON model needs: UTF-8 sanitising, strconv.Quote and strings.TrimSpace. */

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Go decodes a lone surrogate escape as U+FFFD; JSON.parse keeps it. */
export function goString(s: string): string {
  return SURROGATE.test(s) ? s.replace(LONE_SURROGATE, "\uFFFD") : s;
}

/**
 * Parsed JSON trees whose strings and keys are known to be Go strings already (no lone surrogate), each with
 * whether some object in it may repeat a key (hold json-value.ts REPEATED_MEMBERS).
 */
const GO_STRING_TREES = new WeakMap<object, boolean>();

/**
 * Records that every string and key in the JSON tree `value` is already what Go's decoder would produce,
 * so that decoding it skips the per-string goString check. True of anything decodeFirstJsonValue returns:
 * its text is well-formed UTF-8 and lone surrogate escapes are rewritten to U+FFFD before JSON.parse.
 * With `repeatedKeys` false it also records that no object in the tree repeats a key (decodeFirstJsonValue marks
 * its value so where the text repeats none), so that decoding it need not look for REPEATED_MEMBERS.
 * The tree must not be mutated afterwards. Primitives are ignored.
 */
export function markGoStrings(value: unknown, repeatedKeys = true): void {
  if (typeof value === "object" && value !== null) GO_STRING_TREES.set(value, repeatedKeys);
}

/** Whether `value` was marked with markGoStrings. */
export function hasGoStrings(value: unknown): boolean {
  return typeof value === "object" && value !== null && GO_STRING_TREES.has(value);
}

/** Whether an object in `value` may repeat a key: false only for a tree marked so with markGoStrings. */
export function mayRepeatKeys(value: unknown): boolean {
  return typeof value !== "object" || value === null || GO_STRING_TREES.get(value) !== false;
}

// eslint-disable-next-line no-control-regex -- control characters are what this matches
const NON_ASCII = /[^\x00-\x7f]/;

/** The UTF-8 bytes of a string, one char per byte (for byte-offset parsing like Go's). */
export function utf8Bytes(s: string): string {
  return NON_ASCII.test(s) ? Buffer.from(s, "utf8").toString("latin1") : s;
}

/** Inverse of utf8Bytes. */
export function fromUtf8Bytes(b: string): string {
  return NON_ASCII.test(b) ? Buffer.from(b, "latin1").toString("utf8") : b;
}
