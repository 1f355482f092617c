/**
 * Terminal help: plain text wrapped to 100 columns, options in groups, each with its environment variable and
 * default. The README keeps its Markdown tables (optionsTable in ./options.ts); `--help` renders the same option
 * lists here, so the two never disagree about a flag.
 */
import type { OptionSpec } from "./settings/options.js";

/** Terminal help never runs past this column. */
export const HELP_WIDTH = 100;

/** Where option descriptions start. */
const DESCRIPTION_COLUMN = 30;

/** A titled group of options, or of other terms with a description (commands, test file fields). */
export interface HelpGroup {
  readonly title: string;
  readonly options?: readonly OptionSpec[];
  readonly rows?: ReadonlyArray<readonly [term: string, description: string]>;
}

/** One command's help: usage lines, paragraphs, option groups, closing paragraphs. */
export interface HelpSpec {
  readonly usage: readonly string[];
  readonly description?: readonly string[];
  readonly groups?: readonly HelpGroup[];
  readonly footer?: readonly string[];
}

/**
 * Words of `text` filled into lines of at most `width` columns, each line after the first starting with `indent`
 * (the first with `first`). A word longer than a line stands on a line of its own.
 */
export function wrap(text: string, width = HELP_WIDTH, indent = "", first = indent): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line += (empty ? "" : " ") + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** What an option takes, for `--flag VALUE`: its own name for it, or one read from the flag and its default. */
export function metavarOf(o: OptionSpec): string {
  if (o.boolean === true) return "";
  if (o.metavar !== undefined) return o.metavar;
  if (o.flag.endsWith("-dir")) return "DIR";
  if (o.flag === "filename" || o.flag === "kubeconfig" || o.flag.endsWith("-ca")) return "FILE";
  if (o.flag === "knative-version" || o.flag === "from" || o.flag === "to") return "RELEASE";
  if (o.flag.endsWith("version")) return "VERSION";
  if (/^\d+(\.\d+)?(ms|s|m|h)/.test(o.default) || o.flag.endsWith("timeout")) return "DURATION";
  if (/^\d+$/.test(o.default) || o.flag.endsWith("port")) return "N";
  if (o.flag.endsWith("host")) return "ADDR";
  if (o.flag.endsWith("url")) return "URL";
  if (o.flag.endsWith("name") || o.flag.endsWith("namespace")) return "NAME";
  return "VALUE";
}

/** `-f, --filename FILE` or `    --port N`. */
export function flagColumn(o: OptionSpec): string {
  const mv = metavarOf(o);
  return `${o.short === undefined ? "    " : `-${o.short}, `}--${o.flag}${mv === "" ? "" : ` ${mv}`}`;
}

/** "(env X, default y)", or less: what the description is followed by. */
function provenance(o: OptionSpec): string {
  const parts: string[] = [];
  if (o.env !== "") parts.push(`env ${o.env}`);
  // As Go's flag package prints them: words quoted, numbers, durations and sizes as they are.
  if (o.default !== "" && o.boolean !== true) parts.push(`default ${/^\d+(\.\d+)?[a-zA-Z]{0,2}$/.test(o.default) ? o.default : JSON.stringify(o.default)}`);
  if (o.multiple === true && !o.description.includes("repeatable")) parts.push("repeatable");
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** A term and its description, wrapped under the description column (or below the term when it is too wide). */
function renderRow(term: string, text: string): string[] {
  const head = `  ${term}`;
  const pad = " ".repeat(DESCRIPTION_COLUMN);
  if (head.length + 2 <= DESCRIPTION_COLUMN) return wrap(text, HELP_WIDTH, pad, head + " ".repeat(DESCRIPTION_COLUMN - head.length));
  return [head, ...wrap(text, HELP_WIDTH, pad)];
}

/** One option: its flags, then its description with its environment variable and default. */
export function renderOption(o: OptionSpec): string[] {
  return renderRow(flagColumn(o), o.description + provenance(o));
}

/** The whole help text, ending with a newline. */
export function renderHelp(spec: HelpSpec): string {
  const out: string[] = [];
  spec.usage.forEach((u, i) => out.push(...wrap(u, HELP_WIDTH, "        ", i === 0 ? "Usage: " : "       ")));
  for (const p of spec.description ?? []) out.push("", ...wrap(p));
  for (const g of spec.groups ?? []) {
    const options = g.options ?? [];
    const rows = g.rows ?? [];
    if (options.length === 0 && rows.length === 0) continue;
    out.push("", `${g.title}:`);
    for (const [term, text] of rows) out.push(...renderRow(term, text));
    for (const o of options) out.push(...renderOption(o));
  }
  for (const p of spec.footer ?? []) out.push("", ...wrap(p));
  return out.join("\n") + "\n";
}

/**
 * `options` split into the named groups (each group's flags in the order given), and the options no group names at
 * the end under `rest`: every option is shown exactly once, also one added later to the list but not to a group.
 */
export function groupOptions(options: readonly OptionSpec[], groups: ReadonlyArray<{ readonly title: string; readonly flags: readonly string[] }>, rest = "Other settings"): HelpGroup[] {
  const byFlag = new Map(options.map((o) => [o.flag, o]));
  const placed = new Set<string>();
  const out: HelpGroup[] = groups.map((g) => ({
    title: g.title,
    options: g.flags.flatMap((f) => {
      const o = byFlag.get(f);
      if (o === undefined || placed.has(f)) return [];
      placed.add(f);
      return [o];
    }),
  }));
  out.push({ title: rest, options: options.filter((o) => !placed.has(o.flag)) });
  return out;
}

/** Whether `argv` asks for help: `-h` or `--help` before a `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "-h" || a === "--help") return true;
  }
  return false;
}
