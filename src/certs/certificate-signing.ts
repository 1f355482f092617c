/**
 * The X.509 half of certificate-issuer.ts: Knative-shaped certificates (knative.dev/pkg
 * webhook/certificates/resources/certs.go: CreateCerts) built with @peculiar/x509 over WebCrypto: ECDSA P-256 keys,
 * SHA-256 signatures, random 128-bit serials, subject `O=knative.dev, CN=<svc>.<ns>.svc` for the CA and the serving
 * certificate alike, told apart by Subject/Authority Key Identifiers as Go's crypto/x509 does. The serving
 * certificate carries its own Subject Key Identifier too: without one, OpenSSL (Node, curl) sees a certificate whose
 * subject equals its issuer and whose AKI cannot be disproved, and takes it for self-signed.
 *
 * Loaded only where certificates are signed: on the issuer's worker thread (certificate-worker.ts) or, where that
 * script is not built (sources run by vitest), by certificate-issuer.ts on demand. The library is imported
 * statically here: a dynamic `import("@peculiar/x509")` of the package itself lost its named exports in the esbuild
 * bundle (CommonJS interop; scripts/bundle.mjs).
 */
import { createPrivateKey, webcrypto } from "node:crypto";
import * as x from "@peculiar/x509";
import { webCryptoCurve } from "./signing-key.js";
import type { IssueOptions, KeyAndCertificate } from "./tls-material.js";

/** One certificate to issue: a self-signed CA, or a serving certificate signed by `ca`. PEM strings and dates only. */
export type SignRequest = { readonly kind: "ca"; readonly options: IssueOptions } | { readonly kind: "serving"; readonly ca: KeyAndCertificate; readonly options: IssueOptions };

const ORGANIZATION = "knative.dev";
const EC_KEY: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };

export function sign(r: SignRequest): Promise<KeyAndCertificate> {
  return r.kind === "ca" ? createCa(r.options) : issueServingCertificate(r.ca, r.options);
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
async function createCa(o: IssueOptions): Promise<KeyAndCertificate> {
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
async function issueServingCertificate(ca: KeyAndCertificate, o: IssueOptions): Promise<KeyAndCertificate> {
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

/** The CA key as a WebCrypto signing key; only EC keys on the NIST curves can sign here (signing-key.ts). */
async function importSigningKey(keyPem: string): Promise<webcrypto.CryptoKey> {
  const node = createPrivateKey(keyPem);
  const curve = webCryptoCurve(node);
  if (curve === undefined) {
    throw new Error(`the CA key must be an ECDSA key on P-256, P-384 or P-521, got ${node.asymmetricKeyType ?? "an unknown key type"}`);
  }
  const der = node.export({ format: "der", type: "pkcs8" });
  return webcrypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve: curve }, false, ["sign"]);
}
