import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goTypeOf } from "../apis/knative-types.js";
import { PROFILES } from "../config/profile.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { decodeOptionsOf } from "./decode-options.js";
import { decodeFirstJsonValue } from "../go/encoding/json/stream.js";
import { decodeAdmissionReview } from "./review.js";

const GO_1_23 = PROFILES["1.17"];
const GO_1_26 = PROFILES["1.24"];

describe("decodeAdmissionReview", () => {
  it("decodes every occurrence of a repeated key in document order, as encoding/json does", () => {
    // What Go's json.Unmarshal into admissionv1.AdmissionReview keeps: structs merge, the first type error wins,
    // a RawExtension keeps the last non-null occurrence, a null *AdmissionRequest drops what came before.
    const parse = (text: string): unknown => (decodeFirstJsonValue(text) as { value: unknown }).value;
    const r = decodeAdmissionReview(
      parse(
        '{"request":{"uid":"u1","userInfo":{"username":"alice","groups":["a","b"]},"kind":{"group":"g"},"object":{"a":1}},' +
          '"request":{"userInfo":{"uid":"x","groups":["c"]},"kind":{"kind":"K"},"object":{"b":2},"object":null,"oldObject":null}}',
      ),
    );
    expect(r.ok && r.review.request).toMatchObject({
      uid: "u1",
      kind: { group: "g", version: "", kind: "K" },
      userInfo: { username: "alice", uid: "x", groups: ["c"] },
      object: { b: 2 },
      oldObject: undefined,
    });
    expect(decodeAdmissionReview(parse('{"request":{"uid":"u1"},"request":null,"request":{"name":"n"}}'))).toMatchObject({ ok: true, review: { request: { uid: "", name: "n" } } });
    expect(decodeAdmissionReview(parse('{"kind":1,"kind":"AdmissionReview","apiVersion":[],"apiVersion":"v1"}'), GO_1_23)).toEqual({
      ok: false,
      error: "json: cannot unmarshal number into Go struct field AdmissionReview.kind of type string",
    });
  });

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
    expect(decodeAdmissionReview(body, GO_1_23)).toEqual({ ok: false, error: text });
  });

  // Knative's answers (reference/, `could not decode body:` + the text): the fields Duckbill does not use are
  // type-checked too.
  it.each([
    [{ request: { requestResource: 600 } }, "json: cannot unmarshal number into Go struct field AdmissionRequest.request.requestResource of type v1.GroupVersionResource"],
    [{ request: { requestKind: { group: 5 } } }, "json: cannot unmarshal number into Go struct field GroupVersionKind.request.requestKind.group of type string"],
    [{ request: { requestSubResource: 5 } }, "json: cannot unmarshal number into Go struct field AdmissionRequest.request.requestSubResource of type string"],
    [{ request: { userInfo: { extra: 5 } } }, "json: cannot unmarshal number into Go struct field UserInfo.request.userInfo.extra of type map[string]v1.ExtraValue"],
    [{ request: { userInfo: { extra: { a: 5 } } } }, "json: cannot unmarshal number into Go struct field UserInfo.request.userInfo.extra of type v1.ExtraValue"],
    [{ request: { userInfo: { extra: { a: [5] } } } }, "json: cannot unmarshal number into Go struct field UserInfo.request.userInfo.extra of type string"],
    [{ request: {}, response: 5 }, "json: cannot unmarshal number into Go struct field AdmissionReview.response of type v1.AdmissionResponse"],
    [{ request: {}, response: { status: { code: 1.5 } } }, "json: cannot unmarshal number 1.5 into Go struct field Status.response.status.code of type int32"],
    [{ request: {}, response: { status: { metadata: { remainingItemCount: "x" } } } }, "json: cannot unmarshal string into Go struct field ListMeta.response.status.metadata.remainingItemCount of type int64"],
    [{ request: {}, response: { patch: "e3=0" } }, "illegal base64 data at input byte 2"],
    [{ request: {}, response: { patch: [1, 300] } }, "json: cannot unmarshal number 300 into Go struct field AdmissionResponse.response.patch of type uint8"],
  ])("type-checks every field of admissionv1.AdmissionReview, used or not: %j", (body, text) => {
    expect(decodeAdmissionReview(body, GO_1_23)).toEqual({ ok: false, error: text });
    expect(decodeAdmissionReview(body, GO_1_26)).toEqual({ ok: false, error: text });
  });

  it("accepts any JSON in the RawExtension fields (object, oldObject, options)", () => {
    const r = decodeAdmissionReview({ request: { object: 5, oldObject: "x", options: [1] } });
    expect(r.ok && r.review.request).toMatchObject({ object: 5, oldObject: "x" });
  });

  it.each([
    [{ request: { uid: 2147483647, userInfo: 100000000000 } }, "json: cannot unmarshal number into Go struct field AdmissionRequest.request.uid of type types.UID"],
    [{ request: { dryRun: "x", kind: 5 } }, "json: cannot unmarshal string into Go struct field AdmissionRequest.request.dryRun of type bool"],
    [{ request: { kind: 5 }, apiVersion: 5 }, "json: cannot unmarshal number into Go struct field AdmissionRequest.request.kind of type v1.GroupVersionKind"],
    [{ response: { uid: 1 }, request: { uid: 2 } }, "json: cannot unmarshal number into Go struct field AdmissionResponse.response.uid of type types.UID"],
  ])("reports the first type mismatch in document order, as encoding/json does: %j", (body, text) => {
    expect(decodeAdmissionReview(body, GO_1_23)).toEqual({ ok: false, error: text });
  });

  it.each([
    [{ apiVersion: 5, request: {} }, "json: cannot unmarshal number into Go struct field AdmissionReview.TypeMeta.apiVersion of type string"],
    [{ kind: 5 }, "json: cannot unmarshal number into Go struct field AdmissionReview.TypeMeta.kind of type string"],
    [{ request: {}, response: { status: { kind: 5 } } }, "json: cannot unmarshal number into Go struct field Status.response.status.TypeMeta.kind of type string"],
  ])("names the embedded TypeMeta in field paths as Go 1.24 and later do (Knative 1.23, 1.24): %j", (body, text) => {
    expect(decodeAdmissionReview(body, GO_1_26)).toEqual({ ok: false, error: text });
    expect(decodeAdmissionReview(body, GO_1_23)).toEqual({ ok: false, error: text.replace(".TypeMeta.", ".") });
  });

  it("type-checks response.status.metadata.shardInfo only where apimachinery has it (v0.36: Knative 1.24)", () => {
    const body = { request: {}, response: { status: { metadata: { shardInfo: 5 } } } };
    expect(decodeAdmissionReview(body, GO_1_26)).toEqual({ ok: false, error: "json: cannot unmarshal number into Go struct field ListMeta.response.status.metadata.shardInfo of type v1.ShardInfo" });
    expect(decodeAdmissionReview(body, PROFILES["1.23"]).ok).toBe(true);
    expect(decodeAdmissionReview(body, GO_1_23).ok).toBe(true);
  });

  it("merges members whose names differ only in case, in document order, as encoding/json does", () => {
    const r = decodeAdmissionReview({ request: { kind: { group: "serving.knative.dev", kind: "Route" }, KIND: { version: "v1", kind: "Service" } } });
    expect(r.ok && r.review.request?.kind).toEqual({ group: "serving.knative.dev", version: "v1", kind: "Service" });
  });

  it("reads userInfo.extra", () => {
    const r = decodeAdmissionReview({ request: { userInfo: { extra: { scopes: ["a", null], none: null } } } });
    expect(r.ok && { ...r.review.request?.userInfo.extra }).toEqual({ scopes: ["a", ""], none: [] });
  });

  it("keeps __proto__ members as data", () => {
    const r = decodeAdmissionReview(JSON.parse('{"request":{"uid":"p","__proto__":{"polluted":true}}}'));
    expect(r.ok && r.review.request?.uid).toBe("p");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

// The hand-written decoder against the generic one (go/encoding/json/decode.ts) on the AdmissionReview's Go type
// (apis/admission-types.ts): the same error for any input, else the same request.
describe("decodeAdmissionReview and decodeGo on admissionv1.AdmissionReview", () => {
  const NAMES = ["kind", "apiVersion", "request", "response", "uid", "resource", "subResource", "requestKind", "requestResource", "requestSubResource", "name", "namespace", "operation", "userInfo", "object", "oldObject", "dryRun", "options", "group", "version", "username", "groups", "extra", "status", "code", "patch", "allowed", "warnings", "metadata", "KIND", "Uid", "USERINFO", "x"];
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)), fc.array(tie("value"), { maxLength: 3 }), tie("object")),
    object: fc.dictionary(fc.constantFrom(...NAMES), tie("value"), { maxKeys: 5 }),
  }));
  // Mostly well-typed members, each sometimes anything: requests that decode, and mismatches anywhere.
  const or = <T,>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 40, arbitrary: good }, { weight: 1, arbitrary: value });
  const str = or(fc.constantFrom("", "a", "Service", "v1"));
  const strings = or(fc.array(or(fc.constantFrom("a", "b")), { maxLength: 2 }));
  const gvk = or(fc.record({ group: str, version: str, kind: str, KIND: str }, { requiredKeys: [] }));
  const gvr = or(fc.record({ group: str, version: str, resource: str }, { requiredKeys: [] }));
  const userInfo = or(fc.record({ username: str, uid: str, groups: strings, extra: or(fc.dictionary(fc.constantFrom("a", "b"), strings, { maxKeys: 2 })), UID: str }, { requiredKeys: [] }));
  const request = or(
    fc.record(
      { uid: str, kind: gvk, resource: gvr, subResource: str, requestKind: gvk, requestResource: gvr, requestSubResource: str, name: str, namespace: str, operation: str, userInfo, object: value, oldObject: value, dryRun: or(fc.boolean()), options: value, Kind: gvk, OPERATION: str },
      { requiredKeys: [] },
    ),
  );
  const response = or(fc.record({ uid: str, allowed: or(fc.boolean()), status: or(fc.record({ code: or(fc.integer({ min: 0, max: 999 })), message: str, kind: str }, { requiredKeys: [] })), patch: or(fc.constantFrom("e30=", "")), warnings: strings }, { requiredKeys: [] }));
  const reviews = fc.oneof({ weight: 9, arbitrary: fc.record({ apiVersion: str, kind: str, request, response, Request: request }, { requiredKeys: [] }) }, { weight: 1, arbitrary: value });

  interface Generic {
    kind?: string;
    apiVersion?: string;
    request?: Record<string, unknown> & { userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[] | null> } };
  }

  it.each(["1.17", "1.24"] as const)("agree for Knative %s", (version) => {
    const profile = PROFILES[version];
    const type = goTypeOf("admission.AdmissionReview");
    const seen = { errors: 0, requests: 0 };
    fc.assert(
      fc.property(reviews, (body) => {
        const generic = decodeGo(type, body, decodeOptionsOf(profile));
        const hand = decodeAdmissionReview(body, profile);
        if (!generic.ok) {
          seen.errors++;
          expect(hand).toEqual({ ok: false, error: generic.error });
          return;
        }
        expect(hand.ok).toBe(true);
        if (!hand.ok) return;
        const g = generic.value as Generic;
        expect({ apiVersion: hand.review.apiVersion, kind: hand.review.kind }).toEqual({ apiVersion: g.apiVersion ?? "", kind: g.kind ?? "" });
        const r = g.request;
        if (r === undefined) {
          expect(hand.review.request).toBeUndefined();
          return;
        }
        const extra = Object.fromEntries(Object.entries(r.userInfo.extra ?? {}).map(([k, v]) => [k, v ?? []]));
        const { username = "", uid = "", groups = [] } = r.userInfo;
        const want = {
          uid: r.uid,
          kind: r.kind,
          resource: r.resource,
          subResource: r.subResource ?? "",
          name: r.name ?? "",
          namespace: r.namespace ?? "",
          operation: r.operation,
          userInfo: { username, uid, groups, extra },
          object: r.object ?? undefined,
          oldObject: r.oldObject ?? undefined,
          dryRun: r.dryRun ?? false,
        };
        const got = hand.review.request;
        expect({ ...got, userInfo: { ...got?.userInfo, extra: { ...got?.userInfo.extra } } }).toEqual(want);
        seen.requests++;
      }),
      { seed: 20_261_126, numRuns: 3000 },
    );
    // Both outcomes are exercised, so that the property cannot pass on one alone.
    expect(seen.errors).toBeGreaterThan(500);
    expect(seen.requests).toBeGreaterThan(500);
  });
});
