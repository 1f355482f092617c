/**
 * `duckbill check`'s output formats: text (what kubectl apply prints), json (one document), junit (one testcase per
 * document) and github (GitHub Actions workflow commands: an annotation at the file and line of each denial and
 * warning). Every format also reports the manifests that could not be read.
 */
import { stringify as toYaml } from "yaml";
import { printableDefaulted, type CheckResult, type Outcome } from "./check.js";
import { junitXml, type JunitCase, type JunitSuite } from "./junit.js";
import { deniedBy, WarningPrinter } from "../kubectl/kubectl-apply.js";
import { STDIN_SOURCE, type ManifestError } from "../kubectl/manifests.js";

export const OUTPUT_FORMATS = ["text", "json", "junit", "github"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What a run produced: the results in document order and the manifests that could not be read. */
export interface CheckRun {
  readonly results: readonly CheckResult[];
  readonly unreadable: readonly ManifestError[];
}

/** How a run ends: 2 when a manifest could not be read, else 1 when something was denied, else 0. */
export function exitCodeOf(run: CheckRun): number {
  if (run.unreadable.length > 0) return 2;
  return run.results.some((r) => r.outcome === "denied") ? 1 : 0;
}

/** The reason a denied document was refused, without kubectl's framing (which names the file). */
function reasonOf(r: CheckResult): string {
  return r.webhook === undefined ? (r.message ?? "") : deniedBy(r.webhook, r.message ?? "");
}

/** Text output: what kubectl apply writes to stdout and stderr, plus Duckbill's notes for skipped documents. */
export function formatText(run: CheckRun, printDefaulted: boolean): { stdout: string; stderr: string } {
  const printer = new WarningPrinter();
  let stdout = "";
  let stderr = "";
  const errors: string[] = [];
  let yamlDocs = 0;
  for (const r of run.results) {
    if (r.outcome === "skipped") {
      stderr += `note: ${r.source}:${r.line}: skipped ${r.apiVersion} ${r.kind} ${JSON.stringify(r.name)}: ${r.note ?? ""}\n`;
      continue;
    }
    for (const w of r.clientWarnings ?? []) stderr += `${w}\n`;
    for (const w of r.warnings) {
      const line = printer.line(w);
      if (line !== undefined) stderr += `${line}\n`;
    }
    if (r.outcome === "denied") {
      errors.push(r.error ?? "");
      continue;
    }
    if (printDefaulted) {
      if (r.defaulted !== undefined) {
        stdout += (yamlDocs++ > 0 ? "---\n" : "") + toYaml(printableDefaulted(r.defaulted));
      }
      continue;
    }
    stdout += `${r.ref ?? ""} ${r.outcome}\n`;
  }
  // kubectl collects apply errors and prints them last, one per line (cmdutil.CheckErr / MultipleErrors).
  for (const e of errors) stderr += `${e}\n`;
  for (const e of run.unreadable) stderr += `duckbill check: ${e.message}\n`;
  return { stdout, stderr };
}

/** `-o json`: one document with every result, the unreadable manifests and a summary. */
export function formatJson(run: CheckRun, printDefaulted: boolean): string {
  const { results } = run;
  const out = results.map((r) => {
    const { defaulted, ...rest } = r;
    return printDefaulted && defaulted !== undefined ? { ...rest, defaulted: printableDefaulted(defaulted) } : rest;
  });
  const count = (o: Outcome): number => results.filter((r) => r.outcome === o).length;
  const errors = run.unreadable.map((e) => ({ source: e.source, line: e.line, column: e.column, message: e.reason }));
  const summary = {
    documents: results.length,
    denied: count("denied"),
    skipped: count("skipped"),
    allowed: results.length - count("denied") - count("skipped"),
    unreadable: errors.length,
  };
  return JSON.stringify({ results: out, errors, summary }, null, 2) + "\n";
}

/** The testcase of one document. */
function junitCase(r: CheckResult): JunitCase {
  const name = `${r.ref ?? `${r.kind.toLowerCase()}/${r.name}`} (line ${r.line})`;
  const systemErr = [...(r.clientWarnings ?? []), ...r.warnings.map((w) => `Warning: ${w}`)].join("\n");
  const common = { name, classname: r.source, ...(systemErr === "" ? {} : { systemErr }) };
  if (r.outcome === "denied") return { ...common, failure: { message: reasonOf(r), type: r.rejectedBy ?? "denied", text: r.error ?? "" } };
  if (r.outcome === "skipped") return { ...common, skipped: r.note ?? "" };
  return common;
}

/** `-o junit`: a testsuite per manifest file, a testcase per document, an error case per file that could not be read. */
export function formatJunit(run: CheckRun): string {
  const suites = new Map<string, JunitCase[]>();
  const suite = (source: string): JunitCase[] => {
    let cases = suites.get(source);
    if (cases === undefined) suites.set(source, (cases = []));
    return cases;
  };
  for (const r of run.results) suite(r.source).push(junitCase(r));
  for (const e of run.unreadable) suite(e.source).push({ name: `${e.source} (unreadable)`, classname: e.source, error: { message: e.reason, type: "unreadable", text: e.message } });
  const list: JunitSuite[] = [...suites].map(([name, cases]) => ({ name, cases }));
  return junitXml("duckbill check", list);
}

/** A workflow command's data (%, CR and LF escaped) and its property values (also `:` and `,`). */
function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** `::error file=F,line=L,title=T::message`; no file for stdin, no line when unknown. */
export function workflowCommand(level: "error" | "warning" | "notice", where: { source: string; line: number; column?: number }, title: string, message: string): string {
  const props: string[] = [];
  if (where.source !== STDIN_SOURCE) props.push(`file=${escapeProperty(where.source)}`);
  if (where.line > 0) props.push(`line=${where.line}`);
  if (where.column !== undefined && where.column > 0) props.push(`col=${where.column}`);
  props.push(`title=${escapeProperty(title)}`);
  return `::${level} ${props.join(",")}::${escapeData(message)}\n`;
}

/**
 * `-o github`: for GitHub Actions, an error annotation at each denied document and unreadable manifest, a warning at
 * each warning, a notice at each skipped document, and a summary line.
 */
export function formatGithub(run: CheckRun): string {
  let out = "";
  for (const r of run.results) {
    const what = r.ref ?? `${r.kind} ${r.name}`;
    for (const w of r.warnings) out += workflowCommand("warning", r, `${what}: warning`, w);
    // At the first field the denial names, when the manifest writes it; else at the document.
    const at = r.field === undefined ? r : { source: r.source, line: r.field.line, column: r.field.column };
    if (r.outcome === "denied") out += workflowCommand("error", at, `${what} ${r.rejectedBy === undefined ? "denied" : "refused by the API server"}`, reasonOf(r));
    if (r.outcome === "skipped") out += workflowCommand("notice", r, `${r.kind} ${r.name} skipped`, r.note ?? "");
  }
  for (const e of run.unreadable) out += workflowCommand("error", e, "unreadable manifest", e.reason);
  out += `${summaryLine(run)}\n`;
  return out;
}

/** `duckbill check: 4 documents: 2 allowed, 1 denied, 1 skipped; 1 manifest could not be read`. */
export function summaryLine(run: CheckRun): string {
  const n = (o: Outcome): number => run.results.filter((r) => r.outcome === o).length;
  const denied = n("denied");
  const skipped = n("skipped");
  let line = `duckbill check: ${run.results.length} documents: ${run.results.length - denied - skipped} allowed, ${denied} denied, ${skipped} skipped`;
  if (run.unreadable.length > 0) line += `; ${run.unreadable.length} manifest${run.unreadable.length === 1 ? "" : "s"} could not be read`;
  return line;
}
