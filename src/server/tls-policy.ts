import type { SecureContextOptions, TlsOptions as NodeTlsOptions } from "node:tls";

export interface TlsOptions {
  key: string;
  cert: string;
  /** `TLSv1.3` by default (Knative's WEBHOOK_TLS_MIN_VERSION default). */
  minVersion: "TLSv1.2" | "TLSv1.3";
  /** `--tls-max-version` (WEBHOOK_TLS_MAX_VERSION); Node's default, TLS 1.3, when absent. */
  maxVersion?: "TLSv1.2" | "TLSv1.3";
  /** OpenSSL cipher list from `--tls-cipher-suites` (WEBHOOK_TLS_CIPHER_SUITES, Go names mapped). */
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

/** The Node TLS server options for the webhook's policy (SECURITY.md): one place for versions, ciphers, client auth. */
export function serverTlsOptions(tls: TlsOptions): NodeTlsOptions {
  const o: NodeTlsOptions = { key: tls.key, cert: tls.cert, minVersion: tls.minVersion };
  if (tls.maxVersion !== undefined) o.maxVersion = tls.maxVersion;
  if (tls.ciphers !== undefined) o.ciphers = tls.ciphers;
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
