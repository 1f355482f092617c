/**
 * `duckbill test`'s test files (duckbill-test.yaml, described in docs/cli.md): which manifests to check under which
 * configuration and release, and the expected answer for each object. Read strictly (an unknown key is an error
 * with the closest known one), and each case judged against a `duckbill check` result.
 */
import { parse as parseYaml } from "yaml";
import { jsonEqual } from "../../duck/json-equal.js";
import { deniedBy } from "../kubectl/kubectl-apply.js";
import type { CheckResult } from "../check/check.js";
import { closest } from "../suggest.js";

export type ExpectedResult = "allowed" | "denied" | "skipped";

/** The expected answer for one object. */
export interface TestCase {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly result: ExpectedResult;
  /** A substring of the denial (the webhook's answer or the API server's). */
  readonly message?: string;
  /** Substrings each of which some warning holds; an empty list: no warnings. */
  readonly warnings?: readonly string[];
  /** Field paths (`spec.template.spec.containers[0].name`, `metadata.annotations['a/b']`) and their defaulted values. */
  readonly defaulted?: Readonly<Record<string, unknown>>;
  /** Operations the mutating webhook's JSON Patch holds (each deep-equal to one of its operations). */
  readonly patch?: readonly unknown[];
}

/** One test file. Paths are relative to the file's directory. */
export interface TestSpec {
  readonly name: string;
  readonly manifests: readonly string[];
  readonly old: readonly string[];
  readonly configDir?: string;
  readonly knativeVersion?: string;
  readonly namespace: string;
  readonly user: string;
  readonly results: readonly TestCase[];
}

/** A test file that cannot be read or does not follow the format. */
export class TestFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "TestFileError";
  }
}

const SPEC_KEYS = ["name", "manifests", "old", "configDir", "knativeVersion", "namespace", "user", "results"];
const CASE_KEYS = ["apiVersion", "kind", "name", "namespace", "result", "message", "warnings", "defaulted", "patch"];
const RESULTS: readonly ExpectedResult[] = ["allowed", "denied", "skipped"];

type JsonMap = Record<string, unknown>;

function isMap(v: unknown): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkKeys(file: string, where: string, obj: JsonMap, known: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (known.includes(k)) continue;
    const near = closest(k, known, 1);
    throw new TestFileError(file, `${where}: unknown key "${k}"${near[0] === undefined ? "" : `; did you mean "${near[0]}"?`}`);
  }
}

function stringList(file: string, where: string, v: unknown): string[] {
  const list = typeof v === "string" ? [v] : v;
  if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) throw new TestFileError(file, `${where} must be a list of strings`);
  return list as string[];
}

function optionalString(file: string, where: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  // YAML reads 1.24 as a number: a release written without quotes is taken as written.
  if (typeof v === "number") return String(v);
  if (typeof v !== "string") throw new TestFileError(file, `${where} must be a string`);
  return v;
}

function parseCase(file: string, i: number, v: unknown): TestCase {
  const where = `results[${i}]`;
  if (!isMap(v)) throw new TestFileError(file, `${where} must be a mapping`);
  checkKeys(file, where, v, CASE_KEYS);
  const kind = optionalString(file, `${where}.kind`, v.kind);
  const name = optionalString(file, `${where}.name`, v.name);
  if (kind === undefined || name === undefined) throw new TestFileError(file, `${where} needs kind and name`);
  const result = v.result;
  if (!RESULTS.includes(result as ExpectedResult)) throw new TestFileError(file, `${where}.result must be allowed, denied or skipped`);
  if (v.message !== undefined && result !== "denied") throw new TestFileError(file, `${where}: message is for a denied result`);
  if ((v.defaulted !== undefined || v.patch !== undefined) && result !== "allowed") throw new TestFileError(file, `${where}: defaulted and patch are for an allowed result`);
  if (v.defaulted !== undefined && !isMap(v.defaulted)) throw new TestFileError(file, `${where}.defaulted must map field paths to values`);
  if (v.patch !== undefined && !Array.isArray(v.patch)) throw new TestFileError(file, `${where}.patch must be a list of JSON Patch operations`);
  if (isMap(v.defaulted)) for (const path of Object.keys(v.defaulted)) fieldPath(file, `${where}.defaulted`, path);
  const apiVersion = optionalString(file, `${where}.apiVersion`, v.apiVersion);
  const namespace = optionalString(file, `${where}.namespace`, v.namespace);
  const message = optionalString(file, `${where}.message`, v.message);
  return {
    kind,
    name,
    result: result as ExpectedResult,
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(namespace === undefined ? {} : { namespace }),
    ...(message === undefined ? {} : { message }),
    ...(v.warnings === undefined ? {} : { warnings: v.warnings === null ? [] : stringList(file, `${where}.warnings`, v.warnings) }),
    ...(isMap(v.defaulted) ? { defaulted: v.defaulted } : {}),
    ...(Array.isArray(v.patch) ? { patch: v.patch } : {}),
  };
}

/** Reads a test file's text; `defaultName` names it when it has no `name`. */
export function parseTestFile(file: string, text: string, defaultName: string): TestSpec {
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: false });
  } catch (e) {
    throw new TestFileError(file, (e as Error).message);
  }
  if (!isMap(doc)) throw new TestFileError(file, "a test file is a mapping with manifests and results");
  checkKeys(file, "the test file", doc, SPEC_KEYS);
  if (doc.manifests === undefined) throw new TestFileError(file, "manifests is missing");
  const manifests = stringList(file, "manifests", doc.manifests);
  if (!Array.isArray(doc.results) || doc.results.length === 0) throw new TestFileError(file, "results must list at least one expected result");
  const configDir = optionalString(file, "configDir", doc.configDir);
  const knativeVersion = optionalString(file, "knativeVersion", doc.knativeVersion);
  return {
    name: optionalString(file, "name", doc.name) ?? defaultName,
    manifests,
    old: doc.old === undefined ? [] : stringList(file, "old", doc.old),
    ...(configDir === undefined ? {} : { configDir }),
    ...(knativeVersion === undefined ? {} : { knativeVersion }),
    namespace: optionalString(file, "namespace", doc.namespace) ?? "default",
    user: optionalString(file, "user", doc.user) ?? "duckbill-test",
    results: doc.results.map((c, i) => parseCase(file, i, c)),
  };
}

/** The segments of `a.b[0]['c/d']`: names and indices. */
export function fieldPath(file: string, where: string, path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /\.?([A-Za-z0-9_$-]+)|\[(\d+)\]|\[(['"])(.*?)\3\]/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < path.length && (m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(m[4] ?? "");
  }
  if (re.lastIndex !== path.length || out.length === 0) throw new TestFileError(file, `${where}: "${path}" is not a field path such as spec.template.spec.containers[0].name or metadata.annotations['a/b']`);
  return out;
}

function valueAt(obj: unknown, path: ReadonlyArray<string | number>): { found: boolean; value?: unknown } {
  let at: unknown = obj;
  for (const seg of path) {
    if (typeof seg === "number" ? !Array.isArray(at) || seg >= at.length : !isMap(at) || !Object.hasOwn(at, seg)) return { found: false };
    at = typeof seg === "number" ? (at as unknown[])[seg] : (at as JsonMap)[seg];
  }
  return { found: true, value: at };
}

/** Whether a case names a checked document. */
export function caseMatches(c: TestCase, r: CheckResult): boolean {
  return r.kind === c.kind && r.name === c.name && (c.namespace === undefined || r.namespace === c.namespace) && (c.apiVersion === undefined || r.apiVersion === c.apiVersion);
}

function outcomeOf(r: CheckResult): ExpectedResult {
  return r.outcome === "denied" ? "denied" : r.outcome === "skipped" ? "skipped" : "allowed";
}

/** The denial as the API server words it: the webhook's, or the API server's own (strict decoding). */
function denialOf(r: CheckResult): string {
  return r.webhook === undefined ? (r.message ?? "") : deniedBy(r.webhook, r.message ?? "");
}

/** What is wrong with a result for a case: nothing when it passes. */
export function judge(c: TestCase, r: CheckResult): string[] {
  const got = outcomeOf(r);
  if (got !== c.result) {
    const why = got === "denied" ? `: ${denialOf(r)}` : got === "skipped" ? `: ${r.note ?? ""}` : "";
    return [`expected ${c.result}, got ${got}${why}`];
  }
  const problems: string[] = [];
  if (c.message !== undefined && !denialOf(r).includes(c.message)) problems.push(`the denial does not contain ${JSON.stringify(c.message)}: ${denialOf(r)}`);
  if (c.warnings !== undefined) {
    if (c.warnings.length === 0 && r.warnings.length > 0) problems.push(`expected no warnings, got ${r.warnings.map((w) => JSON.stringify(w)).join(", ")}`);
    for (const w of c.warnings) if (!r.warnings.some((x) => x.includes(w))) problems.push(`no warning contains ${JSON.stringify(w)} (warnings: ${r.warnings.length === 0 ? "none" : r.warnings.map((x) => JSON.stringify(x)).join(", ")})`);
  }
  for (const [path, want] of Object.entries(c.defaulted ?? {})) {
    const { found, value } = valueAt(r.defaulted, fieldPath("", "defaulted", path));
    if (!found) problems.push(`defaulted ${path}: not set, expected ${JSON.stringify(want)}`);
    else if (!jsonEqual(value, want)) problems.push(`defaulted ${path}: ${JSON.stringify(value)}, expected ${JSON.stringify(want)}`);
  }
  for (const op of c.patch ?? []) {
    if (!(r.patch ?? []).some((x) => jsonEqual(x, op))) problems.push(`the JSON Patch has no operation ${JSON.stringify(op)}`);
  }
  return problems;
}
