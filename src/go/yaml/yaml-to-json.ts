/**
 * sigs.k8s.io/yaml (and github.com/ghodss/yaml) `Unmarshal(y, &obj)`: YAML → generic Go values →
 * JSON-able values (non-string keys stringified, scalars coerced to strings where the target field is a
 * string) → `json.Marshal` → `encoding/json` decoding into the typed target. Errors read as Knative shows
 * them: `error converting YAML to JSON: yaml: …`, `error unmarshaling JSON: while decoding JSON: json:
 * cannot unmarshal array into Go value of type v1.ObjectReference`.
 */
import { compareByteOrder } from "../strings/compare.js";
import { goFormatFloat } from "../strconv/ftoa.js";
import { equalFoldAscii } from "../strings/fold.js";
import { call, runRecursion, type Recursion } from "../internal/recursion.js";
import { unmarshalYaml } from "./decode.js";
import { GoFloat, GoInt, GoMap, goSharpV, goTypeName, type GoValue } from "./values.js";

/** The Go type a value is decoded into, as much as encoding/json needs to know about it. */
export type JsonTarget =
  | { readonly kind: "string"; readonly type: string }
  | { readonly kind: "map"; readonly type: string; readonly elem: JsonTarget }
  | { readonly kind: "slice"; readonly type: string; readonly elem: JsonTarget }
  | {
      readonly kind: "struct";
      /** reflect.Type.String(), e.g. `v1.LabelSelector`. */
      readonly type: string;
      /** reflect.Type.Name(), what UnmarshalTypeError names as the struct. */
      readonly name: string;
      readonly fields: ReadonlyArray<{ readonly json: string; readonly target: JsonTarget }>;
    };

/** Go's `string`, `map[string]string` and `[]string`: the targets most of Knative's ConfigMap structs are built of. */
export const STRING_TARGET: JsonTarget = { kind: "string", type: "string" };
export const STRING_MAP_TARGET: JsonTarget = { kind: "map", type: "map[string]string", elem: STRING_TARGET };
export const STRING_SLICE_TARGET: JsonTarget = { kind: "slice", type: "[]string", elem: STRING_TARGET };

/** A decoded value: string, Map (Go map, null when nil), array (null when nil), or a struct's fields by JSON name. */
export type Decoded = string | null | ReadonlyMap<string, Decoded> | readonly Decoded[] | { readonly [field: string]: Decoded };

/** Which wrapper library: they differ only in the capitalisation of one message. */
export type YamlDialect = "sigs" | "ghodss";

type JsonValue = null | boolean | string | GoInt | GoFloat | JsonObject | JsonValue[];

class JsonObject {
  constructor(readonly entries: Map<string, JsonValue>) {}

  /** json.Marshal writes map keys sorted byte-wise; the decoder then meets them in that order. */
  sorted(): Array<[string, JsonValue]> {
    return [...this.entries].sort((a, b) => compareByteOrder(a[0], b[0]));
  }
}

class ConversionError extends Error {}

/** strconv.FormatFloat(v, 'g', -1, 32): the shortest digits of float32(v). */
export function formatFloat32(v: number): string {
  const f = Math.fround(v);
  if (!Number.isFinite(f) || f === 0) return goFormatFloat(f);
  const abs = Math.abs(f);
  for (let p = 1; p <= 9; p++) {
    const digits = Number(abs.toPrecision(p));
    if (Math.fround(digits) === abs) return goFormatFloat(f < 0 ? -digits : digits);
  }
  return goFormatFloat(f);
}

function keyString(k: GoValue, v: GoValue, dialect: YamlDialect): string {
  if (typeof k === "string") return k;
  if (k instanceof GoInt && !k.unsigned) return k.value.toString();
  if (k instanceof GoFloat) {
    const s = formatFloat32(k.value);
    return s === "+Inf" ? ".inf" : s === "-Inf" ? "-.inf" : s === "NaN" ? ".nan" : s;
  }
  if (typeof k === "boolean") return k ? "true" : "false";
  const type = k === null ? "%!s(<nil>)" : goTypeName(k);
  const prefix = dialect === "ghodss" ? "Unsupported" : "unsupported";
  throw new ConversionError(`${prefix} map key of type: ${type}, key: ${goSharpV(k)}, value: ${goSharpV(v)}`);
}

function fieldFor(target: Extract<JsonTarget, { kind: "struct" }>, key: string): JsonTarget | undefined {
  let folded: JsonTarget | undefined;
  for (const f of target.fields) {
    if (f.json === key) return f.target;
    if (folded === undefined && equalFoldAscii(key, f.json)) folded = f.target;
  }
  return folded;
}

/** convertToJSONableObject (recursive as in Go, on an explicit stack: ../internal/recursion.ts). */
function* toJsonable(v: GoValue, target: JsonTarget | undefined, dialect: YamlDialect): Recursion<JsonValue> {
  if (v instanceof GoMap) {
    const out = new Map<string, JsonValue>();
    for (const [k, e] of v.entries()) {
      const key = keyString(k, e, dialect);
      let sub: JsonTarget | undefined;
      if (target?.kind === "struct") sub = fieldFor(target, key);
      else if (target?.kind === "map") sub = target.elem;
      out.set(key, yield* call(toJsonable(e, sub, dialect)));
    }
    return new JsonObject(out);
  }
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const e of v) out.push(yield* call(toJsonable(e, target?.kind === "slice" ? target.elem : undefined, dialect)));
    return out;
  }
  if (target?.kind === "string") {
    if (v instanceof GoInt) return v.value.toString();
    if (v instanceof GoFloat) return formatFloat32(v.value);
    if (typeof v === "boolean") return v ? "true" : "false";
  }
  return v;
}

/** json.Marshal's only failure here: a NaN or infinite float (first in marshal order). */
function* marshalError(v: JsonValue): Recursion<string | undefined> {
  if (v instanceof GoFloat) return Number.isFinite(v.value) ? undefined : `json: unsupported value: ${goFormatFloat(v.value)}`;
  if (v instanceof JsonObject) {
    for (const [, e] of v.sorted()) {
      const err = yield* call(marshalError(e));
      if (err !== undefined) return err;
    }
  } else if (Array.isArray(v)) {
    for (const e of v) {
      const err = yield* call(marshalError(e));
      if (err !== undefined) return err;
    }
  }
  return undefined;
}

function jsonKind(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (v instanceof GoInt || v instanceof GoFloat) return "number";
  if (v instanceof JsonObject) return "object";
  return "array";
}

/** encoding/json's decodeState error context: the innermost struct and the JSON field path. */
interface DecodeContext {
  struct: string | undefined;
  fields: string[];
  firstError: string | undefined;
}

function typeError(ctx: DecodeContext, value: JsonValue, target: JsonTarget): void {
  if (ctx.firstError !== undefined) return;
  const where = ctx.struct !== undefined || ctx.fields.length > 0 ? `Go struct field ${ctx.struct ?? ""}.${ctx.fields.join(".")}` : "Go value";
  ctx.firstError = `json: cannot unmarshal ${jsonKind(value)} into ${where} of type ${target.type}`;
}

function zero(target: JsonTarget): Decoded {
  if (target.kind === "string") return "";
  if (target.kind === "struct") return structZero(target);
  return null;
}

function structZero(target: Extract<JsonTarget, { kind: "struct" }>): { [field: string]: Decoded } {
  const out: { [field: string]: Decoded } = {};
  for (const f of target.fields) out[f.json] = zero(f.target);
  return out;
}

/** d.value(v) into a fresh (zero) value of the target type; type errors are recorded, decoding goes on. */
function* decode(v: JsonValue, target: JsonTarget, ctx: DecodeContext): Recursion<Decoded> {
  if (v === null) return zero(target);
  switch (target.kind) {
    case "string":
      if (typeof v === "string") return v;
      typeError(ctx, v, target);
      return "";
    case "map": {
      if (!(v instanceof JsonObject)) {
        typeError(ctx, v, target);
        return null;
      }
      const out = new Map<string, Decoded>();
      for (const [k, e] of v.sorted()) out.set(k, yield* call(decode(e, target.elem, ctx)));
      return out;
    }
    case "slice": {
      if (!Array.isArray(v)) {
        typeError(ctx, v, target);
        return null;
      }
      const out: Decoded[] = [];
      for (const e of v) out.push(yield* call(decode(e, target.elem, ctx)));
      return out;
    }
    case "struct": {
      const out = structZero(target);
      if (!(v instanceof JsonObject)) {
        typeError(ctx, v, target);
        return out;
      }
      for (const [k, e] of v.sorted()) {
        const field = target.fields.find((f) => f.json === k) ?? target.fields.find((f) => equalFoldAscii(k, f.json));
        if (field === undefined) continue;
        const saved = { struct: ctx.struct, depth: ctx.fields.length };
        ctx.fields.push(field.json);
        ctx.struct = target.name;
        out[field.json] = yield* call(decode(e, field.target, ctx));
        ctx.fields.length = saved.depth;
        ctx.struct = saved.struct;
      }
      return out;
    }
  }
}

export type YamlUnmarshalResult = { ok: true; value: Decoded } | { ok: false; error: string };

/** `yaml.Unmarshal([]byte(text), &obj)` for an obj of the target type. */
export function yamlUnmarshalInto(text: string, target: JsonTarget, dialect: YamlDialect = "sigs"): YamlUnmarshalResult {
  const parsed = unmarshalYaml(text);
  if (!parsed.ok) return { ok: false, error: `error converting YAML to JSON: ${parsed.error}` };
  let json: JsonValue;
  try {
    json = runRecursion(toJsonable(parsed.value, target, dialect));
  } catch (e) {
    if (e instanceof ConversionError) return { ok: false, error: `error converting YAML to JSON: ${e.message}` };
    throw e;
  }
  const marshal = runRecursion(marshalError(json));
  if (marshal !== undefined) return { ok: false, error: `error converting YAML to JSON: ${marshal}` };
  const ctx: DecodeContext = { struct: undefined, fields: [], firstError: undefined };
  const value = runRecursion(decode(json, target, ctx));
  if (ctx.firstError !== undefined) return { ok: false, error: `error unmarshaling JSON: while decoding JSON: ${ctx.firstError}` };
  return { ok: true, value };
}
