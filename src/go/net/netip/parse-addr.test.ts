import { describe, expect, it } from "vitest";
import { GO_1_23_URL_RULES, GO_1_26_STRICT_URL_RULES, GO_1_26_URL_RULES, roundTripUrl } from "../url/url.js";
import { utf8Bytes } from "../../encoding/json/go-strings.js";
import { parseAddr } from "./parse-addr.js";

// Expected values printed by Go 1.26.8 in a module whose go.mod says go 1.26 (netip.ParseAddr: the error text, else whether the address is IPv4; url.Parse:
// the error text, else URL.String()), the toolchain Knative 1.23 and 1.24's webhooks are built with.

describe("parseAddr (netip.ParseAddr)", () => {
  it.each<[string, string]>([
    ["", "ParseAddr(\"\"): unable to parse IP"],
    ["1.2.3.4", "is4"],
    ["::", "is6"],
    ["::1", "is6"],
    ["1.2.3", "ParseAddr(\"1.2.3\"): IPv4 address too short"],
    ["1.2.3.4.5", "ParseAddr(\"1.2.3.4.5\"): IPv4 address too long"],
    ["01.2.3.4", "ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero"],
    ["256.1.1.1", "ParseAddr(\"256.1.1.1\"): IPv4 field has value >255"],
    ["1..2.3", "ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")"],
    [".1.2.3", "ParseAddr(\".1.2.3\"): IPv4 field must have at least one digit (at \".1.2.3\")"],
    ["1.2.3.", "ParseAddr(\"1.2.3.\"): IPv4 field must have at least one digit (at \".\")"],
    ["1.2.3.x", "ParseAddr(\"1.2.3.x\"): unexpected character (at \"x\")"],
    ["fe80::1%", "ParseAddr(\"fe80::1%\"): zone must be a non-empty string"],
    ["fe80::1%en0", "is6"],
    ["%en0", "ParseAddr(\"%en0\"): missing IPv6 address"],
    ["x", "ParseAddr(\"x\"): unable to parse IP"],
    ["[", "ParseAddr(\"[\"): unable to parse IP"],
    ["12345::", "ParseAddr(\"12345::\"): each group must have 4 or less digits (at \"12345::\")"],
    ["1:2:3:4:5:6:7:8", "is6"],
    ["1:2:3:4:5:6:7:8:9", "ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")"],
    ["1:2:3:4:5:6:7", "ParseAddr(\"1:2:3:4:5:6:7\"): address string too short"],
    ["1::2::3", "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")"],
    ["::ffff:1.2.3.4", "is6"],
    ["1:2:3:4:5:6:1.2.3.4", "is6"],
    ["1:2:3:4:5:6:7:1.2.3.4", "ParseAddr(\"1:2:3:4:5:6:7:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")"],
    ["1.2.3.4:80", "ParseAddr(\"1.2.3.4:80\"): unexpected character (at \":80\")"],
    [":1", "ParseAddr(\":1\"): each colon-separated field must have at least one digit (at \":1\")"],
    ["1:", "ParseAddr(\"1:\"): colon must be followed by more characters (at \":\")"],
    ["g::", "ParseAddr(\"g::\"): each colon-separated field must have at least one digit (at \"g::\")"],
    ["fffff::", "ParseAddr(\"fffff::\"): each group must have 4 or less digits (at \"fffff::\")"],
    ["1:2:3:4:5:6:7::", "is6"],
    ["::1.2.3.4", "is6"],
    ["1::1.2.3.4.5", "ParseAddr(\"1::1.2.3.4.5\"): IPv4 address too long"],
    ["abcd:ef01::1", "is6"],
    ["\u00e9::1", "ParseAddr(\"\u00e9::1\"): each colon-separated field must have at least one digit (at \"\u00e9::1\")"],
    ["1::%25x", "is6"],
  ])("%j", (input, want) => {
    // parseAddr reads a byte string, as src/go/net/url hands it the host's UTF-8 bytes.
    const got = parseAddr(utf8Bytes(input));
    expect(got.ok ? (got.is4 ? "is4" : "is6") : got.error).toBe(want);
  });
});

describe("url.Parse of hosts in brackets, Go 1.26 in a go 1.26 module (GO_1_26_STRICT_URL_RULES)", () => {
  it.each<[string, string]>([
    ["https://[]", "error: parse \"https://[]\": invalid host: ParseAddr(\"\"): unable to parse IP"],
    ["https://[::1]", "https://[::1]"],
    ["https://[::1]:8080/x", "https://[::1]:8080/x"],
    ["https://[1.2.3.4]", "error: parse \"https://[1.2.3.4]\": invalid IP-literal"],
    ["https://a[b]", "error: parse \"https://a[b]\": invalid IP-literal"],
    ["https://[::1", "error: parse \"https://[::1\": missing ']' in host"],
    ["https://[::1]x", "error: parse \"https://[::1]x\": invalid port \"x\" after host"],
    ["https://[fe80::1%25en0]", "https://[fe80::1%25en0]"],
    ["https://[fe80::1%25]", "error: parse \"https://[fe80::1%25]\": invalid host: ParseAddr(\"fe80::1%\"): zone must be a non-empty string"],
    ["https://[x]", "error: parse \"https://[x]\": invalid host: ParseAddr(\"x\"): unable to parse IP"],
    ["https://[::ffff:1.2.3.4]", "https://[::ffff:1.2.3.4]"],
    ["http://u@[::1]:80", "http://u@[::1]:80"],
    ["https://[::1]:", "https://[::1]:"],
    ["https://[%3A%3A1]", "error: parse \"https://[%3A%3A1]\": invalid URL escape \"%3A\""],
    ["https://[::1%2]", "error: parse \"https://[::1%2]\": invalid URL escape \"%2\""],
    ["https://x]", "https://x]"],
    ["https://[[::1]]", "error: parse \"https://[[::1]]\": invalid IP-literal"],
  ])("%j", (input, want) => {
    const got = roundTripUrl(input, GO_1_26_STRICT_URL_RULES);
    expect(got.ok ? got.value : "error: " + got.error.replace(/^parse "(?:[^"\\]|\\.)*": /, "")).toBe(want.replace(/^error: parse "(?:[^"\\]|\\.)*": /, "error: "));
  });
});

describe("url.Parse of colons in hosts, per release (a Service's status.url, as Knative's webhooks decoded it)", () => {
  // Knative 1.24 (go.mod go 1.26.0) refused the first two; 1.23 (go 1.25.0) and 1.17 (Go 1.23) accepted all four.
  it.each<[string, string | undefined]>([
    ["http://a:1:2", 'parse "http://a:1:2": invalid port ":1:2" after host'],
    ["https://a::1", 'parse "https://a::1": invalid port "::1" after host'],
    ["ftp://a:1:2", undefined],
    ["http://a:1", undefined],
  ])("%j", (input, on124) => {
    const error = (r: ReturnType<typeof roundTripUrl>): string | undefined => (r.ok ? undefined : r.error);
    expect(error(roundTripUrl(input, GO_1_26_STRICT_URL_RULES))).toBe(on124);
    expect(error(roundTripUrl(input, GO_1_26_URL_RULES))).toBeUndefined();
    expect(error(roundTripUrl(input, GO_1_23_URL_RULES))).toBeUndefined();
  });
});
