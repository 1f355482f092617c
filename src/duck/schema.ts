/**
 * Partial schemas for duck types: the JSON Schema subset Duckbill writes them in, and builders that spell
 * Go's encoding/json view of a field. Every value may be `null` (Go's decoder accepts null for any type and
 * leaves the zero value), and a struct is closed (`additionalProperties: false`): a duck read keeps only the
 * members its schema names, which is how "deserialize ignoring unknown fields" reads in JSON Schema.
 */

export type JsonTypeName = "object" | "array" | "string" | "integer" | "number" | "boolean" | "null";

export interface DuckSchema {
  readonly type?: JsonTypeName | readonly JsonTypeName[];
  readonly properties?: Readonly<Record<string, DuckSchema>>;
  /** `false`: unknown members are dropped from the view; a schema: every member is a map entry of that shape. */
  readonly additionalProperties?: boolean | DuckSchema;
  readonly items?: DuckSchema;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly description?: string;
}

/** A Go struct: only the named members are read. */
export function struct(properties: Readonly<Record<string, DuckSchema>>, description?: string): DuckSchema {
  const schema: DuckSchema = { type: ["object", "null"], properties, additionalProperties: false };
  return description === undefined ? schema : { ...schema, description };
}

/** A JSON object carried whole: members the duck does not type are kept as they are (e.g. a PodSpec). */
export function openStruct(properties: Readonly<Record<string, DuckSchema>>, description?: string): DuckSchema {
  const schema: DuckSchema = { type: ["object", "null"], properties };
  return description === undefined ? schema : { ...schema, description };
}

/** `map[string]V`. */
export function mapOf(value: DuckSchema): DuckSchema {
  return { type: ["object", "null"], additionalProperties: value };
}

/** `[]T`. */
export function arrayOf(items: DuckSchema): DuckSchema {
  return { type: ["array", "null"], items };
}

export const stringField: DuckSchema = { type: ["string", "null"] };

/** int64 as far as a view's number holds it exactly: beyond ±(2^53 − 1) the check reports the bound (read.ts). */
export const int64Field: DuckSchema = { type: ["integer", "null"], minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

/** Any JSON value, kept whole (`runtime.RawExtension`, a selector the duck does not look into). */
export const anyJson: DuckSchema = {};

/** The full resource around a duck: TypeMeta inline, then the given members. */
export function resource(properties: Readonly<Record<string, DuckSchema>>, description: string): DuckSchema {
  return { type: "object", properties: { apiVersion: stringField, kind: stringField, ...properties }, additionalProperties: false, description };
}
