/**
 * A duck type (knative.dev/pkg apis/duck/ABOUT.md, "Knative Duck Typing"; apis/duck/verify.go: Populatable): a
 * partial schema of a full resource plus Go's `Populate` for it. The schema is compiled with ajv once, when the duck
 * is defined (module load), so reading through a duck on the request path costs one projection and one compiled
 * check.
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { DuckSchema } from "./schema.js";

export interface DuckType<T> {
  /** The Go type name, used in messages (`KResource`, `Generational`). */
  readonly name: string;
  /** The partial schema of the full resource (Go's `GetFullType()`). */
  readonly schema: DuckSchema;
  /** The compiled check of a view against `schema`. */
  readonly check: ValidateFunction<T>;
  /** Go's `Populate()`: a fresh full instance with every field of the duck set, for verifyType. */
  populate(): T;
}

/**
 * Union types spell Go's "null is accepted for every type"; strict mode catches typos in the schemas.
 * `validateSchema: false`: checking a schema against the JSON Schema meta-schema first compiles the meta-schema,
 * 70 ms of a 450 ms startup; the duck schemas are fixed, and duck-type.test.ts checks them against it instead.
 */
export const DUCK_AJV_OPTIONS = { allowUnionTypes: true, strict: true, allErrors: false } as const;
const ajv = new Ajv({ ...DUCK_AJV_OPTIONS, validateSchema: false });

export function defineDuck<T>(name: string, schema: DuckSchema, populate: () => T): DuckType<T> {
  return { name, schema, check: ajv.compile<T>(schema), populate };
}
