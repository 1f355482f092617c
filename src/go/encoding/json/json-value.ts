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

/**
 * The members of a parsed object whose JSON text repeats a key, in document order, every occurrence kept (the
 * object's own properties are JSON.parse's view: the last occurrence of each key, at the place of its first).
 * Go's encoding/json decodes every occurrence into what is already there (decode.go: (*decodeState).object), so
 * typed decoders walk these; untyped views (interface{}, RawExtension bytes as Knative re-parses them) see the
 * properties. A non-enumerable symbol: copies and JSON.stringify do not carry it.
 */
export const REPEATED_MEMBERS: unique symbol = Symbol("repeated JSON members");

export type JsonMembers = ReadonlyArray<readonly [string, unknown]>;

/** All members of `obj` in document order when its text repeated a key, else undefined (use its properties). */
export function repeatedMembers(obj: object): JsonMembers | undefined {
  return (obj as { [REPEATED_MEMBERS]?: JsonMembers })[REPEATED_MEMBERS];
}

/** Records `members` as `obj`'s document-order members (see REPEATED_MEMBERS). */
export function setRepeatedMembers(obj: object, members: JsonMembers): void {
  Object.defineProperty(obj, REPEATED_MEMBERS, { value: members, enumerable: false, writable: false, configurable: false });
}

/** `obj`'s members as encoding/json meets them: every occurrence of a repeated key, in document order. */
export function membersInOrder(obj: JsonObject): JsonMembers {
  const repeated = repeatedMembers(obj);
  if (repeated !== undefined) return repeated;
  const out: Array<readonly [string, unknown]> = [];
  for (const key of Object.keys(obj)) out.push([key, obj[key]]);
  return out;
}
