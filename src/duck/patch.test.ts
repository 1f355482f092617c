import { describe, expect, it } from "vitest";
import { applyPatch } from "../../test/conformance/json-patch.js";
import { KResource, type Condition } from "./kresource.js";
import { createPatch } from "./patch.js";
import { readAs } from "./read.js";

describe("createPatch", () => {
  it("escapes ~ and / in member names (RFC 6901)", () => {
    const before = { metadata: { annotations: { "a/b": "1", "c~d": "2" } } };
    const after = { metadata: { annotations: { "a/b": "x", "c~d": "y", "e~/f": "z" } } };
    const ops = createPatch(before, after);
    expect(ops).toEqual(
      expect.arrayContaining([
        { op: "replace", path: "/metadata/annotations/a~1b", value: "x" },
        { op: "replace", path: "/metadata/annotations/c~0d", value: "y" },
        { op: "add", path: "/metadata/annotations/e~0~1f", value: "z" },
      ]),
    );
    expect(ops).toHaveLength(3);
    expect(applyPatch(before, ops)).toEqual(after);
  });

  it("has no operation for members that did not change, and none at all for equal documents", () => {
    const doc = { a: { b: [1, { c: 2 }] }, d: "x" };
    expect(createPatch(doc, structuredClone(doc))).toEqual([]);
    expect(createPatch(doc, { a: { b: [1, { c: 3 }] }, d: "x" })).toEqual([{ op: "replace", path: "/a/b/1/c", value: 3 }]);
  });

  it("writes through a duck view without touching what the view leaves out", () => {
    const object = {
      apiVersion: "example.dev/v1",
      kind: "Widget",
      metadata: { name: "w", managedFields: [{ manager: "kubectl" }] },
      spec: { size: 3 },
      status: { phase: "Up", conditions: [{ type: "Ready", status: "False", vendorDetail: { retries: 2 } }] },
    };
    const before = readAs(object, KResource);
    if (!before.ok) throw new Error(before.error);
    const after = structuredClone(before.view);
    const ready = after.status!.conditions![0] as Condition;
    ready.status = "True";
    after.status!.observedGeneration = 4;
    const ops = createPatch(before.view, after);
    expect(ops).toEqual(
      expect.arrayContaining([
        { op: "replace", path: "/status/conditions/0/status", value: "True" },
        { op: "add", path: "/status/observedGeneration", value: 4 },
      ]),
    );
    expect(ops).toHaveLength(2);
    // Applied to the full object with the API server's strict rules: everything outside the view survives.
    expect(applyPatch(object, ops)).toEqual({
      ...object,
      status: { phase: "Up", observedGeneration: 4, conditions: [{ type: "Ready", status: "True", vendorDetail: { retries: 2 } }] },
    });
  });

  it("adds a whole member when the object does not have it, so `add` always finds its parent", () => {
    const object = { metadata: { name: "w" }, spec: { size: 1 } };
    const before = readAs(object, KResource);
    if (!before.ok) throw new Error(before.error);
    const ops = createPatch(before.view, { ...before.view, status: { conditions: [{ type: "Ready", status: "Unknown" }] } });
    expect(ops).toEqual([{ op: "add", path: "/status", value: { conditions: [{ type: "Ready", status: "Unknown" }] } }]);
    expect(applyPatch(object, ops)).toEqual({ ...object, status: { conditions: [{ type: "Ready", status: "Unknown" }] } });
  });
});
