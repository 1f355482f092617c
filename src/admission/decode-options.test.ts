import { describe, expect, it } from "vitest";
import { goTypeOf } from "../apis/knative-types.js";
import { PROFILES } from "../config/profile.js";
import type { GoField, StructType } from "../go/encoding/json/types.js";
import { decodeOptionsOf } from "./decode-options.js";

function field(typeExpr: string, name: string): GoField {
  const f = (goTypeOf(typeExpr) as StructType).exact.get(name);
  if (f === undefined) throw new Error(`${typeExpr} has no field ${name}`);
  return f;
}

describe("decodeOptionsOf", () => {
  it("names embedded structs in error paths for the releases built with Go 1.24 or later", () => {
    expect(decodeOptionsOf(PROFILES["1.17"]).embeddedFieldNames).toBe(false);
    expect(decodeOptionsOf(PROFILES["1.23"]).embeddedFieldNames).toBe(true);
    expect(decodeOptionsOf(PROFILES["1.24"]).embeddedFieldNames).toBe(true);
  });

  it("hides the fields the release's k8s.io/api and apimachinery do not have", () => {
    expect(decodeOptionsOf(PROFILES["1.17"]).hiddenFields?.has(field("core.PodSpec", "hostnameOverride"))).toBe(true);
    expect(decodeOptionsOf(PROFILES["1.23"]).hiddenFields?.has(field("meta.ListMeta", "shardInfo"))).toBe(true);
    expect(decodeOptionsOf(PROFILES["1.24"]).hiddenFields?.has(field("meta.ListMeta", "shardInfo"))).toBe(false);
    expect(decodeOptionsOf(PROFILES["1.24"]).hiddenFields?.has(field("core.PodSpec", "workloadRef"))).toBe(true);
  });

  it("is built once per profile", () => {
    expect(decodeOptionsOf(PROFILES["1.24"])).toBe(decodeOptionsOf(PROFILES["1.24"]));
  });
});
