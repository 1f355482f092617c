import type { SecureContextOptions, TlsOptions as NodeTlsOptions } from "node:tls";

export interface TlsOptions {
  key: string;
  cert: string;
  /** `TLSv1.3` by default (Knative's WEBHOOK_TLS_MIN_VERSION default). */
  minVersion: "TLSv1.2" | "TLSv1.3";
  /** PEM bundle of CAs whose client certificates are accepted; when set, clients must present one. */
  clientCa?: string;
}

/** The Node TLS server options for the webhook's policy (SECURITY.md): one place for versions, ciphers, client auth. */
export function serverTlsOptions(tls: TlsOptions): NodeTlsOptions {
  const o: NodeTlsOptions = { key: tls.key, cert: tls.cert, minVersion: tls.minVersion };
  if (tls.clientCa !== undefined && tls.clientCa !== "") {
    o.ca = tls.clientCa;
    o.requestCert = true;
    o.rejectUnauthorized = true;
  }
  return o;
}

/** The options for `setSecureContext` when the serving certificate rotates (same policy, new key pair). */
export function rotatedContextOptions(tls: TlsOptions, next: Pick<TlsOptions, "key" | "cert">): SecureContextOptions {
  return serverTlsOptions({ ...tls, key: next.key, cert: next.cert });
}
