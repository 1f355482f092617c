/**
 * Go text/template, as Knative uses it for name templates: `template.New(name).Parse(text)` then
 * `Execute(w, data)`, with Go's parse and execution error texts. See lex.ts, parse.ts, exec.ts.
 */
import { executeTemplate } from "./exec.js";
import { parseTemplate, type ParseOptions, type ParsedTemplates } from "./parse.js";
import type { GoValue } from "./values.js";

export type { ParseOptions } from "./parse.js";

export type TemplateResult = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly error: string };

export interface GoTemplate {
  readonly name: string;
  readonly text: string;
  /** The output when the template is plain text (no actions): executing it cannot fail or vary. */
  readonly constant: string | undefined;
  execute(data: GoValue | undefined): TemplateResult;
}

function constantOutput(t: ParsedTemplates): string | undefined {
  const root = t.trees.get(t.name);
  if (root === undefined || t.trees.size !== 1) return undefined;
  let out = "";
  for (const n of root.nodes) {
    if (n.kind === "text") out += n.text;
    else if (n.kind !== "comment") return undefined;
  }
  return out;
}

/** template.New(name).Parse(text), as the Go release `opts` describes parses it (Go 1.23 by default). */
export function parseGoTemplate(name: string, text: string, opts: ParseOptions = {}): { ok: true; template: GoTemplate } | { ok: false; error: string } {
  const parsed = parseTemplate(name, text, opts);
  if (!parsed.ok) return parsed;
  const constant = constantOutput(parsed.value);
  const result: TemplateResult | undefined = constant === undefined ? undefined : Object.freeze({ ok: true as const, value: constant });
  return {
    ok: true,
    template: Object.freeze({
      name,
      text,
      constant,
      execute: (data: GoValue | undefined): TemplateResult => result ?? executeTemplate(parsed.value, data),
    }),
  };
}
