// Reading certificates and keys: PEM bundles into node:crypto objects, and the fields of a certificate that
// node:crypto does not expose (signature algorithm, key usage, validity as dates), read from its DER.
import { X509Certificate, createPrivateKey } from "node:crypto";
import type { KeyObject } from "node:crypto";

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

const CERT_BLOCK_RE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate in a PEM bundle, or undefined when there is none or one does not parse. */
export function parseCertificates(pem: string): X509Certificate[] | undefined {
  const blocks = pem.match(CERT_BLOCK_RE);
  if (!blocks) return undefined;
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return undefined;
  }
}

export function parsePrivateKey(pem: string): KeyObject | undefined {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) return undefined;
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
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

export function certificateTimes(cert: X509Certificate): { notBefore: Date; notAfter: Date } {
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

