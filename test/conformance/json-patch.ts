/**
 * compare.py's strict RFC 6902 `apply_patch`, ported operation for operation: `add` needs an existing parent,
 * `replace` an existing target, array indexes are canonical decimals (`-` only where appending is allowed), and a
 * `move` removes before it adds. The input document is not modified.
 */
import { setMember } from "../support/normalize.js";
import { attributeError, decimalValue, hasKey, isDict, pyEqual, pyRepr, type Dict } from "./python-values.js";

export class PatchError extends Error {}

/** copy.deepcopy of a decoded JSON value. */
export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (!isDict(v)) return v;
  const out: Dict = {};
  for (const k of Object.keys(v)) setMember(out, k, deepCopy(v[k]));
  return out as T;
}

function unescapeToken(tok: string): string {
  return tok.replaceAll("~1", "/").replaceAll("~0", "~");
}

function split(pointer: unknown): string[] {
  if (pointer === "") return [];
  if (typeof pointer !== "string") throw attributeError(pointer, "startswith");
  if (!pointer.startsWith("/")) throw new PatchError(`invalid JSON pointer ${pyRepr(pointer)}`);
  return pointer.slice(1).split("/").map(unescapeToken);
}

function index(tok: string, n: number, allowEnd: boolean): number {
  if (tok === "-" && allowEnd) return n;
  const value = tok.length > 1 && tok[0] === "0" ? undefined : decimalValue(tok);
  if (value === undefined) throw new PatchError(`invalid array index ${pyRepr(tok)}`);
  if (value > BigInt(n) || (value === BigInt(n) && !allowEnd)) throw new PatchError(`array index ${value} out of range`);
  return Number(value);
}

function parent(doc: unknown, toks: readonly string[]): unknown {
  let cur = doc;
  for (let i = 0; i < toks.length - 1; i++) {
    const t = toks[i] as string;
    if (isDict(cur)) {
      if (!hasKey(cur, t)) throw new PatchError(`missing key ${pyRepr(t)}`);
      cur = cur[t];
    } else if (Array.isArray(cur)) {
      cur = cur[index(t, cur.length, false)];
    } else {
      throw new PatchError(`cannot traverse into a scalar at ${pyRepr(t)}`);
    }
  }
  return cur;
}

function get(doc: unknown, pointer: unknown): unknown {
  const toks = split(pointer);
  if (toks.length === 0) return doc;
  const par = parent(doc, toks);
  const last = toks[toks.length - 1] as string;
  if (isDict(par)) {
    if (!hasKey(par, last)) throw new PatchError(`missing key ${pyRepr(last)}`);
    return par[last];
  }
  if (Array.isArray(par)) return par[index(last, par.length, false)];
  throw new PatchError("cannot index a scalar");
}

function add(doc: unknown, pointer: unknown, value: unknown): unknown {
  const toks = split(pointer);
  if (toks.length === 0) return value;
  const par = parent(doc, toks);
  const last = toks[toks.length - 1] as string;
  if (isDict(par)) setMember(par, last, value);
  else if (Array.isArray(par)) par.splice(index(last, par.length, true), 0, value);
  else throw new PatchError("cannot add to a scalar");
  return doc;
}

function remove(doc: unknown, pointer: unknown): unknown {
  const toks = split(pointer);
  if (toks.length === 0) throw new PatchError("cannot remove the root");
  const par = parent(doc, toks);
  const last = toks[toks.length - 1] as string;
  if (isDict(par)) {
    if (!hasKey(par, last)) throw new PatchError(`remove: missing key ${pyRepr(last)}`);
    const value = par[last];
    delete par[last];
    return value;
  }
  if (Array.isArray(par)) return par.splice(index(last, par.length, false), 1)[0];
  throw new PatchError("cannot remove from a scalar");
}

function member(op: Dict, key: string, fallback: unknown): unknown {
  return hasKey(op, key) ? op[key] : fallback;
}

/**
 * Applies `ops` (decoded RFC 6902 operations) to a copy of `doc`. Throws PatchError where compare.py raises it,
 * and PythonError where Python itself would fail (a pointer that is not a string).
 */
export function applyPatch(doc: unknown, ops: unknown): unknown {
  doc = deepCopy(doc);
  if (ops === null || ops === undefined) return doc;
  if (!Array.isArray(ops)) throw new PatchError("patch is not a JSON array");
  for (const op of ops) {
    if (!isDict(op) || !hasKey(op, "op") || !hasKey(op, "path")) throw new PatchError(`malformed operation ${pyRepr(op)}`);
    const kind = op.op;
    const path = op.path;
    if (kind === "add") {
      doc = add(doc, path, deepCopy(member(op, "value", null)));
    } else if (kind === "remove") {
      remove(doc, path);
    } else if (kind === "replace") {
      get(doc, path);
      if (split(path).length > 0) remove(doc, path);
      doc = add(doc, path, deepCopy(member(op, "value", null)));
    } else if (kind === "move") {
      const value = remove(doc, member(op, "from", ""));
      doc = add(doc, path, value);
    } else if (kind === "copy") {
      doc = add(doc, path, deepCopy(get(doc, member(op, "from", ""))));
    } else if (kind === "test") {
      if (!pyEqual(get(doc, path), member(op, "value", null))) throw new PatchError(`test failed at ${path as string}`);
    } else {
      throw new PatchError(`unknown op ${pyRepr(kind)}`);
    }
  }
  return doc;
}
