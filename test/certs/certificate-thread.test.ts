/**
 * Certificates issued on a worker thread (src/certs/certificate-issuer.ts with the built certificate-worker.js, as
 * `serve` and the certificate rotation run it): what the thread issues verifies and interworks with what is issued in
 * line; a thread that fails, takes too long or needs too much memory is a rejected promise with a message, never a
 * stalled or crashed caller; and the thread holds a process open only while it works.
 */
import { execFile } from "node:child_process";
import { createPrivateKey, generateKeyPairSync, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { certificateIssuer, inlineIssuer, type CertificateIssuer, type KeyAndCertificate } from "../../src/certs/certificate-issuer.js";
import { describeCertificate } from "../../src/certs/certificate-parse.js";
import { childEnv, ROOT } from "../support/build.js";
import { CERTIFICATE_WORKER, threadIssuer } from "../support/certificate-thread.js";

const run = promisify(execFile);
const NOW = Date.parse("2026-03-01T10:00:00Z");
const DAY = 86_400_000;
const NAMES = { commonName: "webhook.knative-serving.svc", dnsNames: ["webhook", "webhook.knative-serving", "webhook.knative-serving.svc"], ips: ["127.0.0.1"] };
const VALIDITY = { notBefore: new Date(NOW), notAfter: new Date(NOW + 7 * DAY) };

async function withIssuer<T>(issuer: CertificateIssuer, f: (i: CertificateIssuer) => Promise<T>): Promise<T> {
  try {
    return await f(issuer);
  } finally {
    await issuer.close();
  }
}

/** That `cert` was signed by `ca`'s key and `key` is its own. */
function expectSignedBy(pair: KeyAndCertificate, ca: KeyAndCertificate): void {
  const cert = new X509Certificate(pair.cert);
  const caCert = new X509Certificate(ca.cert);
  expect(cert.verify(caCert.publicKey)).toBe(true);
  expect(cert.checkIssued(caCert)).toBe(true);
  expect(cert.checkPrivateKey(createPrivateKey(pair.key))).toBe(true);
}

let scratch = "";

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "duckbill-cert-thread-"));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A worker script of `source`, in place of the built one. */
function script(name: string, source: string): URL {
  const file = join(scratch, name);
  writeFileSync(file, source);
  return pathToFileURL(file);
}

describe("certificates issued on a worker thread", () => {
  it("issues a self-signed CA and a serving certificate it signs, with their keys, in Knative's shape", async () => {
    await withIssuer(threadIssuer(), async (issuer) => {
      const ca = await issuer.createCa({ ...NAMES, ...VALIDITY });
      const serving = await issuer.issueServingCertificate(ca, { ...NAMES, ...VALIDITY });
      expectSignedBy(ca, ca);
      expectSignedBy(serving, ca);
      expect(ca.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(serving.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      const d = describeCertificate(serving.cert);
      expect(d).toMatchObject({ subject: "O=knative.dev, CN=webhook.knative-serving.svc", issuer: "O=knative.dev, CN=webhook.knative-serving.svc", isCA: false, keyType: "ec", curve: "P-256", signatureAlgorithm: "ecdsa-with-SHA256" });
      expect(d.dnsNames).toEqual(NAMES.dnsNames);
      expect(d.ips).toEqual(["127.0.0.1"]);
      expect([d.notBefore, d.notAfter]).toEqual([VALIDITY.notBefore, VALIDITY.notAfter]);
      expect(describeCertificate(ca.cert).isCA).toBe(true);
    });
  });

  it("signs with a CA issued in line, and issues a CA that signs in line", async () => {
    await withIssuer(threadIssuer(), async (issuer) => {
      const inlineCa = await inlineIssuer.createCa({ ...NAMES, ...VALIDITY });
      expectSignedBy(await issuer.issueServingCertificate(inlineCa, { ...NAMES, ...VALIDITY }), inlineCa);
      const threadCa = await issuer.createCa({ ...NAMES, ...VALIDITY });
      expectSignedBy(await inlineIssuer.issueServingCertificate(threadCa, { ...NAMES, ...VALIDITY }), threadCa);
    });
  });

  it("answers requests made at once, each with its own certificate", async () => {
    await withIssuer(threadIssuer(), async (issuer) => {
      const ca = await issuer.createCa({ ...NAMES, ...VALIDITY });
      const names = ["a", "b", "c", "d"];
      const issued = await Promise.all(names.map((n) => issuer.issueServingCertificate(ca, { ...VALIDITY, commonName: n, dnsNames: [n] })));
      expect(issued.map((p) => describeCertificate(p.cert).dnsNames)).toEqual(names.map((n) => [n]));
      for (const p of issued) expectSignedBy(p, ca);
    });
  });

  it("rejects a CA key that cannot sign with the message issuing in line gives", async () => {
    const ed = generateKeyPairSync("ed25519");
    const ca = await inlineIssuer.createCa({ ...NAMES, ...VALIDITY });
    const unusable = { cert: ca.cert, key: ed.privateKey.export({ format: "pem", type: "pkcs8" }).toString() };
    const message = "the CA key must be an ECDSA key on P-256, P-384 or P-521, got ed25519";
    await expect(inlineIssuer.issueServingCertificate(unusable, { ...NAMES, ...VALIDITY })).rejects.toThrow(message);
    await withIssuer(threadIssuer(), async (issuer) => {
      await expect(issuer.issueServingCertificate(unusable, { ...NAMES, ...VALIDITY })).rejects.toThrow(message);
      // The thread survives a request that failed.
      expectSignedBy(await issuer.issueServingCertificate(ca, { ...NAMES, ...VALIDITY }), ca);
    });
  });

  it("gives up issuance that takes longer than its bound", async () => {
    const silent = script("silent.mjs", 'import { parentPort } from "node:worker_threads";\nparentPort.on("message", () => {});\n');
    await withIssuer(certificateIssuer({ script: silent, timeoutMs: 50 }), async (issuer) => {
      await expect(issuer.createCa({ ...NAMES, ...VALIDITY })).rejects.toThrow("certificates were not issued within 50 ms");
    });
  });

  it("fails issuance that needs more than the thread's heap", async () => {
    await withIssuer(threadIssuer({ maxHeapMb: 2 }), async (issuer) => {
      await expect(issuer.createCa({ ...NAMES, ...VALIDITY })).rejects.toThrow("certificate issuance needed more than 2 MB on its thread");
    });
  });

  it("fails every waiting request when the thread throws", async () => {
    const throwing = certificateIssuer({ script: script("throws.mjs", 'throw new Error("no X.509 library here");\n') });
    expect(throwing).not.toBe(inlineIssuer);
    await withIssuer(throwing, async (issuer) => {
      const both = [issuer.createCa({ ...NAMES, ...VALIDITY }), issuer.createCa({ ...NAMES, ...VALIDITY })];
      for (const p of both) await expect(p).rejects.toThrow("certificate issuance failed on its thread: no X.509 library here");
    });
  });

  it("starts a new thread for the next request after one exited", async () => {
    // The first thread exits at once; the next one runs the built worker.
    const marker = join(scratch, "exited-once");
    const once = script(
      "exits-once.mjs",
      `import { existsSync, writeFileSync } from "node:fs";
if (!existsSync(${JSON.stringify(marker)})) {
  writeFileSync(${JSON.stringify(marker)}, "");
  process.exit(3);
}
await import(${JSON.stringify(CERTIFICATE_WORKER.href)});
`,
    );
    threadIssuer(); // the built worker is there
    await withIssuer(certificateIssuer({ script: once }), async (issuer) => {
      await expect(issuer.createCa({ ...NAMES, ...VALIDITY })).rejects.toThrow("the certificate issuing thread exited");
      const ca = await issuer.createCa({ ...NAMES, ...VALIDITY });
      expectSignedBy(ca, ca);
    });
  });

  it("fails what is waiting when closed", async () => {
    const issuer = threadIssuer();
    const waiting = issuer.createCa({ ...NAMES, ...VALIDITY });
    await issuer.close();
    await expect(waiting).rejects.toThrow("the certificate issuer closed");
  });

  it("issues in line where there is no built worker script (sources run by vitest)", () => {
    expect(certificateIssuer({ script: pathToFileURL(join(ROOT, "no-such-worker.js")) })).toBe(inlineIssuer);
  });

  it("holds a process open while it issues, and not once it has answered (tsc's output, the default issuer)", async () => {
    // Nothing else keeps this process's event loop alive: it exits with the certificate only if the thread held it
    // open until the answer, and exits at all only if the idle thread does not.
    const program = script("issue.mjs", `import { generateTlsMaterial } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist", "certs", "certificate-issuer.js")).href)};
const m = await generateTlsMaterial({ serviceName: "hooks" });
process.stdout.write(JSON.stringify(m));
`);
    threadIssuer(); // builds if need be, and fails if the build has no thread script
    const { stdout } = await run(process.execPath, [fileURLToPath(program)], { cwd: ROOT, env: childEnv() });
    const m = JSON.parse(stdout) as { cert: string; key: string; ca: string; caKey: string };
    expectSignedBy({ cert: m.cert, key: m.key }, { cert: m.ca, key: m.caKey });
    expect(describeCertificate(m.cert).dnsNames).toContain("hooks.knative-serving.svc");
  });
});
