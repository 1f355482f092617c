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

/** One `_generate` call in progress: its two containers, its path, and how far its loop over the old keys got. */
interface Frame {
  readonly b: Record<string, unknown>;
  readonly a: Record<string, unknown>;
  readonly after: Container;
  readonly path: string;
  readonly beforeIsArray: boolean;
  readonly afterIsArray: boolean;
  readonly oldKeys: string[];
  /** The next old key to look at (they are visited last to first). */
  t: number;
  deleted: boolean;
}

function frame(before: Container, after: Container, path: string): Frame {
  const beforeIsArray = Array.isArray(before);
  const oldKeys = keysOf(before, beforeIsArray);
  return {
    b: before as Record<string, unknown>,
    a: after as Record<string, unknown>,
    after,
    path,
    beforeIsArray,
    afterIsArray: Array.isArray(after),
    oldKeys,
    t: oldKeys.length - 1,
    deleted: false,
  };
}

/**
 * fast-json-patch's `_generate` (duplex.js) without the `invertible` tests and the clones. `_generate` recurses
 * into each pair of containers in the middle of its loop over the old keys; here the calls in progress are frames
 * on an explicit stack, so a deeply nested member (a managedFields entry's fieldsV1, say) cannot overflow the JS
 * stack, and the operations come out in the same order.
 */
function diffContainers(before: Container, after: Container, path: string, ops: Ops): void {
  if (before === after) return;
  const stack: Frame[] = [frame(before, after, path)];
  while (stack.length > 0) {
    const f = stack[stack.length - 1] as Frame;
    const { b, a } = f;
    let child: Frame | undefined;
    // Old members last to first, so that array elements are removed from the end.
    while (child === undefined && f.t >= 0) {
      const key = f.oldKeys[f.t--] as string;
      const oldVal = b[key];
      if (Object.hasOwn(a, key) && !(a[key] === undefined && oldVal !== undefined && !f.afterIsArray)) {
        const newVal = a[key];
        if (
          typeof oldVal === "object" &&
          oldVal !== null &&
          typeof newVal === "object" &&
          newVal !== null &&
          Array.isArray(oldVal) === Array.isArray(newVal)
        ) {
          if (oldVal !== newVal) child = frame(oldVal as Container, newVal as Container, f.path + "/" + escapePathComponent(key));
        } else if (oldVal !== newVal) {
          // compare's clone turns an undefined array element into null.
          push(ops, { op: "replace", path: f.path + "/" + escapePathComponent(key), value: newVal === undefined ? null : newVal });
        }
      } else if (f.beforeIsArray === f.afterIsArray) {
        push(ops, { op: "remove", path: f.path + "/" + escapePathComponent(key) });
        f.deleted = true;
      } else {
        // Only reachable at the root (containers of different kinds are otherwise replaced whole), and
        // repeated once per old member, as compare does.
        push(ops, { op: "replace", path: f.path, value: f.after });
      }
    }
    if (child !== undefined) {
      stack.push(child);
      continue;
    }
    stack.pop();
    const newKeys = f.afterIsArray ? undefined : Object.keys(a);
    const newLength = newKeys === undefined ? (f.after as unknown[]).length : newKeys.length;
    if (!f.deleted && newLength === f.oldKeys.length) continue;
    for (let t = 0; t < newLength; t++) {
      const key = newKeys === undefined ? String(t) : (newKeys[t] as string);
      const value = a[key];
      if (!Object.hasOwn(b, key) && value !== undefined) push(ops, { op: "add", path: f.path + "/" + escapePathComponent(key), value });
    }
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
