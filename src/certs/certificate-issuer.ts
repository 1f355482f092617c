/**
 * Issues Knative-shaped certificates (knative.dev/pkg webhook/certificates/resources/certs.go: CreateCerts) with
 * @peculiar/x509 over WebCrypto: ECDSA P-256 keys, SHA-256
 * signatures, random 128-bit serials, subject `O=knative.dev, CN=<svc>.<ns>.svc` for the CA and the serving
 * certificate alike, told apart by Subject/Authority Key Identifiers as Go's crypto/x509 does. The serving
 * certificate carries its own Subject Key Identifier too: without one, OpenSSL (Node, curl) sees a certificate whose
 * subject equals its issuer and whose AKI cannot be disproved, and takes it for self-signed.
 */
import { createPrivateKey, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import type { GeneratedTlsMaterial, GenerateOptions } from "./tls-material.js";

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

// ---------------------------------------------------------------------------------------------------------
// Knative-shaped material for a standalone webhook

const DAY_MS = 86_400_000;

/**
 * Generates a fresh ECDSA P-256 CA and a serving certificate it signs, both SHA-256, shaped like Knative's
 * (resources/certs.go) plus `localhost`/`127.0.0.1` so a standalone webhook is reachable locally.
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

