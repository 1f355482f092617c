import { webcrypto, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect, createSecureContext, type ConnectionOptions } from "node:tls";
import * as x509 from "@peculiar/x509";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opensslHasGroup } from "../../src/cli/settings/tls-settings.js";
import type { CertificateIssuer } from "../../src/certs/certificate-issuer.js";
import { threadIssuer } from "../support/certificate-thread.js";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

describe("HTTPS with generated certificates", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook();
  });
  afterAll(async () => wh.stop());

  it("writes ca.crt, tls.crt and tls.key where clients can find the CA", async () => {
    const ca = await readFile(join(wh.certDir, "ca.crt"), "utf8");
    const cert = new X509Certificate(await readFile(join(wh.certDir, "tls.crt"), "utf8"));
    expect(ca).toBe(wh.ca);
    expect(cert.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
  });

  it.each(["localhost", "webhook", "webhook.knative-serving", "webhook.knative-serving.svc", "webhook.knative-serving.svc.cluster.local"])(
    "is trusted for %s by a client that trusts only the generated CA",
    async (servername) => {
      const r = await httpsCall(wh.port, wh.ca, { servername, body: JSON.stringify(serviceReview()) });
      expect(r.status).toBe(200);
    },
  );

  it("is trusted for the IP SAN 127.0.0.1", async () => {
    const r = await httpsCall(wh.port, wh.ca, { servername: "", tls: { servername: undefined }, body: JSON.stringify(serviceReview()) });
    expect(r.status).toBe(200);
  });

  it("is not trusted for a name outside its SANs", async () => {
    await expect(httpsCall(wh.port, wh.ca, { servername: "evil.example.com", body: "{}" })).rejects.toThrow(/altnames|Hostname/i);
  });

  it("is not trusted by a client without the CA", async () => {
    await expect(httpsCall(wh.port, "", { tls: { ca: undefined }, body: "{}" })).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
  });

  it("refuses TLS 1.2 by default", async () => {
    await expect(httpsCall(wh.port, wh.ca, { tls: { maxVersion: "TLSv1.2" }, body: "{}" })).rejects.toThrow(/version|handshake|alert/i);
  });

  it("speaks HTTP/1.1 with keep-alive", async () => {
    const r = await httpsCall(wh.port, wh.ca, { body: JSON.stringify(serviceReview()), headers: { "Content-Type": "application/json", Connection: "keep-alive" } });
    expect(r.headers.connection).toBe("keep-alive");
  });
});

describe("WEBHOOK_TLS_MIN_VERSION=1.2", () => {
  it("accepts a TLS 1.2 client", async () => {
    const wh = await startTestWebhook({ "tls-min-version": "1.2" });
    try {
      const r = await httpsCall(wh.port, wh.ca, { tls: { maxVersion: "TLSv1.2" }, body: JSON.stringify(serviceReview()) });
      expect(r.status).toBe(200);
    } finally {
      await wh.stop();
    }
  });

  it("rejects versions other than 1.2 and 1.3 at startup with Knative's message", async () => {
    await expect(startTestWebhook({ "tls-min-version": "1.1" })).rejects.toThrow('invalid WEBHOOK_TLS_MIN_VERSION "1.1": unsupported TLS version "1.1": must be "1.2" or "1.3"');
  });
});

/** A TLS handshake with the webhook: what was agreed, or the handshake's error. */
function handshake(wh: TestWebhook, opts: ConnectionOptions): Promise<{ protocol: string | null; cipher: string; group: string | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port: wh.port, ca: wh.ca, servername: "localhost", ...opts }, () => {
      const agreed = { protocol: socket.getProtocol(), cipher: socket.getCipher().name, group: (socket.getEphemeralKeyInfo() as { name?: string } | null)?.name };
      socket.end();
      resolve(agreed);
    });
    socket.on("error", reject);
  });
}

/** A self-signed RSA serving certificate for localhost, in a --cert-dir layout (tls.crt, tls.key, ca.crt). */
async function rsaCertDir(): Promise<string> {
  const alg = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: "CN=localhost",
      keys,
      signingAlgorithm: alg,
      notBefore: new Date(now - 3_600_000),
      notAfter: new Date(now + 86_400_000),
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: "localhost" }])],
    },
    webcrypto,
  );
  const key = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  const dir = await mkdtemp(join(tmpdir(), "duckbill-rsa-"));
  await writeFile(join(dir, "tls.crt"), cert.toString("pem") + "\n");
  await writeFile(join(dir, "ca.crt"), cert.toString("pem") + "\n");
  await writeFile(join(dir, "tls.key"), `-----BEGIN PRIVATE KEY-----\n${key.replace(/.{1,64}/g, "$&\n")}-----END PRIVATE KEY-----\n`);
  return dir;
}

describe("WEBHOOK_TLS_MIN_VERSION=1.2 without WEBHOOK_TLS_CIPHER_SUITES: Go's default TLS 1.2 suites (crypto/tls defaultCipherSuites)", () => {
  // Each client offers one suite its own OpenSSL knows (checked first), so a refusal is the server's.
  async function expectSuites(wh: TestWebhook, accepted: string[], refused: string[]): Promise<void> {
    for (const cipher of [...accepted, ...refused]) expect(() => createSecureContext({ ciphers: cipher }), cipher).not.toThrow();
    for (const cipher of accepted) expect(await handshake(wh, { maxVersion: "TLSv1.2", ciphers: cipher, rejectUnauthorized: false }), cipher).toMatchObject({ protocol: "TLSv1.2", cipher });
    for (const cipher of refused) await expect(handshake(wh, { maxVersion: "TLSv1.2", ciphers: cipher, rejectUnauthorized: false }), cipher).rejects.toThrow(/handshake|alert|cipher/i);
  }

  it("with an ECDSA certificate: ECDHE with AES-GCM, ChaCha20-Poly1305 or AES-CBC-SHA only; TLS 1.3 keeps its three suites", async () => {
    const wh = await startTestWebhook({ "tls-min-version": "1.2" });
    try {
      await expectSuites(
        wh,
        ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA"],
        // CBC-SHA256/384 (Go: disabledCipherSuites), CCM and ARIA (not in crypto/tls): Node's default list had them.
        ["ECDHE-ECDSA-AES128-SHA256", "ECDHE-ECDSA-AES256-SHA384", "ECDHE-ECDSA-AES128-CCM", "ECDHE-ECDSA-AES256-CCM8", "ECDHE-ECDSA-ARIA128-GCM-SHA256"],
      );
      for (const cipher of ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]) {
        expect(await handshake(wh, { ciphers: cipher })).toMatchObject({ protocol: "TLSv1.3", cipher });
      }
    } finally {
      await wh.stop();
    }
  });

  it("with an RSA certificate from --cert-dir: no static-RSA suite (no forward secrecy; Go's rsaKexCiphers)", async () => {
    const dir = await rsaCertDir();
    const wh = await startTestWebhook({ "tls-min-version": "1.2", "cert-dir": dir });
    try {
      await expectSuites(
        wh,
        ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA"],
        ["AES128-SHA", "AES256-SHA", "AES128-GCM-SHA256", "AES256-SHA256", "AES128-CCM", "ARIA128-GCM-SHA256", "ECDHE-RSA-AES128-SHA256", "ECDHE-RSA-AES256-SHA384", "ECDHE-ARIA128-GCM-SHA256"],
      );
    } finally {
      await wh.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("WEBHOOK_TLS_MAX_VERSION, WEBHOOK_TLS_CIPHER_SUITES, WEBHOOK_TLS_CURVE_PREFERENCES (knative.dev/pkg network/tls)", () => {
  async function withWebhook(settings: Record<string, string>, body: (wh: TestWebhook) => Promise<void>): Promise<void> {
    const wh = await startTestWebhook(settings);
    try {
      await body(wh);
    } finally {
      await wh.stop();
    }
  }

  it("WEBHOOK_TLS_MAX_VERSION=1.2 refuses a TLS 1.3-only client and answers TLS 1.2", async () => {
    await withWebhook({ "tls-min-version": "1.2", "tls-max-version": "1.2" }, async (wh) => {
      await expect(handshake(wh, { minVersion: "TLSv1.3" })).rejects.toThrow(/version|alert/i);
      expect((await handshake(wh, {})).protocol).toBe("TLSv1.2");
      const r = await httpsCall(wh.port, wh.ca, { body: JSON.stringify(serviceReview()) });
      expect(r.status).toBe(200);
    });
  });

  it("WEBHOOK_TLS_CIPHER_SUITES limits TLS 1.2 to the named suites and leaves TLS 1.3 alone", async () => {
    await withWebhook({ "tls-min-version": "1.2", "tls-cipher-suites": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256" }, async (wh) => {
      await expect(handshake(wh, { maxVersion: "TLSv1.2", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" })).rejects.toThrow(/handshake|alert|cipher/i);
      expect(await handshake(wh, { maxVersion: "TLSv1.2" })).toMatchObject({ protocol: "TLSv1.2", cipher: "ECDHE-ECDSA-AES256-GCM-SHA384" });
      // TLS 1.3 suites are not configurable in Go: naming only TLS_AES_128_GCM_SHA256 does not keep a client to it.
      expect(await handshake(wh, { ciphers: "TLS_CHACHA20_POLY1305_SHA256" })).toMatchObject({ protocol: "TLSv1.3", cipher: "TLS_CHACHA20_POLY1305_SHA256" });
    });
  });

  it("WEBHOOK_TLS_CIPHER_SUITES with only TLS 1.3 suites leaves no TLS 1.2 suite, as in Go", async () => {
    await withWebhook({ "tls-min-version": "1.2", "tls-cipher-suites": "TLS_AES_128_GCM_SHA256" }, async (wh) => {
      await expect(handshake(wh, { maxVersion: "TLSv1.2" })).rejects.toThrow(/version|alert|handshake/i);
      expect((await handshake(wh, {})).protocol).toBe("TLSv1.3");
    });
  });

  it("WEBHOOK_TLS_CURVE_PREFERENCES limits the key exchange to the named curves", async () => {
    await withWebhook({ "tls-curve-preferences": "CurveP384" }, async (wh) => {
      await expect(handshake(wh, { ecdhCurve: "X25519:P-256" })).rejects.toThrow(/alert|handshake|group|curve/i);
      expect(await handshake(wh, {})).toMatchObject({ protocol: "TLSv1.3", group: "secp384r1" });
    });
  });

  it.each([
    [{ "tls-min-version": "1.3", "tls-max-version": "1.2" }, "TLS minimum version (0x304) is greater than maximum version (0x303)"],
    [{ "tls-max-version": "1.4" }, 'invalid WEBHOOK_TLS_MAX_VERSION "1.4": unsupported TLS version "1.4": must be "1.2" or "1.3"'],
    [{ "tls-cipher-suites": "TLS_RSA_WITH_RC4_128_SHA" }, 'invalid WEBHOOK_TLS_CIPHER_SUITES: unknown cipher suite "TLS_RSA_WITH_RC4_128_SHA"'],
    [{ "tls-curve-preferences": "P-224" }, 'invalid WEBHOOK_TLS_CURVE_PREFERENCES: unknown curve "P-224"'],
  ])("refuses %j at startup with Knative's message", async (settings, message) => {
    await expect(startTestWebhook(settings)).rejects.toThrow(message);
  });

  it("X25519MLKEM768 starts only where Node's OpenSSL has it, and otherwise says so", async () => {
    const settings = { "tls-curve-preferences": "X25519MLKEM768,X25519" };
    if (opensslHasGroup("X25519MLKEM768")) {
      await withWebhook(settings, async (wh) => expect((await handshake(wh, {})).protocol).toBe("TLSv1.3"));
    } else {
      await expect(startTestWebhook(settings)).rejects.toThrow(`WEBHOOK_TLS_CURVE_PREFERENCES: curve "X25519MLKEM768" is not available in this Node.js's OpenSSL ${process.versions.openssl}`);
    }
  });
});

describe("--client-ca: only clients with a certificate from those CAs are answered", () => {
  let wh: TestWebhook;
  let dir: string;
  let apiServer: { cert: string; key: string };
  let stranger: { cert: string; key: string };
  const names = { commonName: "kube-apiserver", dnsNames: ["kube-apiserver"], notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) };
  beforeAll(async () => {
    // A self-signed certificate with clientAuth is its own CA: the API server's identity here, issued on the
    // issuer's thread as the build issues.
    const issuer: CertificateIssuer = threadIssuer();
    [apiServer, stranger] = await Promise.all([issuer.createCa(names), issuer.createCa({ ...names, commonName: "stranger" })]);
    await issuer.close();
    dir = await mkdtemp(join(tmpdir(), "duckbill-client-ca-"));
    await writeFile(join(dir, "client-ca.crt"), apiServer.cert);
    wh = await startTestWebhook({ "client-ca": join(dir, "client-ca.crt") });
  });
  afterAll(async () => {
    await wh.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers an AdmissionReview from a client with a certificate signed by a --client-ca CA", async () => {
    const r = await httpsCall(wh.port, wh.ca, { body: JSON.stringify(serviceReview()), tls: { cert: apiServer.cert, key: apiServer.key } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toHaveProperty("response.uid");
  });

  it.each([
    ["no client certificate", undefined],
    ["a certificate from another CA", "stranger"],
  ] as const)("answers 403 with a reason to a client with %s", async (_what, who) => {
    const tls = who === undefined ? {} : { cert: stranger.cert, key: stranger.key };
    for (const path of ["/defaulting", "/resource-validation", "/config-validation", "/other"]) {
      const r = await httpsCall(wh.port, wh.ca, { path, body: JSON.stringify(serviceReview()), tls });
      expect(r.status, path).toBe(403);
      expect(r.body).toBe("a client certificate signed by a CA of --client-ca is required (the API server's, from its admission configuration)\n");
    }
  });

  it("still answers kubelet probes without a client certificate", async () => {
    const r = await httpsCall(wh.port, wh.ca, { method: "GET", headers: { "user-agent": "kube-probe/1.30" } });
    expect(r.status).toBe(200);
  });

  it.each([
    ["a missing file", "/nonexistent/ca.crt", /--client-ca \(DUCKBILL_CLIENT_CA\) must be a readable file/],
    ["a file without certificates", "tls.key", /--client-ca \(DUCKBILL_CLIENT_CA\) must hold PEM certificates/],
  ])("refuses to start with %s", async (_what, file, message) => {
    const path = file.startsWith("/") ? file : join(wh.certDir, file);
    await expect(startTestWebhook({ "client-ca": path })).rejects.toThrow(message);
  });
});
