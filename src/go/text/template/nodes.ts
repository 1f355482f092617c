/**
 * Parse-tree nodes of Go's text/template (text/template/parse/node.go) and their String() forms, which appear
 * in error messages (`executing "t" at <.Foo>: ...`).
 */
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

/** Go's Node.String(). */
export function nodeString(n: Node): string {
  switch (n.kind) {
    case "list":
      return n.nodes.map(nodeString).join("");
    case "text":
      return n.text;
    case "comment":
      return "{{" + n.text + "}}";
    case "action":
      return "{{" + nodeString(n.pipe) + "}}";
    case "pipe": {
      let out = "";
      if (n.decl.length > 0) out = n.decl.map(nodeString).join(", ") + (n.isAssign ? " = " : " := ");
      return out + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.kind === "pipe" ? "(" + nodeString(a) + ")" : nodeString(a))).join(" ");
    case "field":
      return n.ident.map((id) => "." + id).join("");
    case "variable":
      return n.ident.join(".");
    case "chain":
      return (n.node.kind === "pipe" ? "(" + nodeString(n.node) + ")" : nodeString(n.node)) + n.field.map((f) => "." + f).join("");
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
      return `{{${n.kind} ${nodeString(n.pipe)}}}${nodeString(n.list)}${n.elseList !== undefined ? "{{else}}" + nodeString(n.elseList) : ""}{{end}}`;
    case "template":
      return n.pipe === undefined ? `{{template ${goQuote(n.name)}}}` : `{{template ${goQuote(n.name)} ${nodeString(n.pipe)}}}`;
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
