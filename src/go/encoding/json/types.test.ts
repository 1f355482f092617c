import { PROFILES } from "../../../config/profile.js";
import { describe, expect, it } from "vitest";
import { GoTypeRegistry, type StructType } from "./types.js";
import { goTypeOf } from "../../../apis/knative-types.js";

function struct(t: ReturnType<typeof goTypeOf>): StructType {
  if (t.kind !== "struct") throw new Error(`${t.name} is not a struct`);
  return t;
}

describe("GoTypeRegistry", () => {
  const registry = new GoTypeRegistry(
    {
      "p.Outer": ["^ p.Inner", "name string", "^ p.Left", "^ p.Right"],
      "p.Inner": ["name int64", "deep string omitempty"],
      "p.Left": ["tie string", "only string"],
      "p.Right": ["tie string"],
      "p.Cases": ["abc string", "ABC string", "aBc string"],
      "p.Node": ["next *p.Node omitempty", "children []p.Node"],
    },
    { "p.Kind": "string", "p.Items": "[]p.Inner", "p.Labels": "map[p.Kind]string" },
    { p: "v9" },
  );

  it("promotes embedded fields; a shallower field hides a deeper one", () => {
    const outer = registry.struct("p.Outer");
    expect(outer.fields.map((f) => `${f.name} ${f.type.name}`)).toEqual(["deep string", "name string", "only string"]);
  });

  it("drops fields that clash at the same depth, as Go does", () => {
    expect(registry.struct("p.Outer").exact.has("tie")).toBe(false);
  });

  it("lets the first of several case-insensitive matches win", () => {
    const cases = registry.struct("p.Cases");
    expect(cases.folded.get("ABC")?.name).toBe("abc");
    expect([...cases.exact.keys()]).toEqual(["abc", "ABC", "aBc"]);
  });

  it("names types the way reflect.Type.String does", () => {
    expect(registry.type("p.Kind").name).toBe("v9.Kind");
    expect(registry.type("p.Items").name).toBe("v9.Items");
    expect(registry.type("[]p.Inner").name).toBe("[]v9.Inner");
    expect(registry.type("*p.Inner").name).toBe("*v9.Inner");
    expect(registry.type("map[p.Kind]string").name).toBe("map[v9.Kind]string");
    expect(registry.type("[]byte").name).toBe("[]uint8");
    expect(registry.type("interface{}").name).toBe("interface {}");
  });

  it("supports recursive types through pointers and slices", () => {
    const node = registry.struct("p.Node");
    const next = node.exact.get("next")?.type;
    expect(next?.kind === "ptr" && next.elem).toBe(node);
  });

  it("writes non-omitempty fields and never-empty struct fields", () => {
    expect(registry.struct("p.Node").alwaysEmitted.map((f) => f.name)).toEqual(["children"]);
  });

  it("rejects malformed tables", () => {
    const bad = new GoTypeRegistry({ "p.Bad": ["name string omitempty extra"], "p.Proto": ["constructor string"] }, {}, { p: "v1" });
    expect(() => bad.type("p.Bad")).toThrow(/bad field/);
    expect(() => bad.type("p.Proto")).toThrow(/unsafe field name/);
    expect(() => bad.type("q.Missing")).toThrow(/unknown type/);
  });
});

describe("the Kubernetes model (the union of the k8s.io/api releases the profiles build with)", () => {
  it("has every PodSpec field of k8s.io/api v0.31, and the later ones Knative 1.17's profile hides", () => {
    const podSpec = struct(goTypeOf("core.PodSpec"));
    const names = podSpec.fields.map((f) => f.name);
    expect(names).toContain("resourceClaims");
    expect(names).toContain("schedulingGates");
    expect(names).toContain("hostUsers");
    const later = PROFILES["1.17"].unknownK8sFields["core.PodSpec"] ?? [];
    // pod-level resources (v1.32), hostnameOverride (v1.34), workloadRef (v1.35), schedulingGroup (v1.36)
    expect(later).toEqual(["resources", "hostnameOverride", "workloadRef", "schedulingGroup"]);
    for (const name of later) expect(names).toContain(name);
    expect(names.filter((n) => !later.includes(n))).toHaveLength(39);
  });

  it("inlines PodSpec into RevisionSpec with Knative's own fields after it", () => {
    const names = struct(goTypeOf("serving.RevisionSpec")).fields.map((f) => f.name);
    expect(names.slice(0, 3)).toEqual(["volumes", "initContainers", "containers"]);
    expect(names.slice(-4)).toEqual(["containerConcurrency", "timeoutSeconds", "responseStartTimeoutSeconds", "idleTimeoutSeconds"]);
  });

  it("gives Service the fields of ConfigurationSpec and RouteSpec, and of all three status parts", () => {
    expect(struct(goTypeOf("serving.ServiceSpec")).fields.map((f) => f.name)).toEqual(["template", "traffic"]);
    expect(struct(goTypeOf("serving.ServiceStatus")).fields.map((f) => f.name)).toEqual([
      "observedGeneration",
      "conditions",
      "annotations",
      "latestReadyRevisionName",
      "latestCreatedRevisionName",
      "url",
      "address",
      "traffic",
    ]);
  });
});
