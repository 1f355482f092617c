import { describe, expect, it } from "vitest";
import { decodeAdmissionReview } from "./review.js";

describe("decodeAdmissionReview", () => {
  it("reads the request fields the pipelines use", () => {
    const r = decodeAdmissionReview({
      apiVersion: "admission.k8s.io/v1beta1",
      kind: "AdmissionReview",
      request: {
        uid: "u1",
        kind: { group: "serving.knative.dev", version: "v1", kind: "Service" },
        resource: { group: "serving.knative.dev", version: "v1", resource: "services" },
        subResource: "status",
        name: "hello",
        namespace: "default",
        operation: "UPDATE",
        userInfo: { username: "alice", uid: "x", groups: ["g1", "g2"] },
        object: { a: 1 },
        oldObject: null,
        dryRun: true,
        futureField: { ignored: true },
      },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.review.apiVersion).toBe("admission.k8s.io/v1beta1");
    const req = r.review.request!;
    expect(req.uid).toBe("u1");
    expect(req.kind).toEqual({ group: "serving.knative.dev", version: "v1", kind: "Service" });
    expect(req.subResource).toBe("status");
    expect(req.operation).toBe("UPDATE");
    expect(req.userInfo.username).toBe("alice");
    expect(req.userInfo.groups).toEqual(["g1", "g2"]);
    expect(req.object).toEqual({ a: 1 });
    expect(req.oldObject).toBeUndefined();
    expect(req.dryRun).toBe(true);
  });

  it("treats null members as zero values, as encoding/json does", () => {
    const r = decodeAdmissionReview({ request: { uid: null, kind: null, userInfo: null, dryRun: null } });
    expect(r.ok && r.review.request).toMatchObject({ uid: "", kind: { group: "", version: "", kind: "" }, dryRun: false });
  });

  it("matches member names case-insensitively, as encoding/json does", () => {
    const r = decodeAdmissionReview({ Request: { UID: "u2", Operation: "CREATE" } });
    expect(r.ok && r.review.request).toMatchObject({ uid: "u2", operation: "CREATE" });
  });

  it("has no request when the review has none", () => {
    const r = decodeAdmissionReview({ apiVersion: "admission.k8s.io/v1" });
    expect(r.ok && r.review.request).toBeUndefined();
  });

  it.each([
    ["string", "x", "json: cannot unmarshal string into Go value of type v1.AdmissionReview"],
    ["array", [1], "json: cannot unmarshal array into Go value of type v1.AdmissionReview"],
    ["number", 7, "json: cannot unmarshal number into Go value of type v1.AdmissionReview"],
    ["bool", true, "json: cannot unmarshal bool into Go value of type v1.AdmissionReview"],
  ])("rejects a top-level %s with Go's text", (_kind, body, text) => {
    expect(decodeAdmissionReview(body)).toEqual({ ok: false, error: text });
  });

  it.each([
    [{ request: "x" }, "json: cannot unmarshal string into Go struct field AdmissionReview.request of type v1.AdmissionRequest"],
    [{ request: { uid: 5 } }, "json: cannot unmarshal number into Go struct field AdmissionRequest.request.uid of type types.UID"],
    [{ request: { kind: { group: 1 } } }, "json: cannot unmarshal number into Go struct field GroupVersionKind.request.kind.group of type string"],
    [{ request: { dryRun: "yes" } }, "json: cannot unmarshal string into Go struct field AdmissionRequest.request.dryRun of type bool"],
    [{ request: { userInfo: { groups: "admins" } } }, "json: cannot unmarshal string into Go struct field UserInfo.request.userInfo.groups of type []string"],
    [{ apiVersion: 1 }, "json: cannot unmarshal number into Go struct field AdmissionReview.apiVersion of type string"],
  ])("reports a type mismatch inside the review with Go's field path: %j", (body, text) => {
    expect(decodeAdmissionReview(body)).toEqual({ ok: false, error: text });
  });

  it("keeps __proto__ members as data", () => {
    const r = decodeAdmissionReview(JSON.parse('{"request":{"uid":"p","__proto__":{"polluted":true}}}'));
    expect(r.ok && r.review.request?.uid).toBe("p");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
