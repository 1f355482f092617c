// The Go type model: merging each release's reflected Go types (reference/typegen/knative-<release>.json, written
// by scripts/types-generate.mjs) into the TypeScript Duckbill decodes with (src/apis/go-types.generated.ts).
// Pure JavaScript, no Go: src/apis/go-types-model.test.ts re-renders the checked-in files with it and fails when
// the generated TypeScript is not what they give.
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const RAW_DIR = join(REPO, "reference", "typegen");
export const GENERATED_TS = join(REPO, "src", "apis", "go-types.generated.ts");
/** Newest first: the union's field order is the newest release's, older releases' extra fields slotted in. */
export const RELEASE_NAMES = ["1.24", "1.23", "1.17"];

export function rawPath(release) {
  return join(RAW_DIR, `knative-${release}.json`);
}

/** "name type [omitempty] [omitzero]" or "^ type" → { key, type, options }. */
function parseField(spec) {
  const parts = spec.split(" ");
  if (parts[0] === "^") return { key: spec, type: parts[1], options: [] };
  return { key: parts[0], type: parts[1], options: parts.slice(2) };
}

/** The union spec (without omitzero, which go/encoding/json/types.ts's table syntax leaves to the release). */
function unionSpec(f) {
  if (f.key.startsWith("^ ")) return f.key;
  return [f.key, f.type, ...f.options.filter((o) => o !== "omitzero")].join(" ");
}

/**
 * Merges the releases' models: every struct and named type any release has (a name whose Go type differs between
 * releases is an error: the union tables cannot say it), the fields each release lacks, and the fields a release
 * tags omitzero.
 */
export function mergeModels(raw) {
  const models = RELEASE_NAMES.map((r) => {
    const m = JSON.parse(raw[r]);
    if (m.release !== r) throw new Error(`types-model: ${rawPath(r)} is release ${m.release}`);
    return m;
  });
  const structs = new Map();
  for (const m of models) {
    for (const [name, specs] of m.structs) {
      const fields = specs.map(parseField);
      let union = structs.get(name);
      if (union === undefined) {
        structs.set(name, (union = []));
      }
      let at = 0;
      for (const f of fields) {
        const i = union.findIndex((u) => u.key === f.key);
        if (i >= 0) {
          if (union[i].type !== f.type) throw new Error(`types-model: ${name}.${f.key} is ${union[i].type} in one release and ${f.type} in ${m.release}`);
          const a = union[i].options.filter((o) => o !== "omitzero").join(" ");
          const b = f.options.filter((o) => o !== "omitzero").join(" ");
          if (a !== b) throw new Error(`types-model: ${name}.${f.key} has tag options ${a} and ${b}`);
          at = i + 1;
        } else {
          union.splice(at, 0, { ...f });
          at++;
        }
      }
    }
  }
  const named = new Map();
  for (const m of models) {
    for (const name of Object.keys(m.named).sort()) {
      const prev = named.get(name);
      if (prev !== undefined && prev !== m.named[name]) throw new Error(`types-model: ${name} is ${prev} in one release and ${m.named[name]} in ${m.release}`);
      named.set(name, m.named[name]);
    }
  }
  // Go field names that are not the JSON name upper-cased, per struct (the same in every release that has the field).
  const goNames = {};
  for (const m of models) {
    for (const name of Object.keys(m.goNames ?? {}).sort()) {
      for (const [json, go] of Object.entries(m.goNames[name])) {
        const prev = goNames[name]?.[json];
        if (prev !== undefined && prev !== go) throw new Error(`types-model: ${name}.${json} is Go field ${prev} in one release and ${go} in ${m.release}`);
        (goNames[name] ??= {})[json] = go;
      }
    }
  }
  const absent = {};
  const omitZero = {};
  const modules = {};
  for (const m of models) {
    modules[m.release] = m.modules;
    const own = new Map(m.structs.map(([name, specs]) => [name, new Map(specs.map((s) => { const f = parseField(s); return [f.key, f]; }))]));
    const lacks = {};
    const zero = {};
    for (const [name, union] of structs) {
      const fields = own.get(name);
      if (fields === undefined) continue; // not reachable in this release at all (only through fields it lacks)
      const missing = union.filter((u) => !fields.has(u.key)).map((u) => u.key);
      if (missing.some((k) => k.startsWith("^ "))) throw new Error(`types-model: ${m.release}'s ${name} lacks an embedded struct`);
      if (missing.length > 0) lacks[name] = missing;
      const zeros = [...fields.values()].filter((f) => f.options.includes("omitzero")).map((f) => f.key);
      if (zeros.length > 0) zero[name] = zeros;
    }
    absent[m.release] = lacks;
    omitZero[m.release] = zero;
  }
  return { structs, named, absent, omitZero, modules, goNames };
}

const q = (s) => JSON.stringify(s);

function recordOfLists(rec, indent) {
  const names = Object.keys(rec);
  if (names.length === 0) return "{}";
  return `{\n${names.map((n) => `${indent}  ${q(n)}: [${rec[n].map(q).join(", ")}],`).join("\n")}\n${indent}}`;
}

/** src/apis/go-types.generated.ts for the three raw files' texts, keyed by release. */
export function renderModel(raw) {
  const { structs, named, absent, omitZero, modules, goNames } = mergeModels(raw);
  const hash = createHash("sha256");
  for (const r of RELEASE_NAMES) hash.update(`${r}\n${raw[r]}`);
  const out = [];
  out.push("/**");
  out.push(" * GENERATED by `npm run types:generate` (scripts/types-generate.mjs, scripts/types-model.mjs) from the Go types of each");
  out.push(" * pinned release (reference/typegen/knative-<release>.json: scripts/gojson-typegen/main.go's reflection inside the");
  out.push(" * release's reference module). Do not edit: src/apis/go-types-model.test.ts fails when this file is not what those");
  out.push(" * files give, and `npm run types:check` re-runs the reflection (needs Go).");
  out.push(" *");
  out.push(" * goStructs/goNamedTypes hold the union of the releases (in go/encoding/json/types.ts's table syntax); absentFields");
  out.push(" * says which of those fields each release's Go types lack (its webhook's json.Unmarshal skips them and its");
  out.push(" * json.Marshal never writes them), omitZeroFields which it tags `omitzero` (Go 1.24+ encoding/json omits their zero");
  out.push(" * value).");
  out.push(" */");
  out.push('import type { NamedTypeTable, StructTable } from "../go/encoding/json/types.js";');
  out.push("");
  out.push('export type GoTypeModelRelease = "1.17" | "1.23" | "1.24";');
  out.push("");
  out.push("/** sha256 of the three reflected models (reference/typegen/knative-<release>.json, newest first). */");
  out.push(`export const goTypeModelSha256 = ${q(hash.digest("hex"))};`);
  out.push("");
  out.push("/** The module versions each release's model was reflected from (`go list -m` in its reference module). */");
  out.push("export const goTypeModelModules: Readonly<Record<GoTypeModelRelease, readonly string[]>> = {");
  for (const r of RELEASE_NAMES) out.push(`  ${q(r)}: [${modules[r].map(q).join(", ")}],`);
  out.push("};");
  out.push("");
  out.push("export const goStructs: StructTable = {");
  for (const [name, fields] of structs) {
    out.push(`  ${q(name)}: [`);
    for (const f of fields) out.push(`    ${q(unionSpec(f))},`);
    out.push("  ],");
  }
  out.push("};");
  out.push("");
  out.push("export const goNamedTypes: NamedTypeTable = {");
  for (const name of [...named.keys()].sort()) out.push(`  ${q(name)}: ${q(named.get(name))},`);
  out.push("};");
  out.push("");
  out.push("/** Per struct: JSON name → Go field name, where the Go name is not the JSON name with its first letter upper-cased. */");
  out.push("export const goFieldNames: Readonly<Record<string, Readonly<Record<string, string>>>> = {");
  for (const name of Object.keys(goNames).sort()) {
    const entries = Object.keys(goNames[name]).sort().map((json) => `${q(json)}: ${q(goNames[name][json])}`);
    out.push(`  ${q(name)}: { ${entries.join(", ")} },`);
  }
  out.push("};");
  out.push("");
  out.push("/** Per release, per struct: the JSON names of goStructs fields that release's Go types do not have. */");
  out.push("export const absentFields: Readonly<Record<GoTypeModelRelease, Readonly<Record<string, readonly string[]>>>> = {");
  for (const r of RELEASE_NAMES) out.push(`  ${q(r)}: ${recordOfLists(absent[r], "  ")},`);
  out.push("};");
  out.push("");
  out.push("/** Per release, per struct: the JSON names of the fields tagged `omitzero` in that release's Go types. */");
  out.push("export const omitZeroFields: Readonly<Record<GoTypeModelRelease, Readonly<Record<string, readonly string[]>>>> = {");
  for (const r of RELEASE_NAMES) out.push(`  ${q(r)}: ${recordOfLists(omitZero[r], "  ")},`);
  out.push("};");
  out.push("");
  return out.join("\n");
}
