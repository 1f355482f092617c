/**
 * `--cert-dir` followed while serving: the real HTTPS webhook on a directory laid out as kubelet mounts a Secret,
 * whose `..data` link is swapped to a new certificate. New TLS connections get the new certificate; a
 * connection opened before keeps working. Waits for what is served, not for a time.
 */
import { X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { Agent, request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTlsMaterial } from "../../src/certs/certificate-issuer.js";
import type { TlsMaterial } from "../../src/certs/tls-material.js";
import { eventually } from "../config/store-harness.js";
import { serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

/** The fingerprint of the certificate a new TLS connection gets (verified against `ca` for localhost). */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}

/** A review over `agent`'s keep-alive connection: its status, whether the connection was reused, and its certificate. */
function reviewOver(agent: Agent, port: number): Promise<{ status: number; reused: boolean; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: "127.0.0.1", port, path: "/resource-validation", method: "POST", agent, headers: { "Content-Type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, fingerprint: (req.socket as TLSSocket).getPeerCertificate().fingerprint256 }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(serviceReview()));
  });
}

/** Writes `m` as kubelet's AtomicWriter does: into a new `..<timestamp>` directory that `..data` is swapped to. */
async function publish(dir: string, m: TlsMaterial, timestamp: string): Promise<void> {
  const target = `..${timestamp}`;
  await mkdir(join(dir, target));
  for (const [name, text] of Object.entries({ "tls.crt": m.cert, "tls.key": m.key, "ca.crt": m.ca })) await writeFile(join(dir, target, name), text);
  await symlink(target, join(dir, "..data_tmp"));
  await rename(join(dir, "..data_tmp"), join(dir, "..data"));
}

describe("--cert-dir: a certificate replaced on disk is served without a restart", () => {
  let dir: string;
  let wh: TestWebhook;
  let a: TlsMaterial;
  let b: TlsMaterial;
  let bothCas: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([generateTlsMaterial(), generateTlsMaterial()]);
    bothCas = a.ca + b.ca;
    dir = await mkdtemp(join(tmpdir(), "duckbill-certdir-"));
    await publish(dir, a, "2026_01_02_03_04_05.000000001");
    for (const name of ["tls.crt", "tls.key", "ca.crt"]) await symlink(join("..data", name), join(dir, name));
    wh = await startTestWebhook({ "cert-dir": dir });
  });
  afterAll(async () => {
    await wh?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the new certificate to new connections once ..data is swapped, and open connections keep working", async () => {
    const fingerprintA = new X509Certificate(a.cert).fingerprint256;
    const fingerprintB = new X509Certificate(b.cert).fingerprint256;
    expect(await servedFingerprint(wh.port, bothCas)).toBe(fingerprintA);
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: bothCas, servername: "localhost" });
    try {
      expect(await reviewOver(agent, wh.port)).toEqual({ status: 200, reused: false, fingerprint: fingerprintA });

      await publish(dir, b, "2026_01_09_03_04_05.000000002");
      await eventually(async () => (await servedFingerprint(wh.port, bothCas)) === fingerprintB, "the new certificate on a new connection");

      // The connection opened before the swap still answers, on the certificate it was opened with.
      expect(await reviewOver(agent, wh.port)).toEqual({ status: 200, reused: true, fingerprint: fingerprintA });
    } finally {
      agent.destroy();
    }
  });
});
