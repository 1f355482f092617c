import fc from "fast-check";
import jsonpatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../../test/conformance/json-patch.js";
import { diffJson, escapePathComponent } from "./json-diff.js";

// diffJson must write the patch fast-json-patch's compare writes: the same operations in the same order,
// serialised to the same bytes (AdmissionResponse.patch is base64 of that JSON).

/** Few, partly awkward member names, so that random documents share members and differ inside them. */
const key = fc.constantFrom("a", "b", "c", "0", "1", "~", "/", "a~b/c", "~1", "__proto__", "toJSON", "");
const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom("", "x", "y"));

const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("object"), tie("array")),
  object: fc.dictionary(key, tie("value"), { maxKeys: 5 }).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>),
  array: fc.array(tie("value"), { maxLength: 5 }),
}));
const root = fc.oneof(json.object, json.array);

/** A variant of `doc` that keeps some subtrees (by reference, as a defaulted object keeps what it did not touch). */
function variant(doc: unknown, edits: readonly number[], at = { i: 0 }): unknown {
  const e = edits[at.i++ % Math.max(edits.length, 1)] ?? 0;
  if (Array.isArray(doc)) {
    if (e === 1) return doc;
    const out = doc.map((v) => variant(v, edits, at));
    if (e === 2) out.pop();
    if (e === 3) out.push("added", { n: 1 });
    return out;
  }
  if (typeof doc === "object" && doc !== null) {
    if (e === 1) return doc;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(doc)) {
      // defineProperty keeps a `__proto__` member an own data member, as JSON.parse makes it.
      if (!(e === 2 && k.length === 1)) Object.defineProperty(out, k, { value: variant(v, edits, at), enumerable: true, writable: true, configurable: true });
    }
    if (e === 3) out["new/~"] = { deep: [1, 2] };
    if (e === 4) out.a = [null];
    return out;
  }
  return e === 5 ? "changed" : e === 6 ? { was: doc } : doc;
}

function expectSameAsCompare(before: object, after: object): void {
  const frozenBefore = JSON.stringify(before);
  const frozenAfter = JSON.stringify(after);
  const ours = diffJson(before, after);
  const theirs = jsonpatch.compare(before, after);
  expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
  expect(ours).toEqual(theirs);
  // Neither document is touched.
  expect(JSON.stringify(before)).toBe(frozenBefore);
  expect(JSON.stringify(after)).toBe(frozenAfter);
  // And the patch does what it says (compare's answer for roots of different kinds does not).
  if (Array.isArray(before) === Array.isArray(after)) {
    // The API server's strict rules, with `__proto__` as a plain member.
    expect(applyPatch(JSON.parse(frozenBefore), JSON.parse(JSON.stringify(ours)))).toEqual(JSON.parse(frozenAfter));
  }
}

describe("diffJson is fast-json-patch's compare without the copies", () => {
  it("on random pairs of documents", () => {
    fc.assert(fc.property(root, root, (a, b) => expectSameAsCompare(a, b)), { numRuns: 2000, seed: 20_261_125 });
  });

  it("on documents and their variants", () => {
    fc.assert(
      fc.property(root, fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 12 }), (doc, edits) => {
        expectSameAsCompare(doc, variant(doc, edits) as object);
        expectSameAsCompare(variant(doc, edits) as object, doc);
      }),
      { numRuns: 2000, seed: 20_261_126 },
    );
  });

  it.each<[string, object, object]>([
    ["equal documents", { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }],
    ["array tails removed from the end", { a: [1, 2, 3, 4] }, { a: [1] }],
    ["array grown", { a: [1] }, { a: [1, 2, [3]] }],
    ["escaped member names", { "a/b": 1, "c~d": { "~/": 2 } }, { "a/b": 2, "c~d": { "~/": 3 }, "e~/f": 4 }],
    ["an object replaced by an array and back", { a: { b: 1 }, c: [1] }, { a: [1], c: { d: 1 } }],
    ["a member set to undefined is removed", { a: 1, b: 2 }, { a: 1, b: undefined }],
    ["an undefined array element becomes null", { a: [1, 2] }, { a: [1, undefined] }],
    ["an undefined new member is not added", { a: 1 }, { a: 1, b: undefined }],
    ["an array root replaced by an object root", [1, 2], { a: 1 }],
    ["an object root replaced by an array root", { a: 1, b: 2 }, [1]],
    ["null and objects", { a: null, b: {} }, { a: {}, b: null }],
  ])("%s", (_name, before, after) => {
    expectSameAsCompare(before, after);
  });

  it("keeps `after`'s members as operation values instead of copying them", () => {
    const added = { deep: { list: [1, 2] } };
    const ops = diffJson({ a: 1 }, { a: 1, b: added });
    expect(ops).toEqual([{ op: "add", path: "/b", value: added }]);
    expect(ops[0]?.value).toBe(added);
  });
});

describe("diffJson on deeply nested documents", () => {
  /** `depth` objects nested under "a", around `inner`, built without recursion. */
  function nested(depth: number, inner: unknown): Record<string, unknown> {
    let v = inner;
    for (let i = 0; i < depth; i++) v = { a: v };
    return v as Record<string, unknown>;
  }

  it("finds changes 10,000 levels down in the order compare does, without overflowing the stack", () => {
    const path = "/a".repeat(10000);
    expect(diffJson(nested(10000, { x: 1, y: [1] }), nested(10000, { x: 2, z: true }))).toEqual([
      { op: "remove", path: path + "/y" },
      { op: "replace", path: path + "/x", value: 2 },
      { op: "add", path: path + "/z", value: true },
    ]);
    expect(diffJson(nested(10000, [1]), nested(10000, [1]))).toEqual([]);
  });
});

describe("escapePathComponent", () => {
  it.each([
    ["plain", "plain"],
    ["a/b", "a~1b"],
    ["a~b", "a~0b"],
    ["~1", "~01"],
    ["/~", "~1~0"],
    ["", ""],
  ])("%j → %j", (raw, escaped) => {
    expect(escapePathComponent(raw)).toBe(escaped);
    expect(escapePathComponent(raw)).toBe(jsonpatch.escapePathComponent(raw));
  });
});

describe("diffJson with a bound on operations", () => {
  const before = { list: Array.from({ length: 50 }, () => ({})) };
  const after = { list: Array.from({ length: 50 }, () => ({ name: "" })) };
  it("returns the whole patch at the bound", () => {
    expect(diffJson(before, after, 50)).toEqual(diffJson(before, after));
    expect(diffJson(before, after, 50)?.length).toBe(50);
  });
  it("returns undefined one operation past it", () => {
    expect(diffJson(before, after, 49)).toBeUndefined();
  });
});
