/** Go's Unicode case mapping where Knative compares a value with a lower-case ASCII word. */

/**
 * `strings.ToLower(s) == word` (also bytes.ToLower) for a lower-case ASCII word: ASCII letters fold, and
 * so do the two non-ASCII runes whose Unicode lower case is ASCII (U+0130 → i, U+212A KELVIN SIGN → k).
 */
export function goLowerEquals(s: string, word: string): boolean {
  if (s.length !== word.length) return false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    else if (c === 0x130) c = 0x69;
    else if (c === 0x212a) c = 0x6b;
    if (c !== word.charCodeAt(i)) return false;
  }
  return true;
}
