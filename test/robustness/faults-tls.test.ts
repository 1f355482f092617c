/**
 * Fault injection, certificate side: `duckbill serve` in cluster mode (startWebhook) against the fake API server.
 * The certificate Secret is deleted or corrupted while serving. The assertions are about what is served, not when
 * (generous `until` waits), so this file runs in `npm test`; the drain under load is in faults-drain.test.ts (timing).
 * Configuration faults are in faults.test.ts.
 *
 * Proved elsewhere, not repeated here:
 * - test/kube/cert-controller.test.ts: the controller keeps its material and logs when the Secret is deleted
 *   ("keeps serving what it has when the Secret is deleted, and says so"), reports a Secret it cannot serve while
 *   no leader fixes it (readiness reason), and renewal plus CA rotation never fail a handshake under load.
 */
import { X509Certificate } from "node:crypto";
import { connect as tlsConnect } from "node:tls";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { knativeCommonName, knativeDnsNames } from "../../src/certs/certificate-issuer.js";
import { CERT_SECRET_KEYS, readCertSecret } from "../../src/certs/cert-secret.js";
import { DEFAULT_ROTATION_POLICY, planRotation } from "../../src/certs/cert-rotation.js";
import { FakeApiServer, LEASES, SECRETS } from "../support/fake-apiserver.js";
import { affinityDecision, NS, startFaultyCluster, stopFaultyCluster, probe, SERVERNAME, secretData, startClusterWebhook, until, type ClusterWebhook, type FaultyProxy } from "./fault-support.js";

/** A shared 2-core machine: a run starved of CPU may retry (the assertions are not timing checks). */
const TIMING_SENSITIVE = { retry: 1 } as const;

const SECRET = "webhook-certs";
const NAMES = { commonName: knativeCommonName("webhook", NS), dnsNames: knativeDnsNames("webhook", NS, "cluster.local") };

/** A complete, valid webhook-certs data set from a fresh CA. */
async function freshCertData(): Promise<Record<string, string>> {
  const plan = await planRotation(readCertSecret({}), Date.now(), DEFAULT_ROTATION_POLICY, NAMES);
  if (plan.data === undefined) throw new Error("no data planned");
  return plan.data;
}

function encoded(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "utf8").toString("base64")]));
}

function writeSecret(api: FakeApiServer, data: Record<string, string>): void {
  api.apply(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: SECRET, namespace: NS }, data: encoded(data) });
}

/** The serving certificate (PEM-normalised fingerprint) a fresh TLS connection that trusts only `ca` gets. */
function handshake(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca, servername: SERVERNAME }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.on("error", reject);
  });
}

function fingerprintOf(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}
describe("certificate Secret faults while serving", TIMING_SENSITIVE, () => {
  let api: FakeApiServer;
  let proxy: FaultyProxy;
  let wh: ClusterWebhook | undefined;

  beforeEach(async () => {
    ({ api, proxy } = await startFaultyCluster());
  });
  afterEach(async () => {
    await stopFaultyCluster({ api, proxy }, wh);
    wh = undefined;
  });

  it("keeps serving the last good certificate when the Secret is deleted or corrupted (a replica that does not lead)", async () => {
    // Another replica holds the certificates Lease: this one only follows the Secret, so nothing repairs it.
    api.create(LEASES, { metadata: { name: "webhook.webhookcertificates.00-of-01", namespace: NS }, spec: { holderIdentity: "other", leaseDurationSeconds: 3600 } });
    const good = await freshCertData();
    writeSecret(api, good);
    const ca = good[CERT_SECRET_KEYS.caCert] as string;
    const served = fingerprintOf(good[CERT_SECRET_KEYS.serverCert] as string);
    wh = await startClusterWebhook(proxy, { "disable-ha": "false" });
    const w = wh;
    await until(() => handshake(w.port, ca).then((f) => f === served, () => false), "the Secret's certificate");
    expect((await probe(w.port)).status).toBe(200);

    /** Handshakes with the published CA, admission answers and readiness, all unchanged. */
    const stillServing = async (uid: string): Promise<void> => {
      expect(await handshake(w.port, ca)).toBe(served);
      expect((await affinityDecision(w.port, uid, ca)).allowed).toBe(false);
      expect(await probe(w.port)).toEqual({ status: 200, body: "" });
    };

    // Deleted: the log says what happens; the certificate in use is kept (until it expires: 7 days).
    api.delete(SECRETS, SECRET, NS);
    const gone = await until(() => w.lines.find((l) => l.msg.startsWith(`Secret ${NS}/${SECRET} does not exist`)), "the deletion in the log");
    expect(gone.level).toBe("warn");
    expect(gone.msg).toMatch(/the certificate in use is kept until it expires$/);
    await stillServing("deleted");

    // Recreated with data that is not PEM.
    writeSecret(api, { [CERT_SECRET_KEYS.serverCert]: "not a certificate", [CERT_SECRET_KEYS.serverKey]: "not a key", [CERT_SECRET_KEYS.caCert]: ca });
    const notPem = await until(() => w.lines.find((l) => l.problem === `${CERT_SECRET_KEYS.serverCert} is not a PEM certificate`), "the unusable Secret in the log");
    expect(notPem.msg).toBe(`Secret ${NS}/${SECRET} has no usable certificate; keeping the one in use`);
    await stillServing("not-pem");

    // A certificate and a key that do not belong together (both valid PEM).
    const other = await freshCertData();
    writeSecret(api, { ...good, [CERT_SECRET_KEYS.serverKey]: other[CERT_SECRET_KEYS.serverKey] as string });
    await until(() => w.lines.find((l) => l.problem === `${CERT_SECRET_KEYS.serverKey} is not the key of ${CERT_SECRET_KEYS.serverCert}`), "the mismatched pair in the log");
    await stillServing("mismatch");

    // The watch still works: a good Secret again is served at once.
    writeSecret(api, other);
    const otherCa = other[CERT_SECRET_KEYS.caCert] as string;
    await until(() => handshake(w.port, otherCa).then((f) => f === fingerprintOf(other[CERT_SECRET_KEYS.serverCert] as string), () => false), "the new certificate");
    expect((await probe(w.port)).status).toBe(200);
    // Nothing was written: repairing the Secret is the leader's job.
    expect(api.count({ method: "PUT", plural: "secrets" }) + api.count({ method: "POST", plural: "secrets" })).toBe(0);
  });

  it("as the leader, re-issues a corrupted serving certificate from the same CA: no handshake with the published CA fails", async () => {
    const good = await freshCertData();
    writeSecret(api, good);
    const ca = good[CERT_SECRET_KEYS.caCert] as string;
    wh = await startClusterWebhook(proxy); // --disable-ha: this replica writes the Secret
    const w = wh;
    await until(() => handshake(w.port, ca).then((f) => f === fingerprintOf(good[CERT_SECRET_KEYS.serverCert] as string), () => false), "the Secret's certificate");

    // A client that trusts the published CA keeps connecting (a full handshake each time) through the fault.
    const failures: string[] = [];
    let handshakes = 0;
    let running = true;
    const client = (async () => {
      while (running) {
        try {
          await handshake(w.port, ca);
        } catch (err) {
          failures.push((err as Error).message);
        }
        handshakes++;
      }
    })();

    writeSecret(api, { ...good, [CERT_SECRET_KEYS.serverCert]: "garbage", [CERT_SECRET_KEYS.serverKey]: "garbage" });
    const renewed = await until(() => w.lines.find((l) => l.msg === "certificates: renewed"), "the leader's repair");
    expect(renewed.detail).toBe(`the Secret cannot be served: ${CERT_SECRET_KEYS.serverCert} is not a PEM certificate`);
    const repaired = await until(() => {
      const d = secretData(api);
      return d[CERT_SECRET_KEYS.serverCert]?.includes("BEGIN CERTIFICATE") === true && d[CERT_SECRET_KEYS.serverCert] !== good[CERT_SECRET_KEYS.serverCert] ? d : undefined;
    }, "the repaired Secret");
    expect(repaired[CERT_SECRET_KEYS.caCert]).toBe(ca);
    const fresh = fingerprintOf(repaired[CERT_SECRET_KEYS.serverCert] as string);
    await until(() => handshake(w.port, ca).then((f) => f === fresh, () => false), "the re-issued certificate to be served");
    await until(() => handshakes >= 20, "some more handshakes");
    running = false;
    await client;
    expect(failures).toEqual([]);
    expect(await probe(w.port)).toEqual({ status: 200, body: "" });
  });
});
