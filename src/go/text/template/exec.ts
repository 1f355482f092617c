/**
 * Execution of parsed Go text/template trees (text/template/exec.go and funcs.go) over the Go value model of
 * ./values.ts, with Go's error texts (`template: <name>:<line>:<col>: executing "<name>" at <<node>>: <msg>`).
 * Missing map keys print `<no value>` (the default missingkey option).
 */
import { call, runRecursion, type Recursion } from "../../internal/recursion.js";
import { compareByteOrder } from "../../strings/compare.js";
import { goQuote } from "../../strconv/quote.js";
import { nodeString, type BranchNode, type CommandNode, type ListNode, type Node, type PipeNode } from "./nodes.js";
import type { ParsedTemplates } from "./parse.js";
import {
  COMPLEX128,
  FLOAT64,
  INT,
  UINT8,
  boolValue,
  formatValue,
  indirect,
  intValue,
  lengthOf,
  sprint,
  sprintf,
  sprintln,
  stringValue,
  truthOf,
  type GoType,
  type GoValue,
  type StructGetter,
} from "./values.js";

class ExecError extends Error {}
/** A builtin's returned error (wrapped as "error calling <name>: <msg>"). */
class CallError extends Error {}

const MISSING: unique symbol = Symbol("missing");
type Final = GoValue | undefined | typeof MISSING;
type Value = GoValue | undefined;

const BREAK = Symbol("break");
const CONTINUE = Symbol("continue");
const MAX_EXEC_DEPTH = 100000;

/** Parameter kinds of the builtins: a reflect.Value / interface{} parameter, or a string. */
type Param = "value" | "string";

interface Builtin {
  readonly fixed: readonly Param[];
  readonly variadic?: Param;
  readonly fn: (args: Value[], calleeName: string) => Value;
}

// --- builtins (funcs.go) ---

function indexArg(index: Value, cap: number): number {
  if (index === undefined) throw new CallError("cannot index slice/array with nil");
  if (index.type.kind !== "int" && index.type.kind !== "uint") throw new CallError(`cannot index slice/array with type ${index.type.name}`);
  const x = index.v as bigint;
  if (x < 0n || x > BigInt(cap)) throw new CallError(`index out of range: ${x}`);
  return Number(x);
}

function index(args: Value[]): Value {
  let item = args[0];
  if (item === undefined) throw new CallError("index of untyped nil");
  for (const idx of args.slice(1)) {
    const ind = indirect(item as GoValue);
    if (ind.isNil) throw new CallError("index of nil pointer");
    const it: GoValue = ind.value;
    switch (it.type.kind) {
      case "slice": {
        const n = lengthOf(it) as number;
        const x = indexArg(idx, n);
        if (x >= n) throw new CallError("reflect: slice index out of range");
        item = (it.v as readonly GoValue[])[x];
        break;
      }
      case "string": {
        const bytes = Buffer.from(it.v as string, "utf8");
        const x = indexArg(idx, bytes.length);
        if (x >= bytes.length) throw new CallError("reflect: string index out of range");
        item = intValue(BigInt(bytes[x] as number), UINT8);
        break;
      }
      case "map": {
        if (idx === undefined) throw new CallError("value is nil; should be of type string");
        if (idx.type.kind !== "string" || idx.type.name !== "string") throw new CallError(`value has type ${idx.type.name}; should be string`);
        const found = it.v === null ? undefined : (it.v as ReadonlyMap<string, GoValue>).get(idx.v as string);
        item = found ?? zeroValue(it.type.elem);
        break;
      }
      default:
        throw new CallError(`can't index item of type ${it.type.name}`);
    }
  }
  return item;
}

function zeroValue(t: GoType): GoValue {
  switch (t.kind) {
    case "string":
      return { type: t, v: "" };
    case "bool":
      return { type: t, v: false };
    case "int":
    case "uint":
      return { type: t, v: 0n };
    case "float":
      return { type: t, v: 0 };
    case "complex":
      return { type: t, v: [0, 0] };
    case "map":
    case "slice":
    case "ptr":
      return { type: t, v: null };
    case "struct":
      // Maps in this model hold strings; a struct zero value is never needed in practice.
      return { type: t, v: (() => undefined) as unknown as StructGetter };
  }
}

function slice(args: Value[]): Value {
  const item = args[0];
  const idxs = args.slice(1);
  if (item === undefined) throw new CallError("slice of untyped nil");
  if (idxs.length > 3) throw new CallError(`too many slice indexes: ${idxs.length}`);
  let len: number;
  if (item.type.kind === "string") {
    if (idxs.length === 3) throw new CallError("cannot 3-index slice a string");
    len = lengthOf(item) as number;
  } else if (item.type.kind === "slice") {
    len = lengthOf(item) as number;
  } else {
    throw new CallError(`can't slice item of type ${item.type.name}`);
  }
  const idx = [0, len, len];
  idxs.forEach((x, i) => (idx[i] = indexArg(x, len)));
  if ((idx[0] as number) > (idx[1] as number)) throw new CallError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (idxs.length === 3 && (idx[1] as number) > (idx[2] as number)) throw new CallError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (item.type.kind === "string") return stringValue(Buffer.from(item.v as string, "utf8").subarray(idx[0], idx[1]).toString("utf8"), item.type);
  return { type: item.type, v: item.v === null ? null : (item.v as readonly GoValue[]).slice(idx[0], idx[1]) };
}

function length(args: Value[]): Value {
  const item = args[0];
  if (item === undefined) throw new CallError("reflect: call of reflect.Value.Type on zero Value");
  const ind = indirect(item);
  if (ind.isNil) throw new CallError("len of nil pointer");
  const n = lengthOf(ind.value);
  if (n === undefined) throw new CallError(`len of type ${ind.value.type.name}`);
  return intValue(BigInt(n), INT);
}

type BasicKind = "bool" | "int" | "uint" | "float" | "complex" | "string" | "invalid";

function basicKind(v: Value): BasicKind {
  if (v === undefined) return "invalid";
  const k = v.type.kind;
  return k === "bool" || k === "int" || k === "uint" || k === "float" || k === "complex" || k === "string" ? k : "invalid";
}

const BAD_COMPARISON_TYPE = "invalid type for comparison";
const BAD_COMPARISON = "incompatible types for comparison";

function eqPair(a: Value, b: Value): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) {
    if (k1 === "int" && k2 === "uint") return (a?.v as bigint) >= 0n && a?.v === b?.v;
    if (k1 === "uint" && k2 === "int") return (b?.v as bigint) >= 0n && a?.v === b?.v;
    if (a !== undefined && b !== undefined) throw new CallError(BAD_COMPARISON);
    return false;
  }
  switch (k1) {
    case "complex": {
      const [x, y] = a?.v as readonly [number, number];
      const [u, w] = b?.v as readonly [number, number];
      return x === u && y === w;
    }
    case "bool":
    case "float":
    case "int":
    case "uint":
    case "string":
      return a?.v === b?.v;
  }
  if (a === undefined || b === undefined) return a === b;
  const nilA = a.v === null;
  const nilB = b.v === null;
  if (nilA || nilB) return nilA === nilB;
  if (a.type.kind === "ptr") return a.v === b.v;
  throw new CallError(`non-comparable type ${formatValue(b)}: ${b.type.name}`);
}

function eq(args: Value[]): boolean {
  if (args.length < 2) throw new CallError("missing argument for comparison");
  const a = args[0];
  for (const b of args.slice(1)) if (eqPair(a, b)) return true;
  return false;
}

function lt(a: Value, b: Value): boolean {
  const k1 = basicKind(a);
  if (k1 === "invalid") throw new CallError(BAD_COMPARISON_TYPE);
  const k2 = basicKind(b);
  if (k2 === "invalid") throw new CallError(BAD_COMPARISON_TYPE);
  if (k1 !== k2) {
    if (k1 === "int" && k2 === "uint") return (a?.v as bigint) < 0n || (a?.v as bigint) < (b?.v as bigint);
    if (k1 === "uint" && k2 === "int") return (b?.v as bigint) >= 0n && (a?.v as bigint) < (b?.v as bigint);
    throw new CallError(BAD_COMPARISON);
  }
  switch (k1) {
    case "bool":
    case "complex":
      throw new CallError(BAD_COMPARISON_TYPE);
    case "string":
      return compareByteOrder(a?.v as string, b?.v as string) < 0;
    default:
      return (a?.v as number | bigint) < (b?.v as number | bigint);
  }
}

function le(a: Value, b: Value): boolean {
  return lt(a, b) || eq([a, b]);
}

/** printableValue for html/js/urlquery's evalArgs: a lone string as-is, else fmt.Sprint with `<no value>`. */
function evalArgs(args: Value[]): string {
  if (args.length === 1 && args[0]?.type.kind === "string" && args[0].type.name === "string") return args[0].v as string;
  return sprint(args.map((a) => (a === undefined ? stringValue("<no value>") : a)));
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => ({ "\0": "\uFFFD", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c] as string);
}

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    switch (ch) {
      case "\\":
        out += "\\\\";
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case "<":
        out += "\\u003C";
        continue;
      case ">":
        out += "\\u003E";
        continue;
      case "&":
        out += "\\u0026";
        continue;
      case "=":
        out += "\\u003D";
        continue;
    }
    if (c < 0x20 || (c >= 0x7f && !/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch))) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += ch;
  }
  return out;
}

function queryEscape(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const ch = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(ch)) out += ch;
    else if (b === 0x20) out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  ["and", { fixed: ["value"], variadic: "value", fn: () => undefined }],
  ["or", { fixed: ["value"], variadic: "value", fn: () => undefined }],
  ["not", { fixed: ["value"], fn: (a) => boolValue(!truthOf(a[0])) }],
  ["index", { fixed: ["value"], variadic: "value", fn: index }],
  ["slice", { fixed: ["value"], variadic: "value", fn: slice }],
  ["len", { fixed: ["value"], fn: length }],
  ["print", { fixed: [], variadic: "value", fn: (a) => stringValue(sprint(a)) }],
  ["println", { fixed: [], variadic: "value", fn: (a) => stringValue(sprintln(a)) }],
  ["printf", { fixed: ["string"], variadic: "value", fn: (a) => stringValue(sprintf(a[0]?.v as string, a.slice(1), goQuote)) }],
  ["html", { fixed: [], variadic: "value", fn: (a) => stringValue(htmlEscape(evalArgs(a))) }],
  ["js", { fixed: [], variadic: "value", fn: (a) => stringValue(jsEscape(evalArgs(a))) }],
  ["urlquery", { fixed: [], variadic: "value", fn: (a) => stringValue(queryEscape(evalArgs(a))) }],
  ["eq", { fixed: ["value"], variadic: "value", fn: (a) => boolValue(eq(a)) }],
  ["ne", { fixed: ["value", "value"], fn: (a) => boolValue(!eq(a)) }],
  ["lt", { fixed: ["value", "value"], fn: (a) => boolValue(lt(a[0], a[1])) }],
  ["le", { fixed: ["value", "value"], fn: (a) => boolValue(le(a[0], a[1])) }],
  ["gt", { fixed: ["value", "value"], fn: (a) => boolValue(!le(a[0], a[1])) }],
  ["ge", { fixed: ["value", "value"], fn: (a) => boolValue(!lt(a[0], a[1])) }],
  [
    "call",
    {
      fixed: ["value"],
      variadic: "value",
      fn: (a, callee) => {
        // No function values exist in the data this package models.
        if (a[0] === undefined) throw new CallError("call of nil");
        throw new CallError(`non-function ${callee} of type ${a[0].type.name}`);
      },
    },
  ],
]);

// --- execution state ---

function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

class State {
  private out = "";
  private node: Node | undefined;
  private vars: Array<{ name: string; value: Value }>;
  private depth: number;

  constructor(
    private readonly tmpl: ParsedTemplates,
    private readonly name: string,
    dot: Value,
    depth = 0,
  ) {
    this.vars = [{ name: "$", value: dot }];
    this.depth = depth;
  }

  get output(): string {
    return this.out;
  }

  errorf(message: string): never {
    if (this.node === undefined) throw new ExecError(`template: ${this.name}: ${message}`);
    const text = this.tmpl.text.slice(0, this.node.pos);
    const nl = text.lastIndexOf("\n");
    const col = nl === -1 ? byteLength(text) : byteLength(text.slice(nl + 1));
    let line = 1;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x0a) line++;
    throw new ExecError(`template: ${this.tmpl.name}:${line}:${col}: executing ${goQuote(this.name)} at <${nodeString(this.node)}>: ${message}`);
  }

  private at(node: Node): void {
    this.node = node;
  }

  private varValue(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as { name: string; value: Value };
      if (v.name === name) return v.value;
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private setVar(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as { name: string; value: Value };
      if (v.name === name) {
        v.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private setTopVar(n: number, value: Value): void {
    (this.vars[this.vars.length - n] as { value: Value }).value = value;
  }

  /**
   * s.walk. Go's walk and eval functions recurse on a goroutine stack that grows (nested parentheses, {{template}}
   * up to maxExecDepth); here they are generators run on an explicit stack (../../internal/recursion.ts).
   */
  *walk(dot: Value, node: Node): Recursion<void> {
    this.at(node);
    switch (node.kind) {
      case "action": {
        const val = yield* call(this.evalPipeline(dot, node.pipe));
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      case "comment":
        return;
      case "if":
      case "with":
        return yield* call(this.walkIfOrWith(node.kind, dot, node.pipe, node.list, node.elseList));
      case "list":
        for (const n of node.nodes) yield* call(this.walk(dot, n));
        return;
      case "range":
        return yield* call(this.walkRange(dot, node));
      case "template":
        return yield* call(this.walkTemplate(dot, node));
      case "text":
        this.out += node.text;
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  private *walkIfOrWith(kind: "if" | "with", dot: Value, pipe: PipeNode, list: ListNode, elseList: ListNode | undefined): Recursion<void> {
    const mark = this.vars.length;
    try {
      const val = yield* call(this.evalPipeline(dot, pipe));
      if (truthOf(val)) yield* call(this.walk(kind === "with" ? val : dot, list));
      else if (elseList !== undefined) yield* call(this.walk(dot, elseList));
    } finally {
      this.vars.length = mark;
    }
  }

  private *walkRange(dot: Value, r: BranchNode): Recursion<void> {
    this.at(r);
    const outer = this.vars.length;
    try {
      let val = yield* call(this.evalPipeline(dot, r.pipe));
      if (val !== undefined) val = indirect(val).value;
      const mark = this.vars.length;
      const decl = r.pipe.decl;
      const oneIteration = function* (this: State, idx: Value, elem: Value): Recursion<void> {
        if (decl.length > 0) {
          if (r.pipe.isAssign) this.setVar(decl[0]?.ident[0] as string, decl.length > 1 ? idx : elem);
          else this.setTopVar(1, elem);
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar(decl[1]?.ident[0] as string, elem);
          else this.setTopVar(2, idx);
        }
        try {
          yield* call(this.walk(elem, r.list));
        } catch (e) {
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = mark;
        }
      };
      let ran = false;
      if (val === undefined) {
        // An invalid value (a nil map, a missing key) ranges like an empty map.
      } else if (val.type.kind === "slice") {
        const items = (val.v ?? []) as readonly GoValue[];
        for (let i = 0; i < items.length; i++) yield* call(oneIteration.call(this, intValue(BigInt(i), INT), items[i] as GoValue));
        ran = items.length > 0;
      } else if (val.type.kind === "map") {
        const entries = [...((val.v ?? new Map()) as ReadonlyMap<string, GoValue>).entries()].sort((a, b) => compareByteOrder(a[0], b[0]));
        for (const [k, e] of entries) yield* call(oneIteration.call(this, stringValue(k), e));
        ran = entries.length > 0;
      } else {
        this.errorf(`range can't iterate over ${formatValue(val)}`);
      }
      if (!ran && r.elseList !== undefined) yield* call(this.walk(dot, r.elseList));
    } catch (e) {
      if (e !== BREAK) throw e;
    } finally {
      this.vars.length = outer;
    }
  }

  private *walkTemplate(dot: Value, t: Extract<Node, { kind: "template" }>): Recursion<void> {
    this.at(t);
    const tree = this.tmpl.trees.get(t.name);
    if (tree === undefined) this.errorf(`template ${goQuote(t.name)} not defined`);
    if (this.depth === MAX_EXEC_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
    const newDot = yield* call(this.evalPipeline(dot, t.pipe));
    const sub = new State(this.tmpl, t.name, newDot, this.depth + 1);
    yield* call(sub.walk(newDot, tree));
    this.out += sub.output;
  }

  private *evalPipeline(dot: Value, pipe: PipeNode | undefined): Recursion<Value> {
    if (pipe === undefined) return undefined;
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) value = yield* call(this.evalCommand(dot, cmd, value));
    const result = value as Value;
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0] as string, result);
      else this.vars.push({ name: v.ident[0] as string, value: result });
    }
    return result;
  }

  private notAFunction(args: readonly Node[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0] as Node)}`);
  }

  private *evalCommand(dot: Value, cmd: CommandNode, final: Final): Recursion<Value> {
    const first = cmd.args[0] as Node;
    switch (first.kind) {
      case "field":
        return this.evalFieldNode(dot, first, cmd.args, final);
      case "chain":
        return yield* call(this.evalChainNode(dot, first, cmd.args, final));
      case "identifier":
        return yield* call(this.evalFunction(dot, first, cmd, cmd.args, final));
      case "pipe":
        this.notAFunction(cmd.args, final);
        return yield* call(this.evalPipeline(dot, first));
      case "variable":
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.kind) {
      case "bool":
        return boolValue(first.value);
      case "dot":
        return dot;
      case "nil":
        return this.errorf("nil is not a command");
      case "number":
        return this.idealConstant(first);
      case "string":
        return stringValue(first.text);
    }
    this.errorf(`can't evaluate command ${goQuote(nodeString(first))}`);
  }

  private idealConstant(n: Extract<Node, { kind: "number" }>): Value {
    this.at(n);
    const text = n.text;
    const hexInt = text.length > 2 && text[0] === "0" && (text[1] === "x" || text[1] === "X") && !/[pP]/.test(text);
    if (n.isComplex) return { type: COMPLEX128, v: n.complex };
    if (n.isFloat && !hexInt && text[0] !== "'" && /[.eEpP]/.test(text)) return { type: FLOAT64, v: n.float64 };
    if (n.isInt) return intValue(n.int64, INT);
    if (n.isUint) this.errorf(`${text} overflows int`);
    return undefined;
  }

  private evalFieldNode(dot: Value, field: Extract<Node, { kind: "field" }>, args: readonly Node[], final: Final): Value {
    this.at(field);
    return this.evalFieldChain(dot, field.ident, args, final);
  }

  private *evalChainNode(dot: Value, chain: Extract<Node, { kind: "chain" }>, args: readonly Node[], final: Final): Recursion<Value> {
    this.at(chain);
    if (chain.node.kind === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = yield* call(this.evalArg(dot, undefined, chain.node));
    return this.evalFieldChain(pipe, chain.field, args, final);
  }

  private evalVariableNode(dot: Value, variable: Extract<Node, { kind: "variable" }>, args: readonly Node[], final: Final): Value {
    this.at(variable);
    const value = this.varValue(variable.ident[0] as string);
    if (variable.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, variable.ident.slice(1), args, final);
  }

  private evalFieldChain(receiver: Value, ident: readonly string[], args: readonly Node[], final: Final): Value {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++) receiver = this.evalField(ident[i] as string, [], MISSING, receiver);
    return this.evalField(ident[n - 1] as string, args, final, receiver);
  }

  private evalField(fieldName: string, args: readonly Node[], final: Final, receiver: Value): Value {
    if (receiver === undefined) return undefined;
    const typ = receiver.type;
    const { value: r, isNil } = indirect(receiver);
    const hasArgs = args.length > 1 || final !== MISSING;
    switch (r.type.kind) {
      case "struct":
        if (r.type.fields.includes(fieldName)) {
          if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
          return (r.v as StructGetter)(fieldName);
        }
        break;
      case "map": {
        if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
        if (r.v === null) return undefined;
        return (r.v as ReadonlyMap<string, GoValue>).get(fieldName);
      }
      case "ptr": {
        const etyp = r.type.elem;
        if (etyp.kind === "struct" && !etyp.fields.includes(fieldName)) break;
        if (isNil) this.errorf(`nil pointer evaluating ${typ.name}.${fieldName}`);
        break;
      }
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${typ.name}`);
  }

  private *evalFunction(dot: Value, node: Extract<Node, { kind: "identifier" }>, cmd: Node, args: readonly Node[] | undefined, final: Final): Recursion<Value> {
    this.at(node);
    const name = node.ident;
    const fn = BUILTINS.get(name);
    if (fn === undefined) this.errorf(`${goQuote(name)} is not a defined function`);
    return yield* call(this.evalCall(dot, fn, cmd, name, args, final));
  }

  private *evalCall(dot: Value, fn: Builtin, node: Node, name: string, allArgs: readonly Node[] | undefined, final: Final): Recursion<Value> {
    const args = allArgs === undefined ? [] : allArgs.slice(1);
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    const numFixed = fn.variadic !== undefined ? fn.fixed.length : args.length;
    if (fn.variadic !== undefined) {
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${fn.fixed.length} got ${args.length}`);
    } else if (numIn !== fn.fixed.length) {
      this.errorf(`wrong number of args for ${name}: want ${fn.fixed.length} got ${numIn}`);
    }
    if (name === "and" || name === "or") {
      let v: Value;
      for (const arg of args) {
        v = yield* call(this.evalArg(dot, "value", arg));
        if (truthOf(v) === (name === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: Value[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(yield* call(this.evalArg(dot, fn.fixed[i], args[i] as Node)));
    if (fn.variadic !== undefined) for (; i < args.length; i++) argv.push(yield* call(this.evalArg(dot, fn.variadic, args[i] as Node)));
    if (final !== MISSING) {
      const t = fn.variadic !== undefined && numIn - 1 >= numFixed ? fn.variadic : fn.fixed[numIn - 1];
      argv.push(this.validateType(final, t));
    }
    try {
      return fn.fn(argv, name === "call" && args[0] !== undefined ? nodeString(args[0]) : name);
    } catch (e) {
      if (!(e instanceof CallError)) throw e;
      this.at(node);
      this.errorf(`error calling ${name}: ${e.message}`);
    }
  }

  private validateType(value: Value, typ: Param | undefined): Value {
    if (typ !== "string") return value;
    if (value === undefined) this.errorf("invalid value; expected string");
    if (value.type.kind === "string" && value.type.name === "string") return value;
    if (value.type.kind === "ptr" && value.type.elem.kind === "string" && value.type.elem.name === "string") {
      if (value.v === null) this.errorf("dereference of nil pointer of type string");
      return value.v as GoValue;
    }
    this.errorf(`wrong type for value; expected string; got ${value.type.name}`);
  }

  private *evalArg(dot: Value, typ: Param | undefined, n: Node): Recursion<Value> {
    this.at(n);
    switch (n.kind) {
      case "dot":
        return this.validateType(dot, typ);
      case "nil":
        if (typ !== "string") return undefined;
        return this.errorf("cannot assign nil to string");
      case "field":
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), typ);
      case "variable":
        return this.validateType(this.evalVariableNode(dot, n, [], MISSING), typ);
      case "pipe":
        return this.validateType(yield* call(this.evalPipeline(dot, n)), typ);
      case "identifier":
        return this.validateType(yield* call(this.evalFunction(dot, n, n, undefined, MISSING)), typ);
      case "chain":
        return this.validateType(yield* call(this.evalChainNode(dot, n, [], MISSING)), typ);
    }
    if (typ === "string") {
      if (n.kind === "string") return stringValue(n.text);
      this.errorf(`expected string; found ${nodeString(n)}`);
    }
    switch (n.kind) {
      case "bool":
        return boolValue(n.value);
      case "number":
        return this.idealConstant(n);
      case "string":
        return stringValue(n.text);
    }
    this.errorf(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
  }

  private printValue(n: Node, v: Value): void {
    this.at(n);
    if (v === undefined) {
      this.out += "<no value>";
      return;
    }
    this.out += formatValue(v.type.kind === "ptr" ? indirect(v).value : v);
  }
}

/** Template.Execute(data): the output, or Go's execution error text. */
export function executeTemplate(t: ParsedTemplates, data: GoValue | undefined): { ok: true; value: string } | { ok: false; error: string } {
  const root = t.trees.get(t.name);
  if (root === undefined) return { ok: false, error: `template: ${t.name}: ${goQuote(t.name)} is an incomplete or empty template` };
  const state = new State(t, t.name, data);
  try {
    runRecursion(state.walk(data, root));
  } catch (e) {
    if (e instanceof ExecError) return { ok: false, error: e.message };
    throw e;
  }
  return { ok: true, value: state.output };
}

