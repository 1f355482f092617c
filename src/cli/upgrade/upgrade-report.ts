/**
 * What `duckbill upgrade-check` found, and its two outputs: text grouped per object with a summary line, and one
 * JSON document (the schema docs/cli.md describes; fields are only ever added).
 */
import type { DocumentIdentity } from "../check/check.js";
import type { ConfigMapNote, ConfigMapNoteCategory } from "./upgrade-configmaps.js";
import { SEVERITY, type CheckName, type Comparison, type DefaultsOperation, type Finding, type FindingCategory } from "./upgrade-compare.js";

export type ObjectCategory = FindingCategory | "unchanged";
export type ConfigMapCategory = "breaks" | "newly-allowed" | "changes" | "unchanged";

/** `source` is the manifest file, `cluster` for a live object, or where a ConfigMap was read (`dir:…`, `cluster:…`). */
type Identity = DocumentIdentity;

export interface ObjectReport extends Identity {
  /** The most severe category among the findings of its checks (SEVERITY), else unchanged. */
  readonly category: ObjectCategory;
  /** `create` (the manifest applied), then `update` (the stored object's next update), each answered as both releases. */
  readonly checks: readonly Comparison[];
}

export interface ConfigMapReport extends Identity {
  readonly category: ConfigMapCategory;
  /** /config-validation's answers. */
  readonly validation: Comparison;
  /** What the profiles say about its keys. */
  readonly notes: readonly ConfigMapNote[];
}

export interface SkippedDocument extends Identity {
  readonly note: string;
}

export interface UpgradeReport {
  readonly from: string;
  readonly to: string;
  /** How --from was decided: given (flag or environment), or detected in the cluster. */
  readonly fromSource: "given" | "cluster";
  /** Where the objects came from: `manifests` or `cluster`. */
  readonly objectsFrom: "manifests" | "cluster";
  /** The configuration the objects were judged under (`defaults`, `dir:…`, `cluster:…`). */
  readonly configuration: string;
  readonly objects: readonly ObjectReport[];
  readonly configMaps: readonly ConfigMapReport[];
  readonly skipped: readonly SkippedDocument[];
  /** Manifests (paths or files) that could not be read in full (as `check -o json` names them); the others were checked. */
  readonly errors: readonly UnreadableManifest[];
}

export interface UnreadableManifest {
  readonly source: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface Summary {
  readonly objects: number;
  readonly breaks: number;
  readonly defaultsChange: number;
  readonly warningsChange: number;
  readonly newlyAllowed: number;
  readonly unchanged: number;
  /** Unchanged objects whose every check is denied by both releases. */
  readonly deniedByBoth: number;
  readonly configMaps: number;
  readonly configMapsBreak: number;
  readonly configMapsNewlyAllowed: number;
  readonly configMapsChange: number;
  readonly configMapsUnchanged: number;
  readonly skipped: number;
  readonly unreadable: number;
}

export function objectCategory(checks: readonly Comparison[]): ObjectCategory {
  const found = new Set(checks.flatMap((c) => c.findings.map((f) => f.category)));
  return SEVERITY.find((c) => found.has(c)) ?? "unchanged";
}

export function configMapCategory(validation: Comparison, notes: readonly ConfigMapNote[]): ConfigMapCategory {
  const found = new Set(validation.findings.map((f) => f.category));
  if (found.has("breaks")) return "breaks";
  if (found.has("newly-allowed")) return "newly-allowed";
  return notes.length > 0 ? "changes" : "unchanged";
}

function deniedByBoth(o: ObjectReport): boolean {
  return o.category === "unchanged" && o.checks.length > 0 && o.checks.every((c) => !c.from.allowed && !c.to.allowed);
}

export function summarize(r: UpgradeReport): Summary {
  const objects = (c: ObjectCategory): number => r.objects.filter((o) => o.category === c).length;
  const configMaps = (c: ConfigMapCategory): number => r.configMaps.filter((m) => m.category === c).length;
  return {
    objects: r.objects.length,
    breaks: objects("breaks"),
    defaultsChange: objects("defaults-change"),
    warningsChange: objects("warnings-change"),
    newlyAllowed: objects("newly-allowed"),
    unchanged: objects("unchanged"),
    deniedByBoth: r.objects.filter(deniedByBoth).length,
    configMaps: r.configMaps.length,
    configMapsBreak: configMaps("breaks"),
    configMapsNewlyAllowed: configMaps("newly-allowed"),
    configMapsChange: configMaps("changes"),
    configMapsUnchanged: configMaps("unchanged"),
    skipped: r.skipped.length,
    unreadable: r.errors.length,
  };
}

/** Something would break: an object or a ConfigMap allowed now and denied after the upgrade. */
export function breaks(r: UpgradeReport): boolean {
  return r.objects.some((o) => o.category === "breaks") || r.configMaps.some((m) => m.category === "breaks");
}

export function formatJson(r: UpgradeReport): string {
  return JSON.stringify({ ...r, summary: summarize(r) }, null, 2) + "\n";
}

const ON: Readonly<Record<CheckName, string>> = { create: "create", update: "its next update", validation: "validation" };

/** `1 object`, `2 objects`. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function value(v: unknown): string {
  return JSON.stringify(v) ?? "undefined";
}

/** One line per JSON Patch operation: `+ path: value`, `- path: was`, `~ path: was → value`. */
function patchLines(patch: readonly DefaultsOperation[]): string[] {
  return patch.map((op) => {
    switch (op.op) {
      case "add":
        return `+ ${op.path}: ${value(op.value)}`;
      case "remove":
        return `- ${op.path}: ${value(op.was)}`;
      case "replace":
        return `~ ${op.path}: ${value(op.was)} → ${value(op.value)}`;
      default:
        return `${op.op} ${op.path}`;
    }
  });
}

function causeLines(f: Finding): string[] {
  return f.causes.map((c) => `because ${c.description} [${c.field}]`);
}

const FINDING_TITLE: Readonly<Record<FindingCategory, string>> = {
  breaks: "breaks",
  "newly-allowed": "newly allowed",
  "defaults-change": "defaults change",
  "warnings-change": "warnings change",
};

/** A finding's text: its headline after `<category> on <checks>`, and the lines under it. */
function findingText(f: Finding, from: string, to: string): { head: string; lines: string[] } {
  switch (f.category) {
    case "breaks":
      return { head: `: Knative ${to} answers: admission webhook "${f.webhook}" denied the request: ${f.message}`, lines: causeLines(f) };
    case "newly-allowed":
      return { head: `: Knative ${from} answers: admission webhook "${f.webhook}" denied the request: ${f.message}`, lines: causeLines(f) };
    case "defaults-change":
      return { head: ` (the object as ${from} defaults it → as ${to} does):`, lines: [...patchLines(f.patch), ...causeLines(f)] };
    case "warnings-change":
      return { head: ":", lines: [...f.removed.map((w) => `- Warning: ${w}`), ...f.added.map((w) => `+ Warning: ${w}`), ...causeLines(f)] };
  }
}

/** The findings of an object's checks, the same finding of several checks once (`on create and its next update`). */
function findingBlocks(checks: readonly Comparison[], from: string, to: string): string {
  const groups = new Map<string, { finding: Finding; on: CheckName[] }>();
  for (const c of checks) {
    for (const f of c.findings) {
      const { causes: _causes, ...rest } = f;
      const key = JSON.stringify(rest);
      const g = groups.get(key);
      if (g === undefined) groups.set(key, { finding: f, on: [c.check] });
      else g.on.push(c.check);
    }
  }
  const ordered = [...groups.values()].sort((a, b) => SEVERITY.indexOf(a.finding.category) - SEVERITY.indexOf(b.finding.category));
  let out = "";
  for (const { finding, on } of ordered) {
    const { head, lines } = findingText(finding, from, to);
    const where = on[0] === "validation" ? "" : ` on ${on.map((c) => ON[c]).join(" and ")}`;
    out += `  ${FINDING_TITLE[finding.category]}${where}${head}\n`;
    for (const l of lines) out += `    ${l}\n`;
  }
  return out;
}

/** Denied when created as the newer release, while the object the older release stored passes its next update. */
function breaksOnCreateOnly(o: ObjectReport): boolean {
  const create = o.checks.find((c) => c.check === "create");
  const update = o.checks.find((c) => c.check === "update");
  const breaksIn = (c: Comparison | undefined): boolean => c?.findings.some((f) => f.category === "breaks") === true;
  return breaksIn(create) && update !== undefined && update.to.allowed;
}

function header(o: Identity, objectsFrom: string): string {
  const where = o.line > 0 ? `${o.source}:${o.line}` : o.source;
  return `${o.kind} ${o.namespace === "" ? "" : `${o.namespace}/`}${o.name}  (${where === "" ? objectsFrom : where})\n`;
}

const NOTE_TITLE: Readonly<Record<ConfigMapNoteCategory, string>> = {
  unvalidated: "no longer validated",
  validated: "validated again",
  ignored: "ignored",
  "takes-effect": "takes effect",
  "value-change": "value changes",
  "default-change": "default changes",
};

function noteLine(n: ConfigMapNote): string {
  return `  ${NOTE_TITLE[n.category]}: ${n.key === undefined ? "" : `${n.key}: `}${n.message} [${n.field}]\n`;
}

function summaryLine(s: Summary, r: UpgradeReport): string {
  const objects =
    `${count(s.objects, "object")}: ${s.breaks} break, ${s.defaultsChange} defaults change, ${s.warningsChange} warnings change, ` +
    `${s.newlyAllowed} newly allowed, ${s.unchanged} unchanged` +
    (s.deniedByBoth > 0 ? ` (${s.deniedByBoth} denied by both releases)` : "");
  const configMaps = `${count(s.configMaps, "ConfigMap")}: ${s.configMapsBreak} break, ${s.configMapsNewlyAllowed} newly allowed, ${s.configMapsChange} change, ${s.configMapsUnchanged} unchanged`;
  const skipped = (s.skipped > 0 ? `; ${count(s.skipped, "document")} skipped` : "") + (s.unreadable > 0 ? `; ${count(s.unreadable, "manifest")} could not be read` : "");
  const verdict = breaks(r) ? `something breaks on Knative ${r.to}` : s.unreadable > 0 ? `nothing breaks on Knative ${r.to} in what could be read` : `nothing breaks on Knative ${r.to}`;
  return `Summary: ${objects}; ${configMaps}${skipped}: ${verdict}.\n`;
}

/** Text output: stdout has the report, stderr the notes about skipped documents. */
export function formatText(r: UpgradeReport): { stdout: string; stderr: string } {
  const detected = r.fromSource === "cluster" ? " (detected in the cluster)" : "";
  let out = `Knative ${r.from}${detected} → ${r.to}: ${count(r.objects.length, "object")} from ${r.objectsFrom}, ${count(r.configMaps.length, "ConfigMap")}, configuration ${r.configuration}\n`;
  for (const o of r.objects) {
    if (o.category === "unchanged" && !deniedByBoth(o)) continue;
    out += `\n${header(o, r.objectsFrom)}`;
    if (o.category === "unchanged") {
      const last = o.checks[o.checks.length - 1] as Comparison;
      out += `  denied by both releases (run "duckbill check"); Knative ${r.to} answers: admission webhook "${last.to.webhook ?? ""}" denied the request: ${last.to.message ?? ""}\n`;
      continue;
    }
    out += findingBlocks(o.checks, r.from, r.to);
    if (breaksOnCreateOnly(o)) out += `  its next update stays allowed: the object as Knative ${r.from} stored it passes; applying this manifest again is what breaks\n`;
  }
  for (const m of r.configMaps) {
    if (m.category === "unchanged") continue;
    out += `\n${header(m, r.configuration)}`;
    out += findingBlocks([m.validation], r.from, r.to);
    for (const n of m.notes) out += noteLine(n);
  }
  out += `\n${summaryLine(summarize(r), r)}`;
  let stderr = "";
  for (const s of r.skipped) stderr += `note: ${s.source}:${s.line}: skipped ${s.apiVersion} ${s.kind} ${JSON.stringify(s.name)}: ${s.note}\n`;
  for (const u of r.errors) stderr += `duckbill upgrade-check: ${u.line > 0 ? `${u.source}:${u.line}:${u.column}` : u.source}: ${u.message}\n`;
  return { stdout: out, stderr };
}
