/**
 * The requests the property tests send to /defaulting. Two sources:
 * - every allowed /defaulting vector of a Knative kind, mutated: labels and annotations added under a
 *   prefix no rule owns, members unknown to the Go types inserted, members deleted, a client-supplied
 *   `spec.generation`, and CREATE / UPDATE / status-update shapes; each is sent as its own kind with and
 *   without generation bumping, and once more as a kind Duckbill has no Go type for;
 * - random objects of that foreign kind.
 */
import fc from "fast-check";
import { admitDefaulting } from "../../src/admission/defaulting.js";
import type { AdmissionDeps, RequestEnv } from "../../src/admission/deps.js";
import { generationalKeys } from "../../src/admission/generation.js";
import { decodeAdmissionReview, type AdmissionRequest } from "../../src/admission/review.js";
import { knativeTypes } from "../../src/apis/knative-types.js";
import type { GoType } from "../../src/go/encoding/json/types.js";
import { formatGvk, type GroupVersionKind } from "../../src/apis/gvk.js";
import { defaultSnapshot, snapshotFrom } from "../../src/config/snapshot.js";
import { knativeConfigMapValidators } from "../../src/config/validators.js";
import { KNATIVE_KINDS, knativeRegistry } from "../../src/serving/kinds.js";
import { escapeToken } from "./json-pointer.js";
import { defaultingVectorLines } from "./vector-objects.js";

export const FOREIGN: GroupVersionKind = { group: "props.example.dev", version: "v1", kind: "Gizmo" };
/** Labels and annotations under this prefix belong to no Knative rule. */
export const FREE_PREFIX = "props.example.com/";
/** Member names no Go type has (a `-` never folds onto a Go field name). */
export const UNKNOWN_PREFIX = "x-prop-";

const plain: AdmissionDeps = { kinds: knativeRegistry(), configMaps: knativeConfigMapValidators() };
const generational: AdmissionDeps = { ...plain, generational: generationalKeys([...KNATIVE_KINDS.map((k) => k.gvk), FOREIGN]) };

export type KindClass = "knative" | "knative-generational" | "foreign-generational";

export interface Case {
  readonly kindClass: KindClass;
  readonly req: AdmissionRequest;
  readonly deps: AdmissionDeps;
  readonly env: RequestEnv;
  /** Knative kinds: the Go type of the object, to tell struct positions from maps. */
  readonly goType: GoType | undefined;
}

interface Seed {
  readonly req: AdmissionRequest;
  readonly env: RequestEnv;
  readonly goType: GoType;
}

let seeds: Seed[] | undefined;

/** Every /defaulting vector of a Knative kind with an object that Duckbill allows. */
export function seedRequests(): readonly Seed[] {
  if (seeds !== undefined) return seeds;
  seeds = [];
  for (const line of defaultingVectorLines()) {
    const decoded = decodeAdmissionReview(line.review);
    if (!decoded.ok || decoded.review.request === undefined) continue;
    const req = decoded.review.request;
    const goType = knativeTypes.get(formatGvk(req.kind));
    if (goType === undefined || !isObject(req.object) || (req.operation !== "CREATE" && req.operation !== "UPDATE")) continue;
    const env = { config: snapshotFrom(line.configs ?? {}, "vector") };
    if (!admitDefaulting(req, plain, env).allowed) continue;
    seeds.push({ req, env, goType });
  }
  return seeds;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON as the API server sends it: what JSON.parse gives (no -0, no undefined, own `__proto__` members). */
function asJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

type Mutation =
  | { readonly kind: "delete"; readonly at: number; readonly member: number }
  | { readonly kind: "unknown"; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly kind: "label" | "annotation"; readonly template: boolean; readonly key: string; readonly value: string };

const dnsLabel = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), member: fc.nat() }),
  fc.record({ kind: fc.constant("unknown" as const), at: fc.nat(), key: dnsLabel.map((s) => UNKNOWN_PREFIX + s), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({
    kind: fc.constantFrom("label" as const, "annotation" as const),
    template: fc.boolean(),
    key: dnsLabel.map((s) => FREE_PREFIX + s),
    value: fc.string({ unit: "grapheme", maxLength: 16 }),
  }),
);

/** Pointers to every object (not array) node of `doc`, root first. */
function objectNodes(doc: unknown): Array<{ pointer: string; node: Record<string, unknown> }> {
  const out: Array<{ pointer: string; node: Record<string, unknown> }> = [];
  const walk = (v: unknown, pointer: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${pointer}/${i}`));
    else if (isObject(v)) {
      out.push({ pointer, node: v });
      for (const k of Object.keys(v)) walk(v[k], `${pointer}/${escapeToken(k)}`);
    }
  };
  walk(doc, "");
  return out;
}

function stringMap(parent: unknown, key: string): Record<string, unknown> | undefined {
  if (!isObject(parent)) return undefined;
  if (parent[key] === undefined || parent[key] === null) parent[key] = {};
  return isObject(parent[key]) ? parent[key] : undefined;
}

function mutate(object: Record<string, unknown>, mutations: readonly Mutation[]): void {
  // Deletions first, so that what is added afterwards is still there when the request is sent.
  const ordered = [...mutations].sort((a, b) => rank(a) - rank(b));
  for (const m of ordered) {
    if (m.kind === "delete" || m.kind === "unknown") {
      const nodes = objectNodes(object);
      const target = nodes[m.at % nodes.length]!.node;
      if (m.kind === "unknown") {
        target[m.key] = m.value;
      } else {
        const keys = Object.keys(target);
        if (keys.length > 0 && target !== object) delete target[keys[m.member % keys.length]!];
      }
    } else {
      const spec = object.spec;
      const owner = m.template ? (isObject(spec) && isObject(spec.template) ? spec.template : undefined) : object;
      const metadata = owner === undefined ? undefined : stringMap(owner, "metadata");
      const map = stringMap(metadata, m.kind === "label" ? "labels" : "annotations");
      if (map !== undefined) map[m.key] = m.value;
    }
  }
}

function rank(m: Mutation): number {
  return m.kind === "delete" ? 0 : m.kind === "unknown" ? 1 : 2;
}

function withSpecGeneration<T>(object: T, generation: unknown): T {
  if (generation !== undefined && isObject(object) && isObject(object.spec)) object.spec.generation = generation;
  return object;
}

const generationValue = fc.oneof(
  { weight: 6, arbitrary: fc.nat(10_000) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant("3") },
  { weight: 1, arbitrary: fc.constant(-1) },
);

/** A vector's request, mutated, as the three kind classes. */
const vectorCases: fc.Arbitrary<Case[]> = fc
  .record({
    seed: fc.nat(),
    mutations: fc.array(mutation, { maxLength: 6 }),
    shape: fc.constantFrom("as-vector", "create", "update", "status-update"),
    newGeneration: fc.option(generationValue, { nil: undefined }),
    oldGeneration: fc.option(fc.nat(10_000), { nil: undefined }),
  })
  .map(({ seed: i, mutations, shape, newGeneration, oldGeneration }) => {
    const all = seedRequests();
    const seed = all[i % all.length]!;
    const object = withSpecGeneration(asJson(seed.req.object) as Record<string, unknown>, newGeneration);
    mutate(object, mutations);
    let req: AdmissionRequest;
    if (shape === "as-vector") {
      req = { ...seed.req, object };
    } else if (shape === "create") {
      req = { ...seed.req, operation: "CREATE", subResource: "", object, oldObject: undefined };
    } else {
      const oldObject = withSpecGeneration(asJson(seed.req.object), oldGeneration);
      req = { ...seed.req, operation: "UPDATE", subResource: shape === "update" ? "" : "status", object, oldObject };
    }
    req = { ...req, object: asJson(req.object), oldObject: asJson(req.oldObject) };
    const foreign: AdmissionRequest = { ...req, kind: FOREIGN, resource: { group: FOREIGN.group, version: FOREIGN.version, resource: "gizmos" } };
    return [
      { kindClass: "knative", req, deps: plain, env: seed.env, goType: seed.goType },
      { kindClass: "knative-generational", req, deps: generational, env: seed.env, goType: seed.goType },
      { kindClass: "foreign-generational", req: foreign, deps: generational, env: seed.env, goType: undefined },
    ];
  });

const foreignSpec = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
);
const foreignObject = fc
  .record(
    {
      apiVersion: fc.constant("props.example.dev/v1"),
      kind: fc.constant("Gizmo"),
      metadata: fc.record({ name: dnsLabel, labels: fc.dictionary(dnsLabel, fc.string({ maxLength: 8 }), { maxKeys: 3 }) }, { requiredKeys: ["name"] }),
      spec: foreignSpec,
      status: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: ["apiVersion", "kind", "metadata"] },
  )
  .chain((o) => fc.dictionary(dnsLabel.map((s) => UNKNOWN_PREFIX + s), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }).map((extra) => ({ ...o, ...extra })));

/** Random objects of a kind Duckbill has no Go type for, created, updated or status-updated. */
const foreignCases: fc.Arbitrary<Case[]> = fc
  .record({
    object: foreignObject,
    newGeneration: fc.option(generationValue, { nil: undefined }),
    old: fc.option(
      fc.record({ sameSpec: fc.boolean(), other: foreignObject, generation: fc.option(fc.nat(10_000), { nil: undefined }), status: fc.boolean() }),
      { nil: undefined },
    ),
  })
  .map(({ object, newGeneration, old }) => {
    const newObject = withSpecGeneration(asJson(object) as Record<string, unknown>, newGeneration);
    const oldObject = old === undefined ? undefined : withSpecGeneration(asJson(old.sameSpec ? { ...old.other, spec: object.spec } : old.other) as Record<string, unknown>, old.generation);
    const req: AdmissionRequest = {
      uid: "7c6f3e1a-0000-4000-8000-000000000000",
      kind: FOREIGN,
      resource: { group: FOREIGN.group, version: FOREIGN.version, resource: "gizmos" },
      subResource: old?.status === true ? "status" : "",
      name: "gizmo",
      namespace: "default",
      operation: old === undefined ? "CREATE" : "UPDATE",
      userInfo: { username: "bob@example.com", uid: "2", groups: [], extra: {} },
      object: asJson(newObject),
      oldObject: asJson(oldObject),
      dryRun: false,
    };
    return [{ kindClass: "foreign-generational" as const, req, deps: generational, env: { config: defaultSnapshot() }, goType: undefined }];
  });

/** Counterexamples print as the request and its kind class (the dependencies are the same every time). */
function printable(list: Case[]): Case[] {
  return list.map((c) => Object.assign(c, { [fc.toStringMethod]: () => `${c.kindClass} ${fc.stringify(c.req)}` }));
}

export const cases: fc.Arbitrary<Case[]> = fc.oneof({ weight: 3, arbitrary: vectorCases }, { weight: 1, arbitrary: foreignCases }).map(printable);
