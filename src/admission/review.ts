/**
 * The AdmissionReview decoder: knative.dev/pkg webhook/admission.go: admissionHandler's
 * `json.NewDecoder(r.Body).Decode(&review)` into an admissionv1.AdmissionReview (k8s.io/api admission/v1/types.go),
 * with encoding/json's semantics (golang/go src/encoding/json/decode.go): members in document order, matched to
 * fields exactly or else case-insensitively (foldName), unknown ones skipped, null leaving a value or struct as it
 * was and setting pointers, slices and maps to nil, a repeated field decoded into what is there, and every field
 * type-checked, used or not (requestKind, requestResource, options, userInfo.extra, the response), the first
 * mismatch in document order reported with the release's Go field path (`AdmissionReview.TypeMeta.kind` from Go
 * 1.24; decode-options.ts). The request is read by hand (it is on every request's path: no intermediate value, no
 * copy of `object`); the response, which the API server never sends, by the generic decoder. Members are walked with
 * `for...in`: the body is JSON.parse's, whose objects have only own enumerable members, in document order but for
 * integer-like names, which no field has; an object whose text repeats a key is walked through all its members in
 * document order (json-value.ts REPEATED_MEMBERS), as Go decodes each occurrence into what the earlier ones left.
 */
import type { GroupVersionKind } from "../apis/gvk.js";
import { goTypeOf } from "../apis/knative-types.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../config/profile.js";
import { decodeGo, foldKey } from "../go/encoding/json/index.js";
import type { UserInfo } from "../serving/context.js";
import { decodeOptionsOf } from "./decode-options.js";
import { isJsonObject, repeatedMembers } from "../go/encoding/json/json-value.js";

/** The parts of an admission.k8s.io/v1 (or v1beta1) AdmissionRequest the pipelines use. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource: string;
  readonly name: string;
  readonly namespace: string;
  /** Verbatim; Knative compares it case-sensitively with CREATE/UPDATE/DELETE/CONNECT. */
  readonly operation: string;
  readonly userInfo: UserInfo;
  /** `request.object` as parsed JSON; undefined when absent or JSON null (Go's RawExtension with no bytes). */
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly dryRun: boolean;
  /**
   * `request.object`'s JSON text as sent (Go's RawExtension.Raw), for the messages that quote it; absent where the
   * request was not decoded from a body (the object is then written out with stringifyJson).
   */
  readonly objectText?: () => string | undefined;
}

export interface AdmissionReviewIn {
  /** Copied verbatim into the answer (knative.dev/pkg webhook/admission.go: admissionHandler); may be empty. */
  readonly apiVersion: string;
  readonly kind: string;
  /** Undefined when the review has no `request` (Knative crashes; Duckbill answers 400). */
  readonly request: AdmissionRequest | undefined;
}

export type ReviewDecodeResult = { ok: true; review: AdmissionReviewIn } | { ok: false; error: string };

/** Go's name for a JSON value's kind in UnmarshalTypeError ("string", "number", "object", ...). */
export function jsonKindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      // A bigint is an integer literal read exactly (json-bigint.ts).
      return "number";
    case "boolean":
      return "bool";
    default:
      return "object";
  }
}


/** A struct's JSON field names, for encoding/json's matching: exact name, else foldName's. */
interface FieldNames {
  readonly exact: ReadonlySet<string>;
  readonly folded: ReadonlyMap<string, string>;
}

function fieldNames(...names: string[]): FieldNames {
  return { exact: new Set(names), folded: new Map(names.map((n) => [foldKey(n) as string, n])) };
}

/** The field a member decodes into, by its JSON name; undefined for a member the struct does not have. */
function fieldOf(s: FieldNames, key: string): string | undefined {
  if (s.exact.has(key)) return key;
  const folded = foldKey(key);
  return folded === undefined ? undefined : s.folded.get(folded);
}

/** Calls `fn` with each member of `obj` as encoding/json meets them: in document order, every occurrence of a repeated key. */
function forEachMember(obj: Record<string, unknown>, fn: (key: string, v: unknown) => void): void {
  const members = repeatedMembers(obj);
  if (members !== undefined) {
    for (const [key, v] of members) fn(key, v);
    return;
  }
  for (const key in obj) fn(key, obj[key]);
}

const REVIEW_FIELDS = fieldNames("kind", "apiVersion", "request", "response");
const REQUEST_FIELDS = fieldNames(
  "uid",
  "kind",
  "resource",
  "subResource",
  "requestKind",
  "requestResource",
  "requestSubResource",
  "name",
  "namespace",
  "operation",
  "userInfo",
  "object",
  "oldObject",
  "dryRun",
  "options",
);
const GVK_FIELDS = fieldNames("group", "version", "kind");
const GVR_FIELDS = fieldNames("group", "version", "resource");
const USER_FIELDS = fieldNames("username", "uid", "groups", "extra");

/** decodeState's savedError: the first type mismatch, in document order; decoding goes on after it. */
class Decoding {
  error: string | undefined;

  /** Records a mismatch at `<prefix><name>` (two parts, so that no path is built unless it is needed). */
  mismatch(v: unknown, struct: string, prefix: string, name: string, goType: string): void {
    // Values of the kinds read here (strings, bools, structs, slices, maps) are named without their literal.
    this.error ??= `json: cannot unmarshal ${jsonKindOf(v)} into Go struct field ${struct}.${prefix}${name} of type ${goType}`;
  }

  /** A string-kinded field: a string replaces `cur`, null leaves it, anything else is a mismatch. */
  string(v: unknown, cur: string, struct: string, prefix: string, name: string, goType = "string"): string {
    if (typeof v === "string") return v;
    if (v !== null) this.mismatch(v, struct, prefix, name, goType);
    return cur;
  }

  /** Whether a struct-kinded field's value is an object to decode (null is skipped; anything else a mismatch). */
  struct(v: unknown, struct: string, path: string, goType: string): v is Record<string, unknown> {
    if (isJsonObject(v)) return true;
    if (v !== null) this.mismatch(v, struct, path, "", goType);
    return false;
  }

  /**
   * A `[]string` (`goType`): null is nil, an array is decoded into the elements there (a null element leaves
   * one), anything else is a mismatch that leaves `cur`.
   */
  strings(v: unknown, cur: readonly string[], struct: string, path: string, goType: string): readonly string[] {
    if (v === null) return NO_STRINGS;
    if (!Array.isArray(v)) {
      this.mismatch(v, struct, path, "", goType);
      return cur;
    }
    const out = new Array<string>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = this.string(v[i], cur[i] ?? "", struct, path, "");
    return out;
  }
}

const NO_STRINGS: readonly string[] = Object.freeze([]);
const EMPTY_EXTRA: Readonly<Record<string, readonly string[]>> = Object.freeze(Object.create(null) as Record<string, readonly string[]>);

/** What decodeStringFields fills. */
type StringFields = Record<string, string>;

/**
 * A struct of string fields: metav1.GroupVersionKind, GroupVersionResource (k8s.io/apimachinery
 * pkg/apis/meta/v1/group_version.go), decoded into `into`.
 */
function decodeStringFields(obj: Record<string, unknown>, d: Decoding, names: FieldNames, struct: string, prefix: string, into: StringFields): void {
  forEachMember(obj, (key, v) => {
    const field = fieldOf(names, key);
    if (field !== undefined) into[field] = d.string(v, into[field] ?? "", struct, prefix, field);
  });
}

/** `extra map[string]ExtraValue`: every value a fresh `[]string`; the map itself is decoded into. */
function decodeExtra(v: unknown, d: Decoding, cur: Readonly<Record<string, readonly string[]>>): Readonly<Record<string, readonly string[]>> {
  if (v === null) return EMPTY_EXTRA;
  if (!isJsonObject(v)) {
    d.mismatch(v, "UserInfo", "request.userInfo.extra", "", "map[string]v1.ExtraValue");
    return cur;
  }
  const out = Object.assign(Object.create(null) as Record<string, readonly string[]>, cur);
  forEachMember(v, (key, value) => {
    out[key] = d.strings(value, NO_STRINGS, "UserInfo", "request.userInfo.extra", "v1.ExtraValue");
  });
  return out;
}

interface MutableUser {
  username: string;
  uid: string;
  groups: readonly string[];
  extra: Readonly<Record<string, readonly string[]>>;
}

/** authenticationv1.UserInfo (k8s.io/api authentication/v1/types.go). */
function decodeUser(obj: Record<string, unknown>, d: Decoding, into: MutableUser): void {
  forEachMember(obj, (key, v) => {
    switch (fieldOf(USER_FIELDS, key)) {
      case "username":
        into.username = d.string(v, into.username, "UserInfo", "request.userInfo.", "username");
        break;
      case "uid":
        into.uid = d.string(v, into.uid, "UserInfo", "request.userInfo.", "uid");
        break;
      case "groups":
        into.groups = d.strings(v, into.groups, "UserInfo", "request.userInfo.groups", "[]string");
        break;
      case "extra":
        into.extra = decodeExtra(v, d, into.extra);
        break;
    }
  });
}

type MutableRequest = { -readonly [K in keyof AdmissionRequest]: AdmissionRequest[K] } & { kind: GroupVersionKind & StringFields; resource: AdmissionRequest["resource"] & StringFields; userInfo: MutableUser };

function emptyRequest(objectText: AdmissionRequest["objectText"]): MutableRequest {
  return {
    objectText,
    uid: "",
    kind: { group: "", version: "", kind: "" },
    resource: { group: "", version: "", resource: "" },
    subResource: "",
    name: "",
    namespace: "",
    operation: "",
    userInfo: { username: "", uid: "", groups: NO_STRINGS, extra: EMPTY_EXTRA },
    object: undefined,
    oldObject: undefined,
    dryRun: false,
  };
}

/** admissionv1.AdmissionRequest (k8s.io/api admission/v1/types.go), in document order. */
function decodeRequest(obj: Record<string, unknown>, d: Decoding, into: MutableRequest): void {
  const S = "AdmissionRequest";
  forEachMember(obj, (key, v) => {
    switch (fieldOf(REQUEST_FIELDS, key)) {
      case "uid":
        into.uid = d.string(v, into.uid, S, "request.", "uid", "types.UID");
        break;
      case "kind":
        if (d.struct(v, S, "request.kind", "v1.GroupVersionKind")) decodeStringFields(v, d, GVK_FIELDS, "GroupVersionKind", "request.kind.", into.kind);
        break;
      case "resource":
        if (d.struct(v, S, "request.resource", "v1.GroupVersionResource")) decodeStringFields(v, d, GVR_FIELDS, "GroupVersionResource", "request.resource.", into.resource);
        break;
      case "subResource":
        into.subResource = d.string(v, into.subResource, S, "request.", "subResource");
        break;
      case "requestKind":
        // *GroupVersionKind, not used: type-checked only.
        if (d.struct(v, S, "request.requestKind", "v1.GroupVersionKind")) decodeStringFields(v, d, GVK_FIELDS, "GroupVersionKind", "request.requestKind.", {});
        break;
      case "requestResource":
        if (d.struct(v, S, "request.requestResource", "v1.GroupVersionResource")) decodeStringFields(v, d, GVR_FIELDS, "GroupVersionResource", "request.requestResource.", {});
        break;
      case "requestSubResource":
        d.string(v, "", S, "request.", "requestSubResource");
        break;
      case "name":
        into.name = d.string(v, into.name, S, "request.", "name");
        break;
      case "namespace":
        into.namespace = d.string(v, into.namespace, S, "request.", "namespace");
        break;
      case "operation":
        into.operation = d.string(v, into.operation, S, "request.", "operation", "v1.Operation");
        break;
      case "userInfo":
        if (d.struct(v, S, "request.userInfo", "v1.UserInfo")) decodeUser(v, d, into.userInfo);
        break;
      // runtime.RawExtension takes any JSON; its UnmarshalJSON ignores null (k8s.io/apimachinery pkg/runtime/extension.go).
      case "object":
        if (v !== null) into.object = v;
        break;
      case "oldObject":
        if (v !== null) into.oldObject = v;
        break;
      case "dryRun":
        // *bool: null is nil.
        if (typeof v === "boolean") into.dryRun = v;
        else if (v === null) into.dryRun = false;
        else d.mismatch(v, S, "request.", "dryRun", "bool");
        break;
    }
  });
}

const responseType = goTypeOf("*admission.AdmissionResponse");

/**
 * Decodes a parsed body into an AdmissionReview (see the module comment). `object` and `oldObject` are the body's
 * own values, not copies; undefined when absent or null. `objectText` becomes the request's.
 */
export function decodeAdmissionReview(body: unknown, profile: KnativeProfile = DEFAULT_PROFILE, objectText?: () => string | undefined): ReviewDecodeResult {
  if (!isJsonObject(body)) {
    if (body === null) return { ok: true, review: { apiVersion: "", kind: "", request: undefined } };
    return { ok: false, error: `json: cannot unmarshal ${jsonKindOf(body)} into Go value of type v1.AdmissionReview` };
  }
  const d = new Decoding();
  // TypeMeta is embedded: Go 1.24 and later name it in the path.
  const typeMeta = profile.toolchain.jsonEmbeddedFieldNames ? "TypeMeta." : "";
  let apiVersion = "";
  let kind = "";
  let request: MutableRequest | undefined;
  forEachMember(body, (key, v) => {
    switch (fieldOf(REVIEW_FIELDS, key)) {
      case "kind":
        kind = d.string(v, kind, "AdmissionReview", typeMeta, "kind");
        break;
      case "apiVersion":
        apiVersion = d.string(v, apiVersion, "AdmissionReview", typeMeta, "apiVersion");
        break;
      case "request":
        // *AdmissionRequest: null is nil.
        if (v === null) request = undefined;
        else if (d.struct(v, "AdmissionReview", "request", "v1.AdmissionRequest")) decodeRequest(v, d, (request ??= emptyRequest(objectText)));
        break;
      case "response": {
        if (d.error !== undefined) break;
        const r = decodeGo(responseType, v, { ...decodeOptionsOf(profile), within: { struct: "AdmissionReview", fields: ["response"] } });
        if (!r.ok) d.error = r.error;
        break;
      }
    }
  });
  if (d.error !== undefined) return { ok: false, error: d.error };
  return { ok: true, review: { apiVersion, kind, request } };
}
