/**
 * knative.dev/pkg `kmp.ShortDiff` (go-cmp with the ShortDiffReporter and a Quantity comparer), used in
 * the Details of the immutability errors (knative.dev/pkg kmp/diff.go: ShortDiff, kmp/reporters.go; the format in
 * docs/knative-behavior.md#immutability-diffs).
 *
 * The walk follows go-cmp over the Go types of the generated model in src/apis (go-types.generated.ts, through knative-types.ts), on objects in their marshalled form:
 * struct fields in declaration order (embedded structs as `.PodSpec`), pointers, slices (aligned on equal
 * elements), maps (sorted keys), quantities by value. Each differing leaf is reported as
 * `<path>:\n\t-: "<old %+v>"\n\t+: "<new %+v>"\n`, struct-typed leaves as `\t-: <type>: "<%+v>"\n`.
 *
 * Known approximations (only the error message's first line is contractual): go-cmp's slice alignment
 * is randomised and is replaced by a longest-common-subsequence alignment; pointers Go prints as
 * addresses print as a fixed placeholder. An empty omitempty slice or map that json.Marshal dropped is told from a
 * nil one through the decoder's record (emptyNotNilFields): go-cmp reports `[]` against nil.
 */
import { compareByteOrder } from "../go/strings/compare.js";
import { goFormatFloat } from "../go/strconv/ftoa.js";
import { goQuote } from "../go/strconv/quote.js";
import type { GoField, GoType, StructType } from "../go/encoding/json/types.js";
import { stringifyJson } from "../go/encoding/json/json-bigint.js";
import { emptyNotNilFields, goIntOrString, intOrStringHalves, type GoIntOrString } from "../go/encoding/json/index.js";
import { goTypeOf, kubernetesStructNames } from "../apis/knative-types.js";
import { goFieldNames } from "../apis/go-types.generated.js";
import { jsonEqual } from "../duck/json-equal.js";
import { compareQuantities, formatQuantity, parseQuantity, type Quantity } from "../go/apimachinery/quantity.js";
import { asJsonObject } from "../go/encoding/json/json-value.js";

/**
 * Go types the webhook diffs, by the name go-cmp prints for them (serving pkg/apis/serving/v1/revision_validation.go:
 * (*RevisionTemplateSpec).VerifyNameChange, (*Revision).Validate).
 */
const ROOT_TABLE_TYPES: Readonly<Record<string, string>> = {
  "v1.RevisionSpec": "serving.RevisionSpec",
  "v1.RevisionTemplateSpec": "serving.RevisionTemplateSpec",
};

/** What Go prints for a non-nil pointer it does not dereference (an address; ours is a stand-in). */
const POINTER_PLACEHOLDER = "0xc000000000";
const ZERO_TIME = "0001-01-01 00:00:00 +0000 UTC";
const MAX_INT64 = (1n << 63n) - 1n;

/**
 * The short diff of `oldValue` → `newValue`, both of the Go type go-cmp calls `root` (`v1.RevisionSpec`,
 * or `*v1.RevisionTemplateSpec` for a pointer); "" when they are equal. An unknown root is compared as
 * plain JSON.
 */
export function shortDiff(root: string, oldValue: unknown, newValue: unknown): string {
  const pointer = root.startsWith("*");
  const tableName = ROOT_TABLE_TYPES[pointer ? root.slice(1) : root];
  let type: GoType = tableName === undefined ? UNTYPED : goTypeOf(tableName);
  if (pointer && tableName !== undefined) type = { kind: "ptr", name: root, elem: type };
  const st: DiffState = { steps: [`{${root}}`], out: "" };
  walk(st, type, oldValue, newValue);
  return st.out;
}

const UNTYPED: GoType = { kind: "any", name: "interface {}" };

interface DiffState {
  /** Path steps; `*` is go-cmp's Indirect step (printed only when it is the last one). */
  readonly steps: string[];
  out: string;
}

// ---------------------------------------------------------------------------------------------
// The walk (go-cmp's compareAny and friends).

function walk(st: DiffState, t: GoType, x: unknown, y: unknown): void {
  switch (t.kind) {
    case "ptr":
      return walkPointer(st, t.elem, t, x, y);
    case "struct":
      return walkStruct(st, t, asJsonObject(x), asJsonObject(y));
    case "slice":
      return walkSlice(st, t, x, y);
    case "map":
      return walkMap(st, t, x, y);
    case "quantity":
      if (!quantitiesEqual(x, y)) report(st, t, x, y, true, true);
      return;
    case "time":
      if (timeText(x) !== timeText(y)) {
        // metav1.Time embeds time.Time, whose Equal method go-cmp calls.
        st.steps.push(".Time");
        report(st, TIME_TYPE, x, y, true, true);
        st.steps.pop();
      }
      return;
    case "intOrString":
      return walkIntOrString(st, x, y);
    default:
      if (!scalarEqual(t, x, y)) report(st, t, x, y, true, true);
  }
}

function walkPointer(st: DiffState, elem: GoType, t: GoType, x: unknown, y: unknown): void {
  const nx = isNil(x);
  const ny = isNil(y);
  if (nx || ny) {
    if (!(nx && ny)) report(st, t, x, y, true, true);
    return;
  }
  if (elem.kind === "time") {
    // *metav1.Time has an Equal method: compared (and reported) at the pointer.
    if (timeText(x) !== timeText(y)) report(st, t, x, y, true, true);
    return;
  }
  st.steps.push("*");
  walk(st, elem, x, y);
  st.steps.pop();
}

function walkStruct(st: DiffState, t: StructType, x: Record<string, unknown> | undefined, y: Record<string, unknown> | undefined): void {
  for (const entry of layoutOf(t)) {
    st.steps.push("." + entry.goName);
    if (entry.embedded !== undefined) walkStruct(st, entry.embedded, x, y);
    else walk(st, entry.field.type, fieldValue(x, entry.field), fieldValue(y, entry.field));
    st.steps.pop();
  }
}

function walkSlice(st: DiffState, t: GoType & { kind: "slice" }, x: unknown, y: unknown): void {
  const ax = Array.isArray(x) ? x : undefined;
  const ay = Array.isArray(y) ? y : undefined;
  if (ax === undefined || ay === undefined) {
    // go-cmp reports a nil slice against any other slice at the slice itself.
    if (ax !== ay) report(st, t, x, y, true, true);
    return;
  }
  for (const step of alignSlices(t.elem, ax, ay)) {
    if (step.x >= 0 && step.y >= 0) {
      if (step.same) continue;
      st.steps.push(step.x === step.y ? `[${step.x}]` : `[${step.x}->${step.y}]`);
      walk(st, t.elem, ax[step.x], ay[step.y]);
    } else if (step.x >= 0) {
      st.steps.push(`[${step.x}->?]`);
      report(st, t.elem, ax[step.x], undefined, true, false);
    } else {
      st.steps.push(`[?->${step.y}]`);
      report(st, t.elem, undefined, ay[step.y], false, true);
    }
    st.steps.pop();
  }
}

function walkMap(st: DiffState, t: GoType & { kind: "map" }, x: unknown, y: unknown): void {
  const mx = asJsonObject(x);
  const my = asJsonObject(y);
  if (mx === undefined || my === undefined) {
    if (mx !== my) report(st, t, x, y, true, true);
    return;
  }
  const keys = new Set([...Object.keys(mx), ...Object.keys(my)]);
  for (const key of [...keys].sort(compareByteOrder)) {
    const inX = Object.hasOwn(mx, key);
    const inY = Object.hasOwn(my, key);
    st.steps.push(`[${goQuote(key)}]`);
    if (inX && inY) walk(st, t.elem, mx[key], my[key]);
    else report(st, t.elem, mx[key], my[key], inX, inY);
    st.steps.pop();
  }
}

const INT_OR_STRING_FIELDS = ["Type", "IntVal", "StrVal"] as const;
const INT_TYPE: GoType = { kind: "int", name: "int32", min: -(2 ** 31), limit: 2 ** 31 };
const STRING_TYPE: GoType = { kind: "string", name: "string" };
const TIME_TYPE: GoType = { kind: "time", name: "time.Time" };

/** intstr.IntOrString is a plain struct to go-cmp: {Type, IntVal, StrVal}. */
function walkIntOrString(st: DiffState, x: unknown, y: unknown): void {
  const fx = intOrStringFields(x);
  const fy = intOrStringFields(y);
  for (let i = 0; i < 3; i++) {
    if (fx[i] === fy[i]) continue;
    st.steps.push("." + INT_OR_STRING_FIELDS[i]);
    report(st, i === 2 ? STRING_TYPE : INT_TYPE, fx[i], fy[i], true, true);
    st.steps.pop();
  }
}

function intOrStringFields(v: unknown): [number, number, string] {
  if (typeof v === "string") return [1, 0, v];
  if (isHiddenHalf(v)) return [v.type, v.intVal, v.strVal];
  return [0, typeof v === "number" ? v : 0, ""];
}

const HIDDEN_HALF: unique symbol = Symbol("IntOrString with a hidden half");

/**
 * An IntOrString field decoded from a repeated key whose Type does not show a non-zero half (decode.ts
 * intOrStringHalves): `"port":"x","port":0` is {Type: Int, IntVal: 0, StrVal: "x"}. go-cmp compares and prints all
 * three fields, so fieldValue hands such a field over as this instead of its marshalled value.
 */
interface HiddenHalf extends GoIntOrString {
  readonly [HIDDEN_HALF]: true;
}

function isHiddenHalf(v: unknown): v is HiddenHalf {
  return typeof v === "object" && v !== null && (v as Partial<HiddenHalf>)[HIDDEN_HALF] === true;
}

// ---------------------------------------------------------------------------------------------
// Equality (go-cmp semantics on the marshalled form).

function equalValues(t: GoType, x: unknown, y: unknown): boolean {
  switch (t.kind) {
    case "ptr":
      if (isNil(x) || isNil(y)) return isNil(x) && isNil(y);
      return equalValues(t.elem, x, y);
    case "struct": {
      const ox = asJsonObject(x);
      const oy = asJsonObject(y);
      for (const f of t.fields) if (!equalValues(f.type, fieldValue(ox, f), fieldValue(oy, f))) return false;
      return true;
    }
    case "slice": {
      const ax = Array.isArray(x) ? x : undefined;
      const ay = Array.isArray(y) ? y : undefined;
      if (ax === undefined || ay === undefined) return ax === ay;
      if (ax.length !== ay.length) return false;
      for (let i = 0; i < ax.length; i++) if (!equalValues(t.elem, ax[i], ay[i])) return false;
      return true;
    }
    case "map": {
      const mx = asJsonObject(x);
      const my = asJsonObject(y);
      if (mx === undefined || my === undefined) return mx === my;
      const kx = Object.keys(mx);
      if (kx.length !== Object.keys(my).length) return false;
      for (const k of kx) if (!Object.hasOwn(my, k) || !equalValues(t.elem, mx[k], my[k])) return false;
      return true;
    }
    case "quantity":
      return quantitiesEqual(x, y);
    case "time":
      return timeText(x) === timeText(y);
    case "intOrString": {
      const fx = intOrStringFields(x);
      const fy = intOrStringFields(y);
      return fx[0] === fy[0] && fx[1] === fy[1] && fx[2] === fy[2];
    }
    default:
      return scalarEqual(t, x, y);
  }
}

function scalarEqual(t: GoType, x: unknown, y: unknown): boolean {
  switch (t.kind) {
    case "string":
    case "url":
    case "bytes":
      return (isNil(x) ? "" : x) === (isNil(y) ? "" : y);
    case "bool":
      return (isNil(x) ? false : x) === (isNil(y) ? false : y);
    case "int":
    case "float":
      return (isNil(x) ? 0 : x) === (isNil(y) ? 0 : y);
    default:
      return untypedEqual(x, y);
  }
}

/** Untyped leaves: JSON equality, with null and an absent value alike (go-cmp compares nil interfaces). */
function untypedEqual(x: unknown, y: unknown): boolean {
  if (isNil(x) || isNil(y)) return isNil(x) && isNil(y);
  return jsonEqual(x, y);
}

const ZERO_QUANTITY: Quantity = { mantissa: 0n, exponent: 0, format: "DecimalSI", cached: undefined };

function toQuantity(v: unknown): Quantity | undefined {
  if (isNil(v)) return ZERO_QUANTITY;
  const parsed = parseQuantity(typeof v === "number" ? String(v) : typeof v === "string" ? v : "");
  return parsed.ok ? parsed.quantity : undefined;
}

/** kmp's comparer: `x.Cmp(y) == 0`. */
function quantitiesEqual(x: unknown, y: unknown): boolean {
  const qx = toQuantity(x);
  const qy = toQuantity(y);
  if (qx === undefined || qy === undefined) return x === y;
  return compareQuantities(qx, qy) === 0;
}

// ---------------------------------------------------------------------------------------------
// Slice alignment: equal elements stay matched (longest common subsequence); in each gap the elements
// are paired in order as modifications, the rest are removals then insertions.

interface AlignStep {
  readonly x: number;
  readonly y: number;
  readonly same: boolean;
}

function alignSlices(elem: GoType, xs: readonly unknown[], ys: readonly unknown[]): AlignStep[] {
  let head = 0;
  while (head < xs.length && head < ys.length && equalValues(elem, xs[head], ys[head])) head++;
  let tail = 0;
  while (
    tail < xs.length - head &&
    tail < ys.length - head &&
    equalValues(elem, xs[xs.length - 1 - tail], ys[ys.length - 1 - tail])
  ) {
    tail++;
  }
  const steps: AlignStep[] = [];
  for (let i = 0; i < head; i++) steps.push({ x: i, y: i, same: true });
  const n = xs.length - head - tail;
  const m = ys.length - head - tail;
  // lcs[i][j]: LCS length of xs[head+i..] and ys[head+j..] within the middle part.
  const lcs: number[][] = [];
  for (let i = 0; i <= n; i++) lcs.push(new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] = equalValues(elem, xs[head + i], ys[head + j])
        ? (lcs[i + 1] as number[])[j + 1]! + 1
        : Math.max((lcs[i + 1] as number[])[j]!, row[j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  let gapX: number[] = [];
  let gapY: number[] = [];
  const flushGap = (): void => {
    const paired = Math.min(gapX.length, gapY.length);
    for (let k = 0; k < paired; k++) steps.push({ x: gapX[k]!, y: gapY[k]!, same: false });
    for (let k = paired; k < gapX.length; k++) steps.push({ x: gapX[k]!, y: -1, same: false });
    for (let k = paired; k < gapY.length; k++) steps.push({ x: -1, y: gapY[k]!, same: false });
    gapX = [];
    gapY = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && equalValues(elem, xs[head + i], ys[head + j]) && lcs[i]![j] === lcs[i + 1]![j + 1]! + 1) {
      flushGap();
      steps.push({ x: head + i, y: head + j, same: true });
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      gapX.push(head + i++);
    } else {
      gapY.push(head + j++);
    }
  }
  flushGap();
  for (let k = tail; k > 0; k--) steps.push({ x: xs.length - k, y: ys.length - k, same: true });
  return steps;
}

// ---------------------------------------------------------------------------------------------
// Reporting (ShortDiffReporter.Report).

function report(st: DiffState, t: GoType, x: unknown, y: unknown, xValid: boolean, yValid: boolean): void {
  let out = renderPath(st.steps) + ":\n";
  const structName = structTypeName(t);
  const prefix = structName === undefined ? "" : structName + ": ";
  if (xValid) out += `\t-: ${prefix}"${formatValue(t, x, 0, true)}"\n`;
  if (yValid) out += `\t+: ${prefix}"${formatValue(t, y, 0, true)}"\n`;
  st.out += out;
}

/** go-cmp's Path.GoString for the steps we produce: an Indirect shows only as a leading `*` when last. */
function renderPath(steps: readonly string[]): string {
  let out = "";
  for (const s of steps) if (s !== "*") out += s;
  return steps[steps.length - 1] === "*" ? "*" + out : out;
}

/** The reflect type name when the leaf is a Go struct (Report prefixes those with the type). */
function structTypeName(t: GoType): string | undefined {
  switch (t.kind) {
    case "struct":
    case "quantity":
    case "intOrString":
      return t.name;
    case "time":
      return "time.Time";
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Go fmt `%+v` / `%v` of a reflect.Value (printArg / printValue / handleMethods). Kubernetes API
// types have generated `String()` methods on pointer receivers, which fmt calls for pointers.

function formatValue(t: GoType, v: unknown, depth: number, plus: boolean): string {
  switch (t.kind) {
    case "string":
    case "url":
      return typeof v === "string" ? v : "";
    case "bool":
      return v === true ? "true" : "false";
    case "int":
      // A bigint is an int64 beyond 2^53, exact (go/encoding/json/json-bigint.ts).
      return typeof v === "number" || typeof v === "bigint" ? String(v) : "0";
    case "float":
      return goFormatFloat(typeof v === "number" ? v : 0);
    case "bytes":
      return "[" + [...Buffer.from(typeof v === "string" ? v : "", "base64")].join(" ") + "]";
    case "ptr":
      return formatPointer(t.elem, v, depth, plus);
    case "slice": {
      if (!Array.isArray(v)) return "[]";
      return "[" + v.map((e) => formatValue(t.elem, e, depth + 1, plus)).join(" ") + "]";
    }
    case "map": {
      const m = asJsonObject(v);
      if (m === undefined) return "map[]";
      const keys = Object.keys(m).sort(compareByteOrder);
      return "map[" + keys.map((k) => k + ":" + formatValue(t.elem, m[k], depth + 1, plus)).join(" ") + "]";
    }
    case "struct": {
      const o = asJsonObject(v);
      const parts = layoutOf(t).map((e) => {
        const text = e.embedded !== undefined ? formatValue(e.embedded, o, depth + 1, plus) : formatValue(e.field.type, fieldValue(o, e.field), depth + 1, plus);
        return plus ? e.goName + ":" + text : text;
      });
      return "{" + parts.join(" ") + "}";
    }
    case "quantity":
      return formatQuantityStruct(v, plus);
    case "time":
      return goTimeString(v);
    case "intOrString": {
      const [type, intVal, strVal] = intOrStringFields(v);
      return plus ? `{Type:${type} IntVal:${intVal} StrVal:${strVal}}` : `{${type} ${intVal} ${strVal}}`;
    }
    default:
      if (typeof v === "string") return v;
      return v === undefined || v === null ? "<nil>" : stringifyJson(v);
  }
}

function formatPointer(elem: GoType, v: unknown, depth: number, plus: boolean): string {
  if (elem.kind === "struct" && isKubernetesType(elem)) return isNil(v) ? "nil" : "&" + generatedString(elem, v);
  if (isNil(v)) return "<nil>";
  if (elem.kind === "time") return goTimeString(v);
  // fmt dereferences a top-level pointer to a composite value; anything else prints as an address.
  if (depth === 0 && (elem.kind === "struct" || elem.kind === "slice" || elem.kind === "map")) {
    return "&" + formatValue(elem, v, depth + 1, plus);
  }
  return POINTER_PLACEHOLDER;
}

/** Quantity has no value-receiver String(): fmt prints its fields (int64Amount form where it fits). */
function formatQuantityStruct(v: unknown, plus: boolean): string {
  const q = toQuantity(v) ?? ZERO_QUANTITY;
  const fitsInt64 = q.mantissa <= MAX_INT64 && q.mantissa >= -MAX_INT64 - 1n && q.exponent >= -9;
  const value = fitsInt64 ? q.mantissa.toString() : "0";
  const scale = fitsInt64 ? String(q.exponent) : "0";
  const dec = fitsInt64 ? "<nil>" : POINTER_PLACEHOLDER;
  const s = q.cached ?? "";
  return plus
    ? `{i:{value:${value} scale:${scale}} d:{Dec:${dec}} s:${s} Format:${q.format}}`
    : `{{${value} ${scale}} {${dec}} ${s} ${q.format}}`;
}

/**
 * The gogo-protobuf generated `String()` of a Kubernetes type (without the leading `&`):
 * `Type{Field:value,...,}`, nested messages by their own String(), other values with `%v`.
 */
function generatedString(t: StructType, v: unknown): string {
  const o = asJsonObject(v);
  let out = t.shortName + "{";
  for (const e of layoutOf(t)) {
    out += e.goName + ":";
    out += e.embedded !== undefined ? generatedString(e.embedded, o) : generatedField(e.field.type, fieldValue(o, e.field));
    out += ",";
  }
  return out + "}";
}

function generatedField(t: GoType, v: unknown): string {
  switch (t.kind) {
    case "ptr":
      if (t.elem.kind === "struct" && isKubernetesType(t.elem)) return isNil(v) ? "nil" : "&" + generatedString(t.elem, v);
      if (isNil(v)) return "nil";
      return t.elem.kind === "time" ? goTimeString(v) : "*" + formatValue(t.elem, v, 1, false);
    case "struct":
      return isKubernetesType(t) ? generatedString(t, v) : formatValue(t, v, 1, false);
    case "slice": {
      if (t.elem.kind === "struct" && isKubernetesType(t.elem)) {
        const elem = t.elem;
        const items = Array.isArray(v) ? v : [];
        return "[]" + elem.shortName + "{" + items.map((e) => generatedString(elem, e) + ",").join("") + "}";
      }
      return formatValue(t, v, 1, false);
    }
    case "map": {
      const m = asJsonObject(v) ?? {};
      const keys = Object.keys(m).sort(compareByteOrder);
      const name = t.name.startsWith("map[") ? t.name : t.name.slice(t.name.indexOf(".") + 1);
      return name + "{" + keys.map((k) => `${k}: ${formatValue(t.elem, m[k], 1, false)},`).join("") + "}";
    }
    case "quantity": {
      // An addressable field: Quantity's pointer-receiver String() applies.
      const q = toQuantity(v);
      return q === undefined ? String(v) : formatQuantity(q);
    }
    case "intOrString":
      // k8s.io/api generated.pb.go (TCPSocketAction.String, HTTPGetAction.String): `strings.Replace(strings.Replace(
      // fmt.Sprintf("%v", this.Port), "IntOrString", "intstr.IntOrString", 1), "&", "", 1)`. IntOrString's String()
      // has a pointer receiver and the field is a value, so %v prints the struct's fields: `{0 8080 }`, `{1 0 http}`.
      return formatValue(t, v, 1, false).replace("IntOrString", "intstr.IntOrString").replace("&", "");
    default:
      return formatValue(t, v, 1, false);
  }
}

/** time.Time.String() of a marshalled RFC 3339 UTC time (`null`/absent is the zero time). */
function goTimeString(v: unknown): string {
  const text = timeText(v);
  if (text === "") return ZERO_TIME;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}(?:\.\d+)?)Z$/.exec(text);
  return m === null ? text : `${m[1]} ${m[2]} +0000 UTC`;
}

function timeText(v: unknown): string {
  return typeof v === "string" ? v : "";
}

// ---------------------------------------------------------------------------------------------
// Go struct layout: Go field names and embedded structs, which the flattened tables of src/apis lose.

interface LayoutEntry {
  readonly goName: string;
  readonly field: GoField;
  /** Set when this entry is an embedded struct (its fields live in the same JSON object). */
  readonly embedded: StructType | undefined;
}

/** Embedded (inline) structs in the Kubernetes and Knative tables, with their Go field names. */
const EMBEDDABLE: ReadonlyArray<readonly [table: string, goName: string]> = [
  ["core.PodSpec", "PodSpec"],
  ["core.ProbeHandler", "ProbeHandler"],
  ["core.VolumeSource", "VolumeSource"],
  ["core.LocalObjectReference", "LocalObjectReference"],
  ["core.EphemeralContainerCommon", "EphemeralContainerCommon"],
  ["meta.TypeMeta", "TypeMeta"],
];

const layouts = new WeakMap<StructType, readonly LayoutEntry[]>();
let embeddable: ReadonlyArray<readonly [StructType, string]> | undefined;
let kubernetesTypes: ReadonlySet<GoType> | undefined;

function layoutOf(t: StructType): readonly LayoutEntry[] {
  const cached = layouts.get(t);
  if (cached !== undefined) return cached;
  embeddable ??= EMBEDDABLE.map(([table, name]) => [goTypeOf(table) as StructType, name] as const);
  const entries: LayoutEntry[] = [];
  let current: StructType | undefined;
  for (const field of t.fields) {
    const owner = embeddable.find(([e]) => e !== t && e.fields.includes(field));
    if (owner !== undefined) {
      if (owner[0] !== current) entries.push({ goName: owner[1], field, embedded: owner[0] });
      current = owner[0];
      continue;
    }
    current = undefined;
    entries.push({ goName: goFieldName(t, field), field, embedded: undefined });
  }
  layouts.set(t, entries);
  return entries;
}

let irregularNames: WeakMap<StructType, Readonly<Record<string, string>>> | undefined;

/** The Go name of a struct's own field: the generated model's where it is not the JSON name upper-cased (TTY, HTTPGet). */
function goFieldName(t: StructType, field: GoField): string {
  irregularNames ??= new WeakMap(Object.entries(goFieldNames).map(([table, names]) => [goTypeOf(table) as StructType, names] as const));
  return irregularNames.get(t)?.[field.name] ?? field.name.charAt(0).toUpperCase() + field.name.slice(1);
}

/** Types from k8s.io/api and apimachinery (they carry generated String() methods). */
function isKubernetesType(t: GoType): boolean {
  kubernetesTypes ??= new Set(kubernetesStructNames.map((name) => goTypeOf(name)));
  return kubernetesTypes.has(t);
}

const EMPTY_SLICE: readonly unknown[] = Object.freeze([]);
const EMPTY_MAP: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * A struct field as Go holds it: an omitempty slice, map or []byte that held `[]`, `{}` or `""` is absent from
 * the marshalled object but empty, not nil, in Go (emptyNotNilFields), and go-cmp tells the two apart; an
 * IntOrString with a hidden half is all three of its fields (HiddenHalf).
 */
function fieldValue(obj: Record<string, unknown> | undefined, f: GoField): unknown {
  if (obj === undefined) return undefined;
  const v = obj[f.name];
  if (f.type.kind === "intOrString" && intOrStringHalves(obj, f.name) !== undefined) return { [HIDDEN_HALF]: true, ...goIntOrString(obj, f.name) } satisfies HiddenHalf;
  if (v !== undefined || emptyNotNilFields(obj)?.has(f.name) !== true) return v;
  switch (f.type.kind) {
    case "slice":
      return EMPTY_SLICE;
    case "map":
      return EMPTY_MAP;
    case "bytes":
      return "";
    default:
      return v;
  }
}

function isNil(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

