/**
 * The API server's strict decoding (`kubectl apply` asks for fieldValidation=Strict), which runs before any admission
 * webhook: a field the kind does not have fails the request with
 * `Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "metadata.spec"`.
 * For a custom resource the unknown fields are those of its metadata that metav1.ObjectMeta lacks
 * (k8s.io/apiextensions-apiserver pkg/apiserver/schema/objectmeta: GetObjectMetaWithOptions), then those the CRD's
 * structural schema prunes (pkg/apiserver/schema/pruning: PruneWithOptions, sorted); for a built-in kind, those its
 * Go type lacks (sigs.k8s.io/json UnmarshalStrict).
 */
import type { GoType } from "../../go/encoding/json/types.js";
import { goTypeOf } from "../../apis/knative-types.js";
import { compareByteOrder } from "../../go/strings/compare.js";
import { isJsonObject, type JsonObject } from "../../go/encoding/json/json-value.js";

/** The parts of a CRD's openAPIV3Schema that decide which fields exist (apiextensions-apiserver schema.Structural). */
export interface StructuralSchema {
  readonly properties?: Readonly<Record<string, StructuralSchema>>;
  /** A schema, or `true` (any value, no schema below it). */
  readonly additionalProperties?: StructuralSchema | true;
  readonly items?: StructuralSchema;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
}



/** The structural part of an openAPIV3Schema (descriptions, types, formats and validations dropped). */
export function structuralOf(schema: unknown): StructuralSchema {
  if (!isJsonObject(schema)) return {};
  const out: { -readonly [K in keyof StructuralSchema]: StructuralSchema[K] } = {};
  if (isJsonObject(schema.properties)) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, structuralOf(v)]));
  if (isJsonObject(schema.additionalProperties)) out.additionalProperties = structuralOf(schema.additionalProperties);
  else if (schema.additionalProperties === true) out.additionalProperties = true;
  if (isJsonObject(schema.items)) out.items = structuralOf(schema.items);
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) out["x-kubernetes-preserve-unknown-fields"] = true;
  if (schema["x-kubernetes-embedded-resource"] === true) out["x-kubernetes-embedded-resource"] = true;
  return out;
}

const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** Where pruning is: the path so far, as UnknownFieldPathOptions writes it (`spec.traffic[0].tag`). */
function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** `additionalProperties: true` has no schema below it (StructOrBool with a nil Structural). */
function additional(s: StructuralSchema): StructuralSchema | null | undefined {
  const a = s.additionalProperties;
  return a === undefined ? undefined : a === true ? null : a;
}

function prune(x: unknown, s: StructuralSchema | null, path: string, out: string[]): void {
  if (s?.["x-kubernetes-preserve-unknown-fields"] === true) {
    skipPrune(x, s, path, out);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((v, i) => prune(v, s === null ? null : (s.items ?? null), `${path}[${i}]`, out));
    return;
  }
  if (!isJsonObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s === null) {
      out.push(child(path, k));
      continue;
    }
    if (s["x-kubernetes-embedded-resource"] === true && META_FIELDS.has(k)) continue;
    const prop = s.properties?.[k];
    const add = additional(s);
    if (prop !== undefined) prune(x[k], prop, child(path, k), out);
    else if (add !== undefined) prune(x[k], add, child(path, k), out);
    else if (!META_FIELDS.has(k) || path !== "") out.push(child(path, k));
  }
}

function skipPrune(x: unknown, s: StructuralSchema, path: string, out: string[]): void {
  if (Array.isArray(x)) {
    x.forEach((v, i) => {
      if (s.items !== undefined) skipPrune(v, s.items, `${path}[${i}]`, out);
    });
    return;
  }
  if (!isJsonObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s["x-kubernetes-embedded-resource"] === true && META_FIELDS.has(k)) continue;
    const prop = s.properties?.[k];
    const add = additional(s);
    if (prop !== undefined) prune(x[k], prop, child(path, k), out);
    else if (add !== undefined) prune(x[k], add, child(path, k), out);
  }
}

/** pruning.PruneWithOptions(obj, s, isResourceRoot=true) with TrackUnknownFieldPaths: the pruned paths, sorted. */
export function prunedFields(obj: JsonObject, schema: StructuralSchema): string[] {
  const out: string[] = [];
  prune(obj, { ...schema, "x-kubernetes-embedded-resource": true }, "", out);
  return out.sort(compareByteOrder);
}

/**
 * The fields of a value its Go type does not have, as sigs.k8s.io/json UnmarshalStrict reports them (case-sensitive,
 * in the order of the JSON the client sent: kubectl marshals maps with sorted keys).
 */
export function unknownGoFields(value: unknown, type: GoType, path: string, out: string[] = []): string[] {
  switch (type.kind) {
    case "ptr":
      return unknownGoFields(value, type.elem, path, out);
    case "slice":
      if (Array.isArray(value)) value.forEach((v, i) => unknownGoFields(v, type.elem, `${path}[${i}]`, out));
      return out;
    case "map":
      if (isJsonObject(value)) for (const k of Object.keys(value).sort(compareByteOrder)) unknownGoFields(value[k], type.elem, child(path, k), out);
      return out;
    case "struct":
      if (!isJsonObject(value)) return out;
      for (const k of Object.keys(value).sort(compareByteOrder)) {
        const field = type.exact.get(k);
        if (field === undefined) out.push(child(path, k));
        else unknownGoFields(value[k], field.type, child(path, k), out);
      }
      return out;
    default:
      return out;
  }
}

/** The unknown fields of a custom resource: its metadata's, then those its CRD's structural schema prunes. */
export function unknownCustomResourceFields(obj: JsonObject, schema: StructuralSchema): string[] {
  const meta = isJsonObject(obj.metadata) ? unknownGoFields(obj.metadata, goTypeOf("meta.ObjectMeta"), "metadata") : [];
  return [...meta, ...prunedFields(obj, schema)];
}

/** The unknown fields of a built-in kind, by its Go type (e.g. `core.ConfigMap`). */
export function unknownBuiltinFields(obj: JsonObject, typeExpr: string): string[] {
  return unknownGoFields(obj, goTypeOf(typeExpr), "");
}

/**
 * The API server's answer to a create with unknown fields (k8s.io/apiserver pkg/endpoints/handlers/create.go:
 * transformDecodeError; runtime.NewStrictDecodingError).
 */
export function strictDecodingMessage(kind: string, version: string, unknown: readonly string[]): string {
  return `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(", ")}`;
}
