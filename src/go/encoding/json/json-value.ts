/** Prototype-safe helpers for plain JSON values (the output of JSON.parse). */
import { goString } from "./go-strings.js";

/** A JSON object as decoded: the one object type of the code base. */
export type JsonObject = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not an array): the one object guard of the code base. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `v` when it is a JSON object, else undefined. */
export function asJsonObject(v: unknown): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

/** Assigns an own data property, also for the key `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Whether an object has any own enumerable key (an empty Go map marshals as `{}`). */
export function hasOwnKeys(obj: JsonObject): boolean {
  for (const key in obj) if (Object.hasOwn(obj, key)) return true;
  return false;
}

/**
 * A deep copy of a JSON value with fresh objects and arrays, iterative so that nesting depth cannot overflow
 * the stack. With `asGo`, strings and keys get Go's decoding of lone surrogates (for interface{} values);
 * `bigints`, when given, replaces every bigint (an exactly read integer, json-bigint.ts) with what it returns.
 */
export function copyJsonValue(value: unknown, asGo = false, bigints?: (b: bigint) => unknown): unknown {
  if (typeof value !== "object" || value === null) return copyLeaf(value, asGo, bigints);
  const root: unknown = Array.isArray(value) ? new Array<unknown>(value.length) : {};
  const stack: Array<[unknown, unknown]> = [[value, root]];
  while (stack.length > 0) {
    const [src, dst] = stack.pop() as [unknown, unknown];
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out[i] = copyChild(src[i], stack, asGo, bigints);
    } else {
      const s = src as JsonObject;
      const out = dst as JsonObject;
      for (const key of Object.keys(s)) setOwn(out, asGo ? goString(key) : key, copyChild(s[key], stack, asGo, bigints));
    }
  }
  return root;
}

function copyLeaf(v: unknown, asGo: boolean, bigints: ((b: bigint) => unknown) | undefined): unknown {
  if (typeof v === "string") return asGo ? goString(v) : v;
  return typeof v === "bigint" && bigints !== undefined ? bigints(v) : v;
}

function copyChild(v: unknown, stack: Array<[unknown, unknown]>, asGo: boolean, bigints: ((b: bigint) => unknown) | undefined): unknown {
  if (typeof v !== "object" || v === null) return copyLeaf(v, asGo, bigints);
  const fresh: unknown = Array.isArray(v) ? new Array<unknown>(v.length) : {};
  stack.push([v, fresh]);
  return fresh;
}
