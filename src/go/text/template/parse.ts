/**
 * The parser of Go's text/template (text/template/parse/parse.go, Go 1.23): the same grammar, checks and error
 * texts (`template: <name>:<line>: <message>`), including function-name checks against text/template's
 * builtins.
 */
import { goQuote as quote } from "../../strconv/quote.js";
import { parseFloat, parseIntBig, parseUintBig, unquote, unquoteCharBytes } from "../../strconv/strconv.js";
import { call, runRecursion, type Recursion } from "../../internal/recursion.js";
import { Lexer, itemString, type Item, type ItemType } from "./lex.js";
import type { BranchNode, CommandNode, ListNode, Node, NumberValue, PipeNode } from "./nodes.js";
import { nodeString } from "./nodes.js";

/** text/template's builtin function names (funcs.go). */
export const BUILTIN_FUNCTIONS: ReadonlySet<string> = new Set([
  "and",
  "call",
  "html",
  "index",
  "slice",
  "js",
  "len",
  "not",
  "or",
  "print",
  "printf",
  "println",
  "urlquery",
  "eq",
  "ge",
  "gt",
  "le",
  "lt",
  "ne",
]);

export class TemplateParseError extends Error {}

const MAX_PIPELINE_CMDS = 100000;

/** What of the Go release shows in parsing. */
export interface ParseOptions {
  /**
   * parse.go's maxStackDepth, the nesting of parenthesized pipelines past which term fails with "max expression
   * depth exceeded": 10000 from Go 1.26; Go 1.23 has no such bound (undefined), its goroutine stack grows.
   */
  readonly maxStackDepth?: number | undefined;
}

/** A parsed template and the templates it defines (`{{define}}` / `{{block}}`), by name. */
export interface ParsedTemplates {
  readonly name: string;
  readonly text: string;
  readonly trees: ReadonlyMap<string, ListNode>;
}

const NO_ITEM: Item = { typ: "EOF", pos: 0, val: "", line: 0 };

class Tree {
  name: string;
  root: ListNode | undefined;
  private lex: Lexer;
  private token: [Item, Item, Item] = [NO_ITEM, NO_ITEM, NO_ITEM];
  private peekCount = 0;
  private vars: string[] = ["$"];
  private actionLine = 0;
  private rangeDepth = 0;
  private stackDepth = 0;

  constructor(
    name: string,
    private readonly parseName: string,
    lex: Lexer,
    private readonly treeSet: Map<string, ListNode>,
    private readonly maxStackDepth: number | undefined,
  ) {
    this.name = name;
    this.lex = lex;
  }

  // --- token stream ---

  private next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.lex.nextItem();
    return this.token[this.peekCount] as Item;
  }

  private backup(): void {
    this.peekCount++;
  }

  private backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }

  private backup3(t2: Item, t1: Item): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }

  private peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1] as Item;
    this.peekCount = 1;
    this.token[0] = this.lex.nextItem();
    return this.token[0];
  }

  private nextNonSpace(): Item {
    let token: Item;
    do token = this.next();
    while (token.typ === "space");
    return token;
  }

  private peekNonSpace(): Item {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }

  // --- errors ---

  errorf(message: string): never {
    this.root = undefined;
    throw new TemplateParseError(`template: ${this.parseName}:${this.token[0].line}: ${message}`);
  }

  private expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== expected) this.unexpected(token, context);
    return token;
  }

  private expectOneOf(a: ItemType, b: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== a && token.typ !== b) this.unexpected(token, context);
    return token;
  }

  private unexpected(token: Item, context: string): never {
    if (token.typ === "error") {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  // --- grammar ---

  parse(): void {
    this.root = { kind: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().typ !== "EOF") {
      if (this.peek().typ === "leftDelim") {
        const delim = this.next();
        if (this.nextNonSpace().typ === "define") {
          const sub = new Tree("definition", this.parseName, this.lex, this.treeSet, this.maxStackDepth);
          sub.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") this.errorf(`unexpected ${nodeString(n)}`);
      this.root.nodes.push(n);
    }
  }

  add(): void {
    const existing = this.treeSet.get(this.name);
    if (existing === undefined || isEmptyTree(existing)) {
      this.treeSet.set(this.name, this.root as ListNode);
      return;
    }
    if (!isEmptyTree(this.root as ListNode)) this.errorf(`template: multiple definition of template ${quote(this.name)}`);
  }

  private parseDefinition(): void {
    const context = "define clause";
    const name = this.expectOneOf("string", "rawString", context);
    const r = unquote(name.val);
    if (!r.ok) this.errorf(r.error);
    this.name = r.value;
    this.expect("rightDelim", context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.kind !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }

  private itemList(): [ListNode, Node] {
    const list: ListNode = { kind: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().typ !== "EOF") {
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  private textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case "text":
        return { kind: "text", pos: token.pos, text: token.val };
      case "leftDelim": {
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      case "comment":
        return { kind: "comment", pos: token.pos, text: token.val };
      default:
        this.unexpected(token, "input");
    }
  }

  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case "block":
        return this.blockControl();
      case "break":
        return this.breakControl(token.pos, token.line);
      case "continue":
        return this.continueControl(token.pos, token.line);
      case "else":
        return this.elseControl();
      case "end":
        return this.endControl();
      case "if":
        return this.branch("if");
      case "range":
        return this.branch("range");
      case "template":
        return this.templateControl();
      case "with":
        return this.branch("with");
    }
    this.backup();
    const t = this.peek();
    return { kind: "action", pos: t.pos, line: t.line, pipe: runRecursion(this.pipeline("command", "rightDelim")) };
  }

  private breakControl(pos: number, line: number): Node {
    const token = this.nextNonSpace();
    if (token.typ !== "rightDelim") this.unexpected(token, "{{break}}");
    if (this.rangeDepth === 0) this.errorf("{{break}} outside {{range}}");
    return { kind: "break", pos, line };
  }

  private continueControl(pos: number, line: number): Node {
    const token = this.nextNonSpace();
    if (token.typ !== "rightDelim") this.unexpected(token, "{{continue}}");
    if (this.rangeDepth === 0) this.errorf("{{continue}} outside {{range}}");
    return { kind: "continue", pos, line };
  }

  /**
   * t.pipeline. Go recurses pipeline → command → operand → term → pipeline for each parenthesis, on a stack that
   * grows until term's maxStackDepth; these four run on an explicit stack (../../internal/recursion.ts).
   */
  private *pipeline(context: string, end: ItemType): Recursion<PipeNode> {
    const token = this.peekNonSpace();
    const pipe: PipeNode = { kind: "pipe", pos: token.pos, line: token.line, isAssign: false, decl: [], cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== "variable") break;
      this.next();
      // "$x foo" needs three tokens of look-ahead to tell an argument from a declaration.
      const tokenAfterVariable = this.peek();
      const nxt = this.peekNonSpace();
      if (nxt.typ === "assign" || nxt.typ === "declare") {
        pipe.isAssign = nxt.typ === "assign";
        this.nextNonSpace();
        pipe.decl.push({ kind: "variable", pos: v.pos, ident: v.val.split(".") });
        this.vars.push(v.val);
      } else if (nxt.typ === "char" && nxt.val === ",") {
        this.nextNonSpace();
        pipe.decl.push({ kind: "variable", pos: v.pos, ident: v.val.split(".") });
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === "variable" || p === "rightDelim" || p === "rightParen") continue; // second range variable
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.typ === "space") {
        this.backup3(v, tokenAfterVariable);
      } else {
        this.backup2(v);
      }
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      switch (token.typ) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case "bool":
        case "charConstant":
        case "complex":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          this.backup();
          pipe.cmds.push(yield* call(this.command()));
          if (pipe.cmds.length > MAX_PIPELINE_CMDS) this.errorf("pipeline too long");
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    for (let i = 1; i < pipe.cmds.length; i++) {
      const first = (pipe.cmds[i] as CommandNode).args[0] as Node;
      switch (first.kind) {
        case "bool":
        case "dot":
        case "nil":
        case "number":
        case "string":
          this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private parseControl(context: "if" | "range" | "with"): Omit<BranchNode, "kind"> {
    const mark = this.vars.length;
    try {
      const pipe = runRecursion(this.pipeline(context, "rightDelim"));
      if (context === "range") this.rangeDepth++;
      const [list, afterList] = this.itemList();
      let next = afterList;
      if (context === "range") this.rangeDepth--;
      let elseList: ListNode | undefined;
      if (next.kind === "else") {
        // "{{else if …}}" / "{{else with …}}" nest a new if/with whose {{end}} closes both.
        if (context === "if" && this.peek().typ === "if") {
          this.next();
          elseList = { kind: "list", pos: next.pos, nodes: [this.branch("if")] };
        } else if (context === "with" && this.peek().typ === "with") {
          this.next();
          elseList = { kind: "list", pos: next.pos, nodes: [this.branch("with")] };
        } else {
          [elseList, next] = this.itemList();
          if (next.kind !== "end") this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      return { pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private branch(kind: "if" | "range" | "with"): Node {
    return { kind, ...this.parseControl(kind) };
  }

  private endControl(): Node {
    return { kind: "end", pos: this.expect("rightDelim", "end").pos };
  }

  private elseControl(): Node {
    const peek = this.peekNonSpace();
    if (peek.typ === "if" || peek.typ === "with") return { kind: "else", pos: peek.pos, line: peek.line };
    const token = this.expect("rightDelim", "else");
    return { kind: "else", pos: token.pos, line: token.line };
  }

  private blockControl(): Node {
    const context = "block clause";
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    const pipe = runRecursion(this.pipeline(context, "rightDelim"));
    const block = new Tree(name, this.parseName, this.lex, this.treeSet, this.maxStackDepth);
    const [list, end] = block.itemList();
    block.root = list;
    if (end.kind !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    block.add();
    return { kind: "template", pos: token.pos, line: token.line, name, pipe };
  }

  private templateControl(): Node {
    const context = "template clause";
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    let pipe: PipeNode | undefined;
    if (this.nextNonSpace().typ !== "rightDelim") {
      this.backup();
      pipe = runRecursion(this.pipeline(context, "rightDelim"));
    }
    return { kind: "template", pos: token.pos, line: token.line, name, pipe };
  }

  private parseTemplateName(token: Item, context: string): string {
    if (token.typ === "string" || token.typ === "rawString") {
      const r = unquote(token.val);
      if (!r.ok) this.errorf(r.error);
      return r.value;
    }
    this.unexpected(token, context);
  }

  private *command(): Recursion<CommandNode> {
    const cmd: CommandNode = { kind: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = yield* call(this.operand());
      if (operand !== undefined) cmd.args.push(operand);
      const token = this.next();
      if (token.typ === "space") continue;
      if (token.typ === "rightDelim" || token.typ === "rightParen") this.backup();
      else if (token.typ !== "pipe") this.unexpected(token, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private *operand(): Recursion<Node | undefined> {
    const node = yield* call(this.term());
    if (node === undefined) return undefined;
    if (this.peek().typ !== "field") return node;
    const fields: string[] = [];
    const pos = this.peek().pos;
    while (this.peek().typ === "field") fields.push(this.next().val.slice(1));
    const chain: Node = { kind: "chain", pos, node, field: fields };
    switch (node.kind) {
      case "field":
        return { kind: "field", pos, ident: nodeString(chain).slice(1).split(".") };
      case "variable":
        return { kind: "variable", pos, ident: nodeString(chain).split(".") };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        this.errorf(`unexpected . after term ${quote(nodeString(node))}`);
    }
    return chain;
  }

  private *term(): Recursion<Node | undefined> {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case "identifier":
        if (!BUILTIN_FUNCTIONS.has(token.val)) this.errorf(`function ${quote(token.val)} not defined`);
        return { kind: "identifier", pos: token.pos, ident: token.val };
      case "dot":
        return { kind: "dot", pos: token.pos };
      case "nil":
        return { kind: "nil", pos: token.pos };
      case "variable":
        return this.useVar(token.pos, token.val);
      case "field":
        return { kind: "field", pos: token.pos, ident: token.val.slice(1).split(".") };
      case "bool":
        return { kind: "bool", pos: token.pos, value: token.val === "true" };
      case "charConstant":
      case "complex":
      case "number": {
        const r = newNumber(token.val, token.typ);
        if (typeof r === "string") this.errorf(r);
        return { kind: "number", pos: token.pos, text: token.val, ...r };
      }
      case "leftParen": {
        if (this.maxStackDepth !== undefined && this.stackDepth >= this.maxStackDepth) this.errorf("max expression depth exceeded");
        this.stackDepth++;
        try {
          return yield* call(this.pipeline("parenthesized pipeline", "rightParen"));
        } finally {
          this.stackDepth--;
        }
      }
      case "string":
      case "rawString": {
        const r = unquote(token.val);
        if (!r.ok) this.errorf(r.error);
        return { kind: "string", pos: token.pos, quoted: token.val, text: r.value };
      }
    }
    this.backup();
    return undefined;
  }

  private useVar(pos: number, name: string): Node {
    const ident = name.split(".");
    if (!this.vars.includes(ident[0] as string)) this.errorf(`undefined variable ${quote(ident[0] as string)}`);
    return { kind: "variable", pos, ident };
  }
}

function isEmptyTree(n: Node): boolean {
  switch (n.kind) {
    case "list":
      return n.nodes.every(isEmptyTree);
    case "comment":
      return true;
    case "text":
      return n.text.trim() === "";
    default:
      return false;
  }
}

const NOT_NUMBER = (text: string): string => `illegal number syntax: ${quote(text)}`;

/** Go's Tree.newNumber: the typed readings of a number literal, or the error text. */
export function newNumber(text: string, typ: ItemType): NumberValue | string {
  const base: NumberValue = { isInt: false, isUint: false, isFloat: false, isComplex: false, int64: 0n, uint64: 0n, float64: 0, complex: [0, 0] };
  if (typ === "charConstant") {
    const bytes = Buffer.from(text, "utf8");
    const ch = unquoteCharBytes(bytes, 1, bytes[0] as number);
    if (ch === undefined) return "invalid syntax";
    if (bytes.subarray(ch.tail).toString("utf8") !== "'") return `malformed character constant: ${text}`;
    return { ...base, isInt: true, isUint: true, isFloat: true, int64: BigInt(ch.value), uint64: BigInt(ch.value), float64: ch.value };
  }
  if (typ === "complex") {
    // "1+2i": real part, then a signed imaginary part.
    const m = /^(.+?)([+-][^+-]*i)$/.exec(text);
    const re = m === null ? undefined : parseFloat(m[1] as string);
    const im = m === null ? undefined : parseFloat((m[2] as string).slice(0, -1));
    if (re === undefined || im === undefined || !re.ok || !im.ok) return `expected complex number: ${quote(text)}`;
    return simplifyComplex({ ...base, isComplex: true, complex: [re.value, im.value] });
  }
  if (text.endsWith("i")) {
    const f = parseFloat(text.slice(0, -1));
    if (f.ok) return simplifyComplex({ ...base, isComplex: true, complex: [0, f.value] });
  }
  let n: NumberValue = base;
  const u = parseUintBig(text, 0, 64);
  if (u.ok) n = { ...n, isUint: true, uint64: u.value };
  const i = parseIntBig(text, 0, 64);
  if (i.ok) {
    n = { ...n, isInt: true, int64: i.value };
    if (i.value === 0n) n = { ...n, isUint: true, uint64: u.ok ? u.value : 0n };
  }
  if (n.isInt) n = { ...n, isFloat: true, float64: Number(n.int64) };
  else if (n.isUint) n = { ...n, isFloat: true, float64: Number(n.uint64) };
  else {
    const f = parseFloat(text);
    if (f.ok) {
      if (!/[.eEpP]/.test(text)) return `integer overflow: ${quote(text)}`;
      n = { ...n, isFloat: true, float64: f.value };
      if (Number.isInteger(f.value) && Math.abs(f.value) < 2 ** 63) n = { ...n, isInt: true, int64: BigInt(f.value) };
      if (Number.isInteger(f.value) && f.value >= 0 && f.value < 2 ** 64) n = { ...n, isUint: true, uint64: BigInt(f.value) };
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) return NOT_NUMBER(text);
  return n;
}

function simplifyComplex(n: NumberValue): NumberValue {
  const [re, im] = n.complex;
  if (im !== 0) return n;
  const out = { ...n, isFloat: true, float64: re };
  if (Number.isInteger(re) && Math.abs(re) < 2 ** 63) return { ...out, isInt: true, int64: BigInt(re) };
  return out;
}

/** template.New(name).Parse(text): the parse trees, or Go's parse error text. */
export function parseTemplate(name: string, text: string, opts: ParseOptions = {}): { ok: true; value: ParsedTemplates } | { ok: false; error: string } {
  const treeSet = new Map<string, ListNode>();
  try {
    const t = new Tree(name, name, new Lexer(text), treeSet, opts.maxStackDepth);
    t.parse();
    t.add();
  } catch (e) {
    if (e instanceof TemplateParseError) return { ok: false, error: e.message };
    throw e;
  }
  return { ok: true, value: { name, text, trees: treeSet } };
}
