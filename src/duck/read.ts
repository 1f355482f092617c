/**
 * Reading a resource as a duck type (knative.dev/pkg apis/duck/ABOUT.md, "Reading duck-typed data"): deserialize
 * through the partial schema, ignoring unknown fields. The view is a fresh tree holding only what the schema names
 * (closed structs) or carries whole (open structs, maps, any JSON), so a caller may modify it and diff it against a
 * copy (createPatch) without ever touching members outside the duck.
 *
 * Presence is kept: a member is in the view exactly when it is in the object, with the same value (null
 * stays null). That is what makes a patch computed between two views valid against the full object.
 */
import { copyJsonValue, setOwn, type JsonObject, isJsonObject } from "../go/encoding/json/json-value.js";
import type { ErrorObject } from "ajv";
import type { DuckType } from "./duck-type.js";
import type { DuckSchema, JsonTypeName } from "./schema.js";

export type DuckRead<T> = { ok: true; view: T } | { ok: false; error: string };

export function readAs<T>(object: unknown, duck: DuckType<T>): DuckRead<T> {
  const view = project(object, duck.schema);
  if (duck.check(view)) return { ok: true, view };
  const first = duck.check.errors?.[0];
  return { ok: false, error: first === undefined ? `does not match the duck type ${duck.name}` : describeError(first, view) };
}


/** The part of `value` that `schema` reads. Values of the wrong JSON type are returned as they are, for the check to report. */
function project(value: unknown, schema: DuckSchema): unknown {
  if (typeof value === "bigint") return readsInteger(schema) ? Number(value) : value;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    if (schema.items === undefined) return copyJsonValue(value);
    const items = schema.items;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = project(value[i], items);
    return out;
  }
  const properties = schema.properties;
  const rest = schema.additionalProperties;
  if (properties === undefined && rest === undefined) return copyJsonValue(value);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const member = (value as JsonObject)[key];
    const sub = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : rest;
    if (sub === false) continue;
    setOwn(out, key, sub === undefined || sub === true ? copyJsonValue(member) : project(member, sub));
  }
  return out;
}

/**
 * Whether the schema types an integer (int64Field). Views hold its values as numbers, so it reads integers up to
 * ±(2^53 − 1); an integer read exactly beyond that (a bigint, go/encoding/json/json-bigint.ts) is checked as its rounded
 * number, and the check reports the bound it is past (`must be <= 9007199254740991`).
 */
function readsInteger(schema: DuckSchema): boolean {
  const type = schema.type;
  return type === "integer" || (Array.isArray(type) && type.includes("integer"));
}

/** `spec.generation: must be integer` — the member path as Knative prints field paths, then what is wrong. */
function describeError(error: ErrorObject, view: unknown): string {
  const path = fieldPath(error.instancePath, view);
  let message = error.message ?? "is invalid";
  if (error.keyword === "type") {
    const wanted = error.params.type as JsonTypeName | JsonTypeName[];
    const names = (Array.isArray(wanted) ? wanted : [wanted]).filter((t) => t !== "null");
    message = `must be ${names.length === 0 ? "null" : names.join(" or ")}`;
  }
  return path === "" ? message : `${path}: ${message}`;
}

/** A JSON pointer into `root` as a dotted path with `[i]` for array indexes (`status.conditions[0].type`). */
function fieldPath(pointer: string, root: unknown): string {
  if (pointer === "") return "";
  let out = "";
  let cur = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(cur)) {
      out += `[${key}]`;
      cur = cur[Number(key)];
    } else {
      out += out === "" ? key : `.${key}`;
      cur = isJsonObject(cur) ? cur[key] : undefined;
    }
  }
  return out;
}
