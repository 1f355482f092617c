// The webhook's TLS material and the names of its files: what the issuer makes (certificate-issuer.ts), the cert
// dir holds (tls-files.ts), the Secret stores (cert-secret.ts) and the server serves.

export interface TlsMaterial {
  /** Serving certificate (PEM; may be followed by intermediates when loaded from a directory). */
  cert: string;
  /** Private key of the serving certificate (PEM). */
  key: string;
  /** CA bundle that signed `cert` (PEM), or "" when a loaded directory has none. */
  ca: string;
  /** NotAfter of the serving certificate. */
  notAfter: Date;
}

export interface GeneratedTlsMaterial extends TlsMaterial {
  /** The CA's private key (PKCS#8 PEM); never written to disk by writeTlsMaterial. */
  caKey: string;
}

export interface GenerateOptions {
  serviceName?: string;
  namespace?: string;
  clusterDomain?: string;
  extraDnsNames?: string[];
  extraIps?: string[];
  caValidityDays?: number;
  certValidityDays?: number;
  now?: Date;
}

/** A certificate and its key, as issuance makes them (certificate-issuer.ts) and the worker thread hands them back. */
export interface KeyAndCertificate {
  /** PEM certificate. */
  readonly cert: string;
  /** PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`). */
  readonly key: string;
}

/** What one certificate is issued for (certificate-issuer.ts createCa, issueServingCertificate). */
export interface IssueOptions {
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly ips?: readonly string[];
  /** Whole seconds are kept (X.509 times have no finer precision). */
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export interface LoadOptions {
  /** The instant the certificates must be valid at; defaults to the current time. */
  now?: Date;
}



/** File names `duckbill serve` writes and reads in a cert dir. */
export const TLS_FILE_NAMES = { cert: "tls.crt", key: "tls.key", ca: "ca.crt" } as const;
/**
 * Data keys of Knative's `webhook-certs` Secret, i.e. the file names when it is mounted (knative.dev/pkg
 * webhook/certificates/resources/secret.go).
 */
export const WEBHOOK_SECRET_KEYS = { cert: "server-cert.pem", key: "server-key.pem", ca: "ca-cert.pem" } as const;

export type FileNames = { readonly cert: string; readonly key: string; readonly ca: string };
