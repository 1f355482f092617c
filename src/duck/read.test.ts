import { describe, expect, it } from "vitest";
import { Generational } from "./generational.js";
import { KResource } from "./kresource.js";
import { WithPod } from "./podspecable.js";
import { readAs } from "./read.js";

describe("readAs", () => {
  it("keeps only the members the duck names, at every level", () => {
    const object = {
      apiVersion: "example.dev/v1",
      kind: "Widget",
      unknownTop: 1,
      metadata: { name: "w", managedFields: [{ manager: "kubectl" }], labels: { a: "b" } },
      spec: { size: 3 },
      status: { observedGeneration: 2, phase: "Up", conditions: [{ type: "Ready", status: "True", extra: { x: 1 } }] },
    };
    const read = readAs(object, KResource);
    expect(read).toEqual({
      ok: true,
      view: {
        apiVersion: "example.dev/v1",
        kind: "Widget",
        metadata: { name: "w", labels: { a: "b" } },
        status: { observedGeneration: 2, conditions: [{ type: "Ready", status: "True" }] },
      },
    });
  });

  it("keeps presence: null stays null and absent stays absent", () => {
    const read = readAs({ metadata: null, status: { conditions: null } }, KResource);
    expect(read).toEqual({ ok: true, view: { metadata: null, status: { conditions: null } } });
  });

  it("carries open structs whole: a pod spec keeps the members the duck does not type", () => {
    const template = { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "i", env: [{ name: "A", value: "1" }] }], nodeName: "n" } };
    const read = readAs({ spec: { replicas: 2, template } }, WithPod);
    expect(read).toEqual({ ok: true, view: { spec: { template } } });
  });

  it("returns a fresh tree: changing the view leaves the object alone", () => {
    const object = { metadata: { labels: { a: "b" } }, status: { conditions: [{ type: "Ready" }] } };
    const read = readAs(object, KResource);
    if (!read.ok) throw new Error(read.error);
    read.view.metadata!.labels!.a = "changed";
    read.view.status!.conditions![0]!.type = "Changed";
    expect(object).toEqual({ metadata: { labels: { a: "b" } }, status: { conditions: [{ type: "Ready" }] } });
  });

  it("keeps a __proto__ member as data", () => {
    const object = JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}') as unknown;
    const read = readAs(object, KResource);
    if (!read.ok) throw new Error(read.error);
    expect(Object.keys(read.view.metadata!.labels!)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(read.view.metadata!.labels)).toBe(Object.prototype);
  });

  it.each([
    { object: "text", error: "must be object" },
    { object: [], error: "must be object" },
    { object: { spec: "x" }, error: "spec: must be object" },
    { object: { spec: { generation: "3" } }, error: "spec.generation: must be integer" },
    { object: { spec: { generation: 1.5 } }, error: "spec.generation: must be integer" },
    { object: { spec: { generation: -1 } }, error: "spec.generation: must be >= 0" },
    { object: { spec: { generation: 2 ** 60 } }, error: "spec.generation: must be <= 9007199254740991" },
    // Integers a request body carries exactly (go/encoding/json/json-bigint.ts): the same bounds, not "must be integer".
    { object: { spec: { generation: 9007199254740993n } }, error: "spec.generation: must be <= 9007199254740991" },
    { object: { spec: { generation: -9223372036854775808n } }, error: "spec.generation: must be >= 0" },
  ])("reports a value of the wrong type with its path: $error", ({ object, error }) => {
    expect(readAs(object, Generational)).toEqual({ ok: false, error });
  });

  it("keeps exactly read integers where the duck carries JSON whole", () => {
    const object = { spec: { selector: { n: 9223372036854775807n }, template: { spec: { terminationGracePeriodSeconds: 9007199254740993n, containers: [] } } } };
    expect(readAs(object, WithPod)).toEqual({ ok: true, view: object });
  });

  it("reports a map entry of the wrong type with the map's key", () => {
    expect(readAs({ metadata: { labels: { a: 1 } } }, KResource)).toEqual({ ok: false, error: "metadata.labels.a: must be string" });
  });

  it("does not judge what the duck does not read: Generational ignores metadata", () => {
    expect(readAs({ metadata: { labels: { a: 1 } }, spec: { generation: 2, size: "x" } }, Generational)).toEqual({ ok: true, view: { spec: { generation: 2 } } });
  });

  it("names array elements by index", () => {
    expect(readAs({ status: { conditions: [{ type: "Ready" }, { type: 7 }] } }, KResource)).toEqual({ ok: false, error: "status.conditions[1].type: must be string" });
  });

  it("accepts null for any member, as Go's decoder does", () => {
    expect(readAs({ spec: { generation: null } }, Generational).ok).toBe(true);
    expect(readAs({ metadata: { labels: { a: null } }, status: { conditions: [null, { type: null }] } }, KResource).ok).toBe(true);
  });
});
