/**
 * knative.dev/pkg apis.URL's JSON: `url.Parse` on the way in, `URL.String()` on the way out, ported from
 * Go 1.23 net/url (the toolchain Knative 1.17 ships with), and with UrlRules Go 1.26's host checks (the toolchain of
 * Knative 1.23 and 1.24): IP literals, and, where the urlstrictcolons GODEBUG setting is on, colons in http(s) hosts.
 * Parsing works on UTF-8 bytes, one char per byte, as Go does.
 */
import { fromUtf8Bytes, utf8Bytes } from "../../encoding/json/go-strings.js";
import { goQuote } from "../../strconv/quote.js";
import { parseAddr } from "../netip/parse-addr.js";

export type UrlRoundTrip = { ok: true; value: string } | { ok: false; error: string };

const enum Mode {
  Path = 1,
  PathSegment = 2,
  Host = 4,
  Zone = 8,
  UserPassword = 16,
  QueryComponent = 32,
  Fragment = 64,
}

class UrlError extends Error {}

interface GoUrl {
  scheme: string;
  opaque: string;
  user: { username: string; password: string | undefined } | undefined;
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

function isAlnum(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function unhex(c: number): number {
  return c <= 57 ? c - 48 : (c | 0x20) - 87;
}

/** net/url shouldEscape. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if (mode === Mode.Host || mode === Mode.Zone) {
    if ("!$&'()*+,;=:[]<>\"".includes(String.fromCharCode(c))) return false;
  }
  const ch = String.fromCharCode(c);
  if ("-_.~".includes(ch)) return false;
  if ("$&+,/:;=?@".includes(ch)) {
    switch (mode) {
      case Mode.Path:
        return ch === "?";
      case Mode.PathSegment:
        return ch === "/" || ch === ";" || ch === "," || ch === "?";
      case Mode.UserPassword:
        return ch === "@" || ch === "/" || ch === "?" || ch === ":";
      case Mode.QueryComponent:
        return true;
      case Mode.Fragment:
        return false;
      default:
        break;
    }
  }
  if (mode === Mode.Fragment && "!()*".includes(ch)) return false;
  return true;
}

function escapeError(s: string): UrlError {
  return new UrlError(`invalid URL escape ${goQuote(fromUtf8Bytes(s))}`);
}

/** net/url unescape. */
function unescape(s: string, mode: Mode): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25 /* % */) {
      n++;
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        throw escapeError(s.slice(i, i + 3));
      }
      if (mode === Mode.Host && unhex(s.charCodeAt(i + 1)) < 8 && s.slice(i, i + 3) !== "%25") throw escapeError(s.slice(i, i + 3));
      if (mode === Mode.Zone) {
        const v = (unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2));
        if (s.slice(i, i + 3) !== "%25" && v !== 0x20 && shouldEscape(v, Mode.Host)) throw escapeError(s.slice(i, i + 3));
      }
      i += 3;
    } else if (c === 0x2b /* + */) {
      hasPlus = mode === Mode.QueryComponent;
      i++;
    } else {
      if ((mode === Mode.Host || mode === Mode.Zone) && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${goQuote(s[i] as string)} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      out += String.fromCharCode((unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2)));
      i += 2;
    } else if (c === 0x2b) {
      out += mode === Mode.QueryComponent ? " " : "+";
    } else {
      out += s[i] as string;
    }
  }
  return out;
}

const UPPER_HEX = "0123456789ABCDEF";

/** net/url escape. */
function escape(s: string, mode: Mode): string {
  let out = "";
  let changed = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 && mode === Mode.QueryComponent) {
      out += "+";
      changed = true;
    } else if (shouldEscape(c, mode)) {
      out += `%${UPPER_HEX[c >> 4] as string}${UPPER_HEX[c & 15] as string}`;
      changed = true;
    } else {
      out += s[i] as string;
    }
  }
  return changed ? out : s;
}

/** Returns [scheme, rest]. */
function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) continue;
    if ((c >= 48 && c <= 57) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === 0x3a /* : */) {
      if (i === 0) throw new UrlError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  return /^[0-9]*$/.test(port.slice(1));
}

function invalidPort(colonPort: string): UrlError {
  return new UrlError(`invalid port ${goQuote(fromUtf8Bytes(colonPort))} after host`);
}

/** Go 1.23 parseHost. */
/** What of url.Parse depends on the Go toolchain. */
export interface UrlRules {
  /**
   * Go 1.26's parseHost (golang/go src/net/url/url.go): a `[` anywhere but first is "invalid IP-literal", and what
   * the brackets hold must be an IPv6 address (netip.ParseAddr; an IPv4 one is "invalid IP-literal" too).
   */
  readonly ipLiterals: boolean;
  /**
   * Go 1.26's urlstrictcolons (on unless GODEBUG says `urlstrictcolons=0`, which a main module whose go.mod says go
   * 1.25 or older gets by default): in an http or https host the port starts at the first colon, so `a:1:2` is
   * `invalid port ":1:2" after host`; other schemes, and Go 1.23, take the last colon.
   */
  readonly strictColons: boolean;
}

/** Go 1.23's url.Parse. */
export const GO_1_23_URL_RULES: UrlRules = Object.freeze({ ipLiterals: false, strictColons: false });

/** Go 1.26's url.Parse with `urlstrictcolons=0` (a go.mod of go 1.25 or older). */
export const GO_1_26_URL_RULES: UrlRules = Object.freeze({ ipLiterals: true, strictColons: false });

/** Go 1.26's url.Parse with its defaults (a go.mod of go 1.26). */
export const GO_1_26_STRICT_URL_RULES: UrlRules = Object.freeze({ ipLiterals: true, strictColons: true });

const RULES: readonly UrlRules[] = [GO_1_23_URL_RULES, Object.freeze({ ipLiterals: false, strictColons: true }), GO_1_26_URL_RULES, GO_1_26_STRICT_URL_RULES];

/** The rules constant for a pair of settings (a release profile's toolchain). */
export function urlRulesOf(ipLiterals: boolean, strictColons: boolean): UrlRules {
  return RULES[(ipLiterals ? 2 : 0) + (strictColons ? 1 : 0)] as UrlRules;
}

function parseHost(scheme: string, host: string, rules: UrlRules): string {
  if (rules.ipLiterals) {
    const open = host.lastIndexOf("[");
    if (open > 0) throw new UrlError("invalid IP-literal");
    if (open === 0) return parseIpLiteral(host);
  }
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw invalidPort(colonPort);
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) {
      return unescape(host.slice(0, zone), Mode.Host) + unescape(host.slice(zone, i), Mode.Zone) + unescape(host.slice(i), Mode.Host);
    }
  } else {
    const i = rules.strictColons && (scheme === "http" || scheme === "https") ? host.indexOf(":") : host.lastIndexOf(":");
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw invalidPort(colonPort);
    }
  }
  return unescape(host, Mode.Host);
}

/** Go 1.26's parseHost of a host that starts with `[`: an IPv6 literal, with an optional zone and port. */
function parseIpLiteral(host: string): string {
  const close = host.lastIndexOf("]");
  if (close < 0) throw new UrlError("missing ']' in host");
  const colonPort = host.slice(close + 1);
  if (!validOptionalPort(colonPort)) throw invalidPort(colonPort);
  const unescapedColonPort = unescape(colonPort, Mode.Host);
  const hostname = host.slice(1, close);
  // RFC 6874: %25 introduces the zone identifier, which may %-encode anything; the host only non-ASCII bytes.
  const zone = hostname.indexOf("%25");
  const unescapedHostname = zone >= 0 ? unescape(hostname.slice(0, zone), Mode.Host) + unescape(hostname.slice(zone), Mode.Zone) : unescape(hostname, Mode.Host);
  // Per RFC 3986, only a host identified by a valid IPv6 address can be enclosed by square brackets.
  const addr = parseAddr(unescapedHostname);
  if (!addr.ok) throw new UrlError(`invalid host: ${addr.error}`);
  if (addr.is4) throw new UrlError("invalid IP-literal");
  return "[" + unescapedHostname + "]" + unescapedColonPort;
}

function validUserinfo(s: string): boolean {
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

function parseAuthority(u: GoUrl, authority: string, rules: UrlRules): void {
  const i = authority.lastIndexOf("@");
  u.host = parseHost(u.scheme, i < 0 ? authority : authority.slice(i + 1), rules);
  if (i < 0) return;
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) throw new UrlError("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) {
    u.user = { username: unescape(userinfo, Mode.UserPassword), password: undefined };
  } else {
    u.user = { username: unescape(userinfo.slice(0, colon), Mode.UserPassword), password: unescape(userinfo.slice(colon + 1), Mode.UserPassword) };
  }
}

function setPath(u: GoUrl, p: string): void {
  u.path = unescape(p, Mode.Path);
  u.rawPath = escape(u.path, Mode.Path) === p ? "" : p;
}

function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    if ("!$&'()*+,;=:@[]%".includes(s[i] as string)) continue;
    if (shouldEscape(s.charCodeAt(i), mode)) return false;
  }
  return true;
}

function escapedPath(u: GoUrl): string {
  if (u.rawPath !== "" && validEncoded(u.rawPath, Mode.Path)) {
    try {
      if (unescape(u.rawPath, Mode.Path) === u.path) return u.rawPath;
    } catch {
      // An invalid hint is ignored, as in Go.
    }
  }
  if (u.path === "*") return "*";
  return escape(u.path, Mode.Path);
}

function escapedFragment(u: GoUrl): string {
  if (u.rawFragment !== "" && validEncoded(u.rawFragment, Mode.Fragment)) {
    try {
      if (unescape(u.rawFragment, Mode.Fragment) === u.fragment) return u.rawFragment;
    } catch {
      // An invalid hint is ignored, as in Go.
    }
  }
  return escape(u.fragment, Mode.Fragment);
}

function parseWithoutFragment(raw: string, rules: UrlRules): GoUrl {
  // eslint-disable-next-line no-control-regex -- control characters are what this matches
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError("net/url: invalid control character in URL");
  const u: GoUrl = {
    scheme: "",
    opaque: "",
    user: undefined,
    host: "",
    path: "",
    rawPath: "",
    omitHost: false,
    forceQuery: false,
    rawQuery: "",
    fragment: "",
    rawFragment: "",
  };
  if (raw === "*") {
    u.path = "*";
    return u;
  }
  const [scheme, afterScheme] = getScheme(raw);
  let rest = afterScheme;
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return u;
    }
    const slash = rest.indexOf("/");
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(":")) throw new UrlError("first path segment in URL cannot contain colon");
  }
  if ((u.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    parseAuthority(u, authority, rules);
  } else if (u.scheme !== "" && rest.startsWith("/")) {
    u.omitHost = true;
  }
  setPath(u, rest);
  return u;
}

function userString(user: NonNullable<GoUrl["user"]>): string {
  const name = escape(user.username, Mode.UserPassword);
  return user.password === undefined ? name : `${name}:${escape(user.password, Mode.UserPassword)}`;
}

/** URL.String(). */
function urlString(u: GoUrl): string {
  let buf = "";
  if (u.scheme !== "") buf += `${u.scheme}:`;
  if (u.opaque !== "") {
    buf += u.opaque;
  } else {
    if (u.scheme !== "" || u.host !== "" || u.user !== undefined) {
      if (!(u.omitHost && u.host === "" && u.user === undefined)) {
        if (u.host !== "" || u.path !== "" || u.user !== undefined) buf += "//";
        if (u.user !== undefined) buf += `${userString(u.user)}@`;
        if (u.host !== "") buf += escape(u.host, Mode.Host);
      }
    }
    const path = escapedPath(u);
    if (path !== "" && path[0] !== "/" && u.host !== "") buf += "/";
    if (buf === "") {
      const slash = path.indexOf("/");
      if ((slash < 0 ? path : path.slice(0, slash)).includes(":")) buf += "./";
    }
    buf += path;
  }
  if (u.forceQuery || u.rawQuery !== "") buf += `?${u.rawQuery}`;
  if (u.fragment !== "") buf += `#${escapedFragment(u)}`;
  return buf;
}

/**
 * apis.URL UnmarshalJSON then MarshalJSON for a JSON string: `""` stays empty, anything else goes
 * through url.Parse (error: `parse "<url>": <reason>`) and comes back as URL.String().
 */
export function roundTripUrl(value: string, rules: UrlRules = GO_1_23_URL_RULES): UrlRoundTrip {
  if (value === "") return { ok: true, value: "" };
  const raw = utf8Bytes(value);
  const hash = raw.indexOf("#");
  const withoutFragment = hash < 0 ? raw : raw.slice(0, hash);
  let u: GoUrl;
  try {
    u = parseWithoutFragment(withoutFragment, rules);
  } catch (e) {
    if (e instanceof UrlError) return { ok: false, error: `parse ${goQuote(fromUtf8Bytes(withoutFragment))}: ${e.message}` };
    throw e;
  }
  if (hash >= 0) {
    const frag = raw.slice(hash + 1);
    try {
      u.fragment = unescape(frag, Mode.Fragment);
      u.rawFragment = escape(u.fragment, Mode.Fragment) === frag ? "" : frag;
    } catch (e) {
      if (e instanceof UrlError) return { ok: false, error: `parse ${goQuote(value)}: ${e.message}` };
      throw e;
    }
  }
  return { ok: true, value: fromUtf8Bytes(urlString(u)) };
}

function pathUrl(path: string, rawQuery: string): GoUrl {
  return { scheme: "", opaque: "", user: undefined, host: "", path, rawPath: "", omitHost: false, forceQuery: false, rawQuery, fragment: "", rawFragment: "" };
}

/**
 * r.URL.EscapedPath() of a server request whose request-target path (before any `?`) is `raw`, a byte string
 * as the client sent it (url.ParseRequestURI: setPath, then EscapedPath). An invalid escape, which Go's server
 * refuses before any handler, is returned as it is.
 */
export function requestEscapedPath(raw: string): string {
  const u = pathUrl("", "");
  try {
    setPath(u, raw);
  } catch {
    return raw;
  }
  return escapedPath(u);
}

/** (&url.URL{Path: path, RawQuery: rawQuery}).String(). */
export function pathQueryString(path: string, rawQuery: string): string {
  return urlString(pathUrl(path, rawQuery));
}
