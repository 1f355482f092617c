import { describe, expect, it } from "vitest";
import { KNATIVE_KINDS } from "../serving/kinds.js";
import { generationalKeys, generationalWebhookKinds, generationPatch, kindToResource, nextGeneration, parseGenerationalKinds, withGeneration } from "./generation.js";

describe("parseGenerationalKinds", () => {
  it.each([
    { value: "", kinds: [] },
    { value: "  ", kinds: [] },
    { value: "example.dev/v1/Widget", kinds: [{ group: "example.dev", version: "v1", kind: "Widget" }] },
    {
      value: " example.dev/v1/Widget , serving.knative.dev/v1/Service,example.dev/v1/Widget",
      kinds: [
        { group: "example.dev", version: "v1", kind: "Widget" },
        { group: "serving.knative.dev", version: "v1", kind: "Service" },
      ],
    },
    { value: "apps.example.dev/v1beta2/Gadget", kinds: [{ group: "apps.example.dev", version: "v1beta2", kind: "Gadget" }] },
  ])("parses $value", ({ value, kinds }) => {
    expect(parseGenerationalKinds(value)).toEqual(kinds);
  });

  it.each([
    { value: "Widget", error: 'invalid generational kind "Widget": must be group/version/Kind, e.g. example.dev/v1/Widget' },
    { value: "example.dev/Widget", error: 'invalid generational kind "example.dev/Widget": must be group/version/Kind, e.g. example.dev/v1/Widget' },
    { value: "example.dev/v1/Widget/x", error: 'invalid generational kind "example.dev/v1/Widget/x": must be group/version/Kind, e.g. example.dev/v1/Widget' },
    {
      value: "example.dev/v1/Widget,,example.dev/v1/Gadget",
      error: 'invalid generational kind "": must be group/version/Kind, e.g. example.dev/v1/Widget (empty entry in the list)',
    },
    { value: "/v1/Pod", error: 'invalid generational kind "/v1/Pod": group must not be empty (core kinds have no spec.generation to maintain)' },
    {
      value: "Example.dev/v1/Widget",
      error:
        "invalid generational kind \"Example.dev/v1/Widget\": group a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    },
    { value: "example.dev//Widget", error: 'invalid generational kind "example.dev//Widget": version must not be empty' },
    {
      value: "example.dev/1/Widget",
      error:
        "invalid generational kind \"example.dev/1/Widget\": version a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    },
    { value: "example.dev/v1/", error: 'invalid generational kind "example.dev/v1/": Kind must not be empty' },
  ])("rejects $value", ({ value, error }) => {
    expect(() => parseGenerationalKinds(value)).toThrow(error);
  });

  it("rejects a Kind that is not a DNS-1035 label when lower-cased", () => {
    expect(() => parseGenerationalKinds("example.dev/v1/Wid_get")).toThrow(/^invalid generational kind "example.dev\/v1\/Wid_get": Kind must be a DNS-1035 label when lower-cased: /);
  });

  it("keys the kinds as the admission request's kind is formatted", () => {
    expect([...generationalKeys(parseGenerationalKinds("example.dev/v1/Widget"))]).toEqual(["example.dev/v1, Kind=Widget"]);
  });
});

describe("kindToResource", () => {
  it.each([
    ["Widget", "widgets"],
    ["Policy", "policies"],
    ["Ingress", "ingresses"],
    ["Endpoints", "endpoints"],
    ["ServerlessService", "serverlessservices"],
  ])("%s → %s", (kind, resource) => {
    expect(kindToResource(kind)).toBe(resource);
  });
});

describe("generationalWebhookKinds", () => {
  it("adds the kinds Knative does not register, with their plural, and leaves Knative's own out", () => {
    const kinds = parseGenerationalKinds("example.dev/v1/Widget,serving.knative.dev/v1/Service,example.dev/v1/Policy");
    expect(generationalWebhookKinds(kinds, KNATIVE_KINDS)).toEqual([
      { gvk: { group: "example.dev", version: "v1", kind: "Widget" }, plural: "widgets" },
      { gvk: { group: "example.dev", version: "v1", kind: "Policy" }, plural: "policies" },
    ]);
  });
});

describe("nextGeneration", () => {
  const spec = { size: 3, template: { image: "a", ports: [80] } };
  it.each([
    { name: "create: 1", old: undefined, newSpec: spec, sub: "", want: 1 },
    { name: "create ignores the client's generation", old: undefined, newSpec: { ...spec, generation: 9 }, sub: "", want: 1 },
    { name: "spec change: old + 1", old: { generation: 4, spec }, newSpec: { ...spec, size: 4 }, sub: "", want: 5 },
    { name: "nested spec change: old + 1", old: { generation: 4, spec }, newSpec: { ...spec, template: { image: "b", ports: [80] } }, sub: "", want: 5 },
    { name: "same spec (metadata-only change): old value", old: { generation: 4, spec }, newSpec: spec, sub: "", want: 4 },
    { name: "client-supplied generation alone is no change", old: { generation: 4, spec: { ...spec, generation: 4 } }, newSpec: { ...spec, generation: 40 }, sub: "", want: 4 },
    { name: "client cannot reset: generation removed", old: { generation: 4, spec: { ...spec, generation: 4 } }, newSpec: spec, sub: "", want: 4 },
    {
      name: "reordered keys are no change",
      old: { generation: 4, spec },
      newSpec: { template: { ports: [80], image: "a" }, size: 3 },
      sub: "",
      want: 4,
    },
    { name: "empty vs absent members are no change", old: { generation: 4, spec }, newSpec: { ...spec, extra: {}, list: [], gone: null }, sub: "", want: 4 },
    { name: "status update never bumps", old: { generation: 4, spec }, newSpec: { ...spec, size: 9 }, sub: "status", want: 4 },
    { name: "old object without generation, spec changed: 1", old: { generation: undefined, spec }, newSpec: { ...spec, size: 4 }, sub: "", want: 1 },
    { name: "old object without generation, spec unchanged: stays absent", old: { generation: undefined, spec }, newSpec: spec, sub: "", want: undefined },
  ])("$name", ({ old, newSpec, sub, want }) => {
    expect(nextGeneration(old, newSpec, sub)).toBe(want);
  });
});

describe("generationPatch", () => {
  it.each([
    { name: "adds the member", view: { spec: {} }, target: 1, ops: [{ op: "add", path: "/spec/generation", value: 1 }] },
    { name: "adds spec when the object has none", view: {}, target: 1, ops: [{ op: "add", path: "/spec", value: { generation: 1 } }] },
    { name: "replaces a null spec", view: { spec: null }, target: 1, ops: [{ op: "replace", path: "/spec", value: { generation: 1 } }] },
    { name: "replaces another value", view: { spec: { generation: 7 } }, target: 3, ops: [{ op: "replace", path: "/spec/generation", value: 3 }] },
    { name: "removes a value the old object did not have", view: { spec: { generation: 7 } }, target: undefined, ops: [{ op: "remove", path: "/spec/generation" }] },
    { name: "nothing when it already holds the target", view: { spec: { generation: 3 } }, target: 3, ops: [] },
    { name: "nothing when absent stays absent", view: { spec: { generation: null } }, target: undefined, ops: [] },
  ])("$name", ({ view, target, ops }) => {
    expect(generationPatch(view, target)).toEqual(ops);
  });

  it("leaves the view it is given alone", () => {
    const view = { spec: { generation: 7 } };
    withGeneration(view, 8);
    withGeneration(view, undefined);
    expect(view).toEqual({ spec: { generation: 7 } });
  });
});
