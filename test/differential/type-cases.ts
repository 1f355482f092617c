/**
 * Differential cases generated from the Go type model (src/apis/go-types.generated.ts through knativeTypes), not
 * mutated from vectors: every field path of every struct a kind reaches (slices at element 0, maps at key "k",
 * pointers through) set to a valid value, a wrongly typed one, a well-typed odd one (bad names, negative or
 * overflowing numbers), its Go zero value, empty ({}, [], ""), null, or left absent, in the new object, the old object of an UPDATE, or both (each its own class). The base objects are the
 * release's vectors' objects, so everything else about a case is valid. Absent, null and empty containers in old
 * versus new objects of UPDATEs (go-cmp's and equality.Semantic's nil-versus-empty rules) are the point.
 */
import fc from "fast-check";
import { knativeTypes } from "../../src/apis/knative-types.js";
import { zeroValue as goZeroValue } from "../../src/go/encoding/json/decode.js";
import type { GoType, StructType } from "../../src/go/encoding/json/types.js";
import type { Vector } from "../conformance/compare.js";
import type { Case } from "./cases.js";
import { RawNumber } from "./repeated-cases.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };
type Segment = string | number;

const MAX_DEPTH = 16;

/** A settable place: its JSON path from the object root and the Go type there. */
export interface TypedPath {
  readonly path: readonly Segment[];
  readonly type: GoType;
}

const pathsByType = new Map<StructType, TypedPath[]>();

/** Every field path below a kind's struct, depth-first, each recursion through a struct type cut once it repeats. */
export function typedPaths(root: StructType): readonly TypedPath[] {
  let out = pathsByType.get(root);
  if (out !== undefined) return out;
  out = [];
  const walk = (t: GoType, path: Segment[], onPath: Set<StructType>): void => {
    if (path.length > MAX_DEPTH) return;
    switch (t.kind) {
      case "ptr":
        walk(t.elem, path, onPath);
        return;
      case "slice":
        walk(t.elem, [...path, 0], onPath);
        return;
      case "map":
        walk(t.elem, [...path, "k"], onPath);
        return;
      case "struct": {
        if (onPath.has(t)) return;
        onPath.add(t);
        for (const f of t.fields) {
          const p = [...path, f.name];
          (out as TypedPath[]).push({ path: p, type: f.type });
          walk(f.type, p, onPath);
        }
        onPath.delete(t);
        return;
      }
      default:
        return;
    }
  };
  walk(root, [], new Set());
  pathsByType.set(root, out);
  return out;
}

const containersByType = new Map<StructType, TypedPath[]>();

/** The paths whose Go type is a slice or a map (behind pointers or not). */
export function containerPaths(root: StructType): readonly TypedPath[] {
  let out = containersByType.get(root);
  if (out === undefined) {
    out = typedPaths(root).filter((p) => {
      const d = deref(p.type);
      return d.kind === "slice" || d.kind === "map";
    });
    containersByType.set(root, out);
  }
  return out;
}

/** The value classes a field is set to; `absent` deletes it. */
export const VALUE_CLASSES = ["valid", "invalid", "zero", "empty", "null", "absent", "odd"] as const;
export type ValueClass = (typeof VALUE_CLASSES)[number];

function deref(t: GoType): GoType {
  return t.kind === "ptr" ? deref(t.elem) : t;
}

function validValue(t: GoType, depth = 0): Json {
  switch (t.kind) {
    case "string":
      return "a";
    case "bool":
      return true;
    case "int":
    case "float":
      return 1;
    case "bytes":
      return "YQ==";
    case "ptr":
      return validValue(t.elem, depth);
    case "slice":
      return depth > 3 ? [] : [validValue(t.elem, depth + 1)];
    case "map":
      return depth > 3 ? {} : { k: validValue(t.elem, depth + 1) };
    case "struct": {
      const first = t.fields[0];
      return first === undefined || depth > 3 ? {} : { [first.name]: validValue(first.type, depth + 1) };
    }
    case "quantity":
      return "1";
    case "time":
      return "2024-05-14T09:30:00Z";
    case "intOrString":
      return 8080;
    case "url":
      return "https://example.com";
    case "raw":
      return {};
    case "any":
      return "a";
  }
}

/**
 * Odd URLs for apis.URL fields, one drawn per case: a space, and the hosts Go's url.Parse reads differently from
 * release to release (brackets and colons: Go 1.26 checks IP literals, and Knative 1.24's module takes an http(s)
 * port from the first colon). The first is what every case got before.
 */
/** Numbers as written that JSON.parse's value does not show: an integer field refuses each (Go reads the literal). */
const ODD_NUMBER_LITERALS = ["1.0", "1e3", "5e-1", "-0.0", "1e400", "8.08e3"];
const ODD_URLS = ["http://ex ample.com/", "http://a:1:2", "https://a::1/x", "http://[]", "http://[1.2.3.4]/", "http://[::1]:80/", "https://x[y]", "http://[fe80::1%25en0]/", "http://[::1", "ftp://a:1:2", "https://[::ffff:1.2.3.4]:8443"];

/**
 * Well-typed values that Kubernetes' and Knative's rules tend to refuse: bad names, negative and 32-bit-overflowing
 * numbers, odd URLs (`variant` picks one).
 */
function oddValue(t: GoType, depth = 0, variant = 0): Json {
  switch (t.kind) {
    case "string":
      return "-Bad_Name.";
    case "int": {
      // Two in three: a literal with a fraction or an exponent, which Go's ParseInt refuses whatever its value.
      const literal = ODD_NUMBER_LITERALS[variant % (ODD_NUMBER_LITERALS.length + 3)];
      if (literal !== undefined) return new RawNumber(literal) as unknown as Json;
      return t.min < 0 ? -1 : 4294967296 < t.limit ? 2147483648 : 0;
    }
    case "float":
      return variant % 2 === 0 ? -0.5 : (new RawNumber("1e400") as unknown as Json);
    case "ptr":
      return oddValue(t.elem, depth, variant);
    case "slice":
      return depth > 3 ? [] : [oddValue(t.elem, depth + 1, variant), oddValue(t.elem, depth + 1, variant)];
    case "map":
      return depth > 3 ? {} : { "-Bad_Key.": oddValue(t.elem, depth + 1, variant) };
    case "struct": {
      const first = t.fields[0];
      return first === undefined || depth > 3 ? {} : { [first.name]: oddValue(first.type, depth + 1, variant) };
    }
    case "quantity":
      return "-1";
    case "time":
      return "2024-05-14T09:30:00.123+02:00";
    case "intOrString":
      return variant % 2 === 0 ? "-bad-port-name-" : (new RawNumber("8.08e3") as unknown as Json);
    case "url":
      return ODD_URLS[variant % ODD_URLS.length] as string;
    default:
      return validValue(t);
  }
}

function invalidValue(t: GoType): Json {
  switch (t.kind) {
    case "string":
    case "bytes":
    case "url":
      return 1;
    case "bool":
      return "true";
    case "int":
      return 1.5;
    case "float":
      return "1";
    case "ptr":
      return invalidValue(t.elem);
    case "slice":
      return {};
    case "map":
      return [];
    case "struct":
      return "a";
    case "quantity":
      return "1x";
    case "time":
      return "yesterday";
    case "intOrString":
      return true;
    case "raw":
    case "any":
      return "\u0000";
  }
}

/** The JSON a Go zero value marshals to (a pointer: a non-nil pointer to its target's zero value). */
function zeroValue(t: GoType): Json {
  return t.kind === "ptr" ? zeroValue(t.elem) : (goZeroValue(t) as Json);
}

function emptyValue(t: GoType): Json {
  const d = deref(t);
  if (d.kind === "slice") return [];
  if (d.kind === "string" || d.kind === "bytes" || d.kind === "url" || d.kind === "quantity" || d.kind === "time") return "";
  return {};
}

export function valueOf(t: GoType, c: ValueClass, variant = 0): Json | undefined {
  switch (c) {
    case "valid":
      return validValue(t);
    case "invalid":
      return invalidValue(t);
    case "zero":
      return zeroValue(t);
    case "empty":
      return emptyValue(t);
    case "null":
      return null;
    case "absent":
      return undefined;
    case "odd":
      return oddValue(t, 0, variant);
  }
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Sets (or, for undefined, deletes) the value at path, creating the objects and arrays on the way. */
export function setPath(root: JsonObject, path: readonly Segment[], value: Json | undefined): void {
  let cur: Json = root;
  for (let i = 0; i < path.length - 1; i++) {
    const s = path[i] as Segment;
    const nextIsIndex = typeof path[i + 1] === "number";
    if (Array.isArray(cur) && typeof s === "number") {
      if (!(s in cur) || (nextIsIndex ? !Array.isArray(cur[s]) : !isObject(cur[s]))) {
        if (value === undefined) return;
        cur[s] = nextIsIndex ? [] : {};
      }
      cur = cur[s] as Json;
    } else if (isObject(cur) && typeof s === "string") {
      const next: Json | undefined = Object.hasOwn(cur, s) ? cur[s] : undefined;
      if (next === undefined || (nextIsIndex ? !Array.isArray(next) : !isObject(next))) {
        if (value === undefined) return;
        cur[s] = nextIsIndex ? [] : {};
      }
      cur = cur[s] as Json;
    } else return;
  }
  const last = path[path.length - 1] as Segment;
  if (Array.isArray(cur) && typeof last === "number") {
    if (value === undefined) cur.splice(last, 1);
    else cur[last] = value;
  } else if (isObject(cur) && typeof last === "string") {
    if (value === undefined) delete cur[last];
    else cur[last] = value;
  }
}

/** Where the classes go: 0 CREATE (the object), 1 UPDATE (the new object), 2 UPDATE (the old object), 3 UPDATE (both). */
export interface TypePlan {
  readonly base: number;
  readonly path: number;
  readonly newClass: number;
  readonly oldClass: number;
  readonly placement: number;
  /** 0 /defaulting, 1 /resource-validation. */
  readonly admission: number;
  /** Draw the path from the slice and map fields only (absent, null and empty containers). */
  readonly containers: boolean;
}

export function typePlanArb(corpusSize: number): fc.Arbitrary<TypePlan> {
  return fc.record({
    base: fc.nat(Math.max(corpusSize, 1) * 16 - 1),
    path: fc.nat(1_000_000),
    newClass: fc.nat(VALUE_CLASSES.length - 1),
    oldClass: fc.nat(VALUE_CLASSES.length - 1),
    // UPDATEs with the classes in old and new objects are what vector mutation never makes: weight them.
    placement: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) }, { weight: 5, arbitrary: fc.constant(3) }),
    admission: fc.nat(1),
    containers: fc.boolean(),
  });
}

/** The vectors whose object is a kind the resource webhooks decode: the bases of type cases. */
export function typeCorpus(vectors: readonly Vector[]): Vector[] {
  return vectors.filter((v) => {
    if (v.path !== "/defaulting" && v.path !== "/resource-validation") return false;
    const req = (v.review as { request?: { object?: unknown; kind?: { group?: string; version?: string; kind?: string } } } | undefined)?.request;
    return isObject(req?.object) && typeOfKind(req?.kind) !== undefined;
  });
}

function typeOfKind(k: { group?: string; version?: string; kind?: string } | undefined): StructType | undefined {
  if (k === undefined) return undefined;
  const gv = k.group === "" || k.group === undefined ? k.version : `${k.group}/${k.version}`;
  const t = knativeTypes.get(`${gv}, Kind=${k.kind}`);
  return t?.kind === "struct" ? t : undefined;
}

function describePath(path: readonly Segment[]): string {
  return path.map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`)).join("") || ".";
}

const byKind = new WeakMap<readonly Vector[], readonly (readonly Vector[])[]>();

/** The corpus grouped by kind, so that every kind is drawn as often (Services are most of the vectors). */
function kindGroups(corpus: readonly Vector[]): readonly (readonly Vector[])[] {
  let groups = byKind.get(corpus);
  if (groups === undefined) {
    const m = new Map<StructType, Vector[]>();
    for (const v of corpus) {
      const t = typeOfKind(((v.review as JsonObject).request as JsonObject).kind as { group?: string; version?: string; kind?: string }) as StructType;
      m.set(t, [...(m.get(t) ?? []), v]);
    }
    groups = [...m.values()];
    byKind.set(corpus, groups);
  }
  return groups;
}

/** The case a type plan stands for. */
export function buildTypeCase(corpus: readonly Vector[], plan: TypePlan, name: string): Case {
  const groups = kindGroups(corpus);
  const group = groups[plan.base % groups.length] as readonly Vector[];
  const vector = group[Math.floor(plan.base / groups.length) % group.length] as Vector;
  const review = JSON.parse(JSON.stringify(vector.review)) as JsonObject;
  const request = review.request as JsonObject;
  const root = typeOfKind(request.kind as { group?: string; version?: string; kind?: string }) as StructType;
  const paths = plan.containers ? containerPaths(root) : typedPaths(root);
  const target = paths[plan.path % paths.length] as TypedPath;
  // What of plan.path the path did not use picks among odd values (ODD_URLS).
  const variant = Math.floor(plan.path / paths.length);
  const newClass = VALUE_CLASSES[plan.newClass] as ValueClass;
  const oldClass = VALUE_CLASSES[plan.oldClass] as ValueClass;
  const line: Record<string, unknown> = { name, path: plan.admission === 0 ? "/defaulting" : "/resource-validation" };
  if (vector.configs !== undefined) line.configs = JSON.parse(JSON.stringify(vector.configs)) as unknown;
  line.review = review;
  const object = request.object as JsonObject;
  const where = describePath(target.path);
  const description: string[] = [];
  if (plan.placement === 0) {
    request.operation = "CREATE";
    request.oldObject = null;
    setPath(object, target.path, valueOf(target.type, newClass, variant));
    description.push(`CREATE, object${where} ${newClass}`);
  } else {
    request.operation = "UPDATE";
    const old = isObject(request.oldObject) ? request.oldObject : (JSON.parse(JSON.stringify(object)) as JsonObject);
    request.oldObject = old;
    if (plan.placement !== 2) setPath(object, target.path, valueOf(target.type, newClass, variant));
    if (plan.placement !== 1) setPath(old, target.path, valueOf(target.type, oldClass, variant + 1));
    description.push(`UPDATE, ${plan.placement !== 2 ? `object${where} ${newClass}` : "object as is"}, ${plan.placement !== 1 ? `oldObject${where} ${oldClass}` : "oldObject as is"}`);
  }
  return { line, base: vector.name, description };
}
