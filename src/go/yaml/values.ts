/**
 * The Go values `yaml.Unmarshal(in, &v)` produces for `var v interface{}` (gopkg.in/yaml.v2): nil, bool,
 * string, int / uint64, float64, `map[interface{}]interface{}` and `[]interface{}`, with fmt's `%#v`
 * rendering for the error messages that print them.
 */
import { goFormatFloat } from "../strconv/ftoa.js";
import { goQuote } from "../strconv/quote.js";

/** An integer as go-yaml resolves it: `int` within int64's range, `uint64` above it. */
export class GoInt {
  constructor(
    readonly value: bigint,
    readonly unsigned: boolean,
  ) {}
}

export class GoFloat {
  constructor(readonly value: number) {}
}

/** `map[interface{}]interface{}`: keys compare by dynamic type and value, as Go's map does. */
export class GoMap {
  private readonly byIdentity = new Map<string, [GoValue, GoValue]>();
  private nanKeys = 0;

  set(key: GoValue, value: GoValue): void {
    // NaN never equals itself, so every NaN key is a new entry.
    const id = key instanceof GoFloat && Number.isNaN(key.value) ? `nan:${this.nanKeys++}` : keyIdentity(key);
    this.byIdentity.set(id, [key, value]);
  }

  entries(): IterableIterator<[GoValue, GoValue]> {
    return this.byIdentity.values();
  }

  get size(): number {
    return this.byIdentity.size;
  }
}

export type GoValue = null | boolean | string | GoInt | GoFloat | GoMap | GoValue[];

function keyIdentity(key: GoValue): string {
  if (key === null) return "n:";
  if (typeof key === "boolean") return key ? "b:1" : "b:0";
  if (typeof key === "string") return "s:" + key;
  if (key instanceof GoInt) return (key.unsigned ? "u:" : "i:") + key.value.toString();
  if (key instanceof GoFloat) return "f:" + (Object.is(key.value, -0) ? "0" : String(key.value));
  // Maps and slices are rejected as keys before they get here.
  return "?:" + goSharpV(key);
}

/** The Go type name fmt and reflect print for a decoded value. */
export function goTypeName(v: GoValue): string {
  if (v === null) return "<nil>";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (v instanceof GoInt) return v.unsigned ? "uint64" : "int";
  if (v instanceof GoFloat) return "float64";
  if (v instanceof GoMap) return "map[interface {}]interface {}";
  return "[]interface {}";
}

/** fmt's `%#v` (also `%+#v`) of a decoded value; `nested` marks an element of an interface container. */
export function goSharpV(v: GoValue, nested = false): string {
  if (v === null) return nested ? "interface {}(nil)" : "<nil>";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return goQuote(v);
  if (v instanceof GoInt) return v.unsigned ? "0x" + v.value.toString(16) : v.value.toString();
  if (v instanceof GoFloat) return goFormatFloat(v.value);
  if (v instanceof GoMap) {
    const parts = [...v.entries()].map(([k, e]) => `${goSharpV(k, true)}:${goSharpV(e, true)}`).sort();
    return `map[interface {}]interface {}{${parts.join(", ")}}`;
  }
  return `[]interface {}{${v.map((e) => goSharpV(e, true)).join(", ")}}`;
}
