/**
 * The rotation policy on a simulated clock: what each reconciliation writes, and over years of them, that a client
 * whose bundle is at most one overlap old always trusts the serving certificate, which is always valid.
 */
import { afterAll, describe, expect, it } from "vitest";
import { knativeDnsNames, type CertificateIssuer } from "../../src/certs/certificate-issuer.js";
import { CERT_SECRET_KEYS, readCertSecret, servingProblem, tlsMaterialOf } from "../../src/certs/cert-secret.js";
import { DEFAULT_ROTATION_POLICY, planRotation, rotationPolicyProblems, type CertAction, type RotationPolicy } from "../../src/certs/cert-rotation.js";
import { describeCertificate } from "../../src/certs/certificate-parse.js";
import { certificateNames } from "../../src/kube/cert-controller.js";
import { threadIssuer } from "../support/certificate-thread.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse("2026-03-01T10:00:00Z");
const NAMES = { commonName: "webhook.knative-serving.svc", dnsNames: knativeDnsNames("webhook", "knative-serving", "cluster.local") };
const P = DEFAULT_ROTATION_POLICY;
const { serverKey, serverCert, caCert, caKey } = CERT_SECRET_KEYS;

type Data = Record<string, string>;

async function reconcile(data: Data, now: number, policy: RotationPolicy = P): Promise<{ data: Data; actions: CertAction[]; nextAt: number; wrote: boolean }> {
  const r = await planRotation(readCertSecret(data), now, policy, NAMES);
  return { data: r.data === undefined ? data : { ...data, ...r.data }, actions: r.steps.map((s) => s.action), nextAt: r.nextAt, wrote: r.data !== undefined };
}

function fingerprints(data: Data): string[] {
  return readCertSecret(data).cas.map((ca) => ca.x509.fingerprint256);
}

function signerOf(data: Data): string | undefined {
  return readCertSecret(data).serving?.issuer?.x509.fingerprint256;
}

function keyCount(data: Data): number {
  return (data[caKey] ?? "").match(/BEGIN PRIVATE KEY/g)?.length ?? 0;
}

let thread: CertificateIssuer | undefined;
afterAll(() => thread?.close());

/**
 * A Secret as Knative's webhook leaves it: three keys, a 7-day CA whose key is gone. Issued on the issuer's thread
 * (as the build issues), then read and rotated by planRotation, which issues in line here (sources).
 */
async function knativeSecret(now: number): Promise<Data> {
  const o = { ...NAMES, notBefore: new Date(now), notAfter: new Date(now + 7 * DAY) };
  thread ??= threadIssuer();
  const ca = await thread.createCa(o);
  const serving = await thread.issueServingCertificate(ca, o);
  return { [serverKey]: serving.key, [serverCert]: serving.cert, [caCert]: ca.cert };
}

describe("planRotation, one reconciliation at a time", () => {
  it("fills an empty Secret with a one-year CA and a seven-day serving certificate in Knative's shape", async () => {
    const r = await reconcile({}, T0);
    expect(r.actions).toEqual(["filled"]);
    expect(Object.keys(r.data).sort()).toEqual([caCert, caKey, serverCert, serverKey].sort());
    const ca = describeCertificate(r.data[caCert] ?? "");
    const serving = describeCertificate(r.data[serverCert] ?? "");
    expect(serving.subject).toBe("O=knative.dev, CN=webhook.knative-serving.svc");
    expect(serving.dnsNames).toEqual(["webhook", "webhook.knative-serving", "webhook.knative-serving.svc", "webhook.knative-serving.svc.cluster.local"]);
    expect(serving.ips).toEqual([]);
    expect([serving.keyType, serving.curve, serving.signatureAlgorithm]).toEqual(["ec", "P-256", "ecdsa-with-SHA256"]);
    expect(serving.notAfter.getTime() - T0).toBe(7 * DAY);
    expect(ca.notAfter.getTime() - T0).toBe(365 * DAY);
    expect(ca.isCA).toBe(true);
    expect(r.data[serverKey]).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(keyCount(r.data)).toBe(1);
    expect("material" in tlsMaterialOf(r.data, T0)).toBe(true);
    expect(r.nextAt).toBe(T0 + 6 * DAY);
  });

  it("leaves a healthy Secret alone and says when to look again", async () => {
    const filled = (await reconcile({}, T0)).data;
    const r = await reconcile(filled, T0 + 2 * DAY);
    expect(r).toMatchObject({ wrote: false, actions: [], nextAt: T0 + 6 * DAY });
  });

  it("renews the serving certificate from the same CA once less than 24 h remain", async () => {
    const filled = (await reconcile({}, T0)).data;
    const r = await reconcile(filled, T0 + 6 * DAY);
    expect(r.actions).toEqual(["renewed"]);
    expect(r.data[caCert]).toBe(filled[caCert]);
    expect(r.data[serverCert]).not.toBe(filled[serverCert]);
    expect(r.data[serverKey]).not.toBe(filled[serverKey]);
    expect(signerOf(r.data)).toBe(signerOf(filled));
    expect(describeCertificate(r.data[serverCert] ?? "").notAfter.getTime()).toBe(T0 + 13 * DAY);
  });

  it.each([
    ["server-key.pem is missing", (d: Data): Data => ({ ...d, [serverKey]: "" })],
    ["server-key.pem belongs to another certificate", (d: Data): Data => ({ ...d, [serverKey]: d[caKey] ?? "" })],
    ["server-cert.pem is garbage", (d: Data): Data => ({ ...d, [serverCert]: "not a certificate" })],
    ["server-cert.pem is gone", (d: Data): Data => ({ ...d, [serverCert]: "" })],
  ])("re-issues from the same CA, keeping the bundle, when %s", async (_what, damage) => {
    const filled = (await reconcile({}, T0)).data;
    const r = await reconcile(damage(filled), T0 + HOUR);
    expect(r.actions).toEqual(["renewed"]);
    expect(r.data[caCert]).toBe(filled[caCert]);
    expect(servingProblem(readCertSecret(r.data), T0 + HOUR)).toBeUndefined();
  });

  it("re-issues from the same CA when the serving certificate names another service", async () => {
    const other = (await planRotation(readCertSecret({}), T0, P, { commonName: "old.knative-serving.svc", dnsNames: ["old"] })).data ?? {};
    const r = await reconcile(other, T0 + HOUR);
    expect(r.actions).toEqual(["renewed"]);
    expect(r.data[caCert]).toBe(other[caCert]);
    expect(describeCertificate(r.data[serverCert] ?? "").dnsNames).toEqual(NAMES.dnsNames);
  });

  it("re-issues from the same CA when --webhook-url adds a host the certificate does not name (IP or DNS)", async () => {
    const filled = (await reconcile({}, T0)).data;
    for (const [extraHost, want] of [
      ["127.0.0.1", { ips: ["127.0.0.1"], dnsNames: NAMES.dnsNames }],
      ["[::1]", { ips: ["::1"], dnsNames: NAMES.dnsNames }],
      ["webhook.example.test", { ips: [], dnsNames: [...NAMES.dnsNames, "webhook.example.test"] }],
    ] as const) {
      const names = certificateNames({ serviceName: "webhook", namespace: "knative-serving", clusterDomain: "cluster.local", extraHost });
      const r = await planRotation(readCertSecret(filled), T0 + HOUR, P, names);
      expect(r.steps.map((x) => x.action), extraHost).toEqual(["renewed"]);
      const cert = describeCertificate(r.data?.[serverCert] ?? "");
      expect({ ips: cert.ips, dnsNames: cert.dnsNames }, extraHost).toEqual(want);
      // Named now: the next reconciliation leaves it alone.
      const again = await planRotation(readCertSecret({ ...filled, ...r.data }), T0 + 2 * HOUR, P, names);
      expect(again.data, extraHost).toBeUndefined();
    }
  });

  it("names only Knative's service names without an extra host (a Service host is not repeated)", () => {
    const base = { serviceName: "webhook", namespace: "knative-serving", clusterDomain: "cluster.local" };
    expect(certificateNames(base)).toEqual(NAMES);
    expect(certificateNames({ ...base, extraHost: "webhook.knative-serving.svc" })).toEqual(NAMES);
  });

  it("renews an expired serving certificate from its still valid CA rather than starting over", async () => {
    const filled = (await reconcile({}, T0)).data;
    const r = await reconcile(filled, T0 + 30 * DAY);
    expect(r.actions).toEqual(["renewed"]);
    expect(r.data[caCert]).toBe(filled[caCert]);
  });

  it("starts over when nothing in the Secret can sign any more", async () => {
    const filled = (await reconcile({}, T0)).data;
    const r = await reconcile(filled, T0 + 400 * DAY);
    expect(r.actions).toEqual(["filled"]);
    expect(fingerprints(r.data)).toHaveLength(1);
    expect(fingerprints(r.data)).not.toEqual(fingerprints(filled));
  });

  it("rotates the CA in three phases, one overlap apart, keeping the old CA trusted until the new one signs", async () => {
    const filled = (await reconcile({}, T0)).data;
    const [oldCa] = fingerprints(filled);
    const rotateAt = T0 + 335 * DAY; // 30 days before the CA's end
    const serving = (await reconcile(filled, rotateAt - 2 * HOUR)).data; // renewals go on meanwhile

    const p1 = await reconcile(serving, rotateAt);
    expect(p1.actions).toEqual(["published-ca"]);
    expect(fingerprints(p1.data)).toHaveLength(2);
    expect(fingerprints(p1.data)[0]).toBe(oldCa);
    expect(p1.data[serverCert]).toBe(serving[serverCert]);
    expect(keyCount(p1.data)).toBe(2);
    const newCa = fingerprints(p1.data)[1];
    expect(p1.nextAt).toBe(rotateAt + 1000 + DAY); // X.509 seconds are floored: one second of slack

    expect((await reconcile(p1.data, p1.nextAt - 1)).wrote).toBe(false);
    const p2 = await reconcile(p1.data, p1.nextAt);
    expect(p2.actions).toEqual(["switched-ca"]);
    expect(signerOf(p2.data)).toBe(newCa);
    expect(fingerprints(p2.data)).toEqual([oldCa, newCa]);
    expect(keyCount(p2.data)).toBe(1);
    expect(p2.nextAt).toBe(rotateAt + 1000 + 2 * DAY);

    const p3 = await reconcile(p2.data, p2.nextAt);
    expect(p3.actions).toEqual(["dropped-ca"]);
    expect(fingerprints(p3.data)).toEqual([newCa]);
    expect(p3.data[serverCert]).toBe(p2.data[serverCert]);
    expect((await reconcile(p3.data, p3.nextAt - 1)).wrote).toBe(false);
  });

  it("takes over a Knative-made Secret without breaking trust: new CA first, switch after the overlap", async () => {
    const knative = await knativeSecret(T0);
    const p1 = await reconcile(knative, T0 + HOUR);
    expect(p1.actions).toEqual(["published-ca"]);
    expect(p1.data[serverCert]).toBe(knative[serverCert]);
    expect(fingerprints(p1.data)[0]).toBe(fingerprints(knative)[0]);
    const p2 = await reconcile(p1.data, p1.nextAt);
    expect(p2.actions).toEqual(["switched-ca"]);
    expect(p2.nextAt - (T0 + HOUR)).toBeGreaterThanOrEqual(2 * DAY);
  });

  it("switches early, and says trust is at risk, only when the old CA cannot sign and its certificate is about to end", async () => {
    const knative = await knativeSecret(T0 - 6 * DAY - 14 * HOUR); // 10 h left, the old CA has no key
    expect((await planRotation(readCertSecret(knative), T0 - 3 * HOUR, P, NAMES)).steps.map((s) => s.action)).toEqual(["published-ca"]);
    const plan = await planRotation(readCertSecret(knative), T0, P, NAMES);
    expect(plan.steps.map((s) => [s.action, s.trustAtRisk === true])).toEqual([
      ["published-ca", false],
      ["switched-ca", true],
    ]);
  });

  it("is idempotent: a second reconciliation at the same instant changes nothing", async () => {
    for (const now of [T0, T0 + 6 * DAY, T0 + 335 * DAY]) {
      const first = await reconcile({}, now);
      expect((await reconcile(first.data, now)).wrote).toBe(false);
    }
  });

  it("keeps data it does not own untouched", async () => {
    const r = await reconcile({ "other.txt": "kept" }, T0);
    expect(r.data["other.txt"]).toBe("kept");
  });
});

describe("planRotation over many rotations", () => {
  /** A year squeezed into 40 days: the same phases, fewer renewals between them. */
  const SHORT: RotationPolicy = { caValidityMs: 40 * DAY, caRotateBeforeMs: 10 * DAY, caOverlapMs: 2 * DAY, certValidityMs: 7 * DAY, certRenewBeforeMs: DAY };

  interface Version {
    readonly at: number;
    readonly actions: readonly CertAction[];
    readonly bundle: readonly string[];
    readonly signer: string | undefined;
    readonly problem: string | undefined;
    readonly servingNotAfter: number;
    readonly signerNotAfter: number;
  }

  function version(at: number, data: Data, actions: readonly CertAction[]): Version {
    const content = readCertSecret(data);
    return {
      at,
      actions,
      bundle: content.cas.map((ca) => ca.x509.fingerprint256),
      signer: content.serving?.issuer?.x509.fingerprint256,
      problem: servingProblem(content, at),
      servingNotAfter: content.serving?.notAfter ?? 0,
      signerNotAfter: content.serving?.issuer?.notAfter ?? 0,
    };
  }

  /** Every version written, and when, reconciling at each nextAt plus `lateness()`. */
  async function simulate(start: Data, from: number, until: number, policy: RotationPolicy, lateness: () => number): Promise<Version[]> {
    const versions = [version(from - 1, start, [])];
    let data = start;
    for (let now = from; now < until; ) {
      const r = await reconcile(data, now, policy);
      if (r.wrote) versions.push(version(now, r.data, r.actions));
      data = r.data;
      expect(r.nextAt).toBeGreaterThan(now);
      now = r.nextAt + lateness();
    }
    return versions;
  }

  /** The served certificate is valid while in use, and trusted by every bundle a client may hold (≤ 1 overlap old). */
  function checkTimeline(versions: readonly Version[], until: number, overlapMs: number, first: number): void {
    for (let i = first; i < versions.length; i++) {
      const v = versions[i] as Version;
      const end = versions[i + 1]?.at ?? until;
      const when = `version ${i} at ${new Date(v.at).toISOString()}`;
      expect(v.problem, when).toBeUndefined();
      expect(v.servingNotAfter, when).toBeGreaterThan(end);
      expect(v.signerNotAfter, when).toBeGreaterThan(end);
      for (let j = i; j >= first; j--) {
        const w = versions[j] as Version;
        expect(w.bundle, `${when} must be trusted by the bundle of version ${j}`).toContain(v.signer);
        if (w.at <= v.at - overlapMs) break; // older bundles are more than one overlap stale
      }
    }
  }

  it("keeps every client trusting and every certificate valid, reconciling on time or up to an hour late", async () => {
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const until = T0 + 100 * DAY;
    const versions = await simulate({}, T0, until, SHORT, () => Math.floor(random() * HOUR));
    checkTimeline(versions, until, SHORT.caOverlapMs, 1); // version 0 is the empty Secret
    const count = (a: CertAction): number => versions.flatMap((v) => v.actions).filter((x) => x === a).length;
    expect([count("filled"), count("published-ca"), count("switched-ca"), count("dropped-ca")]).toEqual([1, 3, 3, 3]);
    expect(count("renewed")).toBeGreaterThan(8);
  });

  it("migrates from a Knative-made Secret with the same guarantees", async () => {
    const until = T0 + 30 * DAY;
    const versions = await simulate(await knativeSecret(T0 - DAY), T0, until, P, () => 0);
    checkTimeline(versions, until, P.caOverlapMs, 0);
    expect(versions.flatMap((v) => v.actions).slice(0, 3)).toEqual(["published-ca", "switched-ca", "dropped-ca"]);
  });
});

describe("rotationPolicyProblems", () => {
  it("accepts the defaults", () => {
    expect(rotationPolicyProblems(DEFAULT_ROTATION_POLICY)).toEqual([]);
  });

  it.each([
    [{ certRenewBeforeMs: 7 * DAY }, "the serving certificate's renewal margin must be shorter than its validity"],
    [{ caRotateBeforeMs: 2 * DAY }, "the CA rotation margin must be at least two overlaps plus the serving certificate's renewal margin plus one second"],
    [{ caValidityMs: 31 * DAY }, "the CA validity must exceed its rotation margin by at least two overlaps plus one second"],
    [{ caOverlapMs: 0 }, "caOverlapMs must be a positive duration"],
  ])("refuses %o", (change, message) => {
    expect(rotationPolicyProblems({ ...DEFAULT_ROTATION_POLICY, ...change })).toContain(message);
  });
});
