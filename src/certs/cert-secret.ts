/**
 * What the `webhook-certs` Secret holds (knative.dev/pkg webhook/certificates/resources/secret.go, plus
 * `ca-key.pem`): reading its data into CAs and a serving pair, deciding whether a replica can serve it, and writing a
 * new version of it.
 *
 * `ca-cert.pem` is the bundle clients trust (one CA normally; the old and the new one during a CA rotation).
 * `ca-key.pem` holds, in the same PEM form, the private keys of the CAs that may still sign; each key is matched
 * to its CA by public key, so order does not matter and a bundle may hold CAs without keys (e.g. one made by Knative).
 */
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { describeCertificate } from "./certificate-parse.js";

/** Data keys: Knative's three plus the CA's key, so that the CA can outlive one serving certificate. */
export const CERT_SECRET_KEYS = {
  serverKey: "server-key.pem",
  serverCert: "server-cert.pem",
  caCert: "ca-cert.pem",
  caKey: "ca-key.pem",
} as const;

export interface CaEntry {
  /** This certificate alone, as PEM ending in a newline. */
  readonly cert: string;
  readonly x509: X509Certificate;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly isCA: boolean;
  /** The matching private key (PEM) when `ca-key.pem` holds it. */
  readonly key: string | undefined;
}

export interface ServingEntry {
  readonly cert: string;
  readonly key: string;
  readonly x509: X509Certificate;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly dnsNames: readonly string[];
  readonly ips: readonly string[];
  /** The CA of the bundle that signed it, if any. */
  readonly issuer: CaEntry | undefined;
  /** Whether `key` is the private key of `cert`. */
  readonly keyMatches: boolean;
}

export interface CertSecretContent {
  /** The bundle, in `ca-cert.pem` order; certificates that do not parse are left out (and reported). */
  readonly cas: readonly CaEntry[];
  /** The serving pair when both parse (it may still be unusable: see servingProblem). */
  readonly serving: ServingEntry | undefined;
  /** Why the data cannot be served as is, ignoring time; undefined when it can. */
  readonly problem: string | undefined;
}

/** The TLS material a replica serves and the bundle clients (and every `caBundle`) must trust. */
export interface TlsMaterialUpdate {
  readonly key: string;
  readonly cert: string;
  readonly caBundle: string;
  /** The serving certificate's NotAfter (ms since the epoch). */
  readonly notAfter: number;
}

const CERT_BLOCK_RE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const KEY_BLOCK_RE = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/g;

/** The PEM blocks of certificates in `text`, each ending in a newline. */
export function certificateBlocks(text: string): string[] {
  return (text.match(CERT_BLOCK_RE) ?? []).map((b) => `${b}\n`);
}

/** The PEM blocks of private keys in `text`, each ending in a newline. */
export function privateKeyBlocks(text: string): string[] {
  return (text.match(KEY_BLOCK_RE) ?? []).map((b) => `${b}\n`);
}

function publicKeyDer(key: KeyObject): string {
  return key.export({ format: "der", type: "spki" }).toString("base64");
}

function privateKeyOf(pem: string): KeyObject | undefined {
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

function readCa(pem: string, keysByPublicKey: ReadonlyMap<string, string>): CaEntry | undefined {
  try {
    const x509 = new X509Certificate(pem);
    const d = describeCertificate(pem);
    return { cert: pem, x509, notBefore: d.notBefore.getTime(), notAfter: d.notAfter.getTime(), isCA: d.isCA, key: keysByPublicKey.get(publicKeyDer(x509.publicKey)) };
  } catch {
    return undefined;
  }
}

/** Reads the Secret's (decoded) data. Never throws: what does not parse is reported in `problem`. */
export function readCertSecret(data: Readonly<Record<string, string | undefined>>): CertSecretContent {
  const keysByPublicKey = new Map<string, string>();
  for (const block of privateKeyBlocks(data[CERT_SECRET_KEYS.caKey] ?? "")) {
    const key = privateKeyOf(block);
    if (key !== undefined) keysByPublicKey.set(publicKeyDer(createPublicKey(key)), block);
  }
  const caBlocks = certificateBlocks(data[CERT_SECRET_KEYS.caCert] ?? "");
  const cas: CaEntry[] = [];
  for (const block of caBlocks) {
    const ca = readCa(block, keysByPublicKey);
    if (ca !== undefined) cas.push(ca);
  }
  const serving = readServing(data, cas);
  return { cas, serving: serving.entry, problem: serving.problem ?? (cas.length < caBlocks.length ? `${CERT_SECRET_KEYS.caCert} holds a certificate that does not parse` : undefined) };
}

function readServing(data: Readonly<Record<string, string | undefined>>, cas: readonly CaEntry[]): { entry?: ServingEntry; problem?: string } {
  const { serverCert, serverKey, caCert } = CERT_SECRET_KEYS;
  const certText = data[serverCert] ?? "";
  const keyText = data[serverKey] ?? "";
  const missing = [serverKey, serverCert, caCert].filter((k) => (data[k] ?? "").trim() === "");
  if (missing.length === 3) return { problem: "it is empty" };
  const certPem = certificateBlocks(certText)[0];
  const keyPem = privateKeyBlocks(keyText)[0];
  let x509: X509Certificate | undefined;
  let d: ReturnType<typeof describeCertificate> | undefined;
  try {
    if (certPem !== undefined) {
      x509 = new X509Certificate(certPem);
      d = describeCertificate(certPem);
    }
  } catch {
    x509 = undefined;
  }
  const key = keyPem === undefined ? undefined : privateKeyOf(keyPem);
  if (x509 === undefined || d === undefined || keyPem === undefined || key === undefined) {
    if (missing.length > 0) return { problem: `it has no ${missing.join(", ")}` };
    return { problem: x509 === undefined ? `${serverCert} is not a PEM certificate` : `${serverKey} is not a PEM private key` };
  }
  const issuer = cas.find((ca) => x509.checkIssued(ca.x509) && x509.verify(ca.x509.publicKey));
  const entry: ServingEntry = {
    cert: certPem as string,
    key: keyPem,
    x509,
    notBefore: d.notBefore.getTime(),
    notAfter: d.notAfter.getTime(),
    dnsNames: d.dnsNames,
    ips: d.ips,
    issuer,
    keyMatches: x509.checkPrivateKey(key),
  };
  if (!entry.keyMatches) return { entry, problem: `${serverKey} is not the key of ${serverCert}` };
  if (missing.length > 0) return { entry, problem: `it has no ${missing.join(", ")}` };
  if (issuer === undefined) return { entry, problem: `${serverCert} is not signed by a CA in ${caCert}` };
  return { entry };
}

/** Why `content` cannot be served at `now`, or undefined when it can. */
export function servingProblem(content: CertSecretContent, now: number): string | undefined {
  if (content.problem !== undefined) return content.problem;
  const s = content.serving;
  if (s === undefined) return "it has no serving certificate";
  if (now < s.notBefore) return `${CERT_SECRET_KEYS.serverCert} is not valid before ${new Date(s.notBefore).toISOString()}`;
  if (now >= s.notAfter) return `${CERT_SECRET_KEYS.serverCert} expired at ${new Date(s.notAfter).toISOString()}`;
  const issuer = s.issuer;
  if (issuer !== undefined && now >= issuer.notAfter) return `the CA that signed ${CERT_SECRET_KEYS.serverCert} expired at ${new Date(issuer.notAfter).toISOString()}`;
  return undefined;
}

/** What a replica serves from this data at `now`, or why it cannot. */
export function tlsMaterialOf(data: Readonly<Record<string, string | undefined>>, now: number): { material: TlsMaterialUpdate } | { problem: string } {
  const content = readCertSecret(data);
  const problem = servingProblem(content, now);
  const s = content.serving;
  if (problem !== undefined || s === undefined) return { problem: problem ?? "it has no serving certificate" };
  return { material: { key: s.key, cert: s.cert, caBundle: bundleOf(content.cas), notAfter: s.notAfter } };
}

/** The `ca-cert.pem` text for these CAs. */
export function bundleOf(cas: readonly CaEntry[]): string {
  return cas.map((ca) => ca.cert).join("");
}

/** The four data values for a bundle (keys of the CAs that have one, in bundle order) and a serving pair. */
export function certSecretData(cas: readonly CaEntry[], serving: { cert: string; key: string }): Record<string, string> {
  return {
    [CERT_SECRET_KEYS.serverKey]: serving.key,
    [CERT_SECRET_KEYS.serverCert]: serving.cert,
    [CERT_SECRET_KEYS.caCert]: bundleOf(cas),
    [CERT_SECRET_KEYS.caKey]: cas.flatMap((ca) => (ca.key === undefined ? [] : [ca.key])).join(""),
  };
}

/** A CaEntry for a freshly made CA. */
export function caEntry(cert: string, key: string | undefined): CaEntry {
  const d = describeCertificate(cert);
  return { cert, x509: new X509Certificate(cert), notBefore: d.notBefore.getTime(), notAfter: d.notAfter.getTime(), isCA: d.isCA, key };
}
