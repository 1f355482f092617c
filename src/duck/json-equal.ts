/**
 * Semantic equality of JSON values when no Go type is at hand (the untyped half of Kubernetes'
 * `equality.Semantic.DeepEqual`, spec §1.6): member order never counts, and null, an absent member, `[]`
 * and `{}` are one empty value, as is an object whose members are all empty. Strings, numbers and booleans
 * compare exactly (`""` and `0` are values, not absences: without a type nothing says they were omitempty).
 *
 * Iterative, so that a deeply nested request body cannot overflow the stack.
 */
type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** null/absent, `[]`, `{}`, and objects whose members are all empty. */
export function isEmptyJson(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isObject(v)) return false;
  const stack: JsonObject[] = [v];
  while (stack.length > 0) {
    const o = stack.pop() as JsonObject;
    for (const key of Object.keys(o)) {
      const m = o[key];
      if (m === undefined || m === null) continue;
      if (Array.isArray(m)) {
        if (m.length !== 0) return false;
      } else if (isObject(m)) {
        stack.push(m);
      } else {
        return false;
      }
    }
  }
  return true;
}

export function jsonSemanticEqual(a: unknown, b: unknown): boolean {
  return equalExcept(a, b, undefined);
}

/** Semantic equality of two objects, leaving out one top-level member (`spec` without its `generation`). */
export function jsonSemanticEqualExcept(a: unknown, b: unknown, ignoredKey: string): boolean {
  return equalExcept(a, b, ignoredKey);
}

function equalExcept(a: unknown, b: unknown, ignoredKey: string | undefined): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  let top = true;
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    const ignored = top ? ignoredKey : undefined;
    top = false;
    if (x === y) continue;
    if (isObject(x) && isObject(y)) {
      for (const key of Object.keys(x)) {
        if (key === ignored) continue;
        left.push(x[key]);
        right.push(Object.hasOwn(y, key) ? y[key] : undefined);
      }
      for (const key of Object.keys(y)) {
        if (key !== ignored && !Object.hasOwn(x, key) && !isEmptyJson(y[key])) return false;
      }
    } else if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        left.push(x[i]);
        right.push(y[i]);
      }
    } else if (ignored !== undefined && (isObject(x) || isObject(y))) {
      // One side is an object and the other empty: compare the object without the ignored member.
      const o = (isObject(x) ? x : y) as JsonObject;
      if (!isEmptyJson(isObject(x) ? y : x)) return false;
      for (const key of Object.keys(o)) if (key !== ignored && !isEmptyJson(o[key])) return false;
    } else if (!(isEmptyJson(x) && isEmptyJson(y))) {
      return false;
    }
  }
  return true;
}
