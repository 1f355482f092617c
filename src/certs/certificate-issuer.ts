/**
 * Issues Knative-shaped certificates (knative.dev/pkg webhook/certificates/resources/certs.go: CreateCerts; what
 * they hold: certificate-signing.ts) on a short-lived worker thread. The X.509 library that builds them
 * (@peculiar/x509 with asn1js, tsyringe and their dependencies) stays in the isolate that loads it for the life of
 * the process: ≈ 3 MB of live heap in a serving process at rest (docs/adr/0013-image-and-node-versions.md). A
 * serving process issues at start and every few days at most, so the library is loaded on a thread that starts when
 * a certificate is to be issued and ends shortly after, bound in time and heap. Requests and answers are PEM strings
 * and dates.
 *
 * The thread runs the built certificate-worker.js beside this module (dist/certs/ or, bundled, dist/bundle/:
 * scripts/bundle.mjs gives it its own entry), as src/config/sources/file-parser.ts does its parser. Where that
 * script is not (sources run by vitest), certificates are issued in line; the bundle has no in-line path
 * (scripts/bundle.mjs). The thread itself (start, bounds, idle end) is src/config/sources/request-thread.ts's.
 *
 * What needs no X.509 library stays on the caller's thread: Knative's names, which keys can sign, and the checks of
 * generateTlsMaterial's options.
 */
import { isIP } from "node:net";
import { builtScriptExists, RequestThread, RequestThreadFailure, type RequestThreadBounds, type RequestThreadOptions, type ThreadFailure } from "../config/sources/request-thread.js";
import type { SignRequest } from "./certificate-signing.js";
import type { GeneratedTlsMaterial, GenerateOptions, IssueOptions, KeyAndCertificate } from "./tls-material.js";

export { canSignWith } from "./signing-key.js";
export type { IssueOptions, KeyAndCertificate } from "./tls-material.js";

/** Knative's CN: `<svc>.<ns>.svc`. */
export function knativeCommonName(serviceName: string, namespace: string): string {
  return `${serviceName}.${namespace}.svc`;
}

/** Knative's DNS SANs, in its order: `<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc`, `<svc>.<ns>.svc.<cluster-domain>`. */
export function knativeDnsNames(serviceName: string, namespace: string, clusterDomain: string): string[] {
  const fqdn = `${serviceName}.${namespace}`;
  return [serviceName, fqdn, `${fqdn}.svc`, `${fqdn}.svc.${clusterDomain}`];
}

export interface CertificateIssuer {
  /** A self-signed CA: IsCA, CertSign|DigitalSignature, ServerAuth+ClientAuth, the service's names (Knative's template). */
  createCa(o: IssueOptions): Promise<KeyAndCertificate>;
  /** A serving certificate signed by `ca`: DigitalSignature, ServerAuth, a fresh P-256 key. */
  issueServingCertificate(ca: KeyAndCertificate, o: IssueOptions): Promise<KeyAndCertificate>;
  /** Ends the thread now; what it has not answered fails. */
  close(): Promise<void>;
}

/** A request to the thread (certificate-worker.ts). */
export type IssueRequest = SignRequest & { readonly id: number };
/** Its answer: the certificate and key, or what failed (the message the in-line issuer would have thrown). */
export type IssueResult = { readonly id: number; readonly cert: string; readonly key: string } | { readonly id: number; readonly error: string };

/** What crosses to the thread: the PEM strings, names and dates, nothing else of the caller's objects. */
function signRequest(ca: KeyAndCertificate | undefined, o: IssueOptions): SignRequest {
  const options: IssueOptions = { commonName: o.commonName, dnsNames: [...o.dnsNames], ips: [...(o.ips ?? [])], notBefore: o.notBefore, notAfter: o.notAfter };
  return ca === undefined ? { kind: "ca", options } : { kind: "serving", ca: { cert: ca.cert, key: ca.key }, options };
}

let signing: Promise<typeof import("./certificate-signing.js")> | undefined;

async function signInLine(r: SignRequest): Promise<KeyAndCertificate> {
  signing ??= import("./certificate-signing.js");
  return (await signing).sign(r);
}

/** Issues in line (on the caller's thread), loading the X.509 library into it on first use. */
export const inlineIssuer: CertificateIssuer = {
  createCa: (o) => signInLine(signRequest(undefined, o)),
  issueServingCertificate: (ca, o) => signInLine(signRequest(ca, o)),
  close: () => Promise.resolve(),
};

/** The issuing thread's bounds and script. */
export type IssuerThreadOptions = RequestThreadOptions;

// Loading the library takes a few hundred ms on a busy machine and a certificate a few ms: 30 s is for a stuck
// thread. One thread issues the two certificates generateTlsMaterial and a rotation step ask for one after the other.
// Loading and issuing take between 4 and 8 MB of old generation (Node 20).
const BOUNDS: RequestThreadBounds = { timeoutMs: 30_000, idleMs: 1_000, maxHeapMb: 64 };

/** The message issuance fails with when the thread gave no answer. */
function notIssued(f: ThreadFailure<SignRequest>): string {
  switch (f.kind) {
    case "timeout":
      return `certificates were not issued within ${f.ms} ms`;
    case "memory":
      return `certificate issuance needed more than ${f.mb} MB on its thread`;
    case "error":
      return `certificate issuance failed on its thread: ${f.message}`;
    case "exited":
      return "the certificate issuing thread exited";
    case "closed":
      return "the certificate issuer closed";
  }
}

class ThreadIssuer implements CertificateIssuer {
  private readonly thread: RequestThread<SignRequest, IssueResult>;

  constructor(script: URL, opts: IssuerThreadOptions) {
    this.thread = new RequestThread(script, opts, BOUNDS);
  }

  createCa(o: IssueOptions): Promise<KeyAndCertificate> {
    return this.issue(signRequest(undefined, o));
  }

  issueServingCertificate(ca: KeyAndCertificate, o: IssueOptions): Promise<KeyAndCertificate> {
    return this.issue(signRequest(ca, o));
  }

  async close(): Promise<void> {
    this.thread.close();
  }

  private async issue(request: SignRequest): Promise<KeyAndCertificate> {
    let r: IssueResult;
    try {
      r = await this.thread.request(request);
    } catch (err) {
      throw err instanceof RequestThreadFailure ? new Error(notIssued((err as RequestThreadFailure<SignRequest>).failure)) : err;
    }
    if ("error" in r) throw new Error(r.error);
    return { cert: r.cert, key: r.key };
  }
}

const BUILT_WORKER = new URL("./certificate-worker.js", import.meta.url);

/** Issues on a worker thread when the built worker script is there, else in line. */
export function certificateIssuer(opts: IssuerThreadOptions = {}): CertificateIssuer {
  const script = opts.script ?? BUILT_WORKER;
  return builtScriptExists(script) ? new ThreadIssuer(script, opts) : inlineIssuer;
}

let processIssuer: CertificateIssuer | undefined;

/** The process's issuer, made on first use: its thread starts only when a certificate is issued. */
function defaultIssuer(): CertificateIssuer {
  processIssuer ??= certificateIssuer();
  return processIssuer;
}

/** A self-signed CA: IsCA, CertSign|DigitalSignature, ServerAuth+ClientAuth, the service's names (Knative's template). */
export function createCa(o: IssueOptions): Promise<KeyAndCertificate> {
  return defaultIssuer().createCa(o);
}

/** A serving certificate signed by `ca`: DigitalSignature, ServerAuth, a fresh P-256 key. */
export function issueServingCertificate(ca: KeyAndCertificate, o: IssueOptions): Promise<KeyAndCertificate> {
  return defaultIssuer().issueServingCertificate(ca, o);
}

// ---------------------------------------------------------------------------------------------------------
// Knative-shaped material for a standalone webhook

const DAY_MS = 86_400_000;

/**
 * Generates a fresh ECDSA P-256 CA and a serving certificate it signs, both SHA-256, shaped like Knative's
 * (resources/certs.go) plus `localhost`/`127.0.0.1` so a standalone webhook is reachable locally.
 */
export async function generateTlsMaterial(opts: GenerateOptions = {}, issuer: CertificateIssuer = defaultIssuer()): Promise<GeneratedTlsMaterial> {
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

  const dnsNames = uniq(["localhost", ...knativeDnsNames(serviceName, namespace, clusterDomain), ...(opts.extraDnsNames ?? [])]);
  const ips = uniq(["127.0.0.1", ...(opts.extraIps ?? [])]);
  // Knative's shape: the CA has the serving certificate's subject and names; key identifiers tell them apart.
  const names = { commonName: knativeCommonName(serviceName, namespace), dnsNames, ips };
  const ca = await issuer.createCa({ ...names, notBefore, notAfter: caNotAfter });
  const server = await issuer.issueServingCertificate(ca, { ...names, notBefore, notAfter: certNotAfter });
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

