// Go's order on strings (the `<` operator, strings.Compare).

/** A UTF-16 code unit from U+D800 (surrogates, U+E000–U+FFFF). */
const HIGH_UNIT = /[\uD800-\uFFFF]/;

/**
 * Go's `<` on strings: byte order of the UTF-8 encoding, i.e. code point order. UTF-16 code unit
 * order agrees except between surrogates (astral code points) and U+E000–U+FFFF.
 */
export function compareByteOrder(a: string, b: string): number {
  if (a === b) return 0;
  // The orders differ only where both strings have a code unit from U+D800 up at the first difference: without one
  // in either string, the native comparison (code unit order) is the answer, found without a loop in JavaScript.
  if (!HIGH_UNIT.test(a) || !HIGH_UNIT.test(b)) return a < b ? -1 : 1;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
