/**
 * gopkg.in/yaml.v2's `Unmarshal(in, &v)` for `var v interface{}` (decode.go): events become a node tree
 * (first document only), which decodes into Go values with anchors, aliases and `<<` merge keys. Errors
 * read exactly as go-yaml's: `yaml: line 3: mapping values are not allowed in this context`.
 */
import { ErrorKind } from "./scanner.js";
import { EVENT_NAMES, Ev, Parser, type YamlEvent } from "./parser.js";
import { BINARY_TAG, MERGE_TAG, TIMESTAMP_TAG, YamlFailure, failf, resolve } from "./resolve.js";
import { call, runRecursion, type Recursion } from "../internal/recursion.js";
import { GoMap, goSharpV, type GoValue } from "./values.js";

const enum Kind {
  Document,
  Mapping,
  Sequence,
  Scalar,
  Alias,
}

interface YamlNode {
  kind: Kind;
  line: number;
  tag: string;
  value: string;
  implicit: boolean;
  alias: YamlNode | undefined;
  children: Array<YamlNode | undefined>;
  anchors: Map<string, YamlNode> | undefined;
}

class NodeBuilder {
  private readonly parser: Parser;
  private event: YamlEvent | undefined;
  private doc: YamlNode | undefined;
  private doneInit = false;

  constructor(input: string) {
    // newParser: an empty document is read as a single line break.
    this.parser = new Parser(input.length === 0 ? "\n" : input);
  }

  private fail(): never {
    const s = this.parser.scanner;
    let line = 0;
    if (s.problemMark.line !== 0) {
      line = s.problemMark.line;
      // Scanner errors don't iterate line before returning error.
      if (s.error === ErrorKind.Scanner) line++;
    } else if (s.contextMark.line !== 0) {
      line = s.contextMark.line;
    }
    const where = line !== 0 ? `line ${line}: ` : "";
    failf(where + (s.problem.length > 0 ? s.problem : "unknown problem parsing YAML content"));
  }

  private next(): YamlEvent {
    const e = this.parser.parse();
    if (e === undefined) this.fail();
    return e;
  }

  private expect(type: Ev): void {
    if (this.event === undefined) this.event = this.next();
    if (this.event.type === Ev.StreamEnd) failf("attempted to go past the end of stream; corrupted value?");
    if (this.event.type !== type) {
      this.parser.scanner.problem = `expected ${EVENT_NAMES[type]} event but got ${EVENT_NAMES[this.event.type]}`;
      this.fail();
    }
    this.event = undefined;
  }

  private peek(): Ev {
    if (this.event === undefined) this.event = this.next();
    return this.event.type;
  }

  private current(): YamlEvent {
    return this.event as YamlEvent;
  }

  private node(kind: Kind): YamlNode {
    return {
      kind,
      line: this.current().start.line,
      tag: "",
      value: "",
      implicit: false,
      alias: undefined,
      children: [],
      anchors: undefined,
    };
  }

  private anchor(n: YamlNode, anchor: string | undefined): void {
    if (anchor !== undefined) this.doc?.anchors?.set(anchor, n);
  }

  /**
   * parser.parse: the next node with all its children. Go's parse recurses through document, sequence and
   * mapping on a growable stack; here the nodes still open (innermost last) are kept on `open`, so nesting as
   * deep as the scanner allows (max_flow_level, max_indents) costs no JS stack.
   */
  parse(): YamlNode | undefined {
    if (!this.doneInit) {
      this.expect(Ev.StreamStart);
      this.doneInit = true;
    }
    const open: YamlNode[] = [];
    for (;;) {
      let n = this.closed(open[open.length - 1]);
      if (n !== undefined) {
        open.pop();
      } else {
        switch (this.peek()) {
          case Ev.Scalar:
            n = this.scalar();
            break;
          case Ev.Alias:
            n = this.alias();
            break;
          case Ev.MappingStart:
            open.push(this.mapping());
            continue;
          case Ev.SequenceStart:
            open.push(this.sequence());
            continue;
          case Ev.DocumentStart:
            open.push(this.document());
            continue;
          case Ev.StreamEnd:
            break;
          default:
            throw new Error("attempted to parse unknown event: " + EVENT_NAMES[this.current().type]);
        }
      }
      const parent = open[open.length - 1];
      if (parent === undefined) return n;
      parent.children.push(n);
    }
  }

  /** The end of p.document, p.sequence or p.mapping: `n` when its last child has been read, after its end event. */
  private closed(n: YamlNode | undefined): YamlNode | undefined {
    if (n === undefined) return undefined;
    switch (n.kind) {
      case Kind.Document:
        // p.document: exactly one child, then the document end.
        if (n.children.length === 0) return undefined;
        this.expect(Ev.DocumentEnd);
        return n;
      case Kind.Sequence:
        // p.sequence: `for p.peek() != yaml_SEQUENCE_END_EVENT { ... p.parse() }`.
        if (this.peek() !== Ev.SequenceEnd) return undefined;
        this.expect(Ev.SequenceEnd);
        return n;
      default:
        // p.mapping: `for p.peek() != yaml_MAPPING_END_EVENT { ... p.parse(), p.parse() }`.
        if (n.children.length % 2 !== 0 || this.peek() !== Ev.MappingEnd) return undefined;
        this.expect(Ev.MappingEnd);
        return n;
    }
  }

  /** The start of p.document; parse reads its child. */
  private document(): YamlNode {
    const n = this.node(Kind.Document);
    n.anchors = new Map();
    this.doc = n;
    this.expect(Ev.DocumentStart);
    return n;
  }

  private alias(): YamlNode {
    const n = this.node(Kind.Alias);
    n.value = this.current().anchor ?? "";
    n.alias = this.doc?.anchors?.get(n.value);
    if (n.alias === undefined) failf(`unknown anchor '${n.value}' referenced`);
    this.expect(Ev.Alias);
    return n;
  }

  private scalar(): YamlNode {
    const e = this.current();
    const n = this.node(Kind.Scalar);
    n.value = e.value;
    n.tag = e.tag;
    n.implicit = e.implicit;
    this.anchor(n, e.anchor);
    this.expect(Ev.Scalar);
    return n;
  }

  /** The start of p.sequence; parse reads its children and its end. */
  private sequence(): YamlNode {
    const n = this.node(Kind.Sequence);
    this.anchor(n, this.current().anchor);
    this.expect(Ev.SequenceStart);
    return n;
  }

  /** The start of p.mapping; parse reads its children and its end. */
  private mapping(): YamlNode {
    const n = this.node(Kind.Mapping);
    this.anchor(n, this.current().anchor);
    this.expect(Ev.MappingStart);
    return n;
  }
}

// decode.go's guard against alias expansion bombs ("billion laughs").
const ALIAS_RATIO_RANGE_LOW = 400000;
const ALIAS_RATIO_RANGE_HIGH = 4000000;

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - (0.89 * (decodeCount - ALIAS_RATIO_RANGE_LOW)) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW);
}

class Decoder {
  private doc: YamlNode | undefined;
  private readonly aliases = new Set<YamlNode>();
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;

  private count(): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      failf("document contains excessive aliasing");
    }
  }

  /** d.unmarshal into an interface{}, run on an explicit stack (see ../internal/recursion.ts). */
  unmarshal(n: YamlNode | undefined): GoValue {
    return runRecursion(this.value(n));
  }

  private *value(n: YamlNode | undefined): Recursion<GoValue> {
    if (n === undefined) return null;
    this.count();
    switch (n.kind) {
      case Kind.Document:
        if (n.children.length === 1) {
          this.doc = n;
          return yield* call(this.value(n.children[0]));
        }
        return null;
      case Kind.Alias:
        return yield* call(this.alias(n));
      case Kind.Scalar:
        return this.scalar(n);
      case Kind.Mapping: {
        const out = new GoMap();
        yield* call(this.mappingInto(n, out));
        return out;
      }
      case Kind.Sequence: {
        const out: GoValue[] = [];
        for (const c of n.children) out.push(yield* call(this.value(c)));
        return out;
      }
    }
  }

  private *alias(n: YamlNode): Recursion<GoValue> {
    if (this.aliases.has(n)) failf(`anchor '${n.value}' value contains itself`);
    this.aliases.add(n);
    this.aliasDepth++;
    const v = yield* call(this.value(n.alias));
    this.aliasDepth--;
    this.aliases.delete(n);
    return v;
  }

  private scalar(n: YamlNode): GoValue {
    if (n.tag === "" && !n.implicit) return n.value;
    const [tag, resolved] = resolve(n.tag, n.value);
    if (tag === BINARY_TAG) {
      const data = decodeStdBase64(resolved as string);
      if (data === undefined) failf("!!binary value contains invalid base64 data");
      return data;
    }
    // Timestamps stay strings in interface{} for backward compatibility.
    if (tag === TIMESTAMP_TAG) return n.value;
    return resolved;
  }

  /** d.mapping into an existing map (a fresh one, or the target of a merge). */
  private *mappingInto(n: YamlNode, out: GoMap): Recursion<void> {
    for (let i = 0; i < n.children.length; i += 2) {
      const keyNode = n.children[i];
      const valueNode = n.children[i + 1];
      if (isMerge(keyNode)) {
        yield* call(this.merge(valueNode, out));
        continue;
      }
      const k = yield* call(this.value(keyNode));
      if (k instanceof GoMap || Array.isArray(k)) failf(`invalid map key: ${goSharpV(k)}`);
      out.set(k, yield* call(this.value(valueNode)));
    }
  }

  /** d.unmarshal(n, out) for a merge source: (an alias of) a mapping decoded into the existing map. */
  private *mergeOne(n: YamlNode, out: GoMap): Recursion<void> {
    this.count();
    if (n.kind === Kind.Alias) {
      if (this.aliases.has(n)) failf(`anchor '${n.value}' value contains itself`);
      this.aliases.add(n);
      this.aliasDepth++;
      yield* call(this.mergeOne(n.alias as YamlNode, out));
      this.aliasDepth--;
      this.aliases.delete(n);
    } else if (n.kind === Kind.Mapping) {
      yield* call(this.mappingInto(n, out));
    } else {
      failf("map merge requires map or sequence of maps as the value");
    }
  }

  private *merge(n: YamlNode | undefined, out: GoMap): Recursion<void> {
    const wantMap = (): never => failf("map merge requires map or sequence of maps as the value");
    if (n === undefined) return wantMap();
    switch (n.kind) {
      case Kind.Mapping:
        yield* call(this.mergeOne(n, out));
        return;
      case Kind.Alias: {
        const an = this.doc?.anchors?.get(n.value);
        if (an !== undefined && an.kind !== Kind.Mapping) wantMap();
        yield* call(this.mergeOne(n, out));
        return;
      }
      case Kind.Sequence:
        // Earlier maps take precedence, so they are applied last.
        for (let i = n.children.length - 1; i >= 0; i--) {
          const ni = n.children[i];
          if (ni === undefined) return wantMap();
          if (ni.kind === Kind.Alias) {
            const an = this.doc?.anchors?.get(ni.value);
            if (an !== undefined && an.kind !== Kind.Mapping) wantMap();
          } else if (ni.kind !== Kind.Mapping) {
            wantMap();
          }
          yield* call(this.mergeOne(ni, out));
        }
        return;
      default:
        wantMap();
    }
  }
}

function isMerge(n: YamlNode | undefined): boolean {
  return n !== undefined && n.kind === Kind.Scalar && n.value === "<<" && (n.implicit || n.tag === MERGE_TAG);
}

/** encoding/base64 StdEncoding.DecodeString: padded alphabet, CR/LF ignored; undefined when invalid. */
function decodeStdBase64(s: string): string | undefined {
  const clean = s.replace(/[\r\n]/g, "");
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return undefined;
  return Buffer.from(clean, "base64").toString("utf8");
}

export type YamlResult = { ok: true; value: GoValue } | { ok: false; error: string };

/** `yaml.Unmarshal(in, &v)` with `var v interface{}`: the value, or go-yaml's error text. */
export function unmarshalYaml(input: string): YamlResult {
  try {
    const root = new NodeBuilder(input).parse();
    return { ok: true, value: new Decoder().unmarshal(root) };
  } catch (e) {
    if (e instanceof YamlFailure) return { ok: false, error: e.message };
    throw e;
  }
}
