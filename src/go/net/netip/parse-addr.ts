/**
 * netip.ParseAddr (golang/go src/net/netip/netip.go: ParseAddr, parseIPv4Fields, parseIPv6) as far as its callers
 * here need it: whether the text is an address, IPv4 or IPv6, and otherwise its error text, byte for byte. The text
 * is a byte string (one char per byte, as src/go/net/url parses); the error quotes it as Go's strconv.Quote does
 * for valid UTF-8.
 */
import { fromUtf8Bytes } from "../../encoding/json/go-strings.js";
import { goQuote } from "../../strconv/quote.js";

export type ParsedAddr = { ok: true; is4: boolean } | { ok: false; error: string };

/** parseAddrError.Error(): `ParseAddr("<in>"): <msg>` and, where the parser says where, ` (at "<rest>")`. */
function parseAddrError(input: string, msg: string, at = ""): ParsedAddr {
  const q = (s: string): string => goQuote(fromUtf8Bytes(s));
  return { ok: false, error: `ParseAddr(${q(input)}): ${msg}${at === "" ? "" : ` (at ${q(at)})`}` };
}

export function parseAddr(s: string): ParsedAddr {
  for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case ".":
        return parseIPv4(s);
      case ":":
        return parseIPv6(s);
      case "%":
        // Assume that this was trying to be an IPv6 address with a zone specifier, but the address is missing.
        return parseAddrError(s, "missing IPv6 address");
    }
  }
  return parseAddrError(s, "unable to parse IP");
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** parseIPv4Fields(in, off, end): undefined when the four fields parse. */
function parseIPv4Fields(input: string, off: number, end: number): ParsedAddr | undefined {
  let val = 0;
  let pos = 0;
  let digLen = 0;
  const s = input.slice(off, end);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (digLen === 1 && val === 0) return parseAddrError(input, "IPv4 field has octet with leading zero");
      val = val * 10 + c - 0x30;
      digLen++;
      if (val > 255) return parseAddrError(input, "IPv4 field has value >255");
    } else if (c === 0x2e /* . */) {
      if (i === 0 || i === s.length - 1 || s.charCodeAt(i - 1) === 0x2e) return parseAddrError(input, "IPv4 field must have at least one digit", s.slice(i));
      if (pos === 3) return parseAddrError(input, "IPv4 address too long");
      pos++;
      val = 0;
      digLen = 0;
    } else {
      return parseAddrError(input, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) return parseAddrError(input, "IPv4 address too short");
  return undefined;
}

function parseIPv4(s: string): ParsedAddr {
  return parseIPv4Fields(s, 0, s.length) ?? { ok: true, is4: true };
}

function hexValue(c: number): number {
  if (isDigit(c)) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function parseIPv6(input: string): ParsedAddr {
  let s = input;
  // Split off the zone right from the start.
  let zone = "";
  const z = s.indexOf("%");
  if (z !== -1) {
    zone = s.slice(z + 1);
    s = s.slice(0, z);
    if (zone === "") return parseAddrError(input, "zone must be a non-empty string");
  }
  let ellipsis = -1;
  // Might have leading ellipsis.
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    // Might be only ellipsis.
    if (s.length === 0) return { ok: true, is4: false };
  }
  // Loop, parsing hex numbers followed by colon.
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s.charCodeAt(off));
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) return parseAddrError(input, "each group must have 4 or less digits", s);
      if (acc > 0xffff) return parseAddrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) return parseAddrError(input, "each colon-separated field must have at least one digit", s);
    // If followed by dot, might be in trailing IPv4.
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) return parseAddrError(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      if (i + 4 > 16) return parseAddrError(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      let end = input.length;
      if (zone.length > 0) end -= zone.length + 1;
      const err = parseIPv4Fields(input, end - s.length, end);
      if (err !== undefined) return err;
      s = "";
      i += 4;
      break;
    }
    i += 2;
    // Stop at end of string.
    s = s.slice(off);
    if (s.length === 0) break;
    // Otherwise must be followed by colon and more.
    if (s[0] !== ":") return parseAddrError(input, "unexpected character, want colon", s);
    if (s.length === 1) return parseAddrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    // Look for ellipsis.
    if (s[0] === ":") {
      if (ellipsis >= 0) return parseAddrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break; // can be at end
    }
  }
  // Must have used entire string.
  if (s.length !== 0) return parseAddrError(input, "trailing garbage after address", s);
  // If didn't parse enough, expand ellipsis.
  if (i < 16) {
    if (ellipsis < 0) return parseAddrError(input, "address string too short");
  } else if (ellipsis >= 0) {
    // Ellipsis must represent at least one 0 group.
    return parseAddrError(input, "the :: must expand to at least one field of zeros");
  }
  return { ok: true, is4: false };
}
