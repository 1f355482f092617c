/**
 * Semantic equality of JSON values when no Go type is at hand (the untyped half of Kubernetes'
 * `equality.Semantic.DeepEqual`, k8s.io/apimachinery pkg/api/equality/semantic.go): member order never counts, and
 * null, an absent member, `[]` and `{}` are one empty value, as is an object whose members are all empty. Strings,
 * numbers and booleans compare exactly (`""` and `0` are values, not absences: without a type nothing says they were
 * omitempty).
 *
 * Iterative, so that a deeply nested request body cannot overflow the stack.
 */
import { isJsonObject, type JsonObject } from "../go/encoding/json/json-value.js";


/** null/absent, `[]`, `{}`, and objects whose members are all empty. */
export function isEmptyJson(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isJsonObject(v)) return false;
  const stack: JsonObject[] = [v];
  while (stack.length > 0) {
    const o = stack.pop() as JsonObject;
    for (const key of Object.keys(o)) {
      const m = o[key];
      if (m === undefined || m === null) continue;
      if (Array.isArray(m)) {
        if (m.length !== 0) return false;
      } else if (isJsonObject(m)) {
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
    if (isJsonObject(x) && isJsonObject(y)) {
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
    } else if (ignored !== undefined && (isJsonObject(x) || isJsonObject(y))) {
      // One side is an object and the other empty: compare the object without the ignored member.
      const o = (isJsonObject(x) ? x : y) as JsonObject;
      if (!isEmptyJson(isJsonObject(x) ? y : x)) return false;
      for (const key of Object.keys(o)) if (key !== ignored && !isEmptyJson(o[key])) return false;
    } else if (!(isEmptyJson(x) && isEmptyJson(y))) {
      return false;
    }
  }
  return true;
}

/**
 * Deep equality of two JSON values as JSON.stringify would write them, member order aside: an object member
 * whose value is `undefined` is absent, `null` is a value. Iterative, so deep documents cannot overflow the stack.
 * (The one strict JSON equality: the kube reconcilers, go-cmp's untyped leaves and kubectl's merge use it.)
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const y = stack.pop();
    const x = stack.pop();
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    const xa = Array.isArray(x);
    if (xa !== Array.isArray(y)) return false;
    if (xa) {
      const ya = y as unknown[];
      if (x.length !== ya.length) return false;
      for (let i = 0; i < x.length; i++) stack.push(x[i], ya[i]);
      continue;
    }
    const xo = x as JsonObject;
    const yo = y as JsonObject;
    let xn = 0;
    for (const k of Object.keys(xo)) {
      if (xo[k] === undefined) continue;
      xn++;
      if (!Object.hasOwn(yo, k)) return false;
      stack.push(xo[k], yo[k]);
    }
    let yn = 0;
    for (const k of Object.keys(yo)) if (yo[k] !== undefined) yn++;
    if (xn !== yn) return false;
  }
  return true;
}
