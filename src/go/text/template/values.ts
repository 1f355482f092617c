/**
 * A small model of Go values as text/template sees them through reflection: enough types to walk Kubernetes
 * metadata (structs, maps, slices, pointers, strings, integers) with Go's type names for error messages, and
 * fmt's `%v` printing of them.
 */
import { goFormatFloat } from "../../strconv/ftoa.js";
import { goQuoteRune } from "../../strconv/quote.js";
import { compareByteOrder } from "../../strings/compare.js";

export type GoType =
  | { readonly kind: "string" | "bool" | "int" | "uint" | "float" | "complex"; readonly name: string }
  | { readonly kind: "map"; readonly name: string; readonly elem: GoType }
  | { readonly kind: "slice"; readonly name: string; readonly elem: GoType }
  | { readonly kind: "ptr"; readonly name: string; readonly elem: GoType }
  | StructType;

export type PtrType = Extract<GoType, { kind: "ptr" }>;

export interface StructType {
  readonly kind: "struct";
  readonly name: string;
  readonly fields: readonly string[];
  /** A String() method (fmt.Stringer), e.g. for metav1.Time. */
  readonly stringer?: (get: StructGetter) => string;
}

export type StructGetter = (field: string) => GoValue;

/**
 * A Go value. `undefined` stands for the invalid reflect.Value ("no value"). Representations: string → string,
 * bool → boolean, int/uint → bigint, float → number, complex → [re, im], map → Map (null when nil, string keys),
 * slice → array (null when nil), ptr → GoValue (null when nil), struct → field getter.
 */
export interface GoValue {
  readonly type: GoType;
  readonly v: unknown;
}

export const STRING: GoType = { kind: "string", name: "string" };
export const BOOL: GoType = { kind: "bool", name: "bool" };
export const INT: GoType = { kind: "int", name: "int" };
export const INT64: GoType = { kind: "int", name: "int64" };
export const UINT8: GoType = { kind: "uint", name: "uint8" };
export const FLOAT64: GoType = { kind: "float", name: "float64" };
export const COMPLEX128: GoType = { kind: "complex", name: "complex128" };

export function stringValue(s: string, type: GoType = STRING): GoValue {
  return { type, v: s };
}
export function boolValue(b: boolean): GoValue {
  return { type: BOOL, v: b };
}
export function intValue(n: bigint, type: GoType = INT): GoValue {
  return { type, v: n };
}

/** Go's reflect `indirect`: follow non-nil pointers; reports whether a nil pointer stopped the walk. */
export function indirect(v: GoValue): { value: GoValue; isNil: boolean } {
  let cur = v;
  while (cur.type.kind === "ptr") {
    if (cur.v === null) return { value: cur, isNil: true };
    cur = cur.v as GoValue;
  }
  return { value: cur, isNil: false };
}

/** Len() of a string (bytes), map, or slice; undefined for other kinds. */
export function lengthOf(v: GoValue): number | undefined {
  switch (v.type.kind) {
    case "string":
      return Buffer.byteLength(v.v as string, "utf8");
    case "map":
      return v.v === null ? 0 : (v.v as ReadonlyMap<string, GoValue>).size;
    case "slice":
      return v.v === null ? 0 : (v.v as readonly GoValue[]).length;
    default:
      return undefined;
  }
}

/** text/template's isTrue: the truth of a value, or undefined when it has none. */
export function truthOf(v: GoValue | undefined): boolean | undefined {
  if (v === undefined) return false;
  switch (v.type.kind) {
    case "string":
    case "map":
    case "slice":
      return (lengthOf(v) as number) > 0;
    case "bool":
      return v.v as boolean;
    case "int":
    case "uint":
      return (v.v as bigint) !== 0n;
    case "float":
      return (v.v as number) !== 0;
    case "complex": {
      const [re, im] = v.v as readonly [number, number];
      return re !== 0 || im !== 0;
    }
    case "ptr":
      return v.v !== null;
    case "struct":
      return true;
  }
}

function formatComplex([re, im]: readonly [number, number]): string {
  const imText = goFormatFloat(im);
  return `(${goFormatFloat(re)}${imText.startsWith("-") || imText.startsWith("+") ? "" : "+"}${imText}i)`;
}

/** fmt's `%v` of a value (`<nil>` for an untyped nil). */
export function formatValue(v: GoValue | undefined, depth = 0): string {
  if (v === undefined) return "<nil>";
  switch (v.type.kind) {
    case "string":
      return v.v as string;
    case "bool":
      return v.v ? "true" : "false";
    case "int":
    case "uint":
      return (v.v as bigint).toString();
    case "float":
      return goFormatFloat(v.v as number);
    case "complex":
      return formatComplex(v.v as readonly [number, number]);
    case "map": {
      if (v.v === null) return "map[]";
      const entries = [...(v.v as ReadonlyMap<string, GoValue>).entries()].sort((a, b) => compareByteOrder(a[0], b[0]));
      return "map[" + entries.map(([k, e]) => k + ":" + formatValue(e, depth + 1)).join(" ") + "]";
    }
    case "slice":
      if (v.v === null) return "[]";
      return "[" + (v.v as readonly GoValue[]).map((e) => formatValue(e, depth + 1)).join(" ") + "]";
    case "ptr": {
      if (v.v === null) return "<nil>";
      const target = v.v as GoValue;
      // fmt prints &{…} for a top-level pointer to a struct, map or slice, and an address otherwise.
      if (depth === 0 && (target.type.kind === "struct" || target.type.kind === "map" || target.type.kind === "slice")) {
        return "&" + formatValue(target, depth + 1);
      }
      if (target.type.kind === "struct" && target.type.stringer !== undefined) return formatValue(target, depth + 1);
      return "0xc000010000";
    }
    case "struct": {
      const t = v.type;
      const get = v.v as StructGetter;
      if (t.stringer !== undefined) return t.stringer(get);
      return "{" + t.fields.map((f) => formatValue(get(f), depth + 1)).join(" ") + "}";
    }
  }
}

/** fmt.Sprint: operands separated by a space when neither side is a string. */
export function sprint(args: ReadonlyArray<GoValue | undefined>): string {
  let out = "";
  let prevString = false;
  args.forEach((a, i) => {
    const isString = a !== undefined && a.type.kind === "string";
    if (i > 0 && !isString && !prevString) out += " ";
    out += formatValue(a);
    prevString = isString;
  });
  return out;
}

/** fmt.Sprintln: operands always separated by spaces, newline-terminated. */
export function sprintln(args: ReadonlyArray<GoValue | undefined>): string {
  return args.map((a) => formatValue(a)).join(" ") + "\n";
}

function typeName(a: GoValue | undefined): string {
  return a === undefined ? "<nil>" : a.type.name;
}

/** How fmt names an operand in its complaints (badVerb, %!(EXTRA …)): `type=value`, or `<nil>` for nil. */
function typedValue(a: GoValue | undefined): string {
  return a === undefined ? "<nil>" : `${a.type.name}=${formatValue(a)}`;
}

/** fmt's rune of an integer operand (fmtC, fmtQc): past U+10FFFF, negative or a surrogate, it is U+FFFD. */
function runeOf(v: bigint): number {
  return v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn) ? 0xfffd : Number(v);
}

/** A signed integer in base 8 or 16 as fmtInteger writes it (the sign before the digits). */
function formatBase(v: bigint, base: number): string {
  return v < 0n ? "-" + (-v).toString(base) : v.toString(base);
}

function pad(s: string, width: number | undefined, left: boolean, zero: boolean): string {
  if (width === undefined) return s;
  const n = [...s].length;
  if (n >= width) return s;
  const fill = (zero && !left ? "0" : " ").repeat(width - n);
  if (left) return s + " ".repeat(width - n);
  if (zero && (s.startsWith("-") || s.startsWith("+"))) return s[0] + fill + s.slice(1);
  return fill + s;
}

/** fmt.Sprintf for the common verbs (%v %T %s %d %q %t %x %X %o %f %g %e %c %%), with Go's `%!verb(type=value)` complaints. */
export function sprintf(format: string, args: ReadonlyArray<GoValue | undefined>, quote: (s: string) => string): string {
  let out = "";
  let argNum = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i] as string;
    if (c !== "%") {
      out += c;
      continue;
    }
    let left = false;
    let zero = false;
    let plus = false;
    i++;
    for (; i < format.length; i++) {
      const f = format[i];
      if (f === "-") left = true;
      else if (f === "0") zero = true;
      else if (f === "+") plus = true;
      else if (f === " " || f === "#") continue;
      else break;
    }
    let width: number | undefined;
    while (i < format.length && /[0-9]/.test(format[i] as string)) width = (width ?? 0) * 10 + Number(format[i++]);
    let prec: number | undefined;
    if (format[i] === ".") {
      i++;
      prec = 0;
      while (i < format.length && /[0-9]/.test(format[i] as string)) prec = prec * 10 + Number(format[i++]);
    }
    if (i >= format.length) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = format[i] as string;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const a = args[argNum++];
    const kind = a?.type.kind;
    const bad = (): string => `%!${verb}(${typedValue(a)})`;
    let s: string;
    switch (verb) {
      case "v":
        s = formatValue(a);
        break;
      case "T":
        s = typeName(a);
        break;
      case "s":
        s = kind === "string" || kind === "map" || kind === "slice" || kind === "struct" || kind === "ptr" ? formatValue(a) : bad();
        if (prec !== undefined && kind === "string") s = [...s].slice(0, prec).join("");
        break;
      case "q":
        if (kind === "string") s = quote(a?.v as string);
        else if (kind === "int" || kind === "uint") s = goQuoteRune(runeOf(a?.v as bigint));
        else s = bad();
        break;
      case "d":
        s = kind === "int" || kind === "uint" ? formatValue(a) : bad();
        if (plus && !s.startsWith("-") && !s.startsWith("%")) s = "+" + s;
        break;
      case "t":
        s = kind === "bool" ? formatValue(a) : bad();
        break;
      case "x":
      case "X": {
        let h: string;
        if (kind === "int" || kind === "uint") h = formatBase(a?.v as bigint, 16);
        else if (kind === "string") h = Buffer.from(a?.v as string, "utf8").toString("hex");
        else h = bad();
        s = verb === "X" && !h.startsWith("%") ? h.toUpperCase() : h;
        break;
      }
      case "o":
        s = kind === "int" || kind === "uint" ? formatBase(a?.v as bigint, 8) : bad();
        break;
      case "f":
      case "g":
      case "e": {
        const x = kind === "float" ? (a?.v as number) : undefined;
        if (x === undefined) s = bad();
        else if (verb === "f") s = Number.isFinite(x) ? x.toFixed(prec ?? 6) : goFormatFloat(x);
        else if (verb === "e") s = Number.isFinite(x) ? x.toExponential(prec ?? 6).replace(/e([+-])(\d)$/, "e$10$2") : goFormatFloat(x);
        else s = goFormatFloat(x);
        if (plus && x !== undefined && x >= 0) s = "+" + s;
        break;
      }
      case "c":
        s = kind === "int" || kind === "uint" ? String.fromCodePoint(runeOf(a?.v as bigint)) : bad();
        break;
      default:
        s = bad();
    }
    out += pad(s, width, left, zero);
  }
  if (argNum < args.length) {
    out += "%!(EXTRA " + args.slice(argNum).map(typedValue).join(", ") + ")";
  }
  return out;
}
