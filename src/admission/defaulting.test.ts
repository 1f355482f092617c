import { describe, expect, it } from "vitest";
import { applyPatch } from "../../test/conformance/json-patch.js";
import type { GroupVersionKind } from "../apis/gvk.js";
import { knativeConfigMapValidators } from "../config/validators.js";
import { defaultSnapshot } from "../config/snapshot.js";
import { knativeRegistry } from "../serving/kinds.js";
import { MAX_CONTAINERS } from "../serving/podspec.js";
import { MAX_PATCH_OPERATIONS } from "../duck/patch.js";
import { admitDefaulting, patchTooLargeMessage } from "./defaulting.js";
import type { AdmissionDeps } from "./deps.js";
import { generationalKeys, parseGenerationalKinds } from "./generation.js";
import type { AdmissionRequest } from "./review.js";

const WIDGET: GroupVersionKind = { group: "example.dev", version: "v1", kind: "Widget" };
const SERVICE: GroupVersionKind = { group: "serving.knative.dev", version: "v1", kind: "Service" };

const plainDeps: AdmissionDeps = { kinds: knativeRegistry(), configMaps: knativeConfigMapValidators() };
const deps: AdmissionDeps = { ...plainDeps, generational: generationalKeys(parseGenerationalKinds("example.dev/v1/Widget,serving.knative.dev/v1/Service")) };
const env = { config: defaultSnapshot() };

function request(kind: GroupVersionKind, operation: string, object: unknown, oldObject?: unknown, subResource = ""): AdmissionRequest {
  return {
    uid: "0d3c5b8e-1111-2222-3333-444455556666",
    kind,
    resource: { group: kind.group, version: kind.version, resource: `${kind.kind.toLowerCase()}s` },
    subResource,
    name: "hello",
    namespace: "default",
    operation,
    userInfo: { username: "alice@example.com", uid: "1", groups: [], extra: {} },
    object,
    oldObject,
    dryRun: false,
  };
}

/** What the API server stores after applying the answer (strict RFC 6902, as compare.py). */
function admitted(req: AdmissionRequest, with_: AdmissionDeps = deps): Record<string, unknown> {
  const d = admitDefaulting(req, with_, env);
  if (!d.allowed) throw new Error(d.message);
  return applyPatch(req.object, d.patch) as Record<string, unknown>;
}

function generationAfter(req: AdmissionRequest): unknown {
  return (admitted(req).spec as Record<string, unknown> | undefined)?.generation;
}

const widget = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: "example.dev/v1",
  kind: "Widget",
  metadata: { name: "hello", namespace: "default" },
  spec,
  ...extra,
});

const service = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: "serving.knative.dev/v1",
  kind: "Service",
  metadata: { name: "hello", namespace: "default", annotations: { "serving.knative.dev/creator": "alice@example.com", "serving.knative.dev/lastModifier": "alice@example.com" } },
  spec,
  ...extra,
});

const widgetSpec = { size: 3, template: { image: "a", ports: [80] } };
const serviceSpec = { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go:latest", env: [{ name: "A", value: "1" }] }] } } };

/** One table for both paths: a kind Duckbill only knows as a duck, and a Knative kind (round trip + defaults). */
const kinds = [
  {
    name: "a non-Knative kind",
    gvk: WIDGET,
    make: widget,
    spec: widgetSpec,
    changed: { ...widgetSpec, size: 4 },
    reordered: { template: { ports: [80], image: "a" }, size: 3 },
  },
  {
    name: "a Knative kind",
    gvk: SERVICE,
    make: service,
    spec: serviceSpec,
    changed: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go:v2", env: [{ name: "A", value: "1" }] }] } } },
    reordered: { template: { spec: { containers: [{ env: [{ value: "1", name: "A" }], image: "ghcr.io/knative/helloworld-go:latest" }] } } },
  },
];

describe.each(kinds)("generation bumping for $name", ({ gvk, make, spec, changed, reordered }) => {
  const stored = make({ ...spec, generation: 3 }, { status: { observedGeneration: 3 } });
  const withLabel = (o: Record<string, unknown>): Record<string, unknown> => ({ ...o, metadata: { ...(o.metadata as object), labels: { team: "blue" } } });

  it.each([
    { name: "create: 1", req: () => request(gvk, "CREATE", make(spec)), want: 1 },
    { name: "create with a client-supplied generation: 1", req: () => request(gvk, "CREATE", make({ ...spec, generation: 7 })), want: 1 },
    { name: "spec change: old + 1", req: () => request(gvk, "UPDATE", make({ ...changed, generation: 3 }), stored), want: 4 },
    { name: "spec change without the member: old + 1", req: () => request(gvk, "UPDATE", make(changed), stored), want: 4 },
    { name: "metadata-only change: old value", req: () => request(gvk, "UPDATE", withLabel(make({ ...spec, generation: 3 })), stored), want: 3 },
    {
      name: "status change on the main resource: old value",
      req: () => request(gvk, "UPDATE", make({ ...spec, generation: 3 }, { status: { observedGeneration: 4 } }), stored),
      want: 3,
    },
    { name: "status subresource update, even with a spec change: old value", req: () => request(gvk, "UPDATE", make({ ...changed, generation: 3 }), stored, "status"), want: 3 },
    { name: "client-supplied bump: old value", req: () => request(gvk, "UPDATE", make({ ...spec, generation: 99 }), stored), want: 3 },
    { name: "client-supplied reset: old value", req: () => request(gvk, "UPDATE", make({ ...spec, generation: 1 }), stored), want: 3 },
    { name: "client removes the member: old value", req: () => request(gvk, "UPDATE", make(spec), stored), want: 3 },
    { name: "reordered keys: old value", req: () => request(gvk, "UPDATE", make({ ...reordered, generation: 3 }), stored), want: 3 },
  ])("$name", ({ req, want }) => {
    expect(generationAfter(req())).toBe(want);
  });

  it("is idempotent under reinvocation: the admitted object gets no further patch", () => {
    const first = request(gvk, "UPDATE", make(changed), stored);
    const again = request(gvk, "UPDATE", admitted(first), stored);
    expect(admitDefaulting(again, deps, env)).toEqual({ allowed: true, patch: [] });
  });

  it.each([
    { name: "new", req: () => request(gvk, "CREATE", make({ ...spec, generation: "7" })), error: "mutation failed: cannot decode incoming new object: spec.generation: must be integer" },
    { name: "old", req: () => request(gvk, "UPDATE", make(spec), make({ ...spec, generation: -2 })), error: "mutation failed: cannot decode incoming old object: spec.generation: must be >= 0" },
  ])("denies a $name object whose spec.generation is not a generation", ({ req, error }) => {
    expect(admitDefaulting(req(), deps, env)).toEqual({ allowed: false, message: error });
  });
});

describe("/defaulting of a generational kind Duckbill has no Go type for", () => {
  it("touches nothing but spec.generation: unknown members, odd values and status all survive", () => {
    const object = widget({ size: "3", nested: { deep: [null, {}, { x: 1 }] }, weird: "\u{1F986}" }, { status: { phase: "Up" }, unknownTop: [1, 2] });
    const d = admitDefaulting(request(WIDGET, "CREATE", object), deps, env);
    expect(d).toEqual({ allowed: true, patch: [{ op: "add", path: "/spec/generation", value: 1 }] });
  });

  it("adds the spec when the object has none", () => {
    const object = { apiVersion: "example.dev/v1", kind: "Widget", metadata: { name: "w" } };
    expect(admitDefaulting(request(WIDGET, "CREATE", object), deps, env)).toEqual({ allowed: true, patch: [{ op: "add", path: "/spec", value: { generation: 1 } }] });
  });

  it("denies an object that is not a JSON object", () => {
    expect(admitDefaulting(request(WIDGET, "CREATE", ["not", "an", "object"]), deps, env)).toEqual({
      allowed: false,
      message: "mutation failed: cannot decode incoming new object: must be object",
    });
  });

  it("denies a missing object", () => {
    expect(admitDefaulting(request(WIDGET, "CREATE", undefined), deps, env)).toEqual({ allowed: false, message: "mutation failed: the new object may not be nil" });
  });

  it("lets DELETE through without a patch", () => {
    expect(admitDefaulting(request(WIDGET, "DELETE", undefined, widget(widgetSpec)), deps, env)).toEqual({ allowed: true });
  });

  it("is still an unhandled kind when not named generational", () => {
    expect(admitDefaulting(request(WIDGET, "CREATE", widget(widgetSpec)), plainDeps, env)).toEqual({
      allowed: false,
      message: "mutation failed: unhandled kind: example.dev/v1, Kind=Widget",
    });
  });
});

describe("/defaulting of Knative kinds not named generational (the default)", () => {
  it("keeps Knative's behaviour: spec.generation is unknown to the Go types and dropped by the round trip", () => {
    const object = service({ ...serviceSpec, generation: 5 });
    const out = admitted(request(SERVICE, "CREATE", object), plainDeps);
    expect((out.spec as Record<string, unknown>).generation).toBeUndefined();
  });

  it("answers exactly as without the option when other kinds are generational", () => {
    const onlyWidget: AdmissionDeps = { ...plainDeps, generational: generationalKeys([WIDGET]) };
    const req = request(SERVICE, "CREATE", service(serviceSpec));
    expect(admitDefaulting(req, onlyWidget, env)).toEqual(admitDefaulting(req, plainDeps, env));
  });
});

describe("/defaulting of a pod spec over MAX_CONTAINERS (validation rejects it whatever it holds)", () => {
  const REVISION: GroupVersionKind = { group: "serving.knative.dev", version: "v1", kind: "Revision" };
  const CONFIGURATION: GroupVersionKind = { group: "serving.knative.dev", version: "v1", kind: "Configuration" };
  const empties = (n: number): unknown[] => Array.from({ length: n }, () => ({}));
  const cases: Array<[string, GroupVersionKind, (podSpec: Record<string, unknown>) => Record<string, unknown>]> = [
    ["Service", SERVICE, (podSpec) => ({ apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "hello", namespace: "default" }, spec: { template: { spec: podSpec } } })],
    ["Configuration", CONFIGURATION, (podSpec) => ({ apiVersion: "serving.knative.dev/v1", kind: "Configuration", metadata: { name: "hello", namespace: "default" }, spec: { template: { spec: podSpec } } })],
    ["Revision", REVISION, (podSpec) => ({ apiVersion: "serving.knative.dev/v1", kind: "Revision", metadata: { name: "hello", namespace: "default" }, spec: podSpec })],
  ];

  it.each(cases)("lets a %s with 257 containers or init containers through unchanged, and defaults one with 256", (_name, kind, make) => {
    for (const field of ["containers", "initContainers"]) {
      const over = make({ containers: [{ image: "x" }], [field]: empties(MAX_CONTAINERS + 1) });
      expect(admitDefaulting(request(kind, "CREATE", over), plainDeps, env)).toEqual({ allowed: true });
    }
    const at = admitted(request(kind, "CREATE", make({ containers: empties(MAX_CONTAINERS) })), plainDeps);
    expect(JSON.stringify(at)).toContain('"name":"user-container-255"');
  });

  it("answers 300,000 containers (a 900 KB Service) without a patch", () => {
    const d = admitDefaulting(request(SERVICE, "CREATE", cases[0]?.[2]({ containers: empties(300_000) })), plainDeps, env);
    expect(d).toEqual({ allowed: true });
  });
});

describe("a patch past MAX_PATCH_OPERATIONS", () => {
  const service = (envEntries: number): unknown => ({
    apiVersion: "serving.knative.dev/v1",
    kind: "Service",
    metadata: { name: "hello", namespace: "default" },
    spec: { template: { spec: { containers: [{ image: "x", env: Array.from({ length: envEntries }, () => ({})) }] } } },
  });
  it("is refused with a message saying why, instead of being built", () => {
    const d = admitDefaulting(request(SERVICE, "CREATE", service(MAX_PATCH_OPERATIONS)), plainDeps, env);
    expect(d).toEqual({ allowed: false, message: `mutation failed: ${patchTooLargeMessage()}` });
  });
  it("is answered as Knative does below it (each empty env entry gains name: \"\")", () => {
    const d = admitDefaulting(request(SERVICE, "CREATE", service(1000)), plainDeps, env);
    expect(d.allowed).toBe(true);
    expect(d.patch?.filter((op) => (op as { path: string }).path.endsWith("/name") && (op as { path: string }).path.includes("/env/")).length).toBe(1000);
  });
});
