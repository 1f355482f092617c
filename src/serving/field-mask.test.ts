import { describe, expect, it } from "vitest";
import { goTypeOf } from "../apis/knative-types.js";
import { checkDisallowedFields, defineMask, isGoZero } from "./field-mask.js";

describe("isGoZero: Go's zero values in marshalled form", () => {
  const cases: ReadonlyArray<readonly [name: string, typeExpr: string, value: unknown, zero: boolean, semantic?: boolean]> = [
    ["absent string", "string", undefined, true],
    ["empty string", "string", "", true],
    ["non-empty string", "string", "x", false],
    ["false bool", "bool", false, true],
    ["true bool", "bool", true, false],
    ["zero int", "int64", 0, true],
    ["negative int", "int64", -1, false],
    ["nil pointer", "*bool", null, true],
    ["pointer to false", "*bool", false, false],
    ["pointer to an empty struct", "*core.Lifecycle", {}, false],
    ["empty slice (non-nil)", "[]string", [], false],
    ["empty slice, semantically", "[]string", [], true, true],
    ["empty map (non-nil)", "map[string]string", {}, false],
    ["empty map, semantically", "map[string]string", {}, true, true],
    ["struct value with zero fields", "core.ResourceRequirements", {}, true],
    ["struct value with an empty map, semantically", "core.ResourceRequirements", { limits: {} }, true, true],
    ["struct value with a set field", "core.ContainerPort", { containerPort: 80 }, false],
    ["struct value ignores unknown keys", "core.ContainerPort", { bogus: 1 }, true],
    ["integer IntOrString 0", "intstr.IntOrString", 0, true],
    ["string IntOrString, even empty", "intstr.IntOrString", "", false],
    ["quantity present", "resource.Quantity", "0", false],
  ];
  it.each(cases.map((c) => ({ name: c[0], typeExpr: c[1], value: c[2], zero: c[3], semantic: c[4] ?? false })))(
    "$name",
    ({ typeExpr, value, zero, semantic }) => {
      expect(isGoZero(value, goTypeOf(typeExpr), semantic)).toBe(zero);
    },
  );
});

describe("checkDisallowedFields", () => {
  const containerMask = defineMask("core.Container", ["name", "image"]);

  it("names nothing when only copied or unset fields are present", () => {
    expect(checkDisallowedFields({ name: "a", image: "b", stdin: false, command: undefined }, containerMask)).toBeUndefined();
  });

  it("names each set field the mask does not copy, sorted byte-wise", () => {
    const err = checkDisallowedFields({ tty: true, lifecycle: {}, name: "x", volumeDevices: [], args: ["a"] }, containerMask);
    expect(err?.error()).toBe("must not set the field(s): args, lifecycle, tty, volumeDevices");
  });

  it("ignores keys that are not fields of the Go type", () => {
    expect(checkDisallowedFields({ name: "x", containerConcurrency: 5 }, containerMask)).toBeUndefined();
  });

  it("reports fields of an embedded struct once, by the empty name", () => {
    const mask = defineMask("core.Probe", [], { inlineFrom: "core.ProbeHandler" });
    const err = checkDisallowedFields({ httpGet: {}, tcpSocket: {}, periodSeconds: 3 }, mask);
    expect(err?.paths).toEqual(["", "periodSeconds"]);
    expect(err?.viaField("readinessProbe").error()).toBe("must not set the field(s): readinessProbe, readinessProbe.periodSeconds");
  });

  it("lets a conditional copy decide on the value", () => {
    const mask = defineMask("core.SecurityContext", [], { copiedIf: (field, value) => field === "privileged" && value === false });
    expect(checkDisallowedFields({ privileged: false }, mask)).toBeUndefined();
    expect(checkDisallowedFields({ privileged: true }, mask)?.error()).toBe("must not set the field(s): privileged");
  });

  it("accepts an absent object", () => {
    expect(checkDisallowedFields(undefined, containerMask)).toBeUndefined();
  });
});

describe("defineMask", () => {
  it("refuses a field the Go type does not have", () => {
    expect(() => defineMask("core.Container", ["nmae"])).toThrow(/core.Container has no field nmae/);
  });
});
