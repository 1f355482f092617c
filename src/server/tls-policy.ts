import type { SecureContextOptions, TlsOptions as NodeTlsOptions } from "node:tls";

export interface TlsOptions {
  key: string;
  cert: string;
  /** `TLSv1.3` by default (Knative's WEBHOOK_TLS_MIN_VERSION default). */
  minVersion: "TLSv1.2" | "TLSv1.3";
  /** `--tls-max-version` (WEBHOOK_TLS_MAX_VERSION); Node's default, TLS 1.3, when absent. */
  maxVersion?: "TLSv1.2" | "TLSv1.3";
  /** OpenSSL cipher list from `--tls-cipher-suites` (WEBHOOK_TLS_CIPHER_SUITES, Go names mapped); Go's defaults when absent. */
  ciphers?: string;
  /** OpenSSL group list from `--tls-curve-preferences` (WEBHOOK_TLS_CURVE_PREFERENCES, Go names mapped). */
  ecdhCurve?: string;
  /**
   * PEM bundle of CAs whose client certificates are accepted (`--client-ca`). When set, every client is asked for
   * a certificate; the handshake completes without one, and the server answers everything but probes with 403
   * (see clientRefusal), so kubelet's HTTPS probes keep working.
   */
  clientCa?: string;
}

/**
 * The TLS 1.2 suites Knative's webhook serves when WEBHOOK_TLS_CIPHER_SUITES is not set (knative.dev/pkg
 * network/tls/config.go leaves Config.CipherSuites nil): crypto/tls defaults.go's defaultCipherSuites, Go 1.23 to
 * 1.26 without a GODEBUG, i.e. cipherSuitesPreferenceOrder less disabledCipherSuites (CBC-SHA256, RC4), rsaKexCiphers
 * (every static-RSA suite) and tdesCiphers (3DES), by OpenSSL name in Go's order: ECDHE with AES-GCM or
 * ChaCha20-Poly1305, then ECDHE with AES-CBC-SHA. Node's default list adds static-RSA suites without forward
 * secrecy, CBC-SHA256/384, CCM and ARIA, which Go refuses. No TLS 1.3 name is listed, so Node keeps its TLS 1.3
 * suites, Go's three (not configurable in Go).
 */
export const GO_DEFAULT_TLS12_CIPHERS = [
  "ECDHE-ECDSA-AES128-GCM-SHA256",
  "ECDHE-RSA-AES128-GCM-SHA256",
  "ECDHE-ECDSA-AES256-GCM-SHA384",
  "ECDHE-RSA-AES256-GCM-SHA384",
  "ECDHE-ECDSA-CHACHA20-POLY1305",
  "ECDHE-RSA-CHACHA20-POLY1305",
  "ECDHE-ECDSA-AES128-SHA",
  "ECDHE-RSA-AES128-SHA",
  "ECDHE-ECDSA-AES256-SHA",
  "ECDHE-RSA-AES256-SHA",
].join(":");

/** The Node TLS server options for the webhook's policy (SECURITY.md): one place for versions, ciphers, client auth. */
export function serverTlsOptions(tls: TlsOptions): NodeTlsOptions {
  const o: NodeTlsOptions = { key: tls.key, cert: tls.cert, minVersion: tls.minVersion, ciphers: tls.ciphers ?? GO_DEFAULT_TLS12_CIPHERS };
  if (tls.maxVersion !== undefined) o.maxVersion = tls.maxVersion;
  if (tls.ecdhCurve !== undefined) o.ecdhCurve = tls.ecdhCurve;
  if (tls.clientCa !== undefined && tls.clientCa !== "") {
    o.ca = tls.clientCa;
    o.requestCert = true;
    // Verified, not enforced, at the handshake: the request decides (probes are answered without a certificate).
    o.rejectUnauthorized = false;
  }
  return o;
}

/** The options for `setSecureContext` when the serving certificate rotates (same policy, new key pair). */
export function rotatedContextOptions(tls: TlsOptions, next: Pick<TlsOptions, "key" | "cert">): SecureContextOptions {
  return serverTlsOptions({ ...tls, key: next.key, cert: next.cert });
}

/** The body of the 403 a request gets without a client certificate signed by a `--client-ca` CA. */
export const CLIENT_CERT_REQUIRED = "a client certificate signed by a CA of --client-ca is required (the API server's, from its admission configuration)";

/** Whether a request on this socket must be refused under `--client-ca`: no verified client certificate. */
export function clientRefusal(socket: unknown): boolean {
  return (socket as { authorized?: boolean } | null)?.authorized !== true;
}
