import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeGo } from "./decode.js";
import { hasGoStrings, markGoStrings } from "./go-strings.js";
import { configMapType, goTypeOf, knativeTypes } from "../../../apis/knative-types.js";
import { decodeFirstJsonValue } from "./stream.js";

// decodeGo first decodes without tracking the field path and starts over with it on the first type error;
// objects that decodeFirstJsonValue produced skip the per-string lone-surrogate check. Neither may change
// an answer.

const service = knativeTypes.get("serving.knative.dev/v1, Kind=Service");
if (service === undefined) throw new Error("Service type missing");

function parsedBody(text: string): unknown {
  const r = decodeFirstJsonValue(Buffer.from(text, "utf8"));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe("errors found without path tracking", () => {
  it.each([
    [
      "a base64 error saved before a type error wins",
      '{"binaryData": {"a": "!!"}, "data": {"a": 1}}',
      "illegal base64 data at input byte 0",
    ],
    [
      "a type error saved before a base64 error wins, with its path",
      '{"data": {"a": 1}, "binaryData": {"a": "!!"}}',
      "json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
    ],
    [
      "a custom unmarshaler's error after a type error wins",
      '{"metadata": {"generation": "x", "creationTimestamp": "bad"}}',
      'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"',
    ],
    [
      "a custom unmarshaler's type error names its path",
      '{"metadata": {"name": "a", "creationTimestamp": 5}}',
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
    ],
  ])("%s", (_name, text, error) => {
    expect(decodeGo(configMapType, parsedBody(text))).toEqual({ ok: false, error });
  });

  it("a later decode of a clean object is not affected by an earlier failed one", () => {
    expect(decodeGo(service, { metadata: { generation: "1" } }).ok).toBe(false);
    expect(decodeGo(service, { metadata: { name: "a" } })).toEqual(decodeGo(service, { metadata: { name: "a" } }));
    expect(decodeGo(service, { metadata: { name: "a" }, spec: 5 })).toEqual({
      ok: false,
      error: "json: cannot unmarshal number into Go struct field Service.spec of type v1.ServiceSpec",
    });
  });
});

describe("markGoStrings", () => {
  it("marks objects and arrays, ignores primitives", () => {
    const o = {};
    expect(hasGoStrings(o)).toBe(false);
    markGoStrings(o);
    markGoStrings("x");
    markGoStrings(null);
    expect(hasGoStrings(o)).toBe(true);
    expect(hasGoStrings("x")).toBe(false);
  });

  /** Strings with the odd lone surrogate, which JSON.stringify writes as `\udXXX` escapes. */
  const text = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 6 }),
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.constantFrom("\ud800", "a\udc00", "\ud83d\ude00", "\ud83d", "x\udfff\ud800y", "name", "Name", "labels"),
  );
  const value = fc.letrec((tie) => ({
    any: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.boolean(), fc.constant(null), tie("object"), fc.array(tie("any"), { maxLength: 3 })),
    object: fc.dictionary(fc.oneof(text, fc.constantFrom("name", "labels", "annotations", "finalizers", "generation", "spec", "template", "containers", "image", "env", "value", "metadata", "ſpec")), tie("any"), {
      maxKeys: 5,
    }),
  }));
  /**
   * Objects shaped loosely like Services, so that strings land in typed fields, maps and lists. Not raw JSON
   * (managedFields): Go keeps its escapes as they were, which neither JSON.parse nor the body decoder can show.
   */
  const serviceLike = fc.record(
    {
      metadata: fc.record({ name: text, labels: fc.dictionary(text, text, { maxKeys: 3 }), annotations: value.object }, { requiredKeys: [] }),
      spec: fc.record({ template: fc.record({ spec: fc.record({ containers: fc.array(value.object, { maxLength: 2 }) }, { requiredKeys: [] }) }, { requiredKeys: [] }) }, { requiredKeys: [] }),
      status: value.any,
    },
    { requiredKeys: [] },
  );

  it("decoding a parsed body gives the same answer with or without the mark, and the same as Go's string decoding", () => {
    fc.assert(
      fc.property(fc.oneof(serviceLike, value.any), (v) => {
        const body = JSON.stringify(v);
        const marked = parsedBody(body);
        markGoStrings(marked);
        const unmarked = parsedBody(body);
        // JSON.parse keeps lone surrogates; decodeGo's own goString check turns them into U+FFFD.
        const plain = JSON.parse(body) as unknown;
        const want = decodeGo(service, plain);
        expect(decodeGo(service, unmarked)).toEqual(want);
        expect(decodeGo(service, marked)).toEqual(want);
        expect(decodeGo(goTypeOf("core.PodSpec"), marked)).toEqual(decodeGo(goTypeOf("core.PodSpec"), JSON.parse(body)));
      }),
      { numRuns: 500, seed: 20_261_125 },
    );
  });

  /**
   * Found by the property above with a random seed: Go decodes every member of an object in order and keeps the
   * first type error even when a later member with the same key (after U+FFFD replacement of lone surrogates, or
   * literally the same key) overwrites the value. Go: "json: cannot unmarshal array into Go struct field
   * ObjectMeta.metadata.annotations of type string". The body parser records every occurrence (repeated-keys.ts).
   */
  it.each([
    ["lone surrogates that become the same key", '{"metadata":{"annotations":{"\\ud800":[],"\\ud83d":""}}}'],
    ["a literally repeated key", '{"metadata":{"annotations":{"a":[],"a":""}}}'],
  ])("reports Go's type error for an earlier duplicate member (%s)", (_what, body) => {
    expect(decodeGo(service, parsedBody(body))).toMatchObject({ ok: false });
  });
});
