/**
 * The /defaulting conformance vectors for Service, Configuration, Revision and Route, run straight through
 * the defaulting functions (no HTTP, no patch): decode with the Go round trip, default as each kind's
 * SetDefaults does (serving v0.44.2 *_defaults.go), and compare with the vector's patchedObject under the
 * harness' normalisation.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstDiff, type Vector } from "../../test/conformance/compare.js";
import { VECTORS_DIR } from "../../test/conformance/paths.js";
import { normalize } from "../../test/support/normalize.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { PROFILES } from "../config/profile.js";
import { parseFeaturesConfig } from "../config/features.js";
import type { AdmissionConfig, DefaultsConfig } from "../config/types.js";
import type { RequestContext, UserInfo } from "./context.js";
import { defaultConfigurationSpec, defaultRevisionSpec } from "./revision-defaults.js";
import { defaultRouteTraffic, defaultServiceTraffic } from "./traffic-defaults.js";
import { setUserInfo, SPEC_TYPES } from "./user-info.js";

type JsonObject = Record<string, unknown>;

const KINDS = new Set(["Service", "Configuration", "Revision", "Route"]);

interface Case {
  readonly name: string;
  readonly kind: string;
  readonly vector: Vector;
  readonly request: JsonObject;
}

function loadCases(): Case[] {
  const cases: Case[] = [];
  for (const file of readdirSync(VECTORS_DIR).filter((f) => f.endsWith(".jsonl")).sort()) {
    for (const line of readFileSync(join(VECTORS_DIR, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const v = JSON.parse(line) as Vector;
      if (v.path !== "/defaulting" || v.expect.patchedObject === undefined) continue;
      const response = v.expect.response as JsonObject | undefined;
      const request = (v.review as JsonObject | undefined)?.["request"] as JsonObject | undefined;
      const kind = (request?.["kind"] as JsonObject | undefined)?.["kind"];
      if (response?.["allowed"] !== true || request === undefined || typeof kind !== "string" || !KINDS.has(kind)) continue;
      cases.push({ name: v.name, kind, vector: v, request });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// config-features through its parser; a small stand-in for the config-defaults parser (not landed yet),
// enough for the values the vectors use.

/** `{{.Name}}`-style templates over ObjectMeta, as far as the vectors use them. */
function template(text: string): (meta: Readonly<JsonObject> | undefined) => string {
  return (meta) =>
    text.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_, field: string) => {
      const v = meta?.[field.charAt(0).toLowerCase() + field.slice(1)];
      return typeof v === "string" ? v : "";
    });
}

function admissionConfig(configs: Vector["configs"]): AdmissionConfig {
  const d = configs?.["config-defaults"] ?? {};
  const int = (key: string, fallback: number): number => (d[key] === undefined ? fallback : Number.parseInt(d[key], 10));
  const timeout = int("revision-timeout-seconds", 300);
  const links = d["enable-service-links"]?.toLowerCase();
  const defaults: DefaultsConfig = {
    revisionTimeoutSeconds: timeout,
    maxRevisionTimeoutSeconds: int("max-revision-timeout-seconds", 600),
    revisionResponseStartTimeoutSeconds: int("revision-response-start-timeout-seconds", timeout),
    revisionIdleTimeoutSeconds: int("revision-idle-timeout-seconds", 0),
    containerConcurrency: int("container-concurrency", 0),
    containerConcurrencyMaxLimit: int("container-concurrency-max-limit", 1000),
    allowContainerConcurrencyZero: d["allow-container-concurrency-zero"] !== "false",
    enableServiceLinks: links === undefined ? false : links === "true" ? true : links === "false" ? false : undefined,
    userContainerName: template(d["container-name-template"] ?? "user-container"),
    initContainerName: template(d["init-container-name-template"] ?? "init-container"),
    revisionCpuRequest: d["revision-cpu-request"],
    revisionMemoryRequest: d["revision-memory-request"],
    revisionEphemeralStorageRequest: d["revision-ephemeral-storage-request"],
    revisionCpuLimit: d["revision-cpu-limit"],
    revisionMemoryLimit: d["revision-memory-limit"],
    revisionEphemeralStorageLimit: d["revision-ephemeral-storage-limit"],
  };
  const features = parseFeaturesConfig(configs?.["config-features"] ?? {});
  return { defaults, features, autoscaler: undefined as never };
}

// ---------------------------------------------------------------------------------------------
// The per-kind SetDefaults, composed as serving does.

function objectAt(obj: JsonObject, key: string): JsonObject {
  const v = obj[key];
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as JsonObject;
  const created: JsonObject = {};
  obj[key] = created;
  return created;
}

function unowned(obj: JsonObject): boolean {
  return objectAt(obj, "metadata")["ownerReferences"] === undefined;
}

function setDefaults(kind: string, obj: JsonObject, ctx: RequestContext): void {
  const baseline = ctx.oldObject as JsonObject | undefined;
  const previousSpec = baseline === undefined ? undefined : objectAt(baseline, "spec");
  const spec = objectAt(obj, "spec");
  const meta = objectAt(obj, "metadata");
  switch (kind) {
    case "Service":
      defaultConfigurationSpec(spec, ctx, meta, previousSpec);
      defaultServiceTraffic(spec);
      setUserInfo(obj, previousSpec, spec, ctx, SPEC_TYPES.Service);
      return;
    case "Configuration":
      defaultConfigurationSpec(spec, ctx, meta, previousSpec);
      if (unowned(obj)) setUserInfo(obj, previousSpec, spec, ctx, SPEC_TYPES.Configuration);
      return;
    case "Revision":
      if (ctx.operation !== "UPDATE") defaultRevisionSpec(spec, ctx, undefined);
      return;
    case "Route":
      defaultRouteTraffic(spec);
      if (unowned(obj)) setUserInfo(obj, previousSpec, spec, ctx, SPEC_TYPES.Route);
      return;
  }
}

function userInfoOf(raw: unknown): UserInfo {
  const u = (raw ?? {}) as JsonObject;
  return {
    username: typeof u["username"] === "string" ? u["username"] : "",
    uid: typeof u["uid"] === "string" ? u["uid"] : "",
    groups: Array.isArray(u["groups"]) ? (u["groups"] as string[]) : [],
    extra: (u["extra"] ?? {}) as Record<string, string[]>,
  };
}

/** The object after the round trip and SetDefaults, as src/admission/defaulting.ts builds it. */
function defaulted(c: Case): JsonObject {
  const gvk = c.request["kind"] as JsonObject;
  const type = knativeTypes.get(`${String(gvk["group"])}/${String(gvk["version"])}, Kind=${c.kind}`);
  if (type === undefined) throw new Error(`no Go type for ${c.kind}`);
  const config = { data: new Map(), source: "vector", admission: admissionConfig(c.vector.configs), profile: PROFILES["1.17"] } as unknown as ConfigSnapshot;

  const decoded = decodeGo(type, c.request["object"]);
  if (!decoded.ok) throw new Error(decoded.error);
  const obj = decoded.value as JsonObject;

  let old: JsonObject | undefined;
  const rawOld = c.request["oldObject"];
  if (rawOld !== undefined && rawOld !== null) {
    const decodedOld = decodeGo(type, rawOld);
    if (!decodedOld.ok) throw new Error(decodedOld.error);
    old = decodedOld.value as JsonObject;
    setDefaults(c.kind, old, { operation: "", subResource: "", oldObject: undefined, userInfo: undefined, dryRun: false, config });
  }
  const subResource = typeof c.request["subResource"] === "string" ? c.request["subResource"] : "";
  setDefaults(c.kind, obj, {
    operation: old !== undefined ? "UPDATE" : "CREATE",
    subResource: old !== undefined ? subResource : "",
    oldObject: old,
    userInfo: userInfoOf(c.request["userInfo"]),
    dryRun: false,
    config,
  });
  return obj;
}

const CASES = loadCases();

describe("defaulting vectors (Service, Configuration, Revision, Route)", () => {
  it("finds the vectors", () => {
    expect(CASES.length).toBeGreaterThan(100);
  });

  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const got = normalize(defaulted(c));
    const want = normalize(c.vector.expect.patchedObject);
    const diff = firstDiff(got, want);
    expect(diff).toBeUndefined();
  });
});
