/**
 * Reading manifests the way `kubectl apply -f` does: files, directories (their .json/.yaml/.yml files in
 * lexical order, subdirectories only with `recursive`) and `-` for stdin (named "STDIN", kubectl's
 * constSTDINstr); multi-document YAML or JSON; `List` documents flattened into their items; empty and null
 * documents dropped. YAML follows YAML 1.1 as kubectl's go-yaml v2 does (`yes`/`on` are booleans, `0777` is
 * octal) except that timestamps and sexagesimal numbers stay strings, as go-yaml v2 leaves them when decoding
 * into interface{}. Every object remembers its file and line so errors can point at it.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { isMap, isSeq, LineCounter, parseAllDocuments, type Tags } from "yaml";
import { parseSimpleYaml } from "./simple-yaml.js";

/** One object to check, with where it came from. */
export interface ManifestDocument {
  /** The source as kubectl names it in messages: the file path as given (joined for directories), or `STDIN`. */
  readonly source: string;
  /** 1-based line where the object starts. */
  readonly line: number;
  readonly object: Record<string, unknown>;
  /**
   * Where a field of the object is written: a Knative field path (`spec.template.spec.containers[0].image`; map keys
   * with dots, such as annotation names, are found too). The file is read again, with positions, on the first call.
   */
  readonly locate?: (fieldPath: string) => FieldPosition | undefined;
}

/** A 1-based line and column in a manifest file. */
export interface FieldPosition {
  readonly line: number;
  readonly column: number;
}

/** A manifest that cannot be read: `<source>:<line>:<column>: <reason>`. */
export class ManifestError extends Error {
  constructor(
    readonly source: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `${source}:${line}:${column}: ${reason}` : `${source}: ${reason}`);
    this.name = "ManifestError";
  }
}

/**
 * Nothing to check: every path was read and none held an object (kubectl apply: "error: no objects passed to
 * apply"). A command that checks nothing must not report that nothing breaks.
 */
export class NoObjectsError extends Error {}

export const STDIN_SOURCE = "STDIN";

/** kubectl's FileExtensions for files found in directories. */
const MANIFEST_EXTENSIONS = [".json", ".yaml", ".yml"];

/** go-yaml v2 decodes timestamps and base-60 numbers into interface{} as plain strings. */
export function kubectlTags(tags: Tags): Tags {
  return tags.filter((t) => typeof t !== "object" || (!t.tag.endsWith(":timestamp") && t.format !== "TIME"));
}

const PARSE_OPTIONS = { version: "1.1", customTags: kubectlTags, prettyErrors: false } as const;

/** A parsed document before the manifest checks: its value, where it starts, where its `items` start. */
interface RawDocument {
  readonly value: unknown;
  readonly line: number;
  readonly column: number;
  readonly itemPositions?: ReadonlyArray<{ readonly line: number; readonly column: number }>;
}

/**
 * The yaml library's reading of a file: any YAML, with its error positions. The documents before the first one that
 * cannot be read are returned with that document's error, as kubectl's stream decoder hands them on before failing.
 */
function parseWithLibrary(source: string, body: string): { docs: RawDocument[]; error?: ManifestError } {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(body, { ...PARSE_OPTIONS, lineCounter });
  const out: RawDocument[] = [];
  for (const doc of Array.isArray(docs) ? docs : []) {
    const error = doc.errors[0];
    if (error !== undefined) {
      const at = lineCounter.linePos(error.pos[0]);
      return { docs: out, error: new ManifestError(source, at.line, at.col, error.message) };
    }
    const contents = doc.contents;
    if (contents === null) continue;
    const start = lineCounter.linePos(contents.range?.[0] ?? 0);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      return { docs: out, error: new ManifestError(source, start.line, start.col, (e as Error).message) };
    }
    if (value === null || value === undefined) continue;
    const itemsNode = isMap(contents) ? contents.get("items", true) : undefined;
    const itemPositions = isSeq(itemsNode)
      ? itemsNode.items.map((node) => {
          const range = node !== null && typeof node === "object" && "range" in node ? (node.range as [number, number, number] | undefined) : undefined;
          const pos = range === undefined ? start : lineCounter.linePos(range[0]);
          return { line: pos.line, column: pos.col };
        })
      : undefined;
    out.push({ value, line: start.line, column: start.col, ...(itemPositions === undefined ? {} : { itemPositions }) });
  }
  return { docs: out };
}

/** The objects of one file that could be read, and the first error, after which the file is not read further. */
export interface ParsedFile {
  readonly docs: ManifestDocument[];
  readonly error?: ManifestError;
}

/**
 * Parses one file's text into objects, up to the first YAML/JSON syntax error or document that is not an object with
 * `apiVersion` and `kind` (a ManifestError with line and column): kubectl applies the documents it decoded before
 * such an error and reports the error for the rest of the file. The common block-YAML subset is read by a fast
 * reader (simple-yaml.ts); anything else by the yaml library, with the same values.
 */
export function parseManifestFile(source: string, text: string): ParsedFile {
  // kubectl strips a UTF-8 byte order mark before decoding.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const simple = parseSimpleYaml(body, kubectlTags);
  const parsed: { docs: readonly RawDocument[]; error?: ManifestError } = simple === undefined ? parseWithLibrary(source, body) : { docs: simple };
  const out: ManifestDocument[] = [];
  const locator = fileLocator(body);
  try {
    for (const doc of parsed.docs) {
      const value = doc.value;
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new ManifestError(source, doc.line, doc.column, "a manifest document must be an object with apiVersion and kind");
      }
      const obj = value as Record<string, unknown>;
      if (isList(obj)) {
        if (!Array.isArray(obj.items)) throw new ManifestError(source, doc.line, doc.column, "items of a list must be an array");
        // kubectl's FlattenListVisitor: each item is checked on its own, at its own line.
        const items = obj.items as unknown[];
        for (let i = 0; i < items.length; i++) {
          const pos = doc.itemPositions?.[i] ?? doc;
          out.push(checkedDocument(source, pos.line, pos.column, items[i], locator));
        }
        continue;
      }
      out.push(checkedDocument(source, doc.line, doc.column, obj, locator));
    }
  } catch (e) {
    if (e instanceof ManifestError) return { docs: out, error: e };
    throw e;
  }
  return parsed.error === undefined ? { docs: out } : { docs: out, error: parsed.error };
}

/** Parses one file's text into objects; throws the first ManifestError (see parseManifestFile). */
export function parseManifests(source: string, text: string): ManifestDocument[] {
  const { docs, error } = parseManifestFile(source, text);
  if (error !== undefined) throw error;
  return docs;
}

/** apimachinery's unstructured decoder treats any object with a non-null `items` member as a list. */
function isList(obj: Record<string, unknown>): boolean {
  return obj.items !== undefined && obj.items !== null;
}

function checkedDocument(source: string, line: number, column: number, value: unknown, locator: (line: number, column: number, fieldPath: string) => FieldPosition | undefined): ManifestDocument {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ManifestError(source, line, column, "a manifest document must be an object with apiVersion and kind");
  }
  const obj = value as Record<string, unknown>;
  // kubectl refuses these client-side ("apiVersion not set", "kind not set").
  const missing = ["apiVersion", "kind"].filter((k) => typeof obj[k] !== "string" || obj[k] === "");
  if (missing.length > 0) throw new ManifestError(source, line, column, `${missing.map((k) => `${k} not set`).join(", ")}`);
  // kubectl's object accessors fail on these before anything is sent.
  const metadata = obj.metadata;
  if (metadata !== undefined && metadata !== null && (typeof metadata !== "object" || Array.isArray(metadata))) {
    throw new ManifestError(source, line, column, "metadata must be an object");
  }
  return { source, line, object: obj, locate: (fieldPath) => locator(line, column, fieldPath) };
}

/**
 * Finds fields in one file's text: parses it with positions on the first call (the yaml library; the fast reader
 * keeps none), then walks from the node that starts at the document's line and column.
 */
function fileLocator(body: string): (line: number, column: number, fieldPath: string) => FieldPosition | undefined {
  let roots: Map<string, unknown> | undefined;
  const lineCounter = new LineCounter();
  const at = (node: unknown): FieldPosition | undefined => {
    const range = node !== null && typeof node === "object" && "range" in node ? (node.range as [number, number, number] | undefined) : undefined;
    if (range === undefined) return undefined;
    const p = lineCounter.linePos(range[0]);
    return { line: p.line, column: p.col };
  };
  const index = (): Map<string, unknown> => {
    const m = new Map<string, unknown>();
    for (const doc of parseAllDocuments(body, { ...PARSE_OPTIONS, lineCounter })) {
      const contents = doc.contents;
      const start = at(contents);
      if (start === undefined) continue;
      m.set(`${start.line}:${start.column}`, contents);
      const items = isMap(contents) ? contents.get("items", true) : undefined;
      if (isSeq(items)) for (const item of items.items) {
        const p = at(item);
        if (p !== undefined) m.set(`${p.line}:${p.column}`, item);
      }
    }
    return m;
  };
  return (line, column, fieldPath) => {
    if (body.length > MAX_LOCATE_BYTES) return undefined;
    roots ??= index();
    let node = roots.get(`${line}:${column}`);
    if (node === undefined) return undefined;
    // Knative's paths: `.name` for fields, `[i]` for elements, `[key]` or `.key` for map keys (which may hold dots).
    const parts = fieldPath.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
    for (let i = 0; i < parts.length; ) {
      const part = parts[i] as string;
      if (isSeq(node)) {
        const n = /^\[(\d+)\]$/.exec(part);
        // Knative names the one element of a list without its index (`ports.containerPort`).
        if (n === null && node.items.length !== 1) return undefined;
        node = node.items[n === null ? 0 : Number(n[1])];
        if (n !== null) i++;
        continue;
      }
      if (!isMap(node)) return undefined;
      const map = node;
      // The longest run of parts that names a key: `annotations.autoscaling.knative.dev/min-scale`.
      let found = false;
      for (let j = parts.length; j > i && !found; j--) {
        const key = part.startsWith("[") && j === i + 1 ? part.slice(1, -1) : parts.slice(i, j).join(".");
        const pair = map.items.find((p) => (p.key !== null && typeof p.key === "object" && "value" in p.key ? String(p.key.value) : String(p.key)) === key);
        if (pair !== undefined) {
          node = j === parts.length ? (pair.key ?? pair.value) : pair.value;
          i = j;
          found = true;
        }
      }
      if (!found) return undefined;
    }
    return at(node);
  };
}

/** Files larger than this are not read again for field positions (the document's line is used). */
const MAX_LOCATE_BYTES = 4 * 1024 * 1024;

/**
 * The files behind `-f` arguments, in kubectl's order: a file as given; a directory's manifest files in lexical
 * order (recursing only with `recursive`); `-` as STDIN. A path that does not exist is a ManifestError.
 */
export async function expandManifestPaths(paths: readonly string[], recursive = false): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    if (p === "-") {
      out.push(STDIN_SOURCE);
      continue;
    }
    const info = await stat(p).catch(() => undefined);
    if (info === undefined) throw new ManifestError(p, 0, 0, "the path does not exist");
    if (info.isDirectory()) await walk(p, recursive, out);
    else out.push(p);
  }
  return out;
}

/**
 * expandManifestPaths going on past paths that do not exist: the files of the others, and a ManifestError for each
 * missing one.
 */
export async function expandAllManifestPaths(paths: readonly string[], recursive = false): Promise<{ sources: string[]; errors: ManifestError[] }> {
  const sources: string[] = [];
  const errors: ManifestError[] = [];
  for (const p of paths) {
    try {
      sources.push(...(await expandManifestPaths([p], recursive)));
    } catch (e) {
      if (!(e instanceof ManifestError)) throw e;
      errors.push(e);
    }
  }
  return { sources, errors };
}

/**
 * The manifests of `paths` (files, directories, `-`), going on past what cannot be read: the objects of every
 * readable file and one ManifestError per path or file that could not be read in full. Throws NoObjectsError when
 * there is neither an object nor an error, with a hint to use -R when a directory given has subdirectories.
 */
export async function readManifestPaths(
  paths: readonly string[],
  recursive: boolean,
  readStdin: () => Promise<string>,
  command: string,
): Promise<{ docs: ManifestDocument[]; unreadable: ManifestError[] }> {
  const expanded = await expandAllManifestPaths(paths, recursive);
  const { docs, errors } = await readAllManifests(expanded.sources, readStdin);
  const unreadable = [...expanded.errors, ...errors];
  if (docs.length === 0 && unreadable.length === 0) throw new NoObjectsError(await noObjectsMessage(paths, recursive, command));
  return { docs, unreadable };
}

async function noObjectsMessage(paths: readonly string[], recursive: boolean, command: string): Promise<string> {
  const message = `no objects passed to ${command}`;
  if (recursive) return message;
  const nested: string[] = [];
  for (const p of paths) {
    if (p === "-") continue;
    const entries = await readdir(p, { withFileTypes: true }).catch(() => []);
    if (entries.some((e) => e.isDirectory())) nested.push(p);
  }
  return nested.length === 0 ? message : `${message}: ${nested.join(", ")} ${nested.length === 1 ? "has" : "have"} subdirectories, which are read only with -R (--recursive)`;
}

async function walk(dir: string, recursive: boolean, out: string[]): Promise<void> {
  // filepath.Walk visits entries in lexical order.
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isDirectory()) {
      if (recursive) await walk(full, recursive, out);
    } else if (MANIFEST_EXTENSIONS.some((ext) => e.name.endsWith(ext))) {
      out.push(full);
    }
  }
}

/** Reads and parses every source; `readStdin` is called at most once, for `STDIN`. Throws the first ManifestError. */
export async function readManifests(sources: readonly string[], readStdin: () => Promise<string>): Promise<ManifestDocument[]> {
  const { docs, errors } = await readAllManifests(sources, readStdin);
  if (errors[0] !== undefined) throw errors[0];
  return docs;
}

/**
 * Reads and parses every source, going on past files that cannot be read: the objects of all files (of a broken file,
 * those before its error) and one ManifestError per file that could not be read in full, in the sources' order.
 */
export async function readAllManifests(sources: readonly string[], readStdin: () => Promise<string>): Promise<{ docs: ManifestDocument[]; errors: ManifestError[] }> {
  const docs: ManifestDocument[] = [];
  const errors: ManifestError[] = [];
  let stdinText: string | undefined;
  for (const source of sources) {
    let text: string;
    if (source === STDIN_SOURCE) {
      stdinText ??= await readStdin();
      text = stdinText;
    } else {
      try {
        text = await readFile(source, "utf8");
      } catch (e) {
        errors.push(new ManifestError(source, 0, 0, (e as Error).message));
        continue;
      }
    }
    const parsed = parseManifestFile(source, text);
    docs.push(...parsed.docs);
    if (parsed.error !== undefined) errors.push(parsed.error);
  }
  return { docs, errors };
}
