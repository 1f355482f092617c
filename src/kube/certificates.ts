// TLS material for the webhook's HTTPS server (spec §1.2, §1.9): generate a Knative-shaped CA and serving
// certificate for standalone runs, write them to a directory, and load them back (or a mounted
// `webhook-certs` Secret) with checks that fail at startup instead of at the first TLS handshake.
import { X509Certificate, createPrivateKey, randomBytes } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { mkdir, open, readFile, readdir, rename, rm } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import { createCa, issueServingCertificate, knativeCommonName } from "./certificate-issuer.js";

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

export interface LoadOptions {
  /** The instant the certificates must be valid at; defaults to the current time. */
  now?: Date;
}

export interface CertificateDescription {
  subject: string;
  issuer: string;
  serialNumber: string;
  dnsNames: string[];
  ips: string[];
  notBefore: Date;
  notAfter: Date;
  /** OpenSSL short name such as `ecdsa-with-SHA256`, or the dotted OID when unknown. */
  signatureAlgorithm: string;
  keyType?: string;
  curve?: string;
  isCA: boolean;
  keyUsage: string[];
  extKeyUsage: string[];
  criticalExtensions: string[];
}

/** File names `duckbill serve` writes and reads in a cert dir. */
export const TLS_FILE_NAMES = { cert: "tls.crt", key: "tls.key", ca: "ca.crt" } as const;
/** Data keys of Knative's `webhook-certs` Secret, i.e. the file names when it is mounted (§1.9). */
export const WEBHOOK_SECRET_KEYS = { cert: "server-cert.pem", key: "server-key.pem", ca: "ca-cert.pem" } as const;

type FileNames = { readonly cert: string; readonly key: string; readonly ca: string };

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------------------
// Generation

/**
 * Generates a fresh ECDSA P-256 CA and a serving certificate it signs, both SHA-256, shaped like Knative's
 * (§1.9) plus `localhost`/`127.0.0.1` so a standalone webhook is reachable locally.
 */
export async function generateTlsMaterial(opts: GenerateOptions = {}): Promise<GeneratedTlsMaterial> {
  const serviceName = opts.serviceName ?? "webhook";
  const namespace = opts.namespace ?? "knative-serving";
  const clusterDomain = opts.clusterDomain ?? "cluster.local";
  const caDays = opts.caValidityDays ?? 365;
  const certDays = opts.certValidityDays ?? 7;

  const problems = [
    ...labelProblems("service name", serviceName),
    ...labelProblems("namespace", namespace),
    ...subdomainProblems("cluster domain", clusterDomain),
    ...(opts.extraDnsNames ?? []).flatMap((name) => dnsNameProblems(name)),
    ...(opts.extraIps ?? []).flatMap((ip) => (isIP(ip) === 0 ? [`extra IP "${ip}": must be a valid IP address`] : [])),
    ...validityProblems("CA validity days", caDays),
    ...validityProblems("certificate validity days", certDays),
  ];
  if (problems.length > 0) throw new Error(`invalid certificate options: ${problems.join("; ")}`);

  // X.509 times have whole-second precision: truncate so notAfter equals what the certificate says.
  const notBefore = new Date(Math.floor((opts.now ?? new Date()).getTime() / 1000) * 1000);
  const caNotAfter = addDays(notBefore, caDays);
  // A serving certificate outliving its CA would fail verification anyway; cap it at the CA's end.
  const certNotAfter = new Date(Math.min(caNotAfter.getTime(), addDays(notBefore, certDays).getTime()));

  const serviceFqdn = `${serviceName}.${namespace}`;
  const dnsNames = uniq([
    "localhost",
    serviceName,
    serviceFqdn,
    `${serviceFqdn}.svc`,
    `${serviceFqdn}.svc.${clusterDomain}`,
    ...(opts.extraDnsNames ?? []),
  ]);
  const ips = uniq(["127.0.0.1", ...(opts.extraIps ?? [])]);
  // Knative's shape: the CA has the serving certificate's subject and names; key identifiers tell them apart.
  const names = { commonName: knativeCommonName(serviceName, namespace), dnsNames, ips };
  const ca = await createCa({ ...names, notBefore, notAfter: caNotAfter });
  const server = await issueServingCertificate(ca, { ...names, notBefore, notAfter: certNotAfter });
  return { cert: server.cert, key: server.key, ca: ca.cert, caKey: ca.key, notAfter: certNotAfter };
}

const LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// Kubernetes' own wording (apimachinery/pkg/util/validation) so operators recognise it.
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function labelProblems(what: string, value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push(`${what} "${value}": must be no more than 63 characters`);
  if (!LABEL_RE.test(value)) out.push(`${what} "${value}": ${LABEL_MSG}`);
  return out;
}

function subdomainProblems(what: string, value: string, checked = value): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push(`${what} "${value}": must be no more than 253 characters`);
  if (!SUBDOMAIN_RE.test(checked)) out.push(`${what} "${value}": ${SUBDOMAIN_MSG}`);
  return out;
}

function dnsNameProblems(name: string): string[] {
  // A leading "*." is a wildcard SAN; the rest must still be a subdomain.
  return subdomainProblems("extra DNS name", name, name.startsWith("*.") ? name.slice(2) : name);
}

function validityProblems(what: string, days: number): string[] {
  return Number.isFinite(days) && days > 0 ? [] : [`${what} ${String(days)}: must be a positive number`];
}

/** `from` plus `days`, rounded to whole seconds. */
function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + Math.round((days * DAY_MS) / 1000) * 1000);
}

function uniq(values: string[]): string[] {
  return [...new Set(values)];
}

// ---------------------------------------------------------------------------------------------------------
// Writing

/**
 * Writes `ca.crt`, `tls.key` (mode 0600) and `tls.crt` into `dir`, creating it. Each file is replaced
 * atomically (temp file + rename) so a reader never sees a half-written PEM.
 */
export async function writeTlsMaterial(dir: string, m: TlsMaterial): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new Error(`cert dir "${dir}": must be a writable directory: ${errorMessage(err)}`);
  }
  const names = TLS_FILE_NAMES;
  if (m.ca === "") {
    // A stale CA from an earlier run would no longer match tls.crt.
    await rm(join(dir, names.ca), { force: true });
  } else {
    await writeFileAtomic(dir, names.ca, m.ca, 0o644);
  }
  // Key before certificate: a concurrent reader sees at worst a mismatched pair, which loading rejects.
  await writeFileAtomic(dir, names.key, m.key, 0o600);
  await writeFileAtomic(dir, names.cert, m.cert, 0o644);
}

async function writeFileAtomic(dir: string, name: string, data: string, mode: number): Promise<void> {
  const path = join(dir, name);
  const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fh = await open(tmp, "wx", mode);
    try {
      await fh.writeFile(data);
      await fh.chmod(mode); // the umask may have narrowed the creation mode
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new Error(`cert dir "${dir}": ${name} must be writable: ${errorMessage(err)}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Loading

/**
 * Loads `tls.crt`, `tls.key` and optional `ca.crt` from `dir` (or a mounted `webhook-certs` Secret's
 * `server-cert.pem`, `server-key.pem`, `ca-cert.pem`) and checks they are usable: the key matches the
 * certificate, both certificates are currently valid, and the CA (if any) signed the certificate.
 */
export async function loadTlsMaterial(dir: string, opts: LoadOptions = {}): Promise<TlsMaterial> {
  const fail = (what: string): never => {
    throw new Error(`cert dir "${dir}": ${what}`);
  };
  const names = await detectFileNames(dir, fail);

  const certPem = (await readCertFile(dir, names.cert, fail)) ?? fail(`${names.cert} must exist`);
  const keyPem = (await readCertFile(dir, names.key, fail)) ?? fail(`${names.key} must exist`);
  const caPem = (await readCertFile(dir, names.ca, fail)) ?? "";

  const chain = parseCertificates(certPem) ?? fail(`${names.cert} must be a PEM certificate${swappedHint(certPem)}`);
  const leaf = chain[0] ?? fail(`${names.cert} must be a PEM certificate`);
  const key = parsePrivateKey(keyPem) ?? fail(keyProblem(names.key, keyPem));
  if (!leaf.checkPrivateKey(key)) fail(`${names.key} must be the private key of the certificate in ${names.cert}`);

  const now = opts.now ?? new Date();
  const leafValidity = validityProblem(leaf, now);
  if (leafValidity) fail(`${names.cert} must be currently valid: ${leafValidity}`);

  if (caPem.trim() !== "") {
    const cas = parseCertificates(caPem) ?? fail(`${names.ca} must be a PEM certificate`);
    for (const ca of cas) {
      const caValidity = validityProblem(ca, now);
      if (caValidity) fail(`${names.ca} must be currently valid: ${caValidity}`);
    }
    const top = chain[chain.length - 1] ?? leaf;
    const anchored = cas.some((ca) => ca.fingerprint256 === top.fingerprint256 || (top.checkIssued(ca) && top.verify(ca.publicKey)));
    if (!anchored) fail(`${names.cert} must be signed by a certificate in ${names.ca}`);
  }

  return { cert: certPem, key: keyPem, ca: caPem, notAfter: certificateTimes(leaf).notAfter };
}

async function detectFileNames(dir: string, fail: (what: string) => never): Promise<FileNames> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    return fail(`must be a readable directory: ${errorMessage(err)}`);
  }
  const has = (name: string): boolean => entries.includes(name);
  if (has(TLS_FILE_NAMES.cert) || has(TLS_FILE_NAMES.key)) return TLS_FILE_NAMES;
  if (has(WEBHOOK_SECRET_KEYS.cert) || has(WEBHOOK_SECRET_KEYS.key)) return WEBHOOK_SECRET_KEYS;
  return fail(
    `must contain ${TLS_FILE_NAMES.cert} and ${TLS_FILE_NAMES.key} ` +
      `(or the webhook-certs Secret keys ${WEBHOOK_SECRET_KEYS.cert} and ${WEBHOOK_SECRET_KEYS.key})`,
  );
}

/** The file's text, or undefined when it does not exist. */
async function readCertFile(dir: string, name: string, fail: (what: string) => never): Promise<string | undefined> {
  try {
    return await readFile(join(dir, name), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return fail(`${name} must be readable: ${errorMessage(err)}`);
  }
}

const CERT_BLOCK_RE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate in a PEM bundle, or undefined when there is none or one does not parse. */
function parseCertificates(pem: string): X509Certificate[] | undefined {
  const blocks = pem.match(CERT_BLOCK_RE);
  if (!blocks) return undefined;
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return undefined;
  }
}

function parsePrivateKey(pem: string): KeyObject | undefined {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) return undefined;
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

function keyProblem(name: string, pem: string): string {
  if (pem.includes("-----BEGIN ENCRYPTED PRIVATE KEY-----") || /Proc-Type: 4,ENCRYPTED/.test(pem)) {
    return `${name} must be an unencrypted PEM private key`;
  }
  return `${name} must be a PEM private key${pem.includes("-----BEGIN CERTIFICATE-----") ? " (it holds a certificate)" : ""}`;
}

function swappedHint(pem: string): string {
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem) ? " (it holds a private key)" : "";
}

function validityProblem(cert: X509Certificate, now: Date): string | undefined {
  const { notBefore, notAfter } = certificateTimes(cert);
  if (now.getTime() < notBefore.getTime()) return `it is not valid before ${notBefore.toISOString()}`;
  if (now.getTime() > notAfter.getTime()) return `it expired at ${notAfter.toISOString()}`;
  return undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------------------------------------------------
// Description
//
// node:crypto's X509Certificate (Node 20) exposes neither the signature algorithm nor key usage bits nor
// parsed dates, so the few fields we need are read from the DER directly (RFC 5280 §4.1).

/** Describes the first certificate of a PEM bundle, for startup logs and tests. */
export function describeCertificate(pem: string): CertificateDescription {
  const first = parseCertificates(pem)?.[0];
  if (!first) throw new Error("certificate must be a PEM-encoded X.509 certificate");
  const der = first.raw;
  const fields = readTbsFields(der);
  const publicKey = first.publicKey;
  const namedCurve = publicKey.asymmetricKeyDetails?.namedCurve;
  return {
    subject: first.subject.split("\n").join(", "),
    issuer: first.issuer.split("\n").join(", "),
    serialNumber: first.serialNumber,
    dnsNames: fields.dnsNames,
    ips: fields.ips,
    notBefore: fields.notBefore,
    notAfter: fields.notAfter,
    signatureAlgorithm: fields.signatureAlgorithm,
    keyType: publicKey.asymmetricKeyType,
    curve: namedCurve === undefined ? undefined : (CURVE_NAMES[namedCurve] ?? namedCurve),
    isCA: fields.isCA,
    keyUsage: fields.keyUsage,
    extKeyUsage: fields.extKeyUsage,
    criticalExtensions: fields.criticalExtensions,
  };
}

function certificateTimes(cert: X509Certificate): { notBefore: Date; notAfter: Date } {
  return readTbsFields(cert.raw);
}

const CURVE_NAMES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

const SIGNATURE_ALGORITHMS: Record<string, string> = {
  "1.2.840.10045.4.1": "ecdsa-with-SHA1",
  "1.2.840.10045.4.3.2": "ecdsa-with-SHA256",
  "1.2.840.10045.4.3.3": "ecdsa-with-SHA384",
  "1.2.840.10045.4.3.4": "ecdsa-with-SHA512",
  "1.2.840.113549.1.1.5": "sha1WithRSAEncryption",
  "1.2.840.113549.1.1.10": "rsassaPss",
  "1.2.840.113549.1.1.11": "sha256WithRSAEncryption",
  "1.2.840.113549.1.1.12": "sha384WithRSAEncryption",
  "1.2.840.113549.1.1.13": "sha512WithRSAEncryption",
  "1.3.101.112": "ED25519",
};

const EXTENSION_NAMES: Record<string, string> = {
  "2.5.29.14": "subjectKeyIdentifier",
  "2.5.29.15": "keyUsage",
  "2.5.29.17": "subjectAltName",
  "2.5.29.19": "basicConstraints",
  "2.5.29.35": "authorityKeyIdentifier",
  "2.5.29.37": "extKeyUsage",
};

const EXT_KEY_USAGES: Record<string, string> = {
  "1.3.6.1.5.5.7.3.1": "serverAuth",
  "1.3.6.1.5.5.7.3.2": "clientAuth",
  "1.3.6.1.5.5.7.3.3": "codeSigning",
  "1.3.6.1.5.5.7.3.4": "emailProtection",
  "1.3.6.1.5.5.7.3.8": "timeStamping",
  "1.3.6.1.5.5.7.3.9": "OCSPSigning",
};

// RFC 5280 §4.2.1.3, bit 0 first.
const KEY_USAGE_BITS = [
  "digitalSignature",
  "contentCommitment",
  "keyEncipherment",
  "dataEncipherment",
  "keyAgreement",
  "keyCertSign",
  "cRLSign",
  "encipherOnly",
  "decipherOnly",
];

interface TbsFields {
  signatureAlgorithm: string;
  notBefore: Date;
  notAfter: Date;
  dnsNames: string[];
  ips: string[];
  isCA: boolean;
  keyUsage: string[];
  extKeyUsage: string[];
  criticalExtensions: string[];
}

interface Tlv {
  tag: number;
  /** First content byte. */
  start: number;
  /** One past the last content byte. */
  end: number;
}

const TAG = {
  BOOLEAN: 0x01,
  UTC_TIME: 0x17,
  VERSION: 0xa0,
  EXTENSIONS: 0xa3,
  SAN_DNS: 0x82,
  SAN_IP: 0x87,
} as const;

function readTlv(der: Buffer, pos: number, limit: number): Tlv {
  const tag = der.readUInt8(pos);
  let len = der.readUInt8(pos + 1);
  let start = pos + 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    if (count === 0 || count > 4) throw new Error("certificate must be DER-encoded (unsupported length)");
    len = 0;
    for (let i = 0; i < count; i++) len = len * 256 + der.readUInt8(start++);
  }
  const end = start + len;
  if (end > limit) throw new Error("certificate must be DER-encoded (truncated element)");
  return { tag, start, end };
}

function childrenOf(der: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = parent.start; pos < parent.end; ) {
    const child = readTlv(der, pos, parent.end);
    out.push(child);
    pos = child.end;
  }
  return out;
}

function child(list: Tlv[], index: number): Tlv {
  const tlv = list[index];
  if (!tlv) throw new Error("certificate must be DER-encoded (missing element)");
  return tlv;
}

function readOid(der: Buffer, tlv: Tlv): string {
  const first = der.readUInt8(tlv.start);
  const parts = [Math.floor(first / 40), first % 40];
  let value = 0;
  for (let pos = tlv.start + 1; pos < tlv.end; pos++) {
    const byte = der.readUInt8(pos);
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}

function readTime(der: Buffer, tlv: Tlv): Date {
  const text = der.toString("latin1", tlv.start, tlv.end);
  // UTCTime YYMMDDHHMMSSZ (RFC 5280 §4.1.2.5.1: YY >= 50 means 19YY) or GeneralizedTime YYYYMMDDHHMMSSZ.
  const m = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) throw new Error(`certificate must use RFC 5280 times, got "${text}"`);
  let year = Number(m[1]);
  if (tlv.tag === TAG.UTC_TIME) year += year >= 50 ? 1900 : 2000;
  return new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
}

function formatIp(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join(".");
  if (bytes.length !== 16) return bytes.toString("hex");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i));
  // RFC 5952: compress the longest run (>= 2) of zero groups, the first one on ties.
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

function readTbsFields(der: Buffer): TbsFields {
  const certificate = readTlv(der, 0, der.length);
  const [tbs, signatureAlgorithm] = childrenOf(der, certificate);
  if (!tbs || !signatureAlgorithm) throw new Error("certificate must be DER-encoded (missing element)");
  const tbsParts = childrenOf(der, tbs);
  // version [0] is optional (absent for v1); serial, signature, issuer, validity follow.
  const offset = child(tbsParts, 0).tag === TAG.VERSION ? 1 : 0;
  const validity = childrenOf(der, child(tbsParts, offset + 3));

  const fields: TbsFields = {
    signatureAlgorithm: "",
    notBefore: readTime(der, child(validity, 0)),
    notAfter: readTime(der, child(validity, 1)),
    dnsNames: [],
    ips: [],
    isCA: false,
    keyUsage: [],
    extKeyUsage: [],
    criticalExtensions: [],
  };
  const sigOid = readOid(der, child(childrenOf(der, signatureAlgorithm), 0));
  fields.signatureAlgorithm = SIGNATURE_ALGORITHMS[sigOid] ?? sigOid;

  const extensionsWrapper = tbsParts.find((t) => t.tag === TAG.EXTENSIONS);
  if (!extensionsWrapper) return fields;
  for (const ext of childrenOf(der, child(childrenOf(der, extensionsWrapper), 0))) {
    const parts = childrenOf(der, ext);
    const oid = readOid(der, child(parts, 0));
    const critical = parts.length === 3 && der.readUInt8(child(parts, 1).start) !== 0;
    const value = child(parts, parts.length - 1);
    if (critical) fields.criticalExtensions.push(EXTENSION_NAMES[oid] ?? oid);
    const inner = readTlv(der, value.start, value.end);
    switch (oid) {
      case "2.5.29.19": {
        const first = childrenOf(der, inner)[0];
        fields.isCA = first !== undefined && first.tag === TAG.BOOLEAN && der.readUInt8(first.start) !== 0;
        break;
      }
      case "2.5.29.15": {
        const bits = der.subarray(inner.start + 1, inner.end); // skip the unused-bits count
        KEY_USAGE_BITS.forEach((name, i) => {
          const byte = bits[i >> 3];
          if (byte !== undefined && byte & (0x80 >> (i & 7))) fields.keyUsage.push(name);
        });
        break;
      }
      case "2.5.29.37":
        for (const usage of childrenOf(der, inner)) {
          const usageOid = readOid(der, usage);
          fields.extKeyUsage.push(EXT_KEY_USAGES[usageOid] ?? usageOid);
        }
        break;
      case "2.5.29.17":
        for (const name of childrenOf(der, inner)) {
          if (name.tag === TAG.SAN_DNS) fields.dnsNames.push(der.toString("latin1", name.start, name.end));
          else if (name.tag === TAG.SAN_IP) fields.ips.push(formatIp(der.subarray(name.start, name.end)));
        }
        break;
    }
  }
  return fields;
}
