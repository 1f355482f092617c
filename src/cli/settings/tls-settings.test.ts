import { createSecureContext } from "node:tls";
import { describe, expect, it } from "vitest";
import { GO_TLS12_SUITES, opensslHasGroup, parseCipherSuites, parseCurvePreferences, parseTlsSettings } from "./tls-settings.js";

const UNSET = { "tls-min-version": "1.3", "tls-max-version": "", "tls-cipher-suites": "", "tls-curve-preferences": "" };

describe("parseTlsSettings (knative.dev/pkg network/tls DefaultConfigFromEnv, webhook.New)", () => {
  it("defaults to TLS 1.3 minimum and Node's own maximum, suites and curves", () => {
    expect(parseTlsSettings(UNSET)).toEqual({ minVersion: "TLSv1.3" });
  });

  it("reads all four", () => {
    expect(parseTlsSettings({ "tls-min-version": "1.2", "tls-max-version": "1.3", "tls-cipher-suites": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "tls-curve-preferences": "X25519,CurveP256" })).toEqual({
      minVersion: "TLSv1.2",
      maxVersion: "TLSv1.3",
      ciphers: "ECDHE-RSA-AES128-GCM-SHA256",
      ecdhCurve: "X25519:P-256",
    });
  });

  it.each([
    [{ "tls-max-version": "1.1" }, 'invalid WEBHOOK_TLS_MAX_VERSION "1.1": unsupported TLS version "1.1": must be "1.2" or "1.3"'],
    [{ "tls-max-version": "1.2" }, "TLS minimum version (0x304) is greater than maximum version (0x303)"],
    [{ "tls-cipher-suites": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, NOPE" }, 'invalid WEBHOOK_TLS_CIPHER_SUITES: unknown cipher suite "NOPE"'],
    // Go 1.26 lists RSA key exchange under InsecureCipherSuites, which cipherSuiteLookup does not read.
    [{ "tls-cipher-suites": "TLS_RSA_WITH_AES_128_GCM_SHA256" }, 'invalid WEBHOOK_TLS_CIPHER_SUITES: unknown cipher suite "TLS_RSA_WITH_AES_128_GCM_SHA256"'],
    [{ "tls-curve-preferences": "X448" }, 'invalid WEBHOOK_TLS_CURVE_PREFERENCES: unknown curve "X448"'],
    // DefaultConfigFromEnv reads the variables in order and stops at the first error; the order check comes after.
    [{ "tls-max-version": "1.2", "tls-cipher-suites": "NOPE" }, 'invalid WEBHOOK_TLS_CIPHER_SUITES: unknown cipher suite "NOPE"'],
  ])("refuses %j with Knative's error text", (settings, message) => {
    expect(() => parseTlsSettings({ ...UNSET, ...settings })).toThrow(message);
  });

  it("refuses a maximum of 1.2 with no TLS 1.2 suite, where Go would fail every handshake", () => {
    expect(() => parseTlsSettings({ ...UNSET, "tls-min-version": "1.2", "tls-max-version": "1.2", "tls-cipher-suites": "TLS_AES_128_GCM_SHA256" })).toThrow(/no handshake could succeed/);
  });
});

describe("parseCipherSuites", () => {
  it("maps every secure TLS 1.2 suite of Go's crypto/tls.CipherSuites() to a name this Node's OpenSSL takes", () => {
    expect(Object.keys(GO_TLS12_SUITES)).toHaveLength(10);
    for (const [go, openssl] of Object.entries(GO_TLS12_SUITES)) {
      expect(parseCipherSuites(go)).toBe(openssl);
      expect(() => createSecureContext({ ciphers: openssl, minVersion: "TLSv1.2" }), go).not.toThrow();
    }
  });

  it("trims entries, skips empty ones and keeps the order", () => {
    expect(parseCipherSuites(" TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 ,,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256")).toBe("ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305");
  });

  it("accepts the TLS 1.3 suites without configuring them; a list of only those leaves no TLS 1.2 suite", () => {
    expect(parseCipherSuites("TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")).toBe("ECDHE-RSA-AES128-GCM-SHA256");
    expect(parseCipherSuites("TLS_AES_128_GCM_SHA256")).toBe("TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256");
    expect(parseCipherSuites(",")).toBe("TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256");
  });
});

describe("parseCurvePreferences", () => {
  it("takes Go's constant names and the standard ones", () => {
    expect(parseCurvePreferences("CurveP256,P-384, CurveP521,X25519")).toBe("P-256:P-384:P-521:X25519");
    expect(parseCurvePreferences("P-256,CurveP256")).toBe("P-256");
  });

  it("keeps Go's defaults for a list of nothing but commas", () => {
    expect(parseCurvePreferences(" , ")).toBeUndefined();
  });

  it("stops the start for a curve Go knows and this OpenSSL lacks, naming it", () => {
    expect(() => parseCurvePreferences("X25519MLKEM768,X25519", (g) => g !== "X25519MLKEM768")).toThrow(/curve "X25519MLKEM768" is not available in this Node.js's OpenSSL/);
  });

  it("knows whether this Node's OpenSSL has X25519MLKEM768 (OpenSSL 3.5 and later)", () => {
    const [major = 0, minor = 0] = (process.versions.openssl ?? "").split(".").map(Number);
    expect(opensslHasGroup("X25519MLKEM768")).toBe(major > 3 || (major === 3 && minor >= 5));
    expect(opensslHasGroup("X25519")).toBe(true);
  });
});
