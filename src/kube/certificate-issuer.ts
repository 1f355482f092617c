/**
 * Issues Knative-shaped certificates (spec §1.9) with @peculiar/x509 over WebCrypto: ECDSA P-256 keys, SHA-256
 * signatures, random 128-bit serials, subject `O=knative.dev, CN=<svc>.<ns>.svc` for the CA and the serving
 * certificate alike, told apart by Subject/Authority Key Identifiers as Go's crypto/x509 does. The serving
 * certificate carries its own Subject Key Identifier too: without one, OpenSSL (Node, curl) sees a certificate whose
 * subject equals its issuer and whose AKI cannot be disproved, and takes it for self-signed.
 */
import { createPrivateKey, webcrypto } from "node:crypto";

export interface KeyAndCertificate {
  /** PEM certificate. */
  readonly cert: string;
  /** PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`). */
  readonly key: string;
}

export interface IssueOptions {
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly ips?: readonly string[];
  /** Whole seconds are kept (X.509 times have no finer precision). */
  readonly notBefore: Date;
  readonly notAfter: Date;
}

const ORGANIZATION = "knative.dev";
const EC_KEY: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };
const NODE_CURVES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

/** Knative's CN: `<svc>.<ns>.svc`. */
export function knativeCommonName(serviceName: string, namespace: string): string {
  return `${serviceName}.${namespace}.svc`;
}

/** Knative's DNS SANs, in its order: `<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc`, `<svc>.<ns>.svc.<cluster-domain>`. */
export function knativeDnsNames(serviceName: string, namespace: string, clusterDomain: string): string[] {
  const fqdn = `${serviceName}.${namespace}`;
  return [serviceName, fqdn, `${fqdn}.svc`, `${fqdn}.svc.${clusterDomain}`];
}

type X509Module = typeof import("@peculiar/x509");
let x509Module: Promise<X509Module> | undefined;

/** Loaded on first use: the X.509 stack costs a few hundred ms to import and most processes never issue. */
function x509(): Promise<X509Module> {
  x509Module ??= import("./x509-lib.js").then((m) => m.x509);
  return x509Module;
}

function wholeSeconds(d: Date): Date {
  return new Date(Math.floor(d.getTime() / 1000) * 1000);
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString("base64");
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, "$&\n")}-----END ${label}-----\n`;
}

/** `O=knative.dev, CN=<cn>`, in that order (Go's pkix.Name puts O before CN). */
function subjectName(commonName: string): Record<string, string[]>[] {
  return [{ O: [ORGANIZATION] }, { CN: [commonName] }];
}

function subjectAltNames(o: IssueOptions): { type: "dns" | "ip"; value: string }[] {
  return [...o.dnsNames.map((value) => ({ type: "dns" as const, value })), ...(o.ips ?? []).map((value) => ({ type: "ip" as const, value }))];
}

/** A self-signed CA: IsCA, CertSign|DigitalSignature, ServerAuth+ClientAuth, the service's names (Knative's template). */
export async function createCa(o: IssueOptions): Promise<KeyAndCertificate> {
  const x = await x509();
  const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const name = subjectName(o.commonName);
  const cert = await x.X509CertificateGenerator.create(
    {
      subject: name,
      issuer: name,
      notBefore: wholeSeconds(o.notBefore),
      notAfter: wholeSeconds(o.notAfter),
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new x.BasicConstraintsExtension(true, undefined, true),
        new x.KeyUsagesExtension(x.KeyUsageFlags.keyCertSign | x.KeyUsageFlags.digitalSignature, true),
        new x.ExtendedKeyUsageExtension([x.ExtendedKeyUsage.serverAuth, x.ExtendedKeyUsage.clientAuth]),
        await x.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
        new x.SubjectAlternativeNameExtension(subjectAltNames(o)),
      ],
    },
    webcrypto,
  );
  return { cert: cert.toString("pem") + "\n", key: pem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)) };
}

/** A serving certificate signed by `ca`: DigitalSignature, ServerAuth, a fresh P-256 key. */
export async function issueServingCertificate(ca: KeyAndCertificate, o: IssueOptions): Promise<KeyAndCertificate> {
  const x = await x509();
  const caCert = new x.X509Certificate(ca.cert);
  const signingKey = await importSigningKey(ca.key);
  const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const caKeyId = caCert.getExtension(x.SubjectKeyIdentifierExtension)?.keyId;
  const cert = await x.X509CertificateGenerator.create(
    {
      subject: subjectName(o.commonName),
      issuer: caCert.subjectName,
      notBefore: wholeSeconds(o.notBefore),
      notAfter: wholeSeconds(o.notAfter),
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new x.BasicConstraintsExtension(false, undefined, true),
        new x.KeyUsagesExtension(x.KeyUsageFlags.digitalSignature, true),
        new x.ExtendedKeyUsageExtension([x.ExtendedKeyUsage.serverAuth]),
        await x.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
        caKeyId === undefined
          ? await x.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, webcrypto)
          : new x.AuthorityKeyIdentifierExtension(caKeyId),
        new x.SubjectAlternativeNameExtension(subjectAltNames(o)),
      ],
    },
    webcrypto,
  );
  return { cert: cert.toString("pem") + "\n", key: pem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)) };
}

/** The CA key as a WebCrypto signing key; only EC keys on the NIST curves can sign here. */
async function importSigningKey(keyPem: string): Promise<webcrypto.CryptoKey> {
  const node = createPrivateKey(keyPem);
  const curve = NODE_CURVES[node.asymmetricKeyDetails?.namedCurve ?? ""];
  if (node.asymmetricKeyType !== "ec" || curve === undefined) {
    throw new Error(`the CA key must be an ECDSA key on P-256, P-384 or P-521, got ${node.asymmetricKeyType ?? "an unknown key type"}`);
  }
  const der = node.export({ format: "der", type: "pkcs8" });
  return webcrypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve: curve }, false, ["sign"]);
}

/** Whether `keyPem` can sign with importSigningKey (for deciding whether a CA is usable before trying). */
export function canSignWith(keyPem: string): boolean {
  try {
    const node = createPrivateKey(keyPem);
    return node.asymmetricKeyType === "ec" && NODE_CURVES[node.asymmetricKeyDetails?.namedCurve ?? ""] !== undefined;
  } catch {
    return false;
  }
}
