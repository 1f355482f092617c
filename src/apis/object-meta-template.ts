/**
 * Kubernetes `metav1.ObjectMeta` (JSON, as the webhook decoded it) as a Go value for text/template, with Go's
 * field names and type names (`v1.ObjectMeta`, `map[string]string`, `*v1.Time`, ...).
 */
import { BOOL, INT64, STRING, type GoType, type GoValue, type PtrType, type StructGetter, type StructType } from "../go/text/template/values.js";
import { asJsonObject } from "../go/encoding/json/json-value.js";

const STRING_MAP: GoType = { kind: "map", name: "map[string]string", elem: STRING };
const STRING_SLICE: GoType = { kind: "slice", name: "[]string", elem: STRING };
const UID: GoType = { kind: "string", name: "types.UID" };
const BOOL_PTR: PtrType = { kind: "ptr", name: "*bool", elem: BOOL };
const INT64_PTR: PtrType = { kind: "ptr", name: "*int64", elem: INT64 };

/** time.Time.String() of an RFC 3339 timestamp, in UTC (the webhook's local zone). */
function formatTime(rfc3339: string): string {
  const ms = Date.parse(rfc3339);
  const zero = "0001-01-01 00:00:00 +0000 UTC";
  if (Number.isNaN(ms)) return zero;
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.678Z
  const frac = /\.(\d+)/.exec(rfc3339)?.[1]?.replace(/0+$/, "") ?? "";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac === "" ? "" : "." + frac} +0000 UTC`;
}

const TIME: StructType = {
  kind: "struct",
  name: "v1.Time",
  fields: [],
  stringer: (get) => formatTime(String((get("") as GoValue | undefined)?.v ?? "")),
};
const TIME_PTR: PtrType = { kind: "ptr", name: "*v1.Time", elem: TIME };
const FIELDS_V1_PTR: PtrType = { kind: "ptr", name: "*v1.FieldsV1", elem: { kind: "struct", name: "v1.FieldsV1", fields: [] } };

function timeValue(v: unknown): GoValue {
  const text = typeof v === "string" ? v : "";
  const get: StructGetter = () => ({ type: STRING, v: text });
  return { type: TIME, v: get };
}

const OWNER_REFERENCE: StructType = {
  kind: "struct",
  name: "v1.OwnerReference",
  fields: ["APIVersion", "Kind", "Name", "UID", "Controller", "BlockOwnerDeletion"],
};
const MANAGED_FIELDS_ENTRY: StructType = {
  kind: "struct",
  name: "v1.ManagedFieldsEntry",
  fields: ["Manager", "Operation", "APIVersion", "Time", "FieldsType", "FieldsV1", "Subresource"],
};

const OBJECT_META: StructType = {
  kind: "struct",
  name: "v1.ObjectMeta",
  fields: [
    "Name",
    "GenerateName",
    "Namespace",
    "SelfLink",
    "UID",
    "ResourceVersion",
    "Generation",
    "CreationTimestamp",
    "DeletionTimestamp",
    "DeletionGracePeriodSeconds",
    "Labels",
    "Annotations",
    "OwnerReferences",
    "Finalizers",
    "ManagedFields",
  ],
};

type Json = Readonly<Record<string, unknown>>;

function obj(v: unknown): Json {
  return asJsonObject(v) ?? {};
}

function str(v: unknown, type: GoType = STRING): GoValue {
  return { type, v: typeof v === "string" ? v : "" };
}

function int64(v: unknown): GoValue {
  return { type: INT64, v: typeof v === "number" && Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n };
}

function stringMap(v: unknown): GoValue {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { type: STRING_MAP, v: null };
  const m = new Map<string, GoValue>();
  for (const [k, x] of Object.entries(v)) m.set(k, str(x));
  return { type: STRING_MAP, v: m };
}

function slice(v: unknown, type: GoType, each: (x: unknown) => GoValue): GoValue {
  return { type, v: Array.isArray(v) ? v.map(each) : null };
}

function ptr(v: unknown, type: PtrType, each: (x: unknown) => GoValue): GoValue {
  return { type, v: v === undefined || v === null ? null : each(v) };
}

function boolPtr(v: unknown): GoValue {
  return ptr(typeof v === "boolean" ? v : undefined, BOOL_PTR, (x) => ({ type: BOOL, v: x }));
}

function ownerReference(v: unknown): GoValue {
  const o = obj(v);
  const get: StructGetter = (f) => {
    switch (f) {
      case "APIVersion":
        return str(o.apiVersion);
      case "Kind":
        return str(o.kind);
      case "Name":
        return str(o.name);
      case "UID":
        return str(o.uid, UID);
      case "Controller":
        return boolPtr(o.controller);
      default:
        return boolPtr(o.blockOwnerDeletion);
    }
  };
  return { type: OWNER_REFERENCE, v: get };
}

function managedFieldsEntry(v: unknown): GoValue {
  const o = obj(v);
  const get: StructGetter = (f) => {
    switch (f) {
      case "Manager":
        return str(o.manager);
      case "Operation":
        return str(o.operation);
      case "APIVersion":
        return str(o.apiVersion);
      case "Time":
        return ptr(o.time, TIME_PTR, timeValue);
      case "FieldsType":
        return str(o.fieldsType);
      case "FieldsV1":
        return ptr(o.fieldsV1, FIELDS_V1_PTR, () => ({ type: FIELDS_V1_PTR.elem, v: (() => undefined) as unknown as StructGetter }));
      default:
        return str(o.subresource);
    }
  };
  return { type: MANAGED_FIELDS_ENTRY, v: get };
}

/** The ObjectMeta value a Knative container-name template runs against (an empty ObjectMeta for undefined). */
export function objectMetaValue(meta: Readonly<Record<string, unknown>> | undefined): GoValue {
  const m = obj(meta);
  const get: StructGetter = (f) => {
    switch (f) {
      case "Name":
        return str(m.name);
      case "GenerateName":
        return str(m.generateName);
      case "Namespace":
        return str(m.namespace);
      case "SelfLink":
        return str(m.selfLink);
      case "UID":
        return str(m.uid, UID);
      case "ResourceVersion":
        return str(m.resourceVersion);
      case "Generation":
        return int64(m.generation);
      case "CreationTimestamp":
        return timeValue(m.creationTimestamp);
      case "DeletionTimestamp":
        return ptr(m.deletionTimestamp, TIME_PTR, timeValue);
      case "DeletionGracePeriodSeconds":
        return ptr(m.deletionGracePeriodSeconds, INT64_PTR, int64);
      case "Labels":
        return stringMap(m.labels);
      case "Annotations":
        return stringMap(m.annotations);
      case "OwnerReferences":
        return slice(m.ownerReferences, { kind: "slice", name: "[]v1.OwnerReference", elem: OWNER_REFERENCE }, ownerReference);
      case "Finalizers":
        return slice(m.finalizers, STRING_SLICE, (x) => str(x));
      default:
        return slice(m.managedFields, { kind: "slice", name: "[]v1.ManagedFieldsEntry", elem: MANAGED_FIELDS_ENTRY }, managedFieldsEntry);
    }
  };
  return { type: OBJECT_META, v: get };
}
