/**
 * Parse-tree nodes of Go's text/template (text/template/parse/node.go) and their String() forms, which appear
 * in error messages (`executing "t" at <.Foo>: ...`).
 */
import { call, runRecursion, type Recursion } from "../../internal/recursion.js";
import { goQuote } from "../../strconv/quote.js";

export interface NumberValue {
  readonly isInt: boolean;
  readonly isUint: boolean;
  readonly isFloat: boolean;
  readonly isComplex: boolean;
  readonly int64: bigint;
  readonly uint64: bigint;
  readonly float64: number;
  readonly complex: readonly [number, number];
}

export type Node =
  | { readonly kind: "list"; readonly pos: number; readonly nodes: Node[] }
  | { readonly kind: "text"; readonly pos: number; readonly text: string }
  | { readonly kind: "comment"; readonly pos: number; readonly text: string }
  | { readonly kind: "action"; readonly pos: number; readonly line: number; readonly pipe: PipeNode }
  | PipeNode
  | CommandNode
  | { readonly kind: "field"; readonly pos: number; readonly ident: readonly string[] }
  | { readonly kind: "variable"; readonly pos: number; readonly ident: readonly string[] }
  | { readonly kind: "chain"; readonly pos: number; readonly node: Node; readonly field: string[] }
  | { readonly kind: "identifier"; readonly pos: number; readonly ident: string }
  | { readonly kind: "dot"; readonly pos: number }
  | { readonly kind: "nil"; readonly pos: number }
  | { readonly kind: "bool"; readonly pos: number; readonly value: boolean }
  | ({ readonly kind: "number"; readonly pos: number; readonly text: string } & NumberValue)
  | { readonly kind: "string"; readonly pos: number; readonly quoted: string; readonly text: string }
  | BranchNode
  | { readonly kind: "template"; readonly pos: number; readonly line: number; readonly name: string; readonly pipe: PipeNode | undefined }
  | { readonly kind: "end"; readonly pos: number }
  | { readonly kind: "else"; readonly pos: number; readonly line: number }
  | { readonly kind: "break"; readonly pos: number; readonly line: number }
  | { readonly kind: "continue"; readonly pos: number; readonly line: number };

export interface PipeNode {
  readonly kind: "pipe";
  readonly pos: number;
  readonly line: number;
  isAssign: boolean;
  readonly decl: Array<{ readonly kind: "variable"; readonly pos: number; readonly ident: readonly string[] }>;
  readonly cmds: CommandNode[];
}

export interface CommandNode {
  readonly kind: "command";
  readonly pos: number;
  readonly args: Node[];
}

export interface BranchNode {
  readonly kind: "if" | "range" | "with";
  readonly pos: number;
  readonly line: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | undefined;
}

export type ListNode = Extract<Node, { kind: "list" }>;

/** Go's Node.String(), recursive as in Go on an explicit stack (../../internal/recursion.ts). */
export function nodeString(n: Node): string {
  return runRecursion(nodeText(n));
}

function* joined(nodes: readonly Node[], sep: string, parenPipes = false): Recursion<string> {
  const parts: string[] = [];
  for (const n of nodes) parts.push(parenPipes && n.kind === "pipe" ? "(" + (yield* call(nodeText(n))) + ")" : yield* call(nodeText(n)));
  return parts.join(sep);
}

function* nodeText(n: Node): Recursion<string> {
  switch (n.kind) {
    case "list":
      return yield* call(joined(n.nodes, ""));
    case "text":
      return n.text;
    case "comment":
      return "{{" + n.text + "}}";
    case "action":
      return "{{" + (yield* call(nodeText(n.pipe))) + "}}";
    case "pipe": {
      let out = "";
      if (n.decl.length > 0) out = (yield* call(joined(n.decl, ", "))) + (n.isAssign ? " = " : " := ");
      return out + (yield* call(joined(n.cmds, " | ")));
    }
    case "command":
      return yield* call(joined(n.args, " ", true));
    case "field":
      return n.ident.map((id) => "." + id).join("");
    case "variable":
      return n.ident.join(".");
    case "chain":
      return (yield* call(joined([n.node], "", true))) + n.field.map((f) => "." + f).join("");
    case "identifier":
      return n.ident;
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return n.value ? "true" : "false";
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "if":
    case "range":
    case "with":
      return `{{${n.kind} ${yield* call(nodeText(n.pipe))}}}${yield* call(nodeText(n.list))}${n.elseList !== undefined ? "{{else}}" + (yield* call(nodeText(n.elseList))) : ""}{{end}}`;
    case "template":
      return n.pipe === undefined ? `{{template ${goQuote(n.name)}}}` : `{{template ${goQuote(n.name)} ${yield* call(nodeText(n.pipe))}}}`;
    case "end":
      return "{{end}}";
    case "else":
      return "{{else}}";
    case "break":
      return "{{break}}";
    case "continue":
      return "{{continue}}";
  }
}
