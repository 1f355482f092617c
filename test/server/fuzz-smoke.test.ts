import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerHttp } from "../../src/admission/http.js";
import { defaultDeps } from "../../src/cli/main.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

const deps = defaultDeps();
const env = { config: defaultSnapshot() };
const paths = ["/defaulting", "/resource-validation", "/config-validation"] as const;

/** Bodies that are JSON-ish but mostly wrong: random JSON, random reviews with random members, raw bytes. */
const anyJson = fc.jsonValue({ maxDepth: 6 });
const randomReview = fc.record(
  {
    apiVersion: fc.oneof(fc.constant("admission.k8s.io/v1"), fc.constant("admission.k8s.io/v1beta1"), anyJson),
    kind: fc.oneof(fc.constant("AdmissionReview"), anyJson),
    request: fc.oneof(
      anyJson,
      fc.record(
        {
          uid: fc.oneof(fc.uuid(), anyJson),
          kind: fc.oneof(fc.constant({ group: "serving.knative.dev", version: "v1", kind: "Service" }), fc.constant({ group: "", version: "v1", kind: "ConfigMap" }), anyJson),
          operation: fc.oneof(fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT"), anyJson),
          subResource: fc.oneof(fc.constant("status"), anyJson),
          userInfo: anyJson,
          object: fc.oneof(fc.constant((serviceReview().request as { object: unknown }).object), anyJson),
          oldObject: anyJson,
          dryRun: anyJson,
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  randomReview.map((r) => JSON.stringify(r)),
  anyJson.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString("latin1")),
  randomReview.map((r) => JSON.stringify(r).slice(0, 40)),
);

function checkAnswer(status: number, text: string, sent: string): void {
  if (status === 200) {
    const review = JSON.parse(text) as { response: { uid: unknown; allowed: unknown } };
    expect(typeof review.response.uid).toBe("string");
    expect(typeof review.response.allowed).toBe("boolean");
    // The uid is echoed when the request had a string uid.
    try {
      const req = (JSON.parse(sent) as { request?: { uid?: unknown } }).request;
      if (typeof req?.uid === "string") expect(review.response.uid).toBe(req.uid);
    } catch {
      /* bodies that only Go's first-value decoding accepts */
    }
  } else {
    expect([400, 413, 415]).toContain(status);
    expect(text.trim().length).toBeGreaterThan(0);
  }
}

describe("smoke fuzz: random bodies never crash and always get a well-formed answer", () => {
  it("in process, a few thousand bodies on every path", async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom(...paths), async (b, path) => {
        const a = await answerHttp({ path, contentType: "application/json", body: b }, deps, env);
        checkAnswer(a.status, a.body, b);
      }),
      { seed: 20261122, numRuns: 3000 },
    );
  });

  describe("over HTTPS", () => {
    let wh: TestWebhook;
    beforeAll(async () => {
      wh = await startTestWebhook();
    });
    afterAll(async () => wh.stop());

    it("a few hundred bodies, and the server still answers afterwards", async () => {
      await fc.assert(
        fc.asyncProperty(body, fc.constantFrom(...paths), async (b, path) => {
          const r = await httpsCall(wh.port, wh.ca, { path, body: b });
          checkAnswer(r.status, r.body, b);
        }),
        { seed: 7, numRuns: 300 },
      );
      const ok = await httpsCall(wh.port, wh.ca, { body: JSON.stringify(serviceReview()) });
      expect(ok.status).toBe(200);
    });
  });
});
