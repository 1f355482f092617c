/** Go string semantics the JSON model needs: UTF-8 sanitising, strconv.Quote and strings.TrimSpace. */

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Go decodes a lone surrogate escape as U+FFFD; JSON.parse keeps it. */
export function goString(s: string): string {
  return SURROGATE.test(s) ? s.replace(LONE_SURROGATE, "\uFFFD") : s;
}

/**
 * Parsed JSON trees whose strings and keys are known to be Go strings already (no lone surrogate), each with what
 * else may be in it: an object that repeats a key (json-value.ts REPEATED_MEMBERS), a number whose literal JSON.parse's
 * double does not show (a bigint, or a literal json-bigint.ts numberLiteralsOf records).
 */
const GO_STRING_TREES = new WeakMap<object, number>();
const MAY_REPEAT_KEYS = 1;
const MAY_HOLD_NUMBER_LITERALS = 2;

/**
 * Records that every string and key in the JSON tree `value` is already what Go's decoder would produce,
 * so that decoding it skips the per-string goString check. True of anything decodeFirstJsonValue returns:
 * its text is well-formed UTF-8 and lone surrogate escapes are rewritten to U+FFFD before JSON.parse.
 * With `repeatedKeys` false it also records that no object in the tree repeats a key (decodeFirstJsonValue marks
 * its value so where the text repeats none), so that decoding it need not look for REPEATED_MEMBERS; with
 * `numberLiterals` false, that every number in it is JSON.parse's double of a plain integer literal of at most 15
 * digits. The tree must not be mutated afterwards. Primitives are ignored.
 */
export function markGoStrings(value: unknown, repeatedKeys = true, numberLiterals = true): void {
  if (typeof value === "object" && value !== null) GO_STRING_TREES.set(value, (repeatedKeys ? MAY_REPEAT_KEYS : 0) | (numberLiterals ? MAY_HOLD_NUMBER_LITERALS : 0));
}

/** Whether `value` was marked with markGoStrings. */
export function hasGoStrings(value: unknown): boolean {
  return typeof value === "object" && value !== null && GO_STRING_TREES.has(value);
}

function mayHold(value: unknown, flag: number): boolean {
  if (typeof value !== "object" || value === null) return true;
  const flags = GO_STRING_TREES.get(value);
  return flags === undefined || (flags & flag) !== 0;
}

/** Whether an object in `value` may repeat a key: false only for a tree marked so with markGoStrings. */
export function mayRepeatKeys(value: unknown): boolean {
  return mayHold(value, MAY_REPEAT_KEYS);
}

/** Whether `value` may hold a number other than a short plain integer: false only for a tree marked so. */
export function mayHoldNumberLiterals(value: unknown): boolean {
  return mayHold(value, MAY_HOLD_NUMBER_LITERALS);
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
