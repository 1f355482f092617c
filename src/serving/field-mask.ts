/**
 * Knative's field masks (knative.dev/serving pkg/apis/serving/fieldmask.go + knative.dev/pkg
 * apis/field_error.go: CheckDisallowedFields; docs/knative-behavior.md#field-masks) over
 * objects in their Go-marshalled JSON form, and the Go zero-value reading of such objects that the masks and
 * the pod-spec rules share.
 *
 * Go builds a "mask" by copying the allowed fields of a struct into a fresh one and lets go-cmp name every
 * top-level field that differs. A field that is not copied differs exactly when its value is not Go's zero
 * value for its type, so a mask here is the set of fields it copies, and "set" means "not the zero value":
 * `""`, `0`, `false`, nil (absent or null) are unset; a pointer, slice or map that is present is set, even
 * `{}`, `[]` or `false` behind a pointer; a struct value is set when any of its fields is. The Go types come
 * from the generated Go type model (src/apis/go-types.generated.ts, reflected from each release's k8s.io/api).
 */
import { errDisallowedFields, type FieldError } from "../apis/field-error.js";
import { compareByteOrder } from "../go/strings/compare.js";
import { emptyNotNilFields } from "../go/encoding/json/index.js";
import type { GoType, StructType } from "../go/encoding/json/types.js";
import { goTypeOf } from "../apis/knative-types.js";
import type { Int64 } from "../config/types.js";
import { isJsonObject, type JsonObject } from "../go/encoding/json/json-value.js";

// The JSON object guard and type are json-value.ts's; the masks' callers get them from here too.
export { isJsonObject, type JsonObject };

/** Decides a conditionally copied field (`if *in.Privileged == false { out.Privileged = in.Privileged }`). */
export type CopiedIf = (field: string, value: unknown) => boolean;

export interface FieldMask {
  readonly type: StructType;
  /** JSON names of the fields the mask copies as they are. */
  readonly allowed: ReadonlySet<string>;
  /** Fields promoted from an embedded (`json:",inline"`) struct: go-cmp reports them by the empty name. */
  readonly inline: ReadonlySet<string>;
  readonly copiedIf: CopiedIf | undefined;
  /**
   * Slice fields the mask copies with `append(out.X, in.X...)`: an empty non-nil slice comes out nil, so `[]` is
   * "set" and not copied (fieldmask.go: DownwardAPIProjectionMask's Items).
   */
  readonly appended: ReadonlySet<string>;
}

export interface MaskOptions {
  /** The embedded struct whose promoted fields go-cmp names `""` (e.g. `core.ProbeHandler` in `core.Probe`). */
  readonly inlineFrom?: string;
  readonly copiedIf?: CopiedIf;
  /** Allowed slice fields copied with `append(out.X, in.X...)` rather than `out.X = in.X` (FieldMask.appended). */
  readonly appended?: readonly string[];
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** Defines a mask once, at module load; a name that is not a field of the type is a programming error. */
export function defineMask(typeExpr: string, allowed: readonly string[], options: MaskOptions = {}): FieldMask {
  const type = structType(typeExpr);
  for (const name of allowed) {
    if (!type.exact.has(name)) throw new Error(`field mask: ${typeExpr} has no field ${name}`);
  }
  const inline = options.inlineFrom === undefined ? NO_NAMES : new Set(structType(options.inlineFrom).fields.map((f) => f.name));
  for (const name of options.appended ?? []) {
    if (!allowed.includes(name)) throw new Error(`field mask: ${typeExpr}.${name} is appended but not allowed`);
  }
  return { type, allowed: new Set(allowed), inline, copiedIf: options.copiedIf, appended: options.appended === undefined ? NO_NAMES : new Set(options.appended) };
}

/** A table struct type by expression, e.g. `core.PodSpec`. */
export function structType(typeExpr: string): StructType {
  const t = goTypeOf(typeExpr);
  if (t.kind !== "struct") throw new Error(`field mask: ${typeExpr} is not a struct`);
  return t;
}

/**
 * `apis.CheckDisallowedFields(in, *XMask(in))`: `must not set the field(s)` naming every set field the mask
 * does not copy (JSON names, sorted, each once), or undefined. Keys that are not fields of the Go type are
 * ignored: Go never saw them.
 */
export function checkDisallowedFields(obj: JsonObject | undefined, mask: FieldMask): FieldError | undefined {
  if (obj === undefined) return undefined;
  let found: string[] | undefined;
  for (const key in obj) {
    if (!Object.hasOwn(obj, key) || mask.allowed.has(key)) continue;
    const field = mask.type.exact.get(key);
    if (field === undefined) continue;
    const value = obj[key];
    if (isGoZero(value, field.type) || mask.copiedIf?.(key, value) === true) continue;
    const name = mask.inline.has(key) ? "" : key;
    if (found === undefined) found = [name];
    else if (!found.includes(name)) found.push(name);
  }
  // `[]` and `{}` are set too, though json.Marshal (and so the decoded object) drops them.
  for (const key of emptyNotNilFields(obj) ?? NO_NAMES) {
    if ((mask.allowed.has(key) && !mask.appended.has(key)) || !mask.type.exact.has(key) || mask.copiedIf?.(key, []) === true) continue;
    const name = mask.inline.has(key) ? "" : key;
    if (found === undefined) found = [name];
    else if (!found.includes(name)) found.push(name);
  }
  if (found === undefined) return undefined;
  found.sort(compareByteOrder);
  return errDisallowedFields(...found);
}

/**
 * Whether a marshalled value is its Go type's zero value (docs/knative-behavior.md#field-masks). With `semantic`,
 * empty slices and maps count as zero too, as in `equality.Semantic.DeepEqual(x, T{})`.
 */
export function isGoZero(value: unknown, type: GoType, semantic = false): boolean {
  if (value === undefined || value === null) return true;
  switch (type.kind) {
    case "string":
      return value === "";
    case "bool":
      return value === false;
    case "int":
    case "float":
      return value === 0;
    case "intOrString":
      // IntOrString{} is the integer 0; a string (even "") has Type String.
      return value === 0;
    case "struct":
      return isJsonObject(value) && isZeroStruct(value, type, semantic);
    case "slice":
      return semantic && Array.isArray(value) && value.length === 0;
    case "bytes":
      return semantic && value === "";
    case "map":
      return semantic && isJsonObject(value) && !hasOwnKey(value);
    default:
      // Pointers, quantities, times, URLs, raw and interface values: only nil is zero.
      return false;
  }
}

function isZeroStruct(obj: JsonObject, type: StructType, semantic: boolean): boolean {
  // A field holding `[]` or `{}` is not nil (semantic equality counts it as empty).
  const emptyNotNil = emptyNotNilFields(obj);
  if (!semantic && emptyNotNil !== undefined && emptyNotNil.size > 0) return false;
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) continue;
    const field = type.exact.get(key);
    if (field !== undefined && !isGoZero(obj[key], field.type, semantic)) return false;
  }
  return true;
}

function hasOwnKey(obj: JsonObject): boolean {
  for (const key in obj) if (Object.hasOwn(obj, key)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Reading marshalled Go values: an absent field is the zero value of its type.

const EMPTY_OBJECT: JsonObject = Object.freeze({});
const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);


/** A pointer-to-struct field: undefined when nil. */
export function objectField(obj: JsonObject, key: string): JsonObject | undefined {
  const v = obj[key];
  return isJsonObject(v) ? v : undefined;
}

/** A slice field: empty when nil. */
export function arrayField(obj: JsonObject, key: string): readonly unknown[] {
  const v = obj[key];
  return Array.isArray(v) ? v : EMPTY_ARRAY;
}

/** A struct element of a slice (a JSON null element decodes to the zero struct). */
export function asStruct(v: unknown): JsonObject {
  return isJsonObject(v) ? v : EMPTY_OBJECT;
}

export function stringField(obj: JsonObject, key: string): string {
  const v = obj[key];
  return typeof v === "string" ? v : "";
}

export function numberField(obj: JsonObject, key: string): number {
  const v = obj[key];
  return typeof v === "number" ? v : 0;
}

export function boolField(obj: JsonObject, key: string): boolean {
  return obj[key] === true;
}

/**
 * Whether a decoded value is a Go integer: a number, or a bigint for an int64 beyond ±(2^53 − 1), which the Go
 * round trip keeps exact (go/encoding/json/json-bigint.ts). Compare with `<`/`>` and print with String(): both are exact.
 */
export function isInt64(v: unknown): v is Int64 {
  return typeof v === "number" || typeof v === "bigint";
}

/**
 * Whether a pointer, slice or map field is nil: absent or null, and not a `[]` or `{}` that json.Marshal dropped
 * (Go's `x == nil`).
 */
export function isNilField(obj: JsonObject, key: string): boolean {
  return presentField(obj, key) === undefined && emptyNotNilFields(obj)?.has(key) !== true;
}

/** A pointer-to-scalar field (`*int64`, `*bool`): undefined when nil. */
export function presentField(obj: JsonObject, key: string): unknown {
  const v = obj[key];
  return v === null ? undefined : v;
}
