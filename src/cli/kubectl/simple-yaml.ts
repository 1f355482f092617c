/**
 * A fast reader for the block-YAML subset Kubernetes manifests are written in, so that `duckbill check` stays
 * quick enough for pre-commit hooks (the yaml library needs several hundred milliseconds, cold, for a hundred
 * documents). It reads block mappings and sequences (also a sequence at its key's indentation), plain and
 * single-line quoted scalars, literal block scalars, single-line flow collections and comments. Anything
 * else — anchors, aliases, tags, merge keys, folded or multi-line scalars, directives, duplicate keys, odd
 * indentation, syntax errors — makes it give up on the whole text, and the caller parses it with the yaml
 * library instead, which also reports the errors. Scalars resolve with the yaml library's own YAML 1.1 tags,
 * so both paths agree value for value.
 */
import { isScalar, Schema, type Tags } from "yaml";
import { isJsonObject } from "../../go/encoding/json/json-value.js";

/** One document: its value and where it starts (1-based); positions of the root `items` entries for lists. */
export interface SimpleDocument {
  readonly value: unknown;
  readonly line: number;
  readonly column: number;
  readonly itemPositions?: ReadonlyArray<{ readonly line: number; readonly column: number }>;
}

/** Thrown internally when the text leaves the subset. */
class Unsupported extends Error {}

interface ResolvableTag {
  readonly default?: boolean | "key";
  readonly test?: RegExp;
  readonly resolve: (value: string, onError: (msg: string) => void, options: Record<string, unknown>) => unknown;
  readonly tag: string;
}

let plainTags: readonly ResolvableTag[] | undefined;

/** The default scalar tags of the schema the manifests reader uses (YAML 1.1 without timestamps). */
function scalarTags(customTags: (tags: Tags) => Tags): readonly ResolvableTag[] {
  if (plainTags === undefined) {
    const schema = new Schema({ schema: "yaml-1.1", customTags });
    plainTags = (schema.tags as unknown as ResolvableTag[]).filter((t) => t.default === true && t.test !== undefined);
  }
  return plainTags;
}

const RESOLVE_OPTIONS = { intAsBigInt: false };

function fail(): never {
  throw new Unsupported();
}

interface Line {
  /** Number of leading spaces. */
  indent: number;
  /** The line after its indentation (may be rewritten for compact sequence entries). */
  text: string;
  /** 0-based line number. */
  readonly no: number;
  /** The original line, for block scalars. */
  readonly raw: string;
}

const FLOW_INDICATORS = new Set([",", "[", "]", "{", "}"]);

class Reader {
  private i = 0;
  readonly positions = new WeakMap<unknown[], Array<{ line: number; column: number }>>();

  constructor(
    private readonly lines: Line[],
    start: number,
    private readonly end: number,
    private readonly tags: readonly ResolvableTag[],
  ) {
    this.i = start;
  }

  /** Skips blank and comment lines; returns the next content line or undefined at the end. */
  private peek(): Line | undefined {
    while (this.i < this.end) {
      const l = this.lines[this.i] as Line;
      if (l.text === "" || l.text.startsWith("#")) {
        this.i++;
        continue;
      }
      if (/^[ ]*\t/.test(l.raw) && l.raw.trim() !== "") fail();
      return l;
    }
    return undefined;
  }

  document(): SimpleDocument | undefined {
    const first = this.peek();
    if (first === undefined) return undefined;
    const value = this.node(first.indent);
    if (this.peek() !== undefined) fail();
    const items = isJsonObject(value) && Array.isArray(value.items) ? this.positions.get(value.items) : undefined;
    return { value, line: first.no + 1, column: first.indent + 1, ...(items === undefined ? {} : { itemPositions: items }) };
  }

  /** A block node starting at the next content line, which has indentation `indent`. */
  private node(indent: number): unknown {
    const l = this.peek() as Line;
    if (isSeqEntry(l.text)) return this.sequence(indent);
    if (keyEnd(l.text) !== undefined) return this.mapping(indent);
    return fail();
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      const l = this.peek();
      if (l === undefined || l.indent < indent) return out;
      if (l.indent > indent || isSeqEntry(l.text)) fail();
      const k = keyEnd(l.text);
      if (k === undefined) fail();
      const key = this.key(l.text.slice(0, k.keyEnd));
      if (Object.hasOwn(out, key) || key === "__proto__") fail();
      this.i++;
      out[key] = this.value(l.text.slice(k.valueStart), indent, true);
    }
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    const positions: Array<{ line: number; column: number }> = [];
    for (;;) {
      const l = this.peek();
      if (l === undefined || l.indent < indent) break;
      if (l.indent > indent || !isSeqEntry(l.text)) {
        if (l.indent === indent) break;
        fail();
      }
      positions.push({ line: l.no + 1, column: l.indent + 1 });
      const rest = l.text.slice(1).replace(/^ +/, "");
      const column = l.indent + (l.text.length - rest.length);
      if (rest === "" || rest.startsWith("#")) {
        this.i++;
        const next = this.peek();
        out.push(next !== undefined && next.indent > indent ? this.node(next.indent) : null);
      } else if (isSeqEntry(rest)) {
        fail();
      } else if (!/^[[{]/.test(rest) && keyEnd(rest) !== undefined) {
        // A compact mapping: the entry's text becomes a line of its own at the column where it starts.
        l.indent = column;
        l.text = rest;
        out.push(this.mapping(column));
      } else {
        this.i++;
        out.push(this.value(rest, indent, false));
      }
    }
    this.positions.set(out, positions);
    return out;
  }

  /** The value after `key:` or `- `; `rest` is the text after the indicator, `indent` the parent's. */
  private value(rest: string, indent: number, afterKey: boolean): unknown {
    const text = rest.replace(/^ +/, "");
    if (text === "" || text.startsWith("#")) {
      const next = this.peek();
      if (next === undefined) return null;
      if (next.indent > indent) return this.node(next.indent);
      // Kubernetes style: a sequence at the same indentation as its key.
      if (afterKey && next.indent === indent && isSeqEntry(next.text)) return this.sequence(indent);
      return null;
    }
    let value: unknown;
    const c = text[0] as string;
    if (c === "|") value = this.literal(text, indent);
    else if (c === "[" || c === "{") value = flowValue(text, this.tags);
    else if (c === '"' || c === "'") {
      const q = quoted(text, 0);
      expectEnd(text, q.end);
      value = q.value;
    } else value = this.plain(text);
    // A more indented line after a scalar would continue it (multi-line scalars are left to the library).
    if (c !== "|") {
      const next = this.peek();
      if (next !== undefined && next.indent > indent) fail();
    }
    return value;
  }

  private plain(text: string): unknown {
    if (/^[>!&*%@`?:,\]}]/.test(text) || text.startsWith("- ") || text === "-") fail();
    const value = stripComment(text);
    if (value.includes(": ") || value.endsWith(":") || value.includes("\t")) fail();
    return resolvePlain(value, this.tags);
  }

  private key(text: string): string {
    if (/^["']/.test(text)) {
      const q = quoted(text, 0);
      if (text.slice(q.end).trim() !== "") fail();
      return q.value;
    }
    const k = text.replace(/[ \t]+$/, "");
    if (k === "" || /^[-?:,[\]{}#&*!|>%@`]/.test(k) || k.includes(" #") || k === "<<") fail();
    const v = resolvePlain(k, this.tags);
    if (v === null || typeof v === "object") fail();
    return String(v);
  }

  /** A literal block scalar (`|`, `|-`, `|+`) whose header is `text`, under a node indented by `indent`. */
  private literal(text: string, indent: number): string {
    const m = /^\|([-+]?)[ \t]*(#.*)?$/.exec(text);
    if (m === null) fail();
    const chomp = m[1] ?? "";
    const parts: string[] = [];
    let contentIndent = -1;
    let trailing = 0;
    let j = this.i;
    for (; j < this.end; j++) {
      const raw = (this.lines[j] as Line).raw;
      if (raw.trim() === "") {
        // Blank lines with spaces or tabs have subtle rules (content or indentation): leave them to the library.
        if (raw.length > 0) fail();
        parts.push("");
        trailing++;
        continue;
      }
      const ind = raw.length - raw.replace(/^ +/, "").length;
      if (contentIndent === -1) {
        if (ind <= indent) break;
        if (raw[ind] === "\t") fail();
        contentIndent = ind;
      } else if (ind < contentIndent) {
        break;
      }
      parts.push(raw.slice(contentIndent));
      trailing = 0;
    }
    if (contentIndent === -1) fail();
    this.i = j;
    const body = parts.slice(0, parts.length - trailing);
    const leadingAndBody = body.join("\n");
    if (chomp === "-") return leadingAndBody;
    if (chomp === "+") return leadingAndBody + "\n".repeat(trailing + 1);
    return leadingAndBody + "\n";
  }
}


function isSeqEntry(text: string): boolean {
  return text === "-" || text.startsWith("- ") || text.startsWith("-\t");
}

/** Where a block mapping key ends and its value starts, or undefined if `text` is not `key:` or `key: value`. */
function keyEnd(text: string): { keyEnd: number; valueStart: number } | undefined {
  let i = 0;
  if (text[0] === '"' || text[0] === "'") {
    try {
      i = quoted(text, 0).end;
    } catch {
      return undefined;
    }
    while (text[i] === " ") i++;
    if (text[i] !== ":") return undefined;
    if (i + 1 < text.length && text[i + 1] !== " ") return undefined;
    return { keyEnd: i, valueStart: i + 1 };
  }
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === "#" && i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) return undefined;
    if (c === ":" && (i + 1 === text.length || text[i + 1] === " ")) return { keyEnd: i, valueStart: i + 1 };
  }
  return undefined;
}

/** A plain scalar's text up to a comment, trailing blanks removed. */
function stripComment(text: string): string {
  const m = /[ \t]#/.exec(text);
  return (m === null ? text : text.slice(0, m.index)).replace(/[ \t]+$/, "");
}

function resolvePlain(value: string, tags: readonly ResolvableTag[]): unknown {
  for (const t of tags) {
    if (t.test?.test(value) === true) {
      let bad = false;
      const v = t.resolve(value, () => (bad = true), RESOLVE_OPTIONS);
      if (bad) fail();
      // Some YAML 1.1 tags resolve to a Scalar node (to keep the source form); its value is what toJS gives.
      return isScalar(v) ? v.value : v;
    }
  }
  return value;
}

const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};

/** A single-line quoted scalar starting at `start`; `end` is the index after the closing quote. */
function quoted(text: string, start: number): { value: string; end: number } {
  const q = text[start];
  let out = "";
  let i = start + 1;
  if (q === "'") {
    for (; i < text.length; i++) {
      const c = text[i] as string;
      if (c === "'") {
        if (text[i + 1] === "'") {
          out += "'";
          i++;
          continue;
        }
        return { value: out, end: i + 1 };
      }
      out += c;
    }
    return fail();
  }
  for (; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') return { value: out, end: i + 1 };
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = text[++i];
    if (e === undefined) fail();
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const len = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    const hex = text.slice(i + 1, i + 1 + len);
    if (len === 0 || !new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) fail();
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff) fail();
    out += String.fromCodePoint(cp);
    i += len;
  }
  return fail();
}

/** After a scalar or flow collection only blanks and a comment may follow. */
function expectEnd(text: string, at: number): void {
  const rest = text.slice(at);
  if (rest.trim() !== "" && !/^[ \t]+#/.test(rest)) fail();
}

/** A single-line flow collection (`[a, b]`, `{k: v}`) followed by nothing but a comment. */
function flowValue(text: string, tags: readonly ResolvableTag[]): unknown {
  const p = new FlowParser(text, tags);
  const v = p.collection();
  expectEnd(text, p.at);
  return v;
}

class FlowParser {
  at = 0;
  constructor(
    private readonly text: string,
    private readonly tags: readonly ResolvableTag[],
  ) {}

  private spaces(): void {
    while (this.text[this.at] === " ") this.at++;
  }

  collection(): unknown {
    const open = this.text[this.at];
    this.at++;
    if (open === "[") {
      const out: unknown[] = [];
      for (;;) {
        this.spaces();
        if (this.text[this.at] === "]") {
          this.at++;
          return out;
        }
        out.push(this.item(false));
        this.spaces();
        const c = this.text[this.at];
        if (c === ",") this.at++;
        else if (c !== "]") fail();
      }
    }
    const out: Record<string, unknown> = {};
    for (;;) {
      this.spaces();
      if (this.text[this.at] === "}") {
        this.at++;
        return out;
      }
      const keyValue = this.item(true);
      if (keyValue === null || typeof keyValue === "object") fail();
      const key = String(keyValue);
      if (Object.hasOwn(out, key) || key === "__proto__" || key === "<<") fail();
      this.spaces();
      if (this.text[this.at] !== ":") fail();
      this.at++;
      if (this.text[this.at] !== " ") fail();
      this.spaces();
      out[key] = this.item(false);
      this.spaces();
      const c = this.text[this.at];
      if (c === ",") this.at++;
      else if (c !== "}") fail();
    }
  }

  private item(isKey: boolean): unknown {
    const c = this.text[this.at];
    if (c === "[" || c === "{") {
      if (isKey) fail();
      return this.collection();
    }
    if (c === '"' || c === "'") {
      const q = quoted(this.text, this.at);
      this.at = q.end;
      return q.value;
    }
    const start = this.at;
    for (; this.at < this.text.length; this.at++) {
      const ch = this.text[this.at] as string;
      if (FLOW_INDICATORS.has(ch)) break;
      if (ch === ":" && (this.text[this.at + 1] === " " || FLOW_INDICATORS.has(this.text[this.at + 1] ?? ","))) break;
      if (ch === "#" && this.text[this.at - 1] === " ") fail();
    }
    const plain = this.text.slice(start, this.at).replace(/[ \t]+$/, "");
    if (plain === "" || (/^[-?:!&*%@`|>'"]/.test(plain) && !/^-[0-9.]/.test(plain))) fail();
    if (plain.includes("\t")) fail();
    return resolvePlain(plain, this.tags);
  }
}

/**
 * The documents of `text`, or undefined when it uses anything outside the subset (then parse it with the yaml
 * library). Empty documents are left out, as the library's documents with null contents are.
 */
export function parseSimpleYaml(text: string, customTags: (tags: Tags) => Tags): SimpleDocument[] | undefined {
  if (text.includes("\r") || text.includes("\u2028") || text.includes("\u2029") || text.includes("\u0085") || text.includes("\ufeff")) return undefined;
  const tags = scalarTags(customTags);
  const rawLines = text.split("\n");
  const lines: Line[] = rawLines.map((raw, no) => {
    const body = raw.replace(/^ +/, "");
    return { indent: raw.length - body.length, text: body.replace(/[ \t]+$/, ""), no, raw };
  });
  const docs: SimpleDocument[] = [];
  try {
    let start = 0;
    for (let i = 0; i <= lines.length; i++) {
      const l = lines[i];
      const boundary = l === undefined || (l.indent === 0 && (l.text === "---" || l.text.startsWith("--- #") || l.text.startsWith("---\t")));
      if (l !== undefined && l.indent === 0 && (l.text.startsWith("---") || l.text.startsWith("...") || l.text.startsWith("%")) && !boundary) fail();
      if (!boundary) continue;
      const parsed = new Reader(lines, start, i, tags).document();
      if (parsed !== undefined && parsed.value !== null) docs.push(parsed);
      start = i + 1;
    }
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
  return docs;
}
