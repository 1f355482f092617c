import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
