/**
 * The certificate rotation policy: from what the Secret holds now, the next version of it (docs/adr/0006).
 *
 * - Empty or unusable, with no CA that can sign: a fresh CA and serving certificate ("filled").
 * - Serving certificate near its end (less than certRenewBefore left), unusable, or missing a name: a new one from
 *   the CA that signed the current one, so trust is untouched ("renewed").
 * - CA near its end (less than caRotateBefore left) or without its key in the Secret: rotation in three phases,
 *   each timed from the new CA's NotBefore, so no state is kept outside the certificates themselves:
 *   1. "published-ca": the new CA joins the bundle next to the old one; the old one still signs.
 *   2. "switched-ca", one overlap later: the new CA signs a new serving certificate.
 *   3. "dropped-ca", one more overlap later: the old CA leaves the bundle.
 *   A client that re-reads the bundle at least once per overlap never sees a certificate it does not trust.
 */
import { canSignWith, createCa, issueServingCertificate } from "./certificate-issuer.js";
import { caEntry, certSecretData, servingProblem, type CaEntry, type CertSecretContent, type ServingEntry } from "./cert-secret.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface RotationPolicy {
  /** Validity of a new CA (default 1 year). */
  readonly caValidityMs: number;
  /** Start a CA rotation when the signing CA has less than this left (default 30 days). */
  readonly caRotateBeforeMs: number;
  /** How long a new CA is trusted before it signs, and the old one trusted after that (default 24 h). */
  readonly caOverlapMs: number;
  /** Validity of a serving certificate (default 7 days, Knative's). */
  readonly certValidityMs: number;
  /** Renew the serving certificate when it has less than this left (default 24 h, Knative's). */
  readonly certRenewBeforeMs: number;
}

export const DEFAULT_ROTATION_POLICY: RotationPolicy = {
  caValidityMs: 365 * DAY_MS,
  caRotateBeforeMs: 30 * DAY_MS,
  caOverlapMs: DAY_MS,
  certValidityMs: 7 * DAY_MS,
  certRenewBeforeMs: DAY_MS,
};

/** The names the certificates are for (knative.dev/pkg webhook/certificates/resources/certs.go: CreateCerts). */
export interface CertificateNames {
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  /** IP SANs (`--webhook-url https://<ip>:<port>`); Knative's own certificates have none. */
  readonly ips?: readonly string[];
}

export type CertAction = "filled" | "renewed" | "published-ca" | "switched-ca" | "dropped-ca";

export interface RotationStep {
  readonly action: CertAction;
  readonly detail: string;
  /** Clients that have not yet picked up the new bundle may fail (only when the old CA could not sign any more). */
  readonly trustAtRisk?: boolean;
}

export interface RotationResult {
  /** The four data values to write, or undefined when the Secret is fine as it is. */
  readonly data: Record<string, string> | undefined;
  readonly steps: readonly RotationStep[];
  /** When the policy next has something to do (ms since the epoch). */
  readonly nextAt: number;
}

/** X.509 times are whole seconds, floored: a CA was published at most this long after its NotBefore (plus the write). */
const PUBLISHED_BY_MS = 1000;

/** What makes a policy unworkable: each rule keeps a phase from starting before the previous one is safe. */
export function rotationPolicyProblems(p: RotationPolicy): string[] {
  const out: string[] = [];
  for (const [name, v] of Object.entries(p)) if (!(Number.isFinite(v) && v > 0)) out.push(`${name} must be a positive duration`);
  if (out.length > 0) return out;
  if (p.certRenewBeforeMs >= p.certValidityMs) out.push("the serving certificate's renewal margin must be shorter than its validity");
  // The old CA must stay valid, with room for one renewal, until it leaves the bundle two overlaps after rotation
  // began (plus the second a floored NotBefore may hide).
  if (p.caRotateBeforeMs < 2 * p.caOverlapMs + p.certRenewBeforeMs + PUBLISHED_BY_MS) {
    out.push("the CA rotation margin must be at least two overlaps plus the serving certificate's renewal margin plus one second");
  }
  // A new CA must not be due for rotation before its predecessor has left the bundle.
  if (p.caValidityMs - p.caRotateBeforeMs < 2 * p.caOverlapMs + PUBLISHED_BY_MS) out.push("the CA validity must exceed its rotation margin by at least two overlaps plus one second");
  return out;
}


function publishedAt(ca: CaEntry): number {
  return ca.notBefore + PUBLISHED_BY_MS;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function humanDuration(ms: number): string {
  if (ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms % HOUR_MS === 0) return `${ms / HOUR_MS}h`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function newest(cas: readonly CaEntry[]): CaEntry | undefined {
  let best: CaEntry | undefined;
  for (const ca of cas) if (best === undefined || ca.notBefore >= best.notBefore) best = ca;
  return best;
}

function namesMissing(serving: ServingEntry, names: CertificateNames): string[] {
  return [...names.dnsNames.filter((n) => !serving.dnsNames.includes(n)), ...(names.ips ?? []).filter((ip) => !serving.ips.includes(ip))];
}

/**
 * One reconciliation at `now`: the next Secret data (if anything must change) and when to look again.
 * Generates keys and certificates as needed; otherwise pure.
 */
export async function planRotation(content: CertSecretContent, now: number, policy: RotationPolicy, names: CertificateNames): Promise<RotationResult> {
  const hasKey = (ca: CaEntry): boolean => ca.isCA && ca.key !== undefined && canSignWith(ca.key);
  const canSign = (ca: CaEntry): boolean => hasKey(ca) && now >= ca.notBefore && ca.notAfter - now > policy.certRenewBeforeMs;
  const newCa = async (): Promise<CaEntry> => {
    const ca = await createCa({ ...names, notBefore: new Date(now), notAfter: new Date(now + policy.caValidityMs) });
    return caEntry(ca.cert, ca.key);
  };
  const steps: RotationStep[] = [];
  let cas = [...content.cas];
  const serving = content.serving;
  const problem = servingProblem(content, now);
  const missing = serving === undefined ? [] : namesMissing(serving, names);
  const servingOk = problem === undefined && missing.length === 0;

  // The CA that signed the serving certificate stays in charge, even when that certificate is unusable.
  let active = serving?.issuer;
  // Its successor, if a rotation is under way: a newer CA of the bundle that can sign.
  let pending = active === undefined ? undefined : newest(cas.filter((ca) => ca !== active && canSign(ca) && ca.notBefore >= (active as CaEntry).notBefore));

  // Phase 1: a successor joins the bundle while the current CA still signs.
  if (servingOk && active !== undefined && pending === undefined && (!hasKey(active) || active.notAfter - now <= policy.caRotateBeforeMs)) {
    pending = await newCa();
    cas.push(pending);
    const why = hasKey(active) ? `the CA expires at ${iso(active.notAfter)}` : "the Secret holds no usable key for the CA";
    steps.push({ action: "published-ca", detail: `${why}; the new CA signs from ${iso(publishedAt(pending) + policy.caOverlapMs)}` });
  }

  // The serving certificate: renewed near its end, replaced when unusable, re-signed once the successor is trusted.
  let issued: { cert: string; key: string; notAfter: number } | undefined;
  const switchDue = pending !== undefined && now >= publishedAt(pending) + policy.caOverlapMs;
  // A CA that cannot sign (e.g. Knative made it and kept no key) keeps its certificate in use as long as is safe,
  // so that its successor gets as much of the overlap as possible.
  const renewMargin = pending !== undefined && !(active !== undefined && canSign(active)) ? policy.certRenewBeforeMs / 2 : policy.certRenewBeforeMs;
  const renewDue = !servingOk || serving === undefined || serving.notAfter - now <= renewMargin;
  if (switchDue || renewDue) {
    const why =
      problem !== undefined
        ? `the Secret cannot be served: ${problem}`
        : missing.length > 0
          ? `the serving certificate does not name ${missing.join(", ")}`
          : `the serving certificate expires at ${iso(serving?.notAfter ?? now)}`;
    let signer: CaEntry;
    if (switchDue && pending !== undefined) {
      signer = pending;
      steps.push({ action: "switched-ca", detail: `the new CA has been in the bundle for ${humanDuration(policy.caOverlapMs)}` });
    } else if (active !== undefined && canSign(active)) {
      signer = active;
      steps.push({ action: "renewed", detail: why });
    } else if (pending !== undefined) {
      // Only when the old CA can no longer sign: better a cert some clients may not trust yet than an expired one.
      signer = pending;
      steps.push({ action: "switched-ca", detail: `${why}, and the current CA cannot sign it: switching before the overlap ends`, trustAtRisk: true });
    } else {
      const other = newest(cas.filter(canSign));
      if (other !== undefined) {
        signer = other;
        steps.push({ action: "renewed", detail: why });
      } else {
        signer = await newCa();
        cas = [signer];
        steps.push({ action: "filled", detail: why });
      }
    }
    const notAfter = Math.min(now + policy.certValidityMs, signer.notAfter);
    if (signer.key === undefined) throw new Error("internal error: the chosen CA has no key");
    const pair = await issueServingCertificate({ cert: signer.cert, key: signer.key }, { ...names, notBefore: new Date(now), notAfter: new Date(notAfter) });
    issued = { ...pair, notAfter: Math.floor(notAfter / 1000) * 1000 };
    if (signer === pending) pending = undefined;
    active = signer;
  }

  // Phase 3: two overlaps after the signing CA was published, it is the only one left (with a successor, if any).
  const current = active as CaEntry; // defined: either the serving certificate had an issuer or one was just chosen
  const dropAt = publishedAt(current) + 2 * policy.caOverlapMs;
  const kept = cas.filter((ca) => ca === current || ca === pending || (now < dropAt && now < ca.notAfter));
  if (kept.length < cas.length) {
    const n = cas.length - kept.length;
    steps.push({ action: "dropped-ca", detail: `${n} CA${n === 1 ? "" : "s"} no longer needed: the CA in use joined the bundle by ${iso(publishedAt(current))}` });
  }
  // Only the signing CA and its successor keep their keys.
  const final = kept
    .map((ca) => (ca === current || ca === pending || ca.key === undefined ? ca : { ...ca, key: undefined }))
    .sort((a, b) => a.notBefore - b.notBefore);

  const servingNow = issued ?? (serving as ServingEntry);
  const data = certSecretData(final, servingNow);
  const unchanged = issued === undefined && sameData(data, content);
  const renewAt = issued === undefined ? servingNow.notAfter - renewMargin : issued.notAfter - policy.certRenewBeforeMs;
  return { data: unchanged ? undefined : data, steps, nextAt: nextCheck(now, policy, renewAt, current, pending, final) };
}

function sameData(data: Record<string, string>, content: CertSecretContent): boolean {
  const before = certSecretData(content.cas, content.serving ?? { cert: "", key: "" });
  return Object.entries(data).every(([k, v]) => before[k] === v) && content.problem === undefined;
}

function nextCheck(now: number, policy: RotationPolicy, renewAt: number, current: CaEntry, pending: CaEntry | undefined, bundle: readonly CaEntry[]): number {
  const times = [renewAt];
  if (pending !== undefined) times.push(publishedAt(pending) + policy.caOverlapMs);
  else times.push(current.notAfter - policy.caRotateBeforeMs);
  if (bundle.some((ca) => ca !== current && ca !== pending)) {
    times.push(publishedAt(current) + 2 * policy.caOverlapMs);
    for (const ca of bundle) times.push(ca.notAfter);
  }
  return Math.max(now + 1, Math.min(...times));
}
