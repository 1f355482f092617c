/**
 * Reading and preparing the plain JSON trees rules work on (Go-marshalled objects: an absent member is
 * Go's zero value).
 */
import { isNilField } from "./field-mask.js";
import { asJsonObject } from "../go/encoding/json/json-value.js";

export type KObject = Record<string, unknown>;

export function asObject(v: unknown): KObject | undefined {
  return asJsonObject(v) as KObject | undefined;
}

/** The member as an object, created when absent (a Go struct value always exists). */
export function ensureObject(parent: KObject, key: string): KObject {
  const existing = asObject(parent[key]);
  if (existing !== undefined) return existing;
  const created: KObject = {};
  parent[key] = created;
  return created;
}

export function metadataOf(obj: KObject): KObject {
  return asObject(obj.metadata) ?? {};
}

/**
 * Go's `obj.GetOwnerReferences() != nil`, which Knative's Configuration and Route check: `ownerReferences: []` counts,
 * though the round trip drops it (knative.dev/serving pkg/apis/serving/v1/configuration_defaults.go: SetDefaults).
 */
export function hasOwnerReferences(obj: KObject): boolean {
  return !isNilField(metadataOf(obj), "ownerReferences");
}

/** The old object of an UPDATE (the baseline while defaulting, the stored object while validating). */
export function oldObjectOf(oldObject: unknown): KObject | undefined {
  return asObject(oldObject);
}
