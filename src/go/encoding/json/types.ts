/**
 * A declarative model of Go types as encoding/json sees them, and the compiler that turns the tables
 * (go-types.generated.ts through knative-types.ts) into the lookup structures the decoder walks.
 *
 * Table syntax follows Go source: a struct is a list of fields `"<json name> <type>[ omitempty]"`, and an
 * embedded struct without a JSON name (`json:",inline"` or untagged) is `"^ <type>"`. Types are written
 * `*T`, `[]T`, `map[K]V`, Go builtins, named table entries `pkg.Name`, or one of the special types whose
 * JSON methods are modelled by hand (SPECIAL_TYPES).
 */

/** Fields of a Go struct in declaration order; see the module comment for the syntax. */
export type StructTable = Readonly<Record<string, readonly string[]>>;
/** Named non-struct types: `pkg.Name` → the underlying type expression. */
export type NamedTypeTable = Readonly<Record<string, string>>;

interface Named {
  /** reflect.Type.String(), as it appears in UnmarshalTypeError messages (e.g. `v1.Container`, `[]string`). */
  readonly name: string;
}

export interface StringType extends Named {
  readonly kind: "string";
}
export interface BoolType extends Named {
  readonly kind: "bool";
}
/** Signed or unsigned integers; valid values are integers in [min, limit). */
export interface IntType extends Named {
  readonly kind: "int";
  readonly min: number;
  readonly limit: number;
}
export interface FloatType extends Named {
  readonly kind: "float";
}
/** []byte: base64 in JSON. */
export interface BytesType extends Named {
  readonly kind: "bytes";
}
export interface PtrType extends Named {
  readonly kind: "ptr";
  readonly elem: GoType;
}
export interface SliceType extends Named {
  readonly kind: "slice";
  readonly elem: GoType;
}
/** Maps with string-kinded keys (all the Kubernetes and Knative maps). */
export interface MapType extends Named {
  readonly kind: "map";
  readonly elem: GoType;
}
export interface StructType extends Named {
  readonly kind: "struct";
  /** reflect.Type.Name(): the `Struct` part of `Go struct field Struct.path`. */
  readonly shortName: string;
  readonly fields: readonly GoField[];
  /** Exact JSON name → field. */
  readonly exact: ReadonlyMap<string, GoField>;
  /** Folded (upper-cased) JSON name → first field with that folding, as Go's byFoldedName. */
  readonly folded: ReadonlyMap<string, GoField>;
  /** Fields json.Marshal always writes: no omitempty, or a type omitempty never drops (structs). */
  readonly alwaysEmitted: readonly GoField[];
  /**
   * JSON name → the Go names of the embedded fields a promoted field is reached through, outermost first
   * (`containers` of RevisionSpec → ["PodSpec"]). Go 1.24's decode errors name them in the field path.
   */
  readonly promotedVia: ReadonlyMap<string, readonly string[]>;
  /**
   * decode.ts's scratch for this type: which of its fields the options of the latest decode hide or tag omitzero,
   * worked out once per pair of option sets. A property of the type, not a WeakMap entry, so that reading it costs
   * one load per struct decoded.
   */
  decodeMemo: unknown;
}
/** resource.Quantity (custom UnmarshalJSON/MarshalJSON). */
export interface QuantityType extends Named {
  readonly kind: "quantity";
}
/** metav1.Time and apis.VolatileTime: RFC 3339 in, RFC 3339 seconds in UTC (or null) out. */
export interface TimeType extends Named {
  readonly kind: "time";
}
export interface IntOrStringType extends Named {
  readonly kind: "intOrString";
}
/** knative.dev/pkg apis.URL: a net/url URL, printed with URL.String(). */
export interface UrlType extends Named {
  readonly kind: "url";
}
/** runtime.RawExtension, metav1.FieldsV1: the raw JSON is kept, null leaves the value as it was. */
export interface RawType extends Named {
  readonly kind: "raw";
}
/** interface{}: any JSON value. */
export interface AnyType extends Named {
  readonly kind: "any";
}

export type GoType =
  | StringType
  | BoolType
  | IntType
  | FloatType
  | BytesType
  | PtrType
  | SliceType
  | MapType
  | StructType
  | QuantityType
  | TimeType
  | IntOrStringType
  | UrlType
  | RawType
  | AnyType;

/** How omitempty judges a value in its marshalled form (encoding/json isEmptyValue). */
export type Emptiness = "never" | "string" | "bool" | "number" | "length" | "nil";

export interface GoField {
  /** The JSON name as Go writes it. */
  readonly name: string;
  readonly type: GoType;
  readonly omitEmpty: boolean;
  readonly emptiness: Emptiness;
}

const BUILTINS: Readonly<Record<string, GoType>> = {
  string: { kind: "string", name: "string" },
  bool: { kind: "bool", name: "bool" },
  int: intType("int", 64, true),
  int8: intType("int8", 8, true),
  int16: intType("int16", 16, true),
  int32: intType("int32", 32, true),
  int64: intType("int64", 64, true),
  uint: intType("uint", 64, false),
  uint8: intType("uint8", 8, false),
  uint16: intType("uint16", 16, false),
  uint32: intType("uint32", 32, false),
  uint64: intType("uint64", 64, false),
  float64: { kind: "float", name: "float64" },
  "interface{}": { kind: "any", name: "interface {}" },
};

function intType(name: string, bits: number, signed: boolean): IntType {
  return signed ? { kind: "int", name, min: -(2 ** (bits - 1)), limit: 2 ** (bits - 1) } : { kind: "int", name, min: 0, limit: 2 ** bits };
}

/** Types with hand-written JSON methods in Go, keyed by their table name. */
const SPECIAL_TYPES: Readonly<Record<string, GoType>> = {
  "resource.Quantity": { kind: "quantity", name: "resource.Quantity" },
  "intstr.IntOrString": { kind: "intOrString", name: "intstr.IntOrString" },
  "meta.Time": { kind: "time", name: "v1.Time" },
  "apis.VolatileTime": { kind: "time", name: "apis.VolatileTime" },
  "meta.FieldsV1": { kind: "raw", name: "v1.FieldsV1" },
  "runtime.RawExtension": { kind: "raw", name: "runtime.RawExtension" },
  "apis.URL": { kind: "url", name: "apis.URL" },
};

/** Table package alias → Go package name, which prefixes type names in error messages. */
export type PackageNames = Readonly<Record<string, string>>;

interface FlatField {
  field: GoField;
  depth: number;
  /** Embedded fields it is promoted through (see StructType.promotedVia). */
  via: readonly string[];
}

/**
 * Compiles struct and named-type tables into GoTypes, once, at module load. Types are created on first use
 * and shared, so recursive and repeated references cost nothing per request.
 */
export class GoTypeRegistry {
  private readonly structs: StructTable;
  private readonly named: NamedTypeTable;
  private readonly packages: PackageNames;
  private readonly cache = new Map<string, GoType>();
  /** Promotion depth of each resolved field of a struct, for dominance in structs that embed it. */
  private readonly depths = new Map<StructType, readonly number[]>();

  constructor(structs: StructTable, named: NamedTypeTable, packages: PackageNames) {
    this.structs = structs;
    this.named = named;
    this.packages = packages;
  }

  /** The type for a table expression such as `serving.Service` or `[]core.Container`. */
  type(expr: string): GoType {
    const cached = this.cache.get(expr);
    if (cached !== undefined) return cached;
    const t = this.build(expr);
    this.cache.set(expr, t);
    return t;
  }

  /** The struct type for a table name, or an error when it is not a struct. */
  struct(name: string): StructType {
    const t = this.type(name);
    if (t.kind !== "struct") throw new Error(`gojson: ${name} is not a struct`);
    return t;
  }

  private build(expr: string): GoType {
    if (expr.startsWith("*")) {
      const elem = this.type(expr.slice(1));
      return { kind: "ptr", name: `*${elem.name}`, elem };
    }
    if (expr === "[]byte") return { kind: "bytes", name: "[]uint8" };
    if (expr.startsWith("[]")) {
      const elem = this.type(expr.slice(2));
      return { kind: "slice", name: `[]${elem.name}`, elem };
    }
    if (expr.startsWith("map[")) {
      const close = expr.indexOf("]");
      const key = this.type(expr.slice(4, close));
      if (key.kind !== "string") throw new Error(`gojson: unsupported map key in ${expr}`);
      const elem = this.type(expr.slice(close + 1));
      return { kind: "map", name: `map[${key.name}]${elem.name}`, elem };
    }
    const builtin = BUILTINS[expr];
    if (builtin !== undefined) return builtin;
    const special = SPECIAL_TYPES[expr];
    if (special !== undefined) return special;
    const dot = expr.indexOf(".");
    const pkg = this.packages[expr.slice(0, dot)];
    if (dot < 0 || pkg === undefined) throw new Error(`gojson: unknown type ${expr}`);
    const shortName = expr.slice(dot + 1);
    const goName = `${pkg}.${shortName}`;
    const fields = this.structs[expr];
    if (fields !== undefined) return this.buildStruct(expr, goName, shortName, fields);
    const underlying = this.named[expr];
    if (underlying === undefined) throw new Error(`gojson: unknown type ${expr}`);
    // A named type behaves as its underlying type but reports its own name.
    return { ...this.type(underlying), name: goName } as GoType;
  }

  private buildStruct(expr: string, name: string, shortName: string, specs: readonly string[]): StructType {
    const fields: GoField[] = [];
    const exact = new Map<string, GoField>();
    const folded = new Map<string, GoField>();
    const alwaysEmitted: GoField[] = [];
    const promotedVia = new Map<string, readonly string[]>();
    const t: StructType = { kind: "struct", name, shortName, fields, exact, folded, alwaysEmitted, promotedVia, decodeMemo: undefined };
    // Registered before the fields are resolved so that a self-reference through a pointer or slice works.
    this.cache.set(expr, t);
    const depths: number[] = [];
    for (const { field: f, depth, via } of this.dominantFields(expr, specs)) {
      fields.push(f);
      depths.push(depth);
      if (via.length > 0) promotedVia.set(f.name, via);
      exact.set(f.name, f);
      const key = asciiUpper(f.name);
      if (!folded.has(key)) folded.set(key, f);
      if (!f.omitEmpty || f.emptiness === "never") alwaysEmitted.push(f);
    }
    this.depths.set(t, depths);
    return t;
  }

  /** Go's typeFields: embedded fields are promoted; a shallower field hides deeper ones of the same name. */
  private dominantFields(expr: string, specs: readonly string[]): FlatField[] {
    const flat: FlatField[] = [];
    for (const spec of specs) {
      if (spec.startsWith("^ ")) {
        const embedded = this.type(spec.slice(2));
        if (embedded.kind !== "struct") throw new Error(`gojson: ${expr} embeds non-struct ${spec}`);
        const inner = this.depths.get(embedded) ?? [];
        // The embedded field's Go name is its type's name, without package or pointer.
        const embeddedName = embedded.shortName;
        embedded.fields.forEach((field, i) => flat.push({ field, depth: (inner[i] ?? 0) + 1, via: [embeddedName, ...(embedded.promotedVia.get(field.name) ?? [])] }));
        continue;
      }
      const parts = spec.split(" ");
      const [jsonName, typeExpr, option] = parts;
      if (jsonName === undefined || typeExpr === undefined || parts.length > 3 || (option !== undefined && option !== "omitempty")) {
        throw new Error(`gojson: bad field ${JSON.stringify(spec)} in ${expr}`);
      }
      if (!/^[\x21-\x7e]+$/.test(jsonName) || jsonName in Object.prototype) throw new Error(`gojson: unsafe field name ${jsonName} in ${expr}`);
      const type = this.type(typeExpr);
      const omitEmpty = option === "omitempty";
      flat.push({ field: { name: jsonName, type, omitEmpty, emptiness: emptinessOf(type) }, depth: 0, via: [] });
    }
    const byName = new Map<string, FlatField[]>();
    for (const f of flat) {
      const list = byName.get(f.field.name);
      if (list === undefined) byName.set(f.field.name, [f]);
      else list.push(f);
    }
    const out: FlatField[] = [];
    for (const f of flat) {
      const rivals = byName.get(f.field.name) ?? [];
      const minDepth = Math.min(...rivals.map((r) => r.depth));
      const atMin = rivals.filter((r) => r.depth === minDepth);
      // Several tagged fields at the shallowest depth cancel each other out, as in Go.
      if (f.depth === minDepth && atMin.length === 1) out.push(f);
    }
    return out;
  }
}

function emptinessOf(t: GoType): Emptiness {
  switch (t.kind) {
    case "string":
      return "string";
    case "bool":
      return "bool";
    case "int":
    case "float":
      return "number";
    case "bytes":
    case "slice":
    case "map":
      return "length";
    case "ptr":
    case "any":
      return "nil";
    default:
      // Structs, and the special types that are structs in Go, are never empty for omitempty.
      return "never";
  }
}

/** Upper-cases ASCII letters only (the JSON names in the tables are ASCII). */
export function asciiUpper(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}
