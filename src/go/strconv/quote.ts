// strconv.Quote (golang/go src/strconv/quote.go), which fmt's %q uses for strings.
import { goIsPrint } from "./isprint.js";

const HEX = "0123456789abcdef";

/** Go's `strconv.Quote` (the `%q` verb on a string). */
export function goQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c) out += "\\" + s.charAt(i);
      else if (c >= 0x20 && c < 0x7f) out += s.charAt(i);
      else out += escapeAsciiControl(c);
      continue;
    }
    let cp = s.codePointAt(i) as number;
    if (cp > 0xffff) i++;
    // A lone surrogate cannot reach Go: its JSON decoder turns it into U+FFFD.
    else if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (goIsPrint(cp)) out += String.fromCodePoint(cp);
    else if (cp < 0x10000) out += "\\u" + hex(cp, 4);
    else out += "\\U" + hex(cp, 8);
  }
  return out + '"';
}

/**
 * Go's `strconv.QuoteRune` (fmt's `%q` of an integer): `'a'`, `'\''`, `'\x00'`; a value that is not a valid rune
 * (negative, a surrogate, beyond U+10FFFF) quotes as U+FFFD.
 */
export function goQuoteRune(r: number): string {
  const cp = r < 0 || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff) ? 0xfffd : r;
  if (cp === 0x27 || cp === 0x5c) return `'\\${String.fromCharCode(cp)}'`;
  if (goIsPrint(cp)) return `'${String.fromCodePoint(cp)}'`;
  if (cp < 0x80) return `'${escapeAsciiControl(cp)}'`;
  return `'${cp < 0x10000 ? "\\u" + hex(cp, 4) : "\\U" + hex(cp, 8)}'`;
}

function escapeAsciiControl(c: number): string {
  switch (c) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
    default:
      return "\\x" + hex(c, 2);
  }
}

function hex(n: number, width: number): string {
  let out = "";
  for (let i = width - 1; i >= 0; i--) out += HEX.charAt((n >>> (i * 4)) & 0xf);
  return out;
}
