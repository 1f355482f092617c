/**
 * `duckbill test [DIR]...`: a declarative test mode, as `kyverno test` is for policies. Every test file (default name
 * duckbill-test.yaml) found in DIR or below it names manifests, optionally a configuration directory and a Knative
 * release, and the expected answer for objects of the manifests (./test-suite.ts); the manifests go through the
 * same pipeline as `duckbill check` and each expectation is a case that passes or fails.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { AdmissionDeps } from "../../admission/deps.js";
import { checkDocuments, readOldObjects, type CheckResult } from "../check/check.js";
import { TEST_OPTIONS } from "../settings/command-options.js";
import { defaultDeps } from "../deps.js";
import { renderHelp } from "../help.js";
import { exitOnError, loadConfig, parseOrUsage, PROCESS_IO, UsageError, type CliIO } from "../io.js";
import { junitXml, type JunitCase } from "../check/junit.js";
import { expandAllManifestPaths, expandManifestPaths, readAllManifests, readManifests } from "../kubectl/manifests.js";
import { parseArgsOptions, settingOf, type Environment } from "../settings/options.js";
import { caseMatches, judge, parseTestFile, TestFileError, type TestCase, type TestSpec } from "./test-suite.js";
import { TEST_HELP } from "../usage.js";

/** One case's outcome. */
export interface CaseOutcome {
  readonly case: TestCase;
  readonly passed: boolean;
  readonly problems: readonly string[];
  /** Where the object was found (`file:line`), when it was. */
  readonly where?: string;
}

/** One test file's outcome: its cases, or why it could not be run (`error`, and the files it could not read). */
export interface FileOutcome {
  readonly file: string;
  readonly name: string;
  readonly cases: readonly CaseOutcome[];
  readonly errors: readonly string[];
}

const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git"]);

/** The test files named `fileName` in `dir` and below it (a file given directly is taken as it is), in path order. */
async function findTestFiles(path: string, fileName: string, out: string[] = []): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) throw new UsageError(`${path}: no such file or directory`);
  if (!info.isDirectory()) {
    out.push(path);
    return out;
  }
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.isDirectory() && !SKIPPED_DIRECTORIES.has(e.name)) await findTestFiles(join(path, e.name), fileName, out);
    else if (e.isFile() && e.name === fileName) out.push(join(path, e.name));
  }
  return out;
}

/** Runs one test file. */
export async function runTestFile(file: string, deps: AdmissionDeps, io: CliIO): Promise<FileOutcome> {
  const dir = dirname(file);
  let spec: TestSpec;
  try {
    spec = parseTestFile(file, await readFile(file, "utf8"), basename(dir));
  } catch (e) {
    const reason = e instanceof TestFileError ? e.reason : (e as Error).message;
    return { file, name: basename(dir), cases: [], errors: [reason] };
  }
  const at = (p: string): string => (isAbsolute(p) ? p : relative(process.cwd(), resolve(dir, p)) || ".");
  const errors: string[] = [];
  let results: CheckResult[] = [];
  try {
    const config = await loadConfig(spec.configDir === undefined ? undefined : at(spec.configDir), spec.knativeVersion ?? "auto");
    const opts = { deps, config, namespace: spec.namespace, user: spec.user };
    const expanded = await expandAllManifestPaths(spec.manifests.map(at), true);
    const { docs, errors: unreadable } = await readAllManifests(expanded.sources, io.readStdin);
    errors.push(...[...expanded.errors, ...unreadable].map((e) => e.message));
    const oldDocs = spec.old.length === 0 ? [] : await readManifests(await expandManifestPaths(spec.old.map(at), true), io.readStdin);
    const old = oldDocs.length === 0 ? undefined : await readOldObjects(oldDocs, opts);
    results = await checkDocuments(docs, { ...opts, old });
  } catch (e) {
    errors.push((e as Error).message);
  }
  const cases = spec.results.map((c): CaseOutcome => {
    const matched = results.filter((r) => caseMatches(c, r));
    if (matched.length !== 1) {
      const problem = matched.length === 0 ? "no such object in the manifests" : `${matched.length} objects match; give namespace or apiVersion`;
      return { case: c, passed: false, problems: [problem] };
    }
    const r = matched[0] as CheckResult;
    const problems = judge(c, r);
    return { case: c, passed: problems.length === 0, problems, where: `${r.source}:${r.line}` };
  });
  return { file, name: spec.name, cases, errors };
}

function caseName(c: TestCase): string {
  return `${c.kind} ${c.namespace === undefined ? "" : `${c.namespace}/`}${c.name}: ${c.result}`;
}

function formatText(outcomes: readonly FileOutcome[], failOnly: boolean): string {
  let out = "";
  for (const f of outcomes) {
    out += `${f.file} (${f.name})\n`;
    for (const e of f.errors) out += `  ERROR ${e}\n`;
    for (const c of f.cases) {
      if (failOnly && c.passed) continue;
      out += `  ${c.passed ? "PASS" : "FAIL"}  ${caseName(c.case)}\n`;
      for (const p of c.problems) out += `        ${p.split("\n").join("\n        ")}\n`;
    }
  }
  return out + summaryOf(outcomes) + "\n";
}

function summaryOf(outcomes: readonly FileOutcome[]): string {
  const cases = outcomes.flatMap((f) => f.cases);
  const passed = cases.filter((c) => c.passed).length;
  const errors = outcomes.reduce((n, f) => n + f.errors.length, 0);
  return `Summary: ${outcomes.length} test file${outcomes.length === 1 ? "" : "s"}, ${cases.length} cases: ${passed} passed, ${cases.length - passed} failed${errors === 0 ? "" : `; ${errors} error${errors === 1 ? "" : "s"}`}`;
}

function formatJson(outcomes: readonly FileOutcome[]): string {
  const cases = outcomes.flatMap((f) => f.cases);
  const passed = cases.filter((c) => c.passed).length;
  const summary = { files: outcomes.length, cases: cases.length, passed, failed: cases.length - passed, errors: outcomes.reduce((n, f) => n + f.errors.length, 0) };
  return JSON.stringify({ tests: outcomes, summary }, null, 2) + "\n";
}

function formatJunit(outcomes: readonly FileOutcome[]): string {
  return junitXml(
    "duckbill test",
    outcomes.map((f) => ({
      name: `${f.file} (${f.name})`,
      cases: [
        ...f.errors.map((e): JunitCase => ({ name: "test file", classname: f.file, error: { message: e, type: "error" } })),
        ...f.cases.map((c): JunitCase => ({
          name: caseName(c.case),
          classname: f.file,
          ...(c.passed ? {} : { failure: { message: c.problems[0] ?? "", type: "failed", text: c.problems.join("\n") } }),
        })),
      ],
    })),
  );
}

/** `duckbill test`: returns the exit code (0 all passed, 1 a case failed, 2 usage errors or a file that could not be run). */
export async function runTest(argv: string[], io: CliIO = PROCESS_IO, deps?: AdmissionDeps, env: Environment = {}): Promise<number> {
  try {
    const { values, positionals } = parseOrUsage(argv, parseArgsOptions(TEST_OPTIONS));
    if (values.help === true) {
      io.write(renderHelp(TEST_HELP));
      return 0;
    }
    const output = settingOf(TEST_OPTIONS, "output", values, env);
    if (output !== "text" && output !== "json" && output !== "junit") throw new UsageError(`--output must be text, json or junit, got "${output}"`);
    const fileName = settingOf(TEST_OPTIONS, "file-name", values, env);
    const files: string[] = [];
    for (const p of positionals.length === 0 ? ["."] : positionals) await findTestFiles(p, fileName, files);
    if (files.length === 0) throw new UsageError(`no ${fileName} in ${(positionals.length === 0 ? ["."] : positionals).join(", ")}`);
    const admission = deps ?? defaultDeps();
    const outcomes: FileOutcome[] = [];
    for (const f of files) outcomes.push(await runTestFile(f, admission, io));
    io.write(output === "json" ? formatJson(outcomes) : output === "junit" ? formatJunit(outcomes) : formatText(outcomes, values["fail-only"] === true));
    if (outcomes.some((f) => f.errors.length > 0)) return 2;
    return outcomes.some((f) => f.cases.some((c) => !c.passed)) ? 1 : 0;
  } catch (e) {
    return exitOnError("test", e, io);
  }
}
