/**
 * networking's checkDomainTemplate URL test: `url.Parse("https://" + rendered)` must succeed (Go's error
 * text verbatim), have a host (`empty hostname`), and no request URI beyond `/`
 * (`domain template has url path: <RequestURI()>`). Parsing and its errors come from the encoding/json port (src/go/encoding/json) of
 * net/url; Hostname() and RequestURI() are derived here from the same raw parts.
 */
import { GO_1_23_URL_RULES, roundTripUrl, type UrlRules } from "../../go/net/url/url.js";

const SCHEME = "https:";

function isAlnum(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

/** net/url shouldEscape(c, encodePath). */
function pathShouldEscape(b: number): boolean {
  if (isAlnum(b)) return false;
  return !"-_.~$&+,/:;=@".includes(String.fromCharCode(b));
}

/** net/url validEncoded(s, encodePath), over UTF-8 bytes. */
function validEncodedPath(bytes: Uint8Array): boolean {
  for (const b of bytes) {
    if ("!$&'()*+,;=:@[]%".includes(String.fromCharCode(b))) continue;
    if (pathShouldEscape(b)) return false;
  }
  return true;
}

/** escape(unescape(p, encodePath), encodePath); url.Parse has already vetted the %-escapes. */
function reescapePath(bytes: Uint8Array): string {
  const raw: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === 0x25 && i + 2 < bytes.length) {
      raw.push(parseInt(String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number), 16));
      i += 2;
    } else {
      raw.push(b);
    }
  }
  let out = "";
  for (const b of raw) out += pathShouldEscape(b) ? "%" + b.toString(16).toUpperCase().padStart(2, "0") : String.fromCharCode(b);
  return out;
}

/** URL.EscapedPath() for the raw path text `p` that url.Parse accepted. */
function escapedPath(p: string): string {
  const bytes = Buffer.from(p, "utf8");
  return validEncodedPath(bytes) ? p : reescapePath(bytes);
}

function validOptionalPort(port: string): boolean {
  return port === "" || /^:[0-9]*$/.test(port);
}

/** URL.Hostname() is empty: splitHostPort(host) leaves nothing (unescaping never empties a host). */
function hostnameEmpty(host: string): boolean {
  let h = host;
  const colon = h.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(h.slice(colon))) h = h.slice(0, colon);
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h === "";
}

/** checkDomainTemplate's URL checks on the rendered template, url.Parse as the release's Go toolchain parses. */
export function checkRenderedDomain(rendered: string, rules: UrlRules = GO_1_23_URL_RULES): string | undefined {
  const raw = "https://" + rendered;
  const parsed = roundTripUrl(raw, rules);
  if (!parsed.ok) return parsed.error;
  const hash = raw.indexOf("#");
  let rest = (hash < 0 ? raw : raw.slice(0, hash)).slice(SCHEME.length);
  let forceQuery = false;
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0 && q === rest.length - 1) {
    forceQuery = true;
    rest = rest.slice(0, -1);
  } else if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  // rest is "//authority/path".
  const authorityAndPath = rest.slice(2);
  const slash = authorityAndPath.indexOf("/");
  const authority = slash < 0 ? authorityAndPath : authorityAndPath.slice(0, slash);
  const path = slash < 0 ? "" : authorityAndPath.slice(slash);
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostnameEmpty(host)) return "empty hostname";
  let requestUri = escapedPath(path);
  if (requestUri === "") requestUri = "/";
  if (forceQuery || rawQuery !== "") requestUri += "?" + rawQuery;
  return requestUri === "/" ? undefined : `domain template has url path: ${requestUri}`;
}
