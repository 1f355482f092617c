import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deny, encodeReviewAnswer, toAdmissionResponse, type Decision } from "./response.js";

/** What answerReview wrote before encodeReviewAnswer: the generic encoding. */
function stringified(kind: string, apiVersion: string, decision: Decision): string {
  const out: Record<string, unknown> = {};
  if (kind !== "") out.kind = kind;
  if (apiVersion !== "") out.apiVersion = apiVersion;
  out.response = toAdmissionResponse("u", decision);
  return JSON.stringify(out);
}

describe("encodeReviewAnswer", () => {
  it("writes what JSON.stringify writes for the answers Knative gives", () => {
    const cases: ReadonlyArray<readonly [string, string, Decision]> = [
      ["AdmissionReview", "admission.k8s.io/v1", { allowed: true }],
      ["", "", { allowed: true }],
      ["AdmissionReview", "", { allowed: true, patch: [{ op: "add", path: "/a", value: 1 }] }],
      ["", "admission.k8s.io/v1beta1", deny('validation failed: "<x>" & \u2028 \n\t\\')],
      ["Admission\u00e9Review", "v1", { allowed: true, warnings: ["a\nb", "c"], patch: [] }],
      ["k", "v", deny("m", ["w\u0000", "\ud800"])],
      ["\u{1f600}\u007f", "\udc00x\ud83d", { allowed: true, warnings: ["\u{1f600}", 'q"', "\\", "\u001f", "\u2029"] }],
    ];
    for (const [kind, apiVersion, d] of cases) {
      expect(encodeReviewAnswer(kind, apiVersion, toAdmissionResponse("u", d))).toBe(stringified(kind, apiVersion, d));
    }
  });

  it("writes what JSON.stringify writes for any strings, patch and warnings", () => {
    // Characters JSON.stringify escapes or keeps: controls, quote, backslash, lone and paired surrogates.
    const tricky = fc.oneof(fc.constantFrom("\u0000", "\u001f", "\u007f", '"', "\\", "\ud800", "\udfff", "\u{1f600}", "\u2028", "a"), fc.string({ unit: "binary", maxLength: 1 }));
    const decision = fc.record(
      {
        allowed: fc.boolean(),
        message: fc.string({ unit: "binary" }),
        patch: fc.array(fc.record({ op: fc.constant("add"), path: fc.string({ unit: "binary" }), value: fc.jsonValue() })),
        warnings: fc.array(fc.string({ unit: tricky })),
      },
      { requiredKeys: ["allowed"] },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: tricky }), fc.string({ unit: tricky }), decision, (kind, apiVersion, uid, d) => {
        const response = toAdmissionResponse(uid, d as Decision);
        const out: Record<string, unknown> = {};
        if (kind !== "") out.kind = kind;
        if (apiVersion !== "") out.apiVersion = apiVersion;
        out.response = response;
        expect(encodeReviewAnswer(kind, apiVersion, response)).toBe(JSON.stringify(out));
      }),
      { numRuns: 500 },
    );
  });
});
