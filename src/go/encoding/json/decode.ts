/**
 * `json.Unmarshal` of a JSON value into a Go type, followed by `json.Marshal` of the result, as Knative's
 * webhook does with `request.object` (knative.dev/pkg webhook/resourcesemantics/defaulting/defaulting.go: mutate,
 * roundTripPatch): Go 1.23 encoding/json decode.go semantics
 * and error texts, and the JSON the decoded struct marshals to.
 *
 * Decoding (golang/go src/encoding/json/decode.go):
 * - type mismatches are saved (the first one wins) and decoding goes on; errors from custom unmarshalers
 *   (Quantity, Time, IntOrString, URL) abort at once and win over saved ones;
 * - an UnmarshalTypeError names the innermost struct being decoded and the dotted JSON path from the root
 *   (no indices, no map keys, no embedded struct names): `Go struct field Struct.a.b.c of type T`, or
 *   `Go value of type T` outside any struct;
 * - `null` leaves strings, numbers, bools and structs alone and sets pointers, slices and maps to nil;
 * - object keys match fields exactly first, then case-insensitively (Go's fold), unknown keys are skipped;
 * - a repeated key decodes into what is already there: structs and maps merge, slices reuse elements. Both the
 *   case-folded kind ("Name", "name") and a literally repeated key (the parsed object then records every
 *   occurrence in document order: json-value.ts REPEATED_MEMBERS) are decoded member by member.
 *
 * The result is built directly in marshalled form: the value the decoder returns is what `json.Marshal`
 * writes (omitempty fields dropped, others always present, quantities and times re-formatted), and it is
 * fresh, so callers may mutate it.
 */
import { QUANTITY_FORMAT_ERROR, formatQuantity, parseQuantity } from "../../apimachinery/quantity.js";
import type { GoField, GoType, MapType, SliceType, StructType } from "./types.js";
import { asciiUpper } from "./types.js";
import { decodeStdBase64 } from "../base64/base64.js";
import { goTrimSpace } from "../../strings/trim.js";
import { goString, hasGoStrings, mayRepeatKeys } from "./go-strings.js";
import { roundTripRfc3339 } from "../../time/rfc3339.js";
import { GO_1_23_URL_RULES, roundTripUrl, type UrlRules } from "../../net/url/url.js";
import { copyJsonValue, hasOwnKeys, isJsonObject, repeatedMembers, setOwn, type JsonObject } from "./json-value.js";
import { numberLiteralsOf } from "./json-bigint.js";

export type GoDecodeResult = { ok: true; value: unknown } | { ok: false; error: string };

/** An error that ends decoding at once (a custom UnmarshalJSON failed). */
class DecodeAbort {
  constructor(readonly message: string) {}
}

/**
 * Thrown by the first type error of an untracked decode: the error text needs the field path, so the
 * decode starts over with path tracking (see decodeGo).
 */
class NeedsErrorContext {}

const NEEDS_ERROR_CONTEXT = new NeedsErrorContext();

/** decodeState's error bookkeeping. Decoding is synchronous, so one instance serves every call. */
interface DecodeState {
  savedError: string | undefined;
  /**
   * Whether decodeStruct maintains `struct` and `fields`. Most objects decode without any type error, so the
   * first pass skips that per-field bookkeeping; a type error throws NEEDS_ERROR_CONTEXT and the second pass
   * tracks the path. Decoding does not touch its input, so the second pass sees what the first one saw.
   */
  tracking: boolean;
  /** Whether strings still need Go's lone-surrogate decoding (goString); see `markGoStrings`. */
  checkStrings: boolean;
  /** Whether objects may hold REPEATED_MEMBERS (false for a tree markGoStrings says repeats no key). */
  repeatedKeys: boolean;
  /** errorContext.Struct: the struct whose field is being decoded. */
  struct: string | undefined;
  /** errorContext.FieldStack: JSON names from the root. */
  readonly fields: string[];
  /** Go ≥ 1.24: FieldStack also names the embedded structs a promoted field is reached through. */
  embeddedNames: boolean;
  /** DecodeOptions.hiddenFields. */
  hidden: ReadonlySet<GoField> | undefined;
  /** DecodeOptions.omitZeroFields. */
  omitZero: ReadonlySet<GoField> | undefined;
  /** DecodeOptions.rawByReference. */
  rawByReference: boolean;
  /** DecodeOptions.urlRules. */
  urlRules: UrlRules;
}

const state: DecodeState = { savedError: undefined, tracking: false, checkStrings: true, repeatedKeys: true, struct: undefined, fields: [], embeddedNames: false, hidden: undefined, omitZero: undefined, rawByReference: false, urlRules: GO_1_23_URL_RULES };

/**
 * Decodes `value` (the output of JSON.parse, or of decodeFirstJsonValue: integer literals JSON.parse would round
 * are bigints there, json-bigint.ts) into `type` like Go's `json.Unmarshal`, and returns what `json.Marshal` of the
 * decoded value gives, or Go's error text. Integers of integer types stay exact (a bigint beyond 2^53, which only
 * stringifyJson can write); float64 and interface{} targets get the float64 Go would hold.
 */
export interface DecodeOptions {
  /**
   * Go 1.24's error paths: a field promoted from an embedded struct is named through it
   * (`RevisionSpec.spec.ConfigurationSpec.template.spec.PodSpec.containers`; golang/go src/encoding/json/decode.go
   * `(*decodeState).object` appends `subv.Type().Field(ind).Name` for each embedded step since go1.24). Go 1.23's
   * (Knative 1.17) leave them out.
   */
  readonly embeddedFieldNames?: boolean;
  /**
   * Fields to treat as absent from their types (and from every struct that embeds them), as an older version of
   * the Go type would (json.Unmarshal skips unknown members): the type tables hold the union of several k8s.io/api
   * releases.
   */
  readonly hiddenFields?: ReadonlySet<GoField>;
  /**
   * Fields tagged `omitzero` in the release's Go types (k8s.io/apimachinery v0.35+: ObjectMeta.creationTimestamp):
   * Go 1.24+'s json.Marshal leaves out their zero value (a zero metav1.Time: no `"creationTimestamp": null`). The
   * tables hold the union of the releases; the generated model says which release tags what.
   */
  readonly omitZeroFields?: ReadonlySet<GoField>;
  /**
   * A RawExtension or FieldsV1 value is the input value itself, not a copy: for callers that only read it (the
   * AdmissionReview's `object`, decoded again later), so that the largest part of a request is not copied.
   */
  readonly rawByReference?: boolean;
  /** How apis.URL fields are parsed (src/go/net/url/url.ts UrlRules); default Go 1.23's url.Parse. */
  readonly urlRules?: UrlRules;
  /**
   * The value decoded is a struct field's: error paths start with that struct and the field path from the root
   * (errorContext as decode.go has it there), e.g. `{struct: "AdmissionReview", fields: ["response"]}`.
   */
  readonly within?: { readonly struct: string; readonly fields: readonly string[] };
}

export function decodeGo(type: GoType, value: unknown, options: DecodeOptions = {}): GoDecodeResult {
  state.checkStrings = !hasGoStrings(value);
  state.repeatedKeys = mayRepeatKeys(value);
  state.embeddedNames = options.embeddedFieldNames === true;
  state.hidden = options.hiddenFields;
  state.omitZero = options.omitZeroFields;
  state.rawByReference = options.rawByReference === true;
  state.urlRules = options.urlRules ?? GO_1_23_URL_RULES;
  try {
    const untracked = decodeOnce(type, value, false, options.within);
    return untracked ?? (decodeOnce(type, value, true, options.within) as GoDecodeResult);
  } finally {
    state.omitZero = undefined;
  }
}

/** One decoding pass; undefined when an untracked pass met a type error and must be repeated with tracking. */
function decodeOnce(type: GoType, value: unknown, tracking: boolean, within: DecodeOptions["within"]): GoDecodeResult | undefined {
  state.savedError = undefined;
  state.tracking = tracking;
  state.struct = within?.struct;
  state.fields.length = 0;
  if (within !== undefined) state.fields.push(...within.fields);
  try {
    // JSON.parse never yields undefined; treat it like an absent (null) document rather than an object.
    const out = decodeValue(type, value === undefined ? null : value, undefined);
    if (state.savedError !== undefined) return { ok: false, error: state.savedError };
    return { ok: true, value: out === undefined ? zeroValue(type) : out };
  } catch (e) {
    if (e instanceof DecodeAbort) return { ok: false, error: e.message };
    if (e === NEEDS_ERROR_CONTEXT) return undefined;
    throw e;
  }
}

/** Go's string decoding, skipped when the input is known to hold no lone surrogates. */
function str(s: string): string {
  return state.checkStrings ? goString(s) : s;
}

/** UnmarshalTypeError.Error() with the current error context (addErrorContext). */
function typeErrorText(what: string, typeName: string): string {
  if (!state.tracking) throw NEEDS_ERROR_CONTEXT;
  if (state.struct !== undefined || state.fields.length > 0) {
    return `json: cannot unmarshal ${what} into Go struct field ${state.struct ?? ""}.${state.fields.join(".")} of type ${typeName}`;
  }
  return `json: cannot unmarshal ${what} into Go value of type ${typeName}`;
}

function saveTypeError(what: string, typeName: string): void {
  if (state.savedError === undefined) state.savedError = typeErrorText(what, typeName);
}

function saveError(text: string): void {
  if (state.savedError === undefined) state.savedError = text;
}

/** How encoding/json names a JSON value in a type error (numbers get their literal only for numeric targets). */
function describe(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number" || typeof v === "bigint") return "number";
  if (typeof v === "boolean") return "bool";
  return Array.isArray(v) ? "array" : "object";
}

/**
 * Decodes `v` into a slot of type `t` whose current (marshalled) content is `cur`, and returns the new
 * content; `undefined` stands for Go's nil, or for "unchanged zero" where `cur` was undefined.
 */
function decodeValue(t: GoType, v: unknown, cur: unknown, literal?: string): unknown {
  switch (t.kind) {
    case "struct":
      if (isJsonObject(v)) return decodeStruct(t, v, cur);
      if (v !== null) saveTypeError(describe(v), t.name);
      return cur;
    case "ptr":
      if (v === null) return undefined;
      return decodeValue(t.elem, v, cur === null ? undefined : cur, literal) ?? zeroValue(t.elem);
    case "slice":
      if (Array.isArray(v)) return decodeSlice(t, v, cur);
      if (v === null) return undefined;
      saveTypeError(describe(v), t.name);
      return cur;
    case "map":
      if (isJsonObject(v)) return decodeMap(t, v, cur);
      if (v === null) return undefined;
      saveTypeError(describe(v), t.name);
      return cur;
    case "string":
      if (typeof v === "string") return str(v);
      if (v !== null) saveTypeError(describe(v), t.name);
      return cur;
    case "bool":
      if (typeof v === "boolean") return v;
      if (v !== null) saveTypeError(describe(v), t.name);
      return cur;
    case "int":
      // decode.go literalStore: strconv.ParseInt / ParseUint of the literal, then OverflowInt / OverflowUint. A
      // bigint is an integer literal beyond 2^53, exact; comparing it with the bounds (numbers) is exact too.
      if (typeof v === "number" || typeof v === "bigint") {
        // A literal with a fraction or an exponent (`1.0`, `1e3`) is never an integer to ParseInt.
        if (literal !== undefined) {
          saveTypeError(`number ${literal}`, t.name);
          return cur;
        }
        if ((typeof v === "bigint" || Number.isInteger(v)) && v >= t.min && v < t.limit) return v;
        // Go prints the literal as written; a bigint's digits are that literal.
        saveTypeError(`number ${String(v)}`, t.name);
        return cur;
      }
      if (v !== null) saveTypeError(describe(v), t.name);
      return cur;
    case "float":
      if (typeof v === "number") {
        // strconv.ParseFloat's range error (`1e400`): JSON.parse made it ±Infinity.
        if (!Number.isFinite(v)) {
          saveTypeError(`number ${literal ?? String(v)}`, t.name);
          return cur;
        }
        return v;
      }
      if (typeof v === "bigint") return float64OfLiteral(v, t.name) ?? cur;
      if (v !== null) saveTypeError(describe(v), t.name);
      return cur;
    case "bytes":
      return decodeBytes(t.name, v, cur);
    case "quantity":
      // Quantity.UnmarshalJSON ignores null: a repeated key's null keeps what an earlier occurrence set.
      if (v === null) return typeof cur === "string" ? cur : "0";
      return decodeQuantity(v, literal);
    case "time":
      return decodeTime(v);
    case "intOrString":
      return decodeIntOrString(v, cur, literal);
    case "url":
      return decodeUrl(v);
    case "raw":
      // RawExtension and FieldsV1 keep the raw JSON (exact integers included) and ignore null.
      if (v === null) return cur;
      return state.rawByReference ? v : copyJsonValue(v);
    case "any":
      return v === null ? undefined : decodeInterface(v);
  }
}

/**
 * strconv.ParseFloat(literal, 64) of an exactly read integer (Number rounds to nearest, ties to even, as ParseFloat
 * does), or undefined after saving Go's error when it is out of float64's range (decode.go literalStore:
 * `number <literal>` of type float64).
 */
function float64OfLiteral(v: bigint, typeName: string): number | undefined {
  const f = Number(v);
  if (Number.isFinite(f)) return f;
  saveTypeError(`number ${v}`, typeName);
  return undefined;
}

/**
 * A JSON value decoded into an interface{}: numbers become float64 (decode.go: (*decodeState).convertNumber), so an
 * exactly read integer is rounded as ParseFloat rounds it, and one beyond float64's range is nil with the error
 * `number <literal>` of type float64 saved, the first in document order.
 */
function decodeInterface(v: unknown): unknown {
  let outOfRange = false;
  const out = copyJsonValue(v, state.checkStrings, (b) => {
    const f = Number(b);
    if (Number.isFinite(f)) return f;
    outOfRange = true;
    return null;
  });
  // An occurrence a repeated key overwrote was converted too: its error counts (no API type has an interface{} field,
  // so this extra walk is off the request path).
  const first = outOfRange || (typeof v === "object" && v !== null) ? firstOutOfRangeInteger(v) : undefined;
  if (first !== undefined) saveTypeError(`number ${first}`, "float64");
  return out;
}

/** The first bigint in document order whose float64 is infinite (there is one: decodeInterface found it). */
function firstOutOfRangeInteger(v: unknown): bigint | undefined {
  return firstNumberWhere(v, (x) => typeof x === "bigint" && !Number.isFinite(Number(x))) as bigint | undefined;
}

/**
 * Whether json.Unmarshal of the value into an interface{} fails: a number beyond float64's range anywhere in it (an
 * exactly read integer, or a literal such as `1e400` that JSON.parse made ±Infinity), every occurrence of a
 * repeated key included (decode.go: (*decodeState).convertNumber).
 */
export function overflowsFloat64(v: unknown): boolean {
  return firstNumberWhere(v, (x) => !Number.isFinite(Number(x))) !== undefined;
}

/** The first number or exact integer in document order for which `test` holds. */
function firstNumberWhere(v: unknown, test: (x: number | bigint) => boolean): number | bigint | undefined {
  const pending: unknown[] = [v];
  while (pending.length > 0) {
    const x = pending.pop();
    if ((typeof x === "bigint" || typeof x === "number") && test(x)) return x;
    if (typeof x !== "object" || x === null) continue;
    // Children in reverse, so that the first one is examined next.
    // Every occurrence of a repeated key: Go converts each (decode.go: (*decodeState).objectInterface).
    const members = Array.isArray(x) ? undefined : repeatedMembers(x);
    const children = Array.isArray(x) ? x : members !== undefined ? members.map((m) => m[1]) : Object.values(x);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
  return undefined;
}

/**
 * The omitempty slice, map and []byte fields of decoded structs that held a non-nil empty value (`[]`, `{}`, `""`):
 * json.Marshal drops them as it drops nil ones, so the marshalled form decodeGo returns does not show them, but Go
 * tells them from nil (`x == nil`, go-cmp's comparison in knative.dev/pkg apis.CheckDisallowedFields). Keyed by the
 * struct's decoded object; nothing is recorded for the (nearly all) objects without such a field.
 */
const EMPTY_NOT_NIL = new WeakMap<object, Set<string>>();

/** The JSON names of `obj`'s omitempty fields that decoded to a non-nil empty slice, map or []byte. */
export function emptyNotNilFields(obj: object): ReadonlySet<string> | undefined {
  return EMPTY_NOT_NIL.get(obj);
}

/**
 * intstr.IntOrString fields decoded more than once (a repeated key) whose value keeps a hidden half: its
 * UnmarshalJSON sets Type and one of StrVal/IntVal and leaves the other as it was (k8s.io/apimachinery
 * pkg/util/intstr/intstr.go), so `"port":"x","port":0` is {Type: Int, IntVal: 0, StrVal: "x"}, which marshals as 0
 * but is not IntOrString{}. Keyed by the struct's decoded object, then by JSON field name; recorded only where the
 * hidden half is not zero.
 */
const INT_OR_STRING_HALVES = new WeakMap<object, Map<string, IntOrStringHalves>>();

export interface IntOrStringHalves {
  readonly strVal: string;
  readonly intVal: number;
}

/** Both halves of `obj`'s IntOrString field `field` where a repeated key left the hidden one non-zero, else undefined. */
export function intOrStringHalves(obj: object, field: string): IntOrStringHalves | undefined {
  return INT_OR_STRING_HALVES.get(obj)?.get(field);
}

/** The intstr.IntOrString Go holds in a decoded struct's field: Type (0 Int, 1 String) and both halves. */
export interface GoIntOrString extends IntOrStringHalves {
  readonly type: 0 | 1;
}

/** `obj`'s IntOrString field `field` as Go holds it: the marshalled value's half, and a hidden one a repeated key left. */
export function goIntOrString(obj: Readonly<Record<string, unknown>> | undefined, field: string): GoIntOrString {
  const v = obj?.[field];
  const halves = obj === undefined ? undefined : intOrStringHalves(obj, field);
  return {
    type: typeof v === "string" ? 1 : 0,
    strVal: halves?.strVal ?? (typeof v === "string" ? v : ""),
    intVal: halves?.intVal ?? (typeof v === "number" ? v : 0),
  };
}

function recordIntOrString(out: JsonObject, field: string, existing: unknown, v: unknown, next: unknown): void {
  const before = INT_OR_STRING_HALVES.get(out)?.get(field);
  const strVal = typeof v === "string" ? (next as string) : (before?.strVal ?? (typeof existing === "string" ? existing : ""));
  const intVal = typeof next === "number" ? next : (before?.intVal ?? (typeof existing === "number" ? existing : 0));
  const hidden = typeof next === "string" ? intVal !== 0 : strVal !== "";
  let fields = INT_OR_STRING_HALVES.get(out);
  if (!hidden) {
    fields?.delete(field);
    return;
  }
  if (fields === undefined) INT_OR_STRING_HALVES.set(out, (fields = new Map()));
  fields.set(field, { strVal, intVal });
}

/** Which of a struct's fields the current options hide or tag omitzero: per type, for the sets it was worked out for. */
interface StructOptions {
  readonly hiddenSet: ReadonlySet<GoField> | undefined;
  readonly omitZeroSet: ReadonlySet<GoField> | undefined;
  /** `hiddenSet` when it holds one of the struct's fields, else undefined (no field to look up). */
  readonly hidden: ReadonlySet<GoField> | undefined;
  /** `omitZeroSet` when it holds one of the struct's fields, else undefined. */
  readonly omitZero: ReadonlySet<GoField> | undefined;
}

/** StructOptions of `t` for the current state's sets, worked out once per type and pair of sets (t.decodeMemo). */
function structOptions(t: StructType): StructOptions {
  const hiddenSet = state.hidden;
  const omitZeroSet = state.omitZero;
  let o = t.decodeMemo as StructOptions | undefined;
  if (o === undefined || o.hiddenSet !== hiddenSet || o.omitZeroSet !== omitZeroSet) {
    const holds = (set: ReadonlySet<GoField> | undefined): ReadonlySet<GoField> | undefined => (set !== undefined && t.fields.some((f) => set.has(f)) ? set : undefined);
    o = { hiddenSet, omitZeroSet, hidden: holds(hiddenSet), omitZero: holds(omitZeroSet) };
    t.decodeMemo = o;
  }
  return o;
}

function decodeStruct(t: StructType, v: JsonObject, cur: unknown): JsonObject {
  const out: JsonObject = isJsonObject(cur) ? cur : {};
  const { hidden, omitZero } = structOptions(t);
  // A struct decoded into again (a repeated key) may have recorded fields already.
  let emptyNotNil = out === cur ? EMPTY_NOT_NIL.get(out) : undefined;
  const tracking = state.tracking;
  const outerStruct = state.struct;
  const depth = state.fields.length;
  const members = state.repeatedKeys ? repeatedMembers(v) : undefined;
  const keys = members === undefined ? Object.keys(v) : members;
  // Whether a field may have been set already: in a struct decoded into again, by a repeated key, or by a key that
  // matched by folding (another key may name the same field). Otherwise every exact key is a different field, and
  // reading a property the fresh object lacks is skipped.
  let mayBeSet = out === cur || members !== undefined;
  const literals = numberLiteralsOf(v);
  for (let m = 0; m < keys.length; m++) {
    const member = keys[m]!;
    const key = typeof member === "string" ? member : member[0];
    let f = t.exact.get(key);
    if (f === undefined) {
      const folded = foldKey(key);
      if (folded === undefined) continue;
      f = t.folded.get(folded);
      if (f === undefined) continue;
      mayBeSet = true;
    }
    if (hidden?.has(f) === true) continue;
    if (tracking) {
      state.struct = t.shortName;
      if (state.embeddedNames) {
        const via = t.promotedVia.get(f.name);
        if (via !== undefined) state.fields.push(...via);
      }
      state.fields.push(f.name);
    }
    const existing = mayBeSet ? out[f.name] : undefined;
    const value = typeof member === "string" ? v[key] : member[1];
    const next = decodeValue(f.type, value, existing, typeof value === "number" ? literals?.get(key) : undefined);
    if (f.type.kind === "intOrString" && existing !== undefined) recordIntOrString(out, f.name, existing, value, next);
    if (next === undefined || (f.omitEmpty && isEmpty(f.emptiness, next)) || (omitZero?.has(f) === true && isOmitZero(f.type, next))) {
      // Absent means Go's zero value here; omitempty fields stay absent, others are filled in below.
      if (existing !== undefined) delete out[f.name];
      if (next !== undefined && f.emptiness === "length") {
        if (emptyNotNil === undefined) EMPTY_NOT_NIL.set(out, (emptyNotNil = new Set()));
        emptyNotNil.add(f.name);
      } else {
        emptyNotNil?.delete(f.name);
      }
    } else {
      out[f.name] = next;
      emptyNotNil?.delete(f.name);
    }
    if (tracking) {
      state.fields.length = depth;
      state.struct = outerStruct;
    }
  }
  for (const f of t.alwaysEmitted) if (out[f.name] === undefined && omitZero?.has(f) !== true) out[f.name] = zeroValue(f.type);
  return out;
}

/**
 * The elements of a decoded slice's backing array beyond its length, where a repeated key truncated it: Go's
 * (*decodeState).array shortens a slice with SetLen, so a later, longer occurrence decodes into those elements
 * again (SetLen(i+1) within the capacity; growing copies the whole array). Non-enumerable, only on truncated slices.
 */
const SLICE_BACKING: unique symbol = Symbol("slice backing array");

function decodeSlice(t: SliceType, v: readonly unknown[], cur: unknown): unknown[] {
  // Go decodes into the elements already there (a repeated key merges) and truncates to the new length.
  const prev = Array.isArray(cur) ? ((cur as { [SLICE_BACKING]?: unknown[] })[SLICE_BACKING] ?? cur) : undefined;
  const out = new Array<unknown>(v.length);
  const literals = numberLiteralsOf(v);
  for (let i = 0; i < v.length; i++) {
    const elem = decodeValue(t.elem, v[i], prev?.[i], literals?.get(i));
    out[i] = elem === undefined ? zeroValue(t.elem) : elem;
  }
  // `[]` is a fresh empty slice (reflect.MakeSlice(v.Type(), 0, 0)): nothing stays behind it.
  if (prev !== undefined && prev.length > v.length && v.length > 0) {
    Object.defineProperty(out, SLICE_BACKING, { value: [...out, ...prev.slice(v.length)], enumerable: false });
  }
  return out;
}

function decodeMap(t: MapType, v: JsonObject, cur: unknown): JsonObject {
  const out: JsonObject = isJsonObject(cur) ? cur : {};
  const members = state.repeatedKeys ? repeatedMembers(v) : undefined;
  const literals = numberLiteralsOf(v);
  if (members !== undefined) {
    // A repeated key: every occurrence decodes in document order, the last one stays.
    for (const [key, value] of members) {
      const elem = decodeValue(t.elem, value, undefined, typeof value === "number" ? literals?.get(key) : undefined);
      setOwn(out, str(key), elem === undefined ? zeroValue(t.elem) : elem);
    }
    return out;
  }
  for (const key of Object.keys(v)) {
    // Each value decodes into a fresh zero element; the map itself merges.
    const elem = decodeValue(t.elem, v[key], undefined, literals?.get(key));
    setOwn(out, str(key), elem === undefined ? zeroValue(t.elem) : elem);
  }
  return out;
}

/** The marshalled form of a Go zero value (what a non-omitempty field of that type writes). */
export function zeroValue(t: GoType): unknown {
  switch (t.kind) {
    case "struct": {
      const out: JsonObject = {};
      for (const f of t.alwaysEmitted) if (state.omitZero?.has(f) !== true) out[f.name] = zeroValue(f.type);
      return out;
    }
    case "string":
    case "url":
      return "";
    case "bool":
      return false;
    case "int":
    case "float":
    case "intOrString":
      return 0;
    case "quantity":
      return "0";
    default:
      // nil pointers, slices, maps, interfaces and []byte, the zero Time and an empty RawExtension.
      return null;
  }
}

/**
 * Whether an `omitzero` field's marshalled value is its type's zero value (encoding/json isZero: the IsZero method
 * where the type has one, metav1.Time's among them, else reflect.Value.IsZero).
 */
function isOmitZero(t: GoType, v: unknown): boolean {
  switch (t.kind) {
    case "time":
      return v === null;
    case "string":
    case "url":
      return v === "";
    case "bool":
      return v === false;
    case "int":
    case "float":
      return v === 0;
    default:
      // Pointers, slices and maps are zero when nil (undefined here); other kinds are not tagged omitzero.
      return false;
  }
}

function isEmpty(emptiness: string, v: unknown): boolean {
  switch (emptiness) {
    case "string":
      return v === "";
    case "bool":
      return v === false;
    case "number":
      return v === 0;
    case "length":
      return Array.isArray(v) ? v.length === 0 : typeof v === "string" ? v.length === 0 : isJsonObject(v) && !hasOwnKeys(v);
    default:
      // "never", and "nil": a nil pointer or interface is undefined here, while a non-nil pointer whose
      // target marshals as null (a zero *metav1.Time) is kept.
      return false;
  }
}

/**
 * Go's foldName for matching a key against the (ASCII) field names: ASCII letters upper-cased, other
 * runes replaced by the smallest rune of their simple case-folding orbit. Only the long s (→ S) and the
 * Kelvin sign (→ K) reach ASCII that way; any other non-ASCII character means no field can match.
 */
export function foldKey(key: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what this matches
  if (/^[\x00-\x7f]*$/.test(key)) return asciiUpper(key);
  let out = "";
  for (const ch of key) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80) out += asciiUpper(ch);
    else if (c === 0x17f) out += "S";
    else if (c === 0x212a) out += "K";
    else return undefined;
  }
  return out;
}

/** JSON raw text a Quantity's UnmarshalJSON would see for a non-string value. */
function rawLiteral(v: unknown): string {
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  return Array.isArray(v) ? "[" : "{";
}

/** Characters Go's JSON encoder always escapes in strings. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const ESCAPED_IN_TRANSIT = /[\x00-\x1f"\\<>&\u2028\u2029]/;

/** resource.Quantity UnmarshalJSON + MarshalJSON. */
function decodeQuantity(v: unknown, literal: string | undefined): string {
  if (v === null) return "0";
  let text: string;
  if (typeof v === "string") {
    // Go parses the raw bytes between the quotes, unescaped: a character that arrives escaped (as the API
    // server's encoder writes these) is a backslash there, which no quantity contains.
    if (ESCAPED_IN_TRANSIT.test(v)) throw new DecodeAbort(QUANTITY_FORMAT_ERROR);
    text = goTrimSpace(str(v));
  } else {
    text = literal ?? rawLiteral(v);
  }
  const parsed = parseQuantity(text);
  if (!parsed.ok) throw new DecodeAbort(parsed.error);
  return formatQuantity(parsed.quantity);
}

/** metav1.Time UnmarshalJSON + MarshalJSON (also apis.VolatileTime). */
function decodeTime(v: unknown): string | null {
  if (v === null) return null;
  if (typeof v !== "string") throw new DecodeAbort(typeErrorText(describe(v), "string"));
  const r = roundTripRfc3339(str(v));
  if (!r.ok) throw new DecodeAbort(r.error);
  return r.json;
}

const INT32_MIN = -(2 ** 31);
const INT32_LIMIT = 2 ** 31;

/** intstr.IntOrString UnmarshalJSON: strings stay strings, everything else decodes into an int32. */
function decodeIntOrString(v: unknown, cur: unknown, literal: string | undefined): string | number {
  if (typeof v === "string") return str(v);
  // null sets the kind to Int and leaves IntVal as it was.
  if (v === null) return typeof cur === "number" ? cur : 0;
  if (typeof v === "number") {
    if (literal === undefined && Number.isInteger(v) && v >= INT32_MIN && v < INT32_LIMIT) return v;
    throw new DecodeAbort(typeErrorText(`number ${literal ?? String(v)}`, "int32"));
  }
  // An exactly read integer is beyond 2^53, so beyond int32.
  if (typeof v === "bigint") throw new DecodeAbort(typeErrorText(`number ${v}`, "int32"));
  throw new DecodeAbort(typeErrorText(describe(v), "int32"));
}

/** knative apis.URL UnmarshalJSON + MarshalJSON. */
function decodeUrl(v: unknown): string {
  if (v === null) return "";
  if (typeof v !== "string") throw new DecodeAbort(typeErrorText(describe(v), "string"));
  const r = roundTripUrl(str(v), state.urlRules);
  if (!r.ok) throw new DecodeAbort(r.error);
  return r.value;
}

/** []byte: base64 text or an array of bytes in, base64 out. */
function decodeBytes(typeName: string, v: unknown, cur: unknown): unknown {
  if (v === null) return undefined;
  if (typeof v === "string") {
    const r = decodeStdBase64(v);
    if (!r.ok) {
      saveError(r.error);
      return cur;
    }
    return r.bytes.toString("base64");
  }
  if (Array.isArray(v)) {
    const bytes: number[] = [];
    for (const b of v) {
      if (typeof b === "number" && Number.isInteger(b) && b >= 0 && b < 256) bytes.push(b);
      else if (b === null) bytes.push(0);
      else saveTypeError(typeof b === "number" || typeof b === "bigint" ? `number ${String(b)}` : describe(b), "uint8");
    }
    return Buffer.from(bytes).toString("base64");
  }
  saveTypeError(describe(v), typeName);
  return cur;
}
