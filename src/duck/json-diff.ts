/**
 * The RFC 6902 diff of two JSON documents, operation for operation what fast-json-patch's `compare(a, b)`
 * produces (same operations, paths, escaping and order; docs/adr/0002-json-patch.md), without its deep
 * copies: `compare` clones every added or replaced value through JSON.stringify + JSON.parse, which costs
 * more than the diff itself on an admission, where the new document is built for the request and
 * serialised right away.
 *
 * So the operations' values are members of `after` itself, not copies: serialise the patch (or copy it)
 * before changing `after`. Serialised, a patch is byte for byte what fast-json-patch's would be; the one
 * value `compare` rewrites while cloning, an `undefined` array element, is written as `null` here too.
 *
 * Both documents are JSON values (objects, arrays and primitives, no `toJSON` methods), the roots objects
 * or arrays.
 */
/** One RFC 6902 operation, as sent in AdmissionResponse.patch. */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

type Container = Record<string, unknown> | unknown[];

/** Thrown when a diff outgrows its bound. */
const TOO_MANY = Symbol("too many operations");

/** The operations found so far, and how many there may be. */
interface Ops {
  readonly list: JsonPatchOperation[];
  readonly max: number;
}

/**
 * The patch turning `before` into `after`, as fast-json-patch's `compare(before, after)` writes it; undefined
 * when it would have more than `maxOps` operations (the diff stops as soon as it finds one more).
 */
export function diffJson(before: object, after: object): JsonPatchOperation[];
export function diffJson(before: object, after: object, maxOps: number): JsonPatchOperation[] | undefined;
export function diffJson(before: object, after: object, maxOps = Infinity): JsonPatchOperation[] | undefined {
  const ops: Ops = { list: [], max: maxOps };
  try {
    diffContainers(before as Container, after as Container, "", ops);
  } catch (e) {
    if (e === TOO_MANY) return undefined;
    throw e;
  }
  return ops.list;
}

function push(ops: Ops, op: JsonPatchOperation): void {
  if (ops.list.length >= ops.max) throw TOO_MANY;
  ops.list.push(op);
}

/** fast-json-patch's `_generate` (duplex.js) without the `invertible` tests and the clones. */
function diffContainers(before: Container, after: Container, path: string, ops: Ops): void {
  if (before === after) return;
  const beforeIsArray = Array.isArray(before);
  const afterIsArray = Array.isArray(after);
  const oldKeys = keysOf(before, beforeIsArray);
  const newKeyCount = afterIsArray ? after.length : -1;
  const newKeys = afterIsArray ? undefined : Object.keys(after);
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  let deleted = false;
  // Old members last to first, so that array elements are removed from the end.
  for (let t = oldKeys.length - 1; t >= 0; t--) {
    const key = oldKeys[t] as string;
    const oldVal = b[key];
    if (Object.hasOwn(a, key) && !(a[key] === undefined && oldVal !== undefined && !afterIsArray)) {
      const newVal = a[key];
      if (
        typeof oldVal === "object" &&
        oldVal !== null &&
        typeof newVal === "object" &&
        newVal !== null &&
        Array.isArray(oldVal) === Array.isArray(newVal)
      ) {
        diffContainers(oldVal as Container, newVal as Container, path + "/" + escapePathComponent(key), ops);
      } else if (oldVal !== newVal) {
        // compare's clone turns an undefined array element into null.
        push(ops, { op: "replace", path: path + "/" + escapePathComponent(key), value: newVal === undefined ? null : newVal });
      }
    } else if (beforeIsArray === afterIsArray) {
      push(ops, { op: "remove", path: path + "/" + escapePathComponent(key) });
      deleted = true;
    } else {
      // Only reachable at the root (containers of different kinds are otherwise replaced whole), and
      // repeated once per old member, as compare does.
      push(ops, { op: "replace", path, value: after });
    }
  }
  const newLength = newKeys === undefined ? newKeyCount : newKeys.length;
  if (!deleted && newLength === oldKeys.length) return;
  for (let t = 0; t < newLength; t++) {
    const key = newKeys === undefined ? String(t) : (newKeys[t] as string);
    const value = a[key];
    if (!Object.hasOwn(b, key) && value !== undefined) push(ops, { op: "add", path: path + "/" + escapePathComponent(key), value });
  }
}

/** fast-json-patch's `_objectKeys`: an array's indices as strings, an object's own enumerable keys. */
function keysOf(c: Container, isArray: boolean): string[] {
  if (!isArray) return Object.keys(c);
  const keys = new Array<string>((c as unknown[]).length);
  for (let k = 0; k < keys.length; k++) keys[k] = String(k);
  return keys;
}

/** RFC 6901 escaping of one reference token: `~` → `~0`, then `/` → `~1`. */
export function escapePathComponent(key: string): string {
  if (key.indexOf("/") === -1 && key.indexOf("~") === -1) return key;
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
