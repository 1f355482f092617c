import { describe, expect, it } from "vitest";
import { goTypeOf } from "../apis/knative-types.js";
import { semanticEqual } from "./semantic-equal.js";

const SERVICE_SPEC = goTypeOf("serving.ServiceSpec");
const CONTAINER = goTypeOf("core.Container");

function service(container: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { template: { metadata: {}, spec: { containers: [{ image: "x", ...container }] } }, ...extra };
}

describe("semanticEqual with Go types", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["identical specs", service({}), service({}), true],
    ["quantities with the same value in different notations", service({ resources: { limits: { memory: "1Gi", cpu: "1" } } }), service({ resources: { limits: { memory: "1073741824", cpu: "1000m" } } }), true],
    ["quantities with different values", service({ resources: { limits: { cpu: "1" } } }), service({ resources: { limits: { cpu: "2" } } }), false],
    ["a nil and an empty map", service({ resources: {} }), service({ resources: { limits: {} } }), true],
    ["a nil and an empty slice", service({}, { traffic: [] }), service({}), true],
    ["a null and an empty non-omitempty slice", { template: { spec: { containers: null } } }, { template: { spec: { containers: [] } } }, true],
    ["a nil pointer and a pointer to an empty struct", service({}), service({ securityContext: {} }), false],
    ["an absent value field and its zero value", service({}), service({ name: "" }), true],
    ["a nil *int64 and a pointer to zero", service({}, { traffic: [{ percent: 0 }] }), service({}, { traffic: [{}] }), false],
    ["a different string", service({ image: "a" }), service({ image: "b" }), false],
    ["slices of different length", service({ args: ["a"] }), service({ args: ["a", "b"] }), false],
    ["maps with different keys", service({ resources: { limits: { cpu: "1" } } }), service({ resources: { limits: { memory: "1" } } }), false],
    ["an absent struct and the zero struct", undefined, {}, true],
  ])("%s", (_name, a, b, want) => {
    expect(semanticEqual(a, b, SERVICE_SPEC)).toBe(want);
    expect(semanticEqual(b, a, SERVICE_SPEC)).toBe(want);
  });

  it("compares IntOrString by kind and value", () => {
    const probe = (port: unknown): unknown => ({ readinessProbe: { tcpSocket: { port } } });
    expect(semanticEqual(probe(8080), probe(8080), CONTAINER)).toBe(true);
    expect(semanticEqual(probe(8080), probe("8080"), CONTAINER)).toBe(false);
  });

  it("compares a nil quantity pointer only with nil", () => {
    const volume = (emptyDir: unknown): unknown => ({ volumes: [{ name: "v", emptyDir }] });
    const revisionSpec = goTypeOf("serving.RevisionSpec");
    expect(semanticEqual(volume({}), volume({ sizeLimit: "0" }), revisionSpec)).toBe(false);
    expect(semanticEqual(volume({ sizeLimit: "1Gi" }), volume({ sizeLimit: "1024Mi" }), revisionSpec)).toBe(true);
  });
});

describe("semanticEqual without a type", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["equal trees", { a: [1, { b: "c" }] }, { a: [1, { b: "c" }] }, true],
    ["null, absent, [] and {} as one empty value", { a: null, b: [], c: {} }, {}, true],
    ["different scalars", { a: 1 }, { a: 2 }, false],
    ["an empty and a non-empty value", { a: [] }, { a: [0] }, false],
    ["arrays of different length", [1], [1, 2], false],
  ])("%s", (_name, a, b, want) => {
    expect(semanticEqual(a, b)).toBe(want);
    expect(semanticEqual(b, a)).toBe(want);
  });
});

describe("semanticEqual without a type on deeply nested values", () => {
  function nested(depth: number, inner: unknown): unknown {
    let v = inner;
    for (let i = 0; i < depth; i++) v = { a: [v] };
    return v;
  }

  it("compares 10,000 levels without overflowing the stack", () => {
    expect(semanticEqual(nested(10000, { x: 1 }), nested(10000, { x: 1, y: {} }))).toBe(true);
    expect(semanticEqual(nested(10000, { x: 1 }), nested(10000, { x: 2 }))).toBe(false);
  });
});
