import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Vector } from "../../test/conformance/compare.js";
import { VECTORS_DIR } from "../../test/conformance/paths.js";
import { renderFieldError } from "../apis/field-error.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import { defaultSnapshot } from "../config/snapshot.js";
import type { RequestContext } from "./context.js";
import { CREATOR_ANNOTATION, setUserInfo, SPEC_TYPES, UPDATER_ANNOTATION, validateCreatorAndModifier } from "./user-info.js";

type JsonObject = Record<string, unknown>;

/** `username: null` means a request without user info. */
function context(operation: RequestContext["operation"], username: string | null = "bob"): RequestContext {
  return {
    operation,
    subResource: "",
    oldObject: undefined,
    userInfo: username === null ? undefined : { username, uid: "", groups: [], extra: {} },
    dryRun: false,
    config: defaultSnapshot(),
  };
}

function service(annotations: JsonObject | undefined, image = "x", extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "serving.knative.dev/v1",
    kind: "Service",
    metadata: annotations === undefined ? { name: "s" } : { name: "s", annotations },
    spec: { template: { spec: { containers: [{ image, ...extra }] } } },
  };
}

const STAMPED = { [CREATOR_ANNOTATION]: "alice", [UPDATER_ANNOTATION]: "alice" };

describe("setUserInfo", () => {
  it("stamps creator and lastModifier on create, overwriting client values", () => {
    const obj = service({ [CREATOR_ANNOTATION]: "mallory", [UPDATER_ANNOTATION]: "mallory", other: "kept" });
    setUserInfo(obj, undefined, obj["spec"], context("CREATE"), SPEC_TYPES.Service);
    expect((obj["metadata"] as JsonObject)["annotations"]).toEqual({ [CREATOR_ANNOTATION]: "bob", [UPDATER_ANNOTATION]: "bob", other: "kept" });
  });

  it("stamps an empty username, as Knative does", () => {
    const obj = service(undefined);
    setUserInfo(obj, undefined, obj["spec"], context("CREATE", ""), SPEC_TYPES.Service);
    expect((obj["metadata"] as JsonObject)["annotations"]).toEqual({ [CREATOR_ANNOTATION]: "", [UPDATER_ANNOTATION]: "" });
  });

  it("creates metadata when the object has none", () => {
    const obj: JsonObject = { spec: {} };
    setUserInfo(obj, undefined, obj["spec"], context("CREATE"), SPEC_TYPES.Service);
    expect(obj["metadata"]).toEqual({ annotations: { [CREATOR_ANNOTATION]: "bob", [UPDATER_ANNOTATION]: "bob" } });
  });

  it.each<[string, RequestContext]>([
    ["the baseline pass", context("", null)],
    ["a request without user info", context("CREATE", null)],
  ])("changes nothing for %s", (_name, ctx) => {
    const obj = service(undefined);
    setUserInfo(obj, undefined, obj["spec"], ctx, SPEC_TYPES.Service);
    expect(obj["metadata"]).toEqual({ name: "s" });
  });

  it("sets only lastModifier when an update changes the spec", () => {
    const old = service(STAMPED, "x");
    const obj = service({ ...STAMPED }, "y");
    setUserInfo(obj, old["spec"], obj["spec"], context("UPDATE"), SPEC_TYPES.Service);
    expect((obj["metadata"] as JsonObject)["annotations"]).toEqual({ [CREATOR_ANNOTATION]: "alice", [UPDATER_ANNOTATION]: "bob" });
  });

  it("leaves the annotations alone when an update keeps the spec", () => {
    const old = service(STAMPED);
    const obj = service(undefined);
    setUserInfo(obj, old["spec"], obj["spec"], context("UPDATE"), SPEC_TYPES.Service);
    expect(obj["metadata"]).toEqual({ name: "s" });
  });

  it("treats equal quantities in other notations as the same spec", () => {
    const old = service(STAMPED, "x", { resources: { limits: { memory: "1Gi" } } });
    const obj = service({ ...STAMPED }, "x", { resources: { limits: { memory: "1073741824" } } });
    setUserInfo(obj, old["spec"], obj["spec"], context("UPDATE"), SPEC_TYPES.Service);
    expect((obj["metadata"] as JsonObject)["annotations"]).toEqual(STAMPED);
  });

  it("compares with the spec type it is given: a nil pointer differs from an empty struct", () => {
    const old = service(STAMPED);
    const obj = service({ ...STAMPED }, "x", { securityContext: {} });
    delete obj["apiVersion"];
    setUserInfo(obj, old["spec"], obj["spec"], context("UPDATE"), SPEC_TYPES.Service);
    expect(((obj["metadata"] as JsonObject)["annotations"] as JsonObject)[UPDATER_ANNOTATION]).toBe("bob");
  });

  it("uses the spec type of the request's kind, whatever the object's kind says", () => {
    // A Service whose object says Route: Route's spec type would ignore the template and see no change.
    const old = service(STAMPED, "x", { securityContext: {} });
    const obj: JsonObject = { ...service({ ...STAMPED }, "x"), kind: "Route" };
    setUserInfo(obj, old["spec"], obj["spec"], context("UPDATE"), SPEC_TYPES.Service);
    expect(((obj["metadata"] as JsonObject)["annotations"] as JsonObject)[UPDATER_ANNOTATION]).toBe("bob");
  });
});

describe("validateCreatorAndModifier", () => {
  it.each<[string, JsonObject, JsonObject, string]>([
    ["accepts unchanged annotations", service(STAMPED), service(STAMPED), ""],
    ["accepts a new lastModifier with a spec change", service(STAMPED), service({ ...STAMPED, [UPDATER_ANNOTATION]: "bob" }, "y"), ""],
    [
      "rejects a changed creator",
      service(STAMPED),
      service({ ...STAMPED, [CREATOR_ANNOTATION]: "eve" }, "y"),
      "annotation value is immutable: metadata.annotations.serving.knative.dev/creator",
    ],
    ["rejects a removed creator", service(STAMPED), service({ [UPDATER_ANNOTATION]: "alice" }), "annotation value is immutable: metadata.annotations.serving.knative.dev/creator"],
    [
      "rejects a new lastModifier without a spec change",
      service(STAMPED),
      service({ ...STAMPED, [UPDATER_ANNOTATION]: "eve" }),
      "invalid value: eve: metadata.annotations.serving.knative.dev/lastModifier",
    ],
    [
      "rejects a removed lastModifier without a spec change",
      service(STAMPED),
      service({ [CREATOR_ANNOTATION]: "alice" }),
      "invalid value: : metadata.annotations.serving.knative.dev/lastModifier",
    ],
    [
      "reports both",
      service(STAMPED),
      service({ [CREATOR_ANNOTATION]: "eve", [UPDATER_ANNOTATION]: "eve" }),
      "annotation value is immutable: metadata.annotations.serving.knative.dev/creator\ninvalid value: eve: metadata.annotations.serving.knative.dev/lastModifier",
    ],
  ])("%s", (_name, oldObj, newObj, want) => {
    expect(renderFieldError(validateCreatorAndModifier(oldObj, newObj, context("UPDATE"), SPEC_TYPES.Service))).toBe(want);
  });

  it("checks nothing outside updates", () => {
    expect(validateCreatorAndModifier(service(STAMPED), service({}), context("CREATE"), SPEC_TYPES.Service)).toBeUndefined();
  });
});

describe("validateCreatorAndModifier against the /resource-validation UPDATE vectors", () => {
  const KINDS = new Set(["Service", "Configuration", "Route", "DomainMapping"]);
  const cases: Array<[string, JsonObject, string]> = [];
  for (const file of readdirSync(VECTORS_DIR).filter((f) => f.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(VECTORS_DIR, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const v = JSON.parse(line) as Vector;
      const request = (v.review as JsonObject | undefined)?.["request"] as JsonObject | undefined;
      const kind = request?.["kind"] as JsonObject | undefined;
      if (v.path !== "/resource-validation" || request?.["operation"] !== "UPDATE" || !KINDS.has(String(kind?.["kind"]))) continue;
      const response = v.expect.response as JsonObject;
      const status = response["status"] as JsonObject | undefined;
      cases.push([v.name, request, response["allowed"] === true ? "" : String(status?.["message"] ?? "")]);
    }
  }

  it("finds the vectors", () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  it.each(cases)("%s", (_name, request, message) => {
    const gvk = request["kind"] as JsonObject;
    const type = knativeTypes.get(`${String(gvk["group"])}/${String(gvk["version"])}, Kind=${String(gvk["kind"])}`);
    if (type === undefined) throw new Error("no Go type");
    if (request["object"] == null || request["oldObject"] == null) return; // an envelope denial, not ours
    const decodedNew = decodeGo(type, request["object"]);
    const decodedOld = decodeGo(type, request["oldObject"]);
    if (!decodedNew.ok || !decodedOld.ok) return; // a decode denial, not ours to judge
    const obj = decodedNew.value as JsonObject;
    const owned = (obj["metadata"] as JsonObject | undefined)?.["ownerReferences"] !== undefined && gvk["kind"] !== "Service" && gvk["kind"] !== "DomainMapping";
    const got = owned ? "" : renderFieldError(validateCreatorAndModifier(decodedOld.value, obj, context("UPDATE"), SPEC_TYPES[String(gvk["kind"]) as keyof typeof SPEC_TYPES]));
    const mentioned = /serving\.knative\.dev\/(creator|lastModifier)/.test(message);
    if (mentioned) expect(got).not.toBe("");
    for (const line of got === "" ? [] : got.split("\n")) expect(message).toContain(line);
  });
});
