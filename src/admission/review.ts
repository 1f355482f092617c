import type { GroupVersionKind } from "../apis/gvk.js";
import type { UserInfo } from "../serving/context.js";

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

class TypeMismatch {
  constructor(readonly message: string) {}
}

/**
 * The UnmarshalTypeError of a value that does not fit a field. The fields read here are strings, bools and structs:
 * a number is `number` whatever its literal (decode.go literalStore's default case; only numeric kinds get
 * `number <literal>`).
 */
function mismatch(v: unknown, struct: string, field: string, goType: string): TypeMismatch {
  return new TypeMismatch(`json: cannot unmarshal ${jsonKindOf(v)} into Go struct field ${struct}.${field} of type ${goType}`);
}

/**
 * Looks a member up the way encoding/json matches struct fields: exact name first, then ASCII
 * case-insensitively. Own properties only, so `__proto__` and friends are plain data.
 */
function member(obj: Record<string, unknown>, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  let found: unknown = undefined;
  for (const key of Object.keys(obj)) {
    if (key.length === name.length && key.toLowerCase() === lower) found = obj[key];
  }
  return found;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Decodes a Go `string`-kinded field; null and absent leave the zero value. Saves the first type error. */
class StructReader {
  firstError: TypeMismatch | undefined;

  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly struct: string,
    private readonly prefix: string,
  ) {}

  private fail(e: TypeMismatch): void {
    if (this.firstError === undefined) this.firstError = e;
  }

  string(name: string, goType = "string"): string {
    const v = member(this.obj, name);
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") {
      this.fail(mismatch(v, this.struct, this.prefix + name, goType));
      return "";
    }
    return v;
  }

  bool(name: string): boolean {
    const v = member(this.obj, name);
    if (v === undefined || v === null) return false;
    if (typeof v !== "boolean") {
      this.fail(mismatch(v, this.struct, this.prefix + name, "bool"));
      return false;
    }
    return v;
  }

  stringList(name: string): string[] {
    const v = member(this.obj, name);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.fail(mismatch(v, this.struct, this.prefix + name, "[]string"));
      return [];
    }
    const out: string[] = [];
    for (const item of v) {
      if (typeof item === "string") out.push(item);
      else if (item !== null) this.fail(mismatch(item, this.struct, this.prefix + name, "string"));
      else out.push("");
    }
    return out;
  }

  nested(name: string, struct: string, goType: string): StructReader | undefined {
    const v = member(this.obj, name);
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) {
      this.fail(mismatch(v, this.struct, this.prefix + name, goType));
      return undefined;
    }
    return new StructReader(v, struct, `${this.prefix}${name}.`);
  }

  /** A nested struct's reader errors are merged into this one's (first wins, in document order). */
  adopt(r: StructReader | undefined): void {
    if (r?.firstError !== undefined) this.fail(r.firstError);
  }

  raw(name: string): unknown {
    const v = member(this.obj, name);
    return v === null ? undefined : v;
  }
}

function readGvk(r: StructReader | undefined): GroupVersionKind {
  if (r === undefined) return { group: "", version: "", kind: "" };
  return { group: r.string("group"), version: r.string("version"), kind: r.string("kind") };
}

const EMPTY_EXTRA: Readonly<Record<string, readonly string[]>> = Object.freeze(Object.create(null) as Record<string, readonly string[]>);

function readUserInfo(r: StructReader | undefined): UserInfo {
  if (r === undefined) return { username: "", uid: "", groups: [], extra: EMPTY_EXTRA };
  return { username: r.string("username"), uid: r.string("uid"), groups: r.stringList("groups"), extra: EMPTY_EXTRA };
}

/**
 * Decodes a parsed body into an AdmissionReview with encoding/json's leniency (unknown fields ignored,
 * null = zero value) and its error texts for type mismatches (knative.dev/pkg webhook/admission.go: admissionHandler,
 * `json.NewDecoder(...).Decode(&review)`; docs/knative-behavior.md#admissionreview-in-and-out).
 */
export function decodeAdmissionReview(body: unknown): ReviewDecodeResult {
  if (!isObject(body)) {
    if (body === null) return { ok: true, review: { apiVersion: "", kind: "", request: undefined } };
    return { ok: false, error: `json: cannot unmarshal ${jsonKindOf(body)} into Go value of type v1.AdmissionReview` };
  }
  const top = new StructReader(body, "AdmissionReview", "");
  const apiVersion = top.string("apiVersion");
  const kind = top.string("kind");
  const req = top.nested("request", "AdmissionRequest", "v1.AdmissionRequest");
  let request: AdmissionRequest | undefined;
  if (req !== undefined) {
    const kindR = req.nested("kind", "GroupVersionKind", "v1.GroupVersionKind");
    const resR = req.nested("resource", "GroupVersionResource", "v1.GroupVersionResource");
    const userR = req.nested("userInfo", "UserInfo", "v1.UserInfo");
    request = {
      uid: req.string("uid", "types.UID"),
      kind: readGvk(kindR),
      resource: resR === undefined ? { group: "", version: "", resource: "" } : { group: resR.string("group"), version: resR.string("version"), resource: resR.string("resource") },
      subResource: req.string("subResource"),
      name: req.string("name"),
      namespace: req.string("namespace"),
      operation: req.string("operation", "v1.Operation"),
      userInfo: readUserInfo(userR),
      object: req.raw("object"),
      oldObject: req.raw("oldObject"),
      dryRun: req.bool("dryRun"),
    };
    req.adopt(kindR);
    req.adopt(resR);
    req.adopt(userR);
    top.adopt(req);
  }
  if (top.firstError !== undefined) return { ok: false, error: top.firstError.message };
  return { ok: true, review: { apiVersion, kind, request } };
}
