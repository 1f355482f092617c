/**
 * Kubernetes `equality.Semantic.DeepEqual` (k8s.io/apimachinery pkg/api/equality/semantic.go) on objects in their
 * Go-marshalled JSON form, as serving's `SetUserInfo` compares specs
 * (docs/knative-behavior.md#creator-and-lastmodifier): apimachinery's forked reflect.DeepEqual, where nil and empty
 * slices/maps are equal, plus the Semantic overrides (resource.Quantity by value, metav1.Time by instant).
 *
 * JSON hides what Go's types tell apart, so the comparison is typed when a Go type is given (the gojson
 * tables): a nil pointer differs from a pointer to an empty struct (`securityContext` absent vs `{}`),
 * while an absent non-pointer field equals its zero value (`omitempty` dropped it), and quantities such
 * as `"1Gi"` and `"1073741824"` are equal. Without a type the comparison is structural, with
 * null/absent, `[]` and `{}` treated as the same empty value.
 */
import { jsonSemanticEqual } from "./json-equal.js";
import { compareQuantities, parseQuantity, type Quantity } from "../go/apimachinery/quantity.js";
import type { GoType, StructType } from "../go/encoding/json/types.js";
import { isJsonObject } from "../go/encoding/json/json-value.js";
import { goIntOrString, intOrStringHalves } from "../go/encoding/json/index.js";

export function semanticEqual(a: unknown, b: unknown, type?: GoType): boolean {
  return type === undefined ? untypedEqual(a, b) : typedEqual(type, a, b);
}

function isNil(v: unknown): boolean {
  return v === undefined || v === null;
}

function typedEqual(type: GoType, a: unknown, b: unknown): boolean {
  switch (type.kind) {
    case "ptr":
    case "any":
      // A nil pointer (absent or null) equals only another nil pointer.
      if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
      return type.kind === "ptr" ? typedEqual(type.elem, a, b) : untypedEqual(a, b);
    case "slice":
      return slicesEqual(type.elem, a, b);
    case "map":
      return mapsEqual(type.elem, a, b);
    case "struct":
      return structsEqual(type, a, b);
    case "quantity":
      return quantitiesEqual(a, b);
    case "string":
    case "time":
    case "url":
      // Times are marshalled as UTC RFC 3339 seconds, so equal instants have equal text.
      return (isNil(a) ? "" : a) === (isNil(b) ? "" : b);
    case "bool":
      return (isNil(a) ? false : a) === (isNil(b) ? false : b);
    case "int":
    case "float":
    case "intOrString":
      return (isNil(a) ? 0 : a) === (isNil(b) ? 0 : b);
    case "bytes":
      return (isNil(a) ? "" : a) === (isNil(b) ? "" : b);
    case "raw":
      return untypedEqual(a, b);
  }
}

function slicesEqual(elem: GoType, a: unknown, b: unknown): boolean {
  const la = Array.isArray(a) ? a.length : 0;
  const lb = Array.isArray(b) ? b.length : 0;
  if (la !== lb) return false;
  if (la === 0) return true;
  const xa = a as readonly unknown[];
  const xb = b as readonly unknown[];
  for (let i = 0; i < la; i++) if (!typedEqual(elem, xa[i], xb[i])) return false;
  return true;
}

function mapsEqual(elem: GoType, a: unknown, b: unknown): boolean {
  const ma = isJsonObject(a) ? a : undefined;
  const mb = isJsonObject(b) ? b : undefined;
  const ka = ma === undefined ? 0 : Object.keys(ma).length;
  const kb = mb === undefined ? 0 : Object.keys(mb).length;
  if (ka !== kb) return false;
  if (ka === 0) return true;
  for (const key of Object.keys(ma as Record<string, unknown>)) {
    if (!Object.hasOwn(mb as Record<string, unknown>, key)) return false;
    if (!typedEqual(elem, (ma as Record<string, unknown>)[key], (mb as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function structsEqual(type: StructType, a: unknown, b: unknown): boolean {
  // A missing struct value is the zero struct: every field compares against its zero value.
  const sa = isJsonObject(a) ? a : undefined;
  const sb = isJsonObject(b) ? b : undefined;
  for (const field of type.fields) {
    if (!typedEqual(field.type, sa?.[field.name], sb?.[field.name])) return false;
    if (field.type.kind === "intOrString" && !hiddenHalvesEqual(sa, sb, field.name)) return false;
  }
  return true;
}

/**
 * An IntOrString decoded from a repeated key may hold a non-zero half its Type does not show (decode.ts
 * intOrStringHalves); reflect.DeepEqual compares all three fields. Called after the shown values compared equal.
 */
function hiddenHalvesEqual(sa: Record<string, unknown> | undefined, sb: Record<string, unknown> | undefined, name: string): boolean {
  const ha = sa === undefined ? undefined : intOrStringHalves(sa, name);
  const hb = sb === undefined ? undefined : intOrStringHalves(sb, name);
  if (ha === undefined && hb === undefined) return true;
  const fa = goIntOrString(sa, name);
  const fb = goIntOrString(sb, name);
  return fa.strVal === fb.strVal && fa.intVal === fb.intVal;
}

const ZERO_QUANTITY: Quantity = { mantissa: 0n, exponent: 0, format: "DecimalSI", cached: undefined };

/** Semantic's Quantity func: `a.Cmp(b) == 0`; an unparsable text (never after the round trip) compares as text. */
function quantitiesEqual(a: unknown, b: unknown): boolean {
  const qa = toQuantity(a);
  const qb = toQuantity(b);
  if (qa === undefined || qb === undefined) return a === b;
  return compareQuantities(qa, qb) === 0;
}

function toQuantity(v: unknown): Quantity | undefined {
  if (isNil(v)) return ZERO_QUANTITY;
  if (typeof v === "number") v = String(v);
  if (typeof v !== "string") return undefined;
  const parsed = parseQuantity(v);
  return parsed.ok ? parsed.quantity : undefined;
}


/**
 * The untyped comparison: null/absent, `[]` and `{}` are one empty value, as is an object whose members are all
 * empty. duck/json-equal's, which runs on an explicit stack: an untyped value (a revision template as sent, a
 * RawExtension) may nest as deep as encoding/json allows.
 */
const untypedEqual = jsonSemanticEqual;
