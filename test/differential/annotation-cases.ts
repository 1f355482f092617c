/**
 * Differential cases for annotations: the keys Knative reads (knative-keys.ts, from its register.go files) set to
 * every value grammar's edges (configmap-cases.ts EDGE_VALUES, the int64 edges of time.Duration, and the values an
 * author types for these keys), one to three at a time, on the metadata or the template metadata of the Services,
 * Configurations, Revisions, Routes and DomainMappings the vectors hold, at /defaulting and /resource-validation.
 * Mutation reuses the annotation values the vectors hold and the type model sees `map[string]string`; neither puts
 * `9223372036854775807ns` under `serving.knative.dev/rollout-duration`.
 */
import fc from "fast-check";
import type { Vector } from "../conformance/compare.js";
import type { Case } from "./cases.js";
import { EDGE_VALUES } from "./configmap-cases.js";
import { DURATION_EDGE_VALUES, KNATIVE_ANNOTATION_KEYS } from "./knative-keys.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const KINDS = new Set(["Service", "Configuration", "Revision", "Route", "DomainMapping"]);

/** What authors type under these keys, beyond the grammars' edges. */
const ANNOTATION_VALUES: readonly string[] = [
  "kpa.autoscaling.knative.dev", "hpa.autoscaling.knative.dev", "other.class", "concurrency", "rps", "cpu", "memory", "custom", "weightedExponential",
  "10%", "50.5", "99.9", "101", "200", "0.9", "1.1", "6s", "3600s", "1h1s", "30m", "cluster-local", "alice@example.com", "2020-01-01T00:00:00Z", "1000000",
];

export const ANNOTATION_EDGE_VALUES: readonly string[] = [...new Set([...EDGE_VALUES, ...DURATION_EDGE_VALUES, ...ANNOTATION_VALUES])];

/** The admission vectors whose object is one of KINDS, answered with HTTP 200. */
export function annotationCorpus(vectors: readonly Vector[]): Vector[] {
  return vectors.filter((v) => {
    if ((v.path !== "/defaulting" && v.path !== "/resource-validation") || v.expect.httpStatus !== 200) return false;
    const request = (v.review as { request?: { object?: unknown; operation?: string } } | undefined)?.request;
    const object = request?.object;
    return (request?.operation === "CREATE" || request?.operation === "UPDATE") && isObject(object) && typeof object.kind === "string" && KINDS.has(object.kind);
  });
}

export interface AnnotationPlan {
  readonly base: number;
  /** One to three annotations set, each [key choice, value choice, where: 0 metadata, 1 the template's]. */
  readonly edits: ReadonlyArray<readonly [number, number, number]>;
}

export function annotationPlanArb(corpusSize: number): fc.Arbitrary<AnnotationPlan> {
  return fc.record({
    base: fc.nat(Math.max(0, corpusSize - 1)),
    edits: fc.array(fc.tuple(fc.nat(KNATIVE_ANNOTATION_KEYS.length - 1), fc.nat(ANNOTATION_EDGE_VALUES.length - 1), fc.nat(1)), { minLength: 1, maxLength: 3 }),
  });
}

/** The metadata an edit lands in: the object's, or its template's (created if absent); undefined where there is none. */
function metadataOf(object: JsonObject, where: number): JsonObject | undefined {
  if (where === 0) {
    if (!isObject(object.metadata)) object.metadata = {};
    return object.metadata as JsonObject;
  }
  const spec = object.spec;
  if (!isObject(spec) || !isObject(spec.template)) return undefined;
  if (!isObject(spec.template.metadata)) spec.template.metadata = {};
  return spec.template.metadata as JsonObject;
}

/** The case a plan stands for. */
export function buildAnnotationCase(corpus: readonly Vector[], plan: AnnotationPlan, name: string): Case {
  const vector = corpus[plan.base % corpus.length] as Vector;
  const review = JSON.parse(JSON.stringify(vector.review)) as JsonObject;
  const object = (review.request as JsonObject).object as JsonObject;
  const description: string[] = [`${String(object.kind)} ${vector.path}`];
  for (const [keyChoice, valueChoice, where] of plan.edits) {
    const key = KNATIVE_ANNOTATION_KEYS[keyChoice % KNATIVE_ANNOTATION_KEYS.length] as string;
    const value = ANNOTATION_EDGE_VALUES[valueChoice % ANNOTATION_EDGE_VALUES.length] as string;
    const meta = metadataOf(object, where) ?? metadataOf(object, 0);
    if (meta === undefined) continue;
    const annotations = isObject(meta.annotations) ? meta.annotations : {};
    annotations[key] = value;
    meta.annotations = annotations;
    description.push(`${where === 0 || meta === object.metadata ? "metadata" : "template"} ${key}=${JSON.stringify(value)}`);
  }
  const line: Record<string, unknown> = { name, path: vector.path, review };
  if (vector.configs !== undefined) line.configs = JSON.parse(JSON.stringify(vector.configs)) as unknown;
  return { line, base: vector.name, description };
}
