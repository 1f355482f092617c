import { describe, expect, it } from "vitest";
import { isEmptyJson, jsonSemanticEqual, jsonSemanticEqualExcept, jsonEqual } from "./json-equal.js";

describe("jsonSemanticEqual", () => {
  it.each([
    { name: "member order", a: { x: 1, y: { p: [1, 2], q: "s" } }, b: { y: { q: "s", p: [1, 2] }, x: 1 } },
    { name: "null and absent", a: { x: null }, b: {} },
    { name: "[] and absent", a: { x: [] }, b: {} },
    { name: "{} and absent", a: { x: {} }, b: {} },
    { name: "[] and null", a: { x: [] }, b: { x: null } },
    { name: "objects of empty members and absent", a: { x: { y: { z: null, w: [] } } }, b: {} },
    { name: "empty array elements", a: [null, {}], b: [{}, null] },
    { name: "top-level empties", a: undefined, b: {} },
  ])("treats as equal: $name", ({ a, b }) => {
    expect(jsonSemanticEqual(a, b)).toBe(true);
    expect(jsonSemanticEqual(b, a)).toBe(true);
  });

  it.each([
    { name: "different scalars", a: { x: 1 }, b: { x: 2 } },
    { name: "empty string vs absent", a: { x: "" }, b: {} },
    { name: "zero vs absent", a: { x: 0 }, b: {} },
    { name: "false vs absent", a: { x: false }, b: {} },
    { name: "array order", a: [1, 2], b: [2, 1] },
    { name: "array length", a: [1], b: [1, null] },
    { name: "string vs number", a: { x: "1" }, b: { x: 1 } },
    { name: "extra non-empty member", a: { x: 1 }, b: { x: 1, y: { z: 1 } } },
    { name: "array vs object", a: { x: [1] }, b: { x: { 0: 1 } } },
  ])("tells apart: $name", ({ a, b }) => {
    expect(jsonSemanticEqual(a, b)).toBe(false);
    expect(jsonSemanticEqual(b, a)).toBe(false);
  });

  it("does not overflow the stack on deep nesting", () => {
    let a: unknown = 1;
    let b: unknown = 1;
    for (let i = 0; i < 50_000; i++) {
      a = { n: a };
      b = [b];
    }
    expect(jsonSemanticEqual(a, rebuiltChain(a))).toBe(true);
    expect(jsonSemanticEqual(a, b)).toBe(false);
    expect(isEmptyJson(a)).toBe(false);
  });
});

/** An equal copy of a `{n: {n: ...}}` chain, built without recursion. */
function rebuiltChain(v: unknown): unknown {
  let depth = 0;
  let cur = v;
  while (typeof cur === "object" && cur !== null) {
    cur = (cur as { n: unknown }).n;
    depth++;
  }
  let out: unknown = cur;
  for (let i = 0; i < depth; i++) out = { n: out };
  return out;
}

describe("jsonSemanticEqualExcept", () => {
  it.each([
    { name: "only the ignored member differs", a: { generation: 1, x: 1 }, b: { generation: 2, x: 1 }, equal: true },
    { name: "ignored member absent on one side", a: { x: 1 }, b: { generation: 2, x: 1 }, equal: true },
    { name: "absent spec vs a spec holding only the ignored member", a: undefined, b: { generation: 2 }, equal: true },
    { name: "null spec vs a spec holding only the ignored member", a: null, b: { generation: 2, x: [] }, equal: true },
    { name: "another member differs", a: { generation: 1, x: 1 }, b: { generation: 1, x: 2 }, equal: false },
    { name: "absent spec vs a spec with content", a: undefined, b: { generation: 2, x: 1 }, equal: false },
    { name: "a nested member of the same name still counts", a: { inner: { generation: 1 } }, b: { inner: { generation: 2 } }, equal: false },
  ])("$name", ({ a, b, equal }) => {
    expect(jsonSemanticEqualExcept(a, b, "generation")).toBe(equal);
    expect(jsonSemanticEqualExcept(b, a, "generation")).toBe(equal);
  });
});

describe("jsonEqual (strict, as JSON.stringify writes the values)", () => {
  it("ignores member order and undefined members, and tells null from absent", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual("", 0)).toBe(false);
    expect(jsonEqual(9223372036854775807n, 9223372036854775807n)).toBe(true);
  });

  it("compares documents nested 200,000 deep without overflowing the stack", () => {
    const deep = (n: number, leaf: unknown): unknown => {
      let v = leaf;
      for (let i = 0; i < n; i++) v = { a: [v] };
      return v;
    };
    expect(jsonEqual(deep(200_000, 1), deep(200_000, 1))).toBe(true);
    expect(jsonEqual(deep(200_000, 1), deep(200_000, 2))).toBe(false);
  });
});
