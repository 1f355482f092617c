// strings.EqualFold (golang/go src/strings/strings.go) against an ASCII word.

/**
 * Go's strings.EqualFold against an ASCII word. Besides ASCII case, Unicode simple folding maps U+017F (ſ)
 * to s and U+212A (Kelvin sign) to k, so those count as well.
 */
export function equalFoldAscii(s: string, word: string): boolean {
  if (s.length !== word.length) return false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    const w = word.charCodeAt(i) | 0x20;
    if (c === 0x17f) c = 0x73;
    else if (c === 0x212a) c = 0x6b;
    else if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== w) return false;
  }
  return true;
}
