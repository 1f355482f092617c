import { describe, expect, it } from "vitest";
import { copyJsonValue, hasOwnKeys, setOwn } from "./json-value.js";

describe("copyJsonValue", () => {
  it("copies without sharing and keeps __proto__ as an own key", () => {
    const input = JSON.parse('{"a": [1, {"b": null}], "__proto__": {"x": 1}}') as Record<string, unknown>;
    const copy = copyJsonValue(input) as Record<string, unknown>;
    expect(copy).toEqual(input);
    expect(copy.a).not.toBe(input.a);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["a", "__proto__"]);
  });

  it("copies nesting far deeper than the call stack allows", () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    let copy = copyJsonValue(deep);
    let depth = 0;
    while (Array.isArray(copy) && copy.length > 0) {
      copy = copy[0];
      depth++;
    }
    expect(depth).toBe(200_000);
  });

  it("applies Go's string decoding when asked", () => {
    expect(copyJsonValue({ "k\ud800": ["v\udc00"] }, true)).toEqual({ "k\ufffd": ["v\ufffd"] });
  });
});

describe("setOwn and hasOwnKeys", () => {
  it("set __proto__ as data and see it as a key", () => {
    const o: Record<string, unknown> = {};
    expect(hasOwnKeys(o)).toBe(false);
    setOwn(o, "__proto__", 1);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(hasOwnKeys(o)).toBe(true);
  });
});
