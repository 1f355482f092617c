/**
 * Differential cases whose review text repeats a key: the API server never sends one, but Go's encoding/json decodes
 * every occurrence into what is already there (structs and maps merge, slices reuse their elements, RawExtension
 * keeps the last non-null occurrence's bytes) while an interface{} view keeps the last one. A case takes a vector's
 * review, picks an object anywhere in it (the envelope: review, request, kind, userInfo, object, oldObject; inside
 * the objects: metadata, labels, annotations, spec, template, containers, ...) and one of its keys, and writes that
 * key once more, before or after the original, holding a partial, mutated, emptied, truncated, null or other-typed
 * value. The repeated members are recorded on the object (json-value.ts REPEATED_MEMBERS), so the line's own
 * properties stay the last-wins view, and the line is written out with them by lineText.
 */
import fc from "fast-check";
import { repeatedMembers, setRepeatedMembers } from "../../src/go/encoding/json/json-value.js";
import { rawMemberText } from "../../src/go/encoding/json/raw-member.js";
import type { Vector } from "../conformance/compare.js";
import type { Case } from "./cases.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/**
 * A number written as given (`1.0`, `1e3`, `1e400`): Go decodes numbers from their literal, which a JS number cannot
 * carry. lineText writes the text; a copy through JSON (toJSON) holds its value.
 */
export class RawNumber {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

/**
 * JSON.stringify, but an object with recorded repeated members is written with all of them, in their order, and a
 * RawNumber as its text.
 */
export function lineText(v: unknown): string {
  if (v instanceof RawNumber) return v.text;
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((e: unknown) => (e === undefined ? "null" : lineText(e))).join(",")}]`;
  const members = repeatedMembers(v) ?? Object.entries(v as Record<string, unknown>);
  const parts: string[] = [];
  for (const [k, e] of members) if (e !== undefined) parts.push(`${JSON.stringify(k)}:${lineText(e)}`);
  return `{${parts.join(",")}}`;
}

/**
 * The line as Knative's decoding sees its object: `request.object` is the last non-null occurrence across every
 * `request` (runtime.RawExtension ignores null; a repeated request struct merges), what its patch applies to.
 */
export function goViewLine(line: Record<string, unknown>): Record<string, unknown> {
  const review = line.review;
  if (review === null || typeof review !== "object" || Array.isArray(review)) return line;
  const request = (review as Record<string, unknown>).request;
  if (request === null || typeof request !== "object" || Array.isArray(request)) return line;
  const text = rawMemberText(lineText(review), ["request", "object"]);
  const object: unknown = text === undefined ? null : JSON.parse(text);
  return { ...line, review: { ...(review as object), request: { ...(request as object), object } } };
}

export interface RepeatPlan {
  readonly vector: number;
  readonly node: number;
  readonly key: number;
  readonly after: boolean;
  readonly variant: number;
  readonly pick: number;
}

export function repeatPlanArb(corpusSize: number): fc.Arbitrary<RepeatPlan> {
  return fc.record({
    vector: fc.nat({ max: corpusSize - 1 }),
    node: fc.nat(),
    key: fc.nat(),
    after: fc.boolean(),
    variant: fc.nat({ max: VARIANTS.length - 1 }),
    pick: fc.nat(),
  });
}

const OTHERS: readonly Json[] = ["x", "", 0, -1, 1.5, true, false, {}, [], "ghcr.io/other/image", { a: "b" }, [{}]];

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Every non-empty object in `root` with its path, objects under request.object and request.oldObject weighted up. */
function objectNodes(root: Json): Array<{ node: JsonObject; path: string }> {
  const out: Array<{ node: JsonObject; path: string }> = [];
  const walk = (v: Json, path: string): void => {
    if (Array.isArray(v)) v.forEach((e, i) => walk(e, `${path}[${i}]`));
    else if (isObject(v)) {
      if (Object.keys(v).length > 0) out.push({ node: v, path });
      for (const [k, e] of Object.entries(v)) walk(e, `${path}.${k}`);
    }
  };
  walk(root, "review");
  return out;
}

/** Leaves and containers below `v` (paths of keys/indices), for the mutated variant. */
function places(v: Json, path: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (Array.isArray(v)) v.forEach((e, i) => places(e, [...path, i], out));
  else if (isObject(v)) for (const [k, e] of Object.entries(v)) places(e, [...path, k], out);
  if (path.length > 0) out.push(path);
  return out;
}

function setAt(root: Json, path: ReadonlyArray<string | number>, value: Json): void {
  let cur: Json = root;
  for (const seg of path.slice(0, -1)) cur = (cur as Record<string | number, Json>)[seg] as Json;
  (cur as Record<string | number, Json>)[path[path.length - 1] as string | number] = value;
}

/** Every other member (or element, partially), starting at the first or the second. */
function partial(v: Json, pick: number): Json {
  if (isObject(v)) {
    const keys = Object.keys(v);
    const out: JsonObject = {};
    keys.forEach((k, i) => {
      if (i % 2 === pick % 2) out[k] = clone(v[k] as Json);
    });
    return out;
  }
  if (Array.isArray(v)) return v.length === 0 ? [{}] : [partial(v[0] as Json, pick)];
  return OTHERS[pick % OTHERS.length] as Json;
}

type Variant = (orig: Json, pick: number) => { value: Json; what: string };

const VARIANTS: readonly Variant[] = [
  (o, p) => ({ value: partial(o, p), what: "partial" }),
  (o, p) => {
    const value = clone(o);
    const ps = places(value);
    if (ps.length === 0) return { value: OTHERS[p % OTHERS.length] as Json, what: "other" };
    const at = ps[p % ps.length] as Array<string | number>;
    const other = OTHERS[Math.floor(p / ps.length) % OTHERS.length] as Json;
    setAt(value, at, clone(other));
    return { value, what: `mutated at ${at.join(".")} to ${JSON.stringify(other)}` };
  },
  () => ({ value: null, what: "null" }),
  (_o, p) => ({ value: clone(OTHERS[p % OTHERS.length] as Json), what: "other" }),
  (o) => ({ value: Array.isArray(o) ? [] : isObject(o) ? {} : "", what: "empty" }),
  (o, p) => {
    if (!Array.isArray(o)) return { value: partial(o, p), what: "partial" };
    if (p % 2 === 0 || o.length === 0) return { value: clone(o.slice(0, Math.max(0, o.length - 1))), what: "truncated" };
    return { value: [...clone(o), partial(o[0] as Json, p)], what: "extended" };
  },
  (o) => ({ value: clone(o), what: "same" }),
];

export function buildRepeatCase(corpus: readonly Vector[], plan: RepeatPlan, name: string): Case {
  const vector = corpus[plan.vector % corpus.length] as Vector;
  const line: Record<string, unknown> = { name, path: vector.path };
  if (vector.configs !== undefined) line.configs = clone(vector.configs);
  if (vector.contentType !== undefined) line.contentType = vector.contentType;
  const review = clone(vector.review as Json);
  line.review = review;
  const nodes = objectNodes(review);
  // Weight nodes inside the objects (a third of the picks go to the envelope's own objects).
  const inside = nodes.filter((n) => /^review\.request\.(object|oldObject)\./.test(n.path));
  const pool = plan.node % 3 === 0 || inside.length === 0 ? nodes : inside;
  if (pool.length === 0) return { line, base: vector.name, description: ["no object to repeat a key in"] };
  const { node, path } = pool[Math.floor(plan.node / 3) % pool.length] as { node: JsonObject; path: string };
  const keys = Object.keys(node);
  const key = keys[plan.key % keys.length] as string;
  const orig = node[key] as Json;
  const variant = VARIANTS[plan.variant % VARIANTS.length] as Variant;
  const { value, what } = variant(orig, plan.pick);
  const members: Array<readonly [string, unknown]> = [];
  for (const k of keys) {
    if (k !== key) members.push([k, node[k]]);
    else if (plan.after) members.push([k, orig], [k, value]);
    else members.push([k, value], [k, orig]);
  }
  // The object's own property is the last occurrence (JSON.parse's view).
  if (plan.after) node[key] = value;
  setRepeatedMembers(node, members);
  return { line, base: vector.name, description: [`${path}.${key} repeated ${plan.after ? "after" : "before"} the original: ${what}`] };
}
