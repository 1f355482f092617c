/**
 * The HTTPS port's TLS settings, read as knative.dev/pkg network/tls/config.go: DefaultConfigFromEnv("WEBHOOK_")
 * reads them (serving v0.48.2 and v0.49.0 on), with its error texts, and turned into Node's options: Go's cipher
 * suite and curve names become OpenSSL's (docs/adr/0015-knative-metrics-and-tls.md).
 */
import { createSecureContext } from "node:tls";

export type TlsVersion = "TLSv1.2" | "TLSv1.3";

/** What the webhook's TLS server is given (src/server/tls-policy.ts). */
export interface TlsPolicySettings {
  readonly minVersion: TlsVersion;
  readonly maxVersion?: TlsVersion;
  /** Node's `ciphers` (OpenSSL names, `:`-separated). */
  readonly ciphers?: string;
  /** Node's `ecdhCurve` (OpenSSL group names, `:`-separated). */
  readonly ecdhCurve?: string;
}

/** network/tls/config.go: parseVersion's error, wrapped as DefaultConfigFromEnv wraps it. */
function parseVersion(env: string, v: string): TlsVersion {
  if (v === "1.2") return "TLSv1.2";
  if (v === "1.3") return "TLSv1.3";
  throw new Error(`invalid ${env} "${v}": unsupported TLS version "${v}": must be "1.2" or "1.3"`);
}

/** `--tls-min-version` (WEBHOOK_TLS_MIN_VERSION). */
export function parseTlsMinVersion(s: string): TlsVersion {
  return parseVersion("WEBHOOK_TLS_MIN_VERSION", s);
}

/** `--tls-max-version` (WEBHOOK_TLS_MAX_VERSION). */
export function parseTlsMaxVersion(s: string): TlsVersion {
  return parseVersion("WEBHOOK_TLS_MAX_VERSION", s);
}

/** crypto/tls: VersionTLS12, VersionTLS13, as webhook.New prints them with %#x. */
const GO_VERSION_NUMBER: Readonly<Record<TlsVersion, string>> = { "TLSv1.2": "0x303", "TLSv1.3": "0x304" };

/**
 * The TLS 1.3 suites of Go's crypto/tls.CipherSuites(): names cipherSuiteLookup accepts, but "TLS 1.3 ciphersuites
 * are not configurable" (crypto/tls common.go: Config.CipherSuites), so they change nothing.
 */
const GO_TLS13_SUITES = new Set(["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]);

/**
 * The TLS 1.0–1.2 suites of crypto/tls.CipherSuites() (Go 1.26, the toolchain of Knative 1.23 and 1.24; the
 * suites it lists under InsecureCipherSuites are not looked up, so they are unknown), by their OpenSSL names.
 */
export const GO_TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
};

/**
 * What `ciphers` holds when the list names no TLS 1.2 suite (only TLS 1.3 ones, or nothing but commas): Go then has
 * no suite for TLS 1.2, so only TLS 1.3 handshakes succeed. Node's default TLS 1.3 suites alone do that (Node raises
 * the minimum to TLS 1.3 when `ciphers` has no TLS 1.2 suite) and keep TLS 1.3 as Go has it.
 */
const TLS13_ONLY = "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256";

/** network/tls/config.go: parseCipherSuites (entries trimmed, empty ones skipped), as OpenSSL's `ciphers`. */
export function parseCipherSuites(v: string): string {
  const openssl: string[] = [];
  for (const raw of v.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    const mapped = GO_TLS12_SUITES[name];
    if (mapped !== undefined) openssl.push(mapped);
    else if (!GO_TLS13_SUITES.has(name)) throw new Error(`invalid WEBHOOK_TLS_CIPHER_SUITES: unknown cipher suite "${name}"`);
  }
  return openssl.length === 0 ? TLS13_ONLY : openssl.join(":");
}

/** network/tls/config.go: curvesByName (Go's constant names and the standard ones), by OpenSSL group name. */
const GO_CURVES: Readonly<Record<string, string>> = {
  CurveP256: "P-256",
  CurveP384: "P-384",
  CurveP521: "P-521",
  X25519: "X25519",
  X25519MLKEM768: "X25519MLKEM768",
  "P-256": "P-256",
  "P-384": "P-384",
  "P-521": "P-521",
};

/** Whether this Node's OpenSSL has the group (X25519MLKEM768 needs OpenSSL 3.5; Node 20 and 22 ship 3.0). */
export function opensslHasGroup(group: string): boolean {
  try {
    createSecureContext({ ecdhCurve: group });
    return true;
  } catch {
    return false;
  }
}

/**
 * network/tls/config.go: parseCurvePreferences, as OpenSSL's `ecdhCurve`; undefined for a list of nothing but
 * commas (Go then keeps its default curves). A curve Go knows but this Node's OpenSSL lacks stops the start: an
 * operator who lists one (X25519MLKEM768, for post-quantum key exchange) asked for it, and serving without it
 * would weaken the handshake behind their back (docs/adr/0015-knative-metrics-and-tls.md).
 */
export function parseCurvePreferences(v: string, hasGroup: (group: string) => boolean = opensslHasGroup): string | undefined {
  const groups: string[] = [];
  for (const raw of v.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    const group = GO_CURVES[name];
    if (group === undefined) throw new Error(`invalid WEBHOOK_TLS_CURVE_PREFERENCES: unknown curve "${name}"`);
    if (!hasGroup(group)) throw new Error(`WEBHOOK_TLS_CURVE_PREFERENCES: curve "${name}" is not available in this Node.js's OpenSSL ${process.versions.openssl} (X25519MLKEM768 needs OpenSSL 3.5 or later); remove it from the list or run a Node.js built with such an OpenSSL`);
    if (!groups.includes(group)) groups.push(group);
  }
  return groups.length === 0 ? undefined : groups.join(":");
}

/** The four settings as ../options.ts parses them, each undefined when empty. */
export interface ParsedTlsSettings {
  readonly "tls-min-version": TlsVersion;
  readonly "tls-max-version": TlsVersion | undefined;
  readonly "tls-cipher-suites": string | undefined;
  readonly "tls-curve-preferences": string | undefined;
}

/**
 * The four settings, each parsed in DefaultConfigFromEnv's order (the settings table's), then webhook.New's check
 * that the minimum is not above the maximum. Flags and variables that are empty are not set, as an empty variable is
 * to os.Getenv's caller.
 */
export function tlsPolicy(p: ParsedTlsSettings): TlsPolicySettings {
  const minVersion = p["tls-min-version"];
  const maxVersion = p["tls-max-version"];
  const ciphers = p["tls-cipher-suites"];
  const ecdhCurve = p["tls-curve-preferences"];
  if (maxVersion !== undefined && minVersion === "TLSv1.3" && maxVersion === "TLSv1.2") {
    throw new Error(`TLS minimum version (${GO_VERSION_NUMBER[minVersion]}) is greater than maximum version (${GO_VERSION_NUMBER[maxVersion]})`);
  }
  // Go would start and fail every handshake; Node would not start, with an OpenSSL error. Say why instead.
  if (maxVersion === "TLSv1.2" && ciphers === TLS13_ONLY) throw new Error("WEBHOOK_TLS_CIPHER_SUITES names no TLS 1.2 cipher suite and WEBHOOK_TLS_MAX_VERSION is 1.2: no handshake could succeed");
  return { minVersion, ...(maxVersion !== undefined ? { maxVersion } : {}), ...(ciphers !== undefined ? { ciphers } : {}), ...(ecdhCurve !== undefined ? { ecdhCurve } : {}) };
}

/** The four settings' text, parsed and checked as the settings table and tlsPolicy do. */
export function parseTlsSettings(
  s: { readonly "tls-min-version": string; readonly "tls-max-version": string; readonly "tls-cipher-suites": string; readonly "tls-curve-preferences": string },
  hasGroup?: (group: string) => boolean,
): TlsPolicySettings {
  return tlsPolicy({
    "tls-min-version": parseTlsMinVersion(s["tls-min-version"]),
    "tls-max-version": s["tls-max-version"] === "" ? undefined : parseTlsMaxVersion(s["tls-max-version"]),
    "tls-cipher-suites": s["tls-cipher-suites"] === "" ? undefined : parseCipherSuites(s["tls-cipher-suites"]),
    "tls-curve-preferences": s["tls-curve-preferences"] === "" ? undefined : parseCurvePreferences(s["tls-curve-preferences"], hasGroup),
  });
}
