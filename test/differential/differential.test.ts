/**
 * Differential testing against Knative's own webhook (`npm run test:differential`, opt-in; issue [11]). For each
 * release, fast-check generates cases from the release's public vectors (test/differential/cases.ts: mutated,
 * grafted, other configs, operations and paths), sends each to Knative (reference/, batch mode) and to Duckbill (in
 * process, admitBatch), and judges Duckbill's answer against Knative's with the conformance rules
 * (test/conformance/compare.ts, Knative's answer taking the place of `expect`). Mismatches are grouped by a
 * signature (the referee's reason without numbers); the first case of each group is shrunk and printed as a
 * ready vector line. Cases Knative's handler crashes on are counted, not compared.
 *
 *   DIFF_RUNS=100000 DIFF_SEED=7 RELEASE=1.24 npm run test:differential
 *
 * Five families of cases: mutated from the vectors (cases.ts), drawn from the Go type model (type-cases.ts: every
 * field path set to valid, invalid, zero, empty, null or absent values in new, old or both objects), the
 * ConfigMaps' keys set to every value grammar's edges (configmap-cases.ts: in /config-validation reviews and in the
 * `configs` admission runs under; with the keys Knative's parsers read that no vector shows, knative-keys.ts), reviews
 * whose text repeats a key (repeated-cases.ts; DIFF_REPEAT_RUNS), and the annotations Knative reads set to those
 * edges on the vectors' objects (annotation-cases.ts; DIFF_ANNOTATION_RUNS).
 *
 * DIFF_RUNS cases per release and family (default 10,000 mutated, 5,000 typed: DIFF_TYPE_RUNS, 5,000 ConfigMap cases:
 * DIFF_CONFIGMAP_RUNS; a million for long runs), DIFF_FAMILIES (mutated,typed,configmaps,repeated,annotations), DIFF_EXACT=1 (patched objects compared as they are, nulls and empties included),
 * DIFF_VARIES (ask Knative that many more times about every case and list where its
 * own answers differ: test/conformance/known-differences.md "Where Knative varies"), DIFF_SEED (default 20261126), RELEASE (comma-separated), DIFF_SHRINK
 * (groups shrunk, default 25), DIFF_OUT (a directory: every mismatch and the shrunk ones as JSON lines).
 * Differences that are known and explained are listed in test/conformance/known-differences.md; the suite fails on
 * any other.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, type KnativeRelease } from "../../scripts/reference-build.mjs";
import { PROFILES } from "../../src/config/profile.js";
import { decodePatch, firstDiff, judge, type Answer, type Vector } from "../conformance/compare.js";
import { applyPatch, PatchError } from "../conformance/json-patch.js";
import { CONFORMANCE_DIR, RELEASES } from "../conformance/paths.js";
import { duckbillAnswerer, expectFrom, ReferenceProcess } from "./answerers.js";
import { buildCase, buildPools, planArb, smaller, type Case, type Plan } from "./cases.js";
import { buildTypeCase, typeCorpus, typePlanArb, type TypePlan } from "./type-cases.js";
import { buildConfigMapCase, configMapPlanArb, configMapPools, type ConfigMapPlan } from "./configmap-cases.js";
import { knativeConfigMapKeys } from "./knative-keys.js";
import { annotationCorpus, annotationPlanArb, buildAnnotationCase, type AnnotationPlan } from "./annotation-cases.js";
import { buildRepeatCase, goViewLine, lineText, repeatPlanArb, type RepeatPlan } from "./repeated-cases.js";

const RUNS = Number(process.env.DIFF_RUNS ?? 10000);
/** Type-model cases per release (test/differential/type-cases.ts): DIFF_TYPE_RUNS, else DIFF_RUNS, else 5,000. */
const TYPE_RUNS = Number(process.env.DIFF_TYPE_RUNS ?? process.env.DIFF_RUNS ?? 5000);
/** ConfigMap cases per release (test/differential/configmap-cases.ts): DIFF_CONFIGMAP_RUNS, else DIFF_RUNS, else 5,000. */
const CONFIGMAP_RUNS = Number(process.env.DIFF_CONFIGMAP_RUNS ?? process.env.DIFF_RUNS ?? 5000);
/** Repeated-key cases per release (test/differential/repeated-cases.ts): DIFF_REPEAT_RUNS, else DIFF_RUNS, else 3,000. */
const REPEAT_RUNS = Number(process.env.DIFF_REPEAT_RUNS ?? process.env.DIFF_RUNS ?? 3000);
/** Annotation cases per release (test/differential/annotation-cases.ts): DIFF_ANNOTATION_RUNS, else DIFF_RUNS, else 5,000. */
const ANNOTATION_RUNS = Number(process.env.DIFF_ANNOTATION_RUNS ?? process.env.DIFF_RUNS ?? 5000);
/** DIFF_FAMILIES: which case families run (comma-separated: mutated, typed, configmaps, repeated, annotations; default all five). */
const FAMILIES = (process.env.DIFF_FAMILIES ?? "mutated,typed,configmaps,repeated,annotations").split(",").map((s) => s.trim());
const SEED = Number(process.env.DIFF_SEED ?? 20261126);
const SHRINK_GROUPS = Number(process.env.DIFF_SHRINK ?? 25);
const ONLY = process.env.RELEASE?.split(",").map((s) => s.trim());
const OUT = process.env.DIFF_OUT;
const CHUNK = 64;
const SHRINK_ATTEMPTS = 1500;
/** DIFF_VARIES=N: ask Knative N more times about every case and report where its own answers differ (Go's map order). */
const VARIES = Number(process.env.DIFF_VARIES ?? 0);
/**
 * DIFF_EXACT=1: also compare the patched objects of answers both allow as they are; the referee drops null and empty
 * members before comparing (compare.py normalize), which hides e.g. a `"creationTimestamp": null` Knative never writes.
 */
const EXACT = process.env.DIFF_EXACT === "1";
/**
 * How many more times Knative is asked when Duckbill's answer differs from its first. Go's map order is not uniform:
 * in a small map the key in the first slot comes first from half the starting offsets and some other key from one
 * in eight, so with six asks a config-logging case with three invalid levels still missed Duckbill's (the one in
 * eight) in a 100,000-case run; with thirty that is (7/8)^30 ≈ 2 %. Only mismatches are asked again.
 */
const KNATIVE_RETRIES = 30;

function readVectors(dir: string): Vector[] {
  const out: Vector[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl")).sort()) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) if (line.trim() !== "") out.push(JSON.parse(line) as Vector);
  }
  return out;
}

/** A row of known-differences.md's table: a mismatch whose summary matches `pattern` in one of `releases` is known. */
export interface KnownDifference {
  readonly id: string;
  readonly releases: readonly string[];
  readonly pattern: RegExp;
}

/**
 * The table rows of test/conformance/known-differences.md: `| id | releases | \`regex\` | why |`, `\|` standing
 * for `|` inside a cell (GitHub's table syntax), releases `*` or comma-separated.
 */
export function knownDifferences(text: string): KnownDifference[] {
  const out: KnownDifference[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim().replaceAll("\\|", "|"));
    const [id, releases, pattern] = cells.map((c) => c.replace(/^`|`$/g, ""));
    if (id === undefined || releases === undefined || pattern === undefined) continue;
    out.push({ id, releases: releases.split(",").map((r) => r.trim()), pattern: new RegExp(pattern) });
  }
  return out;
}

function blur(s: string): string {
  return s.replace(/\d+/g, "N");
}

/** The text around the first character where got and want part, numbers blurred. */
function where(got: string, want: string): string {
  let l = 0;
  while (l < got.length && l < want.length && got[l] === want[l]) l++;
  const around = (t: string): string => blur(t.slice(Math.max(0, l - 30), l + 30));
  return `want …${around(want)}… got …${around(got)}…`;
}

function said(a: { httpStatus?: unknown; body?: unknown; review?: unknown; response?: unknown } | undefined, patched?: string): string {
  if (a === undefined) return "";
  const resp = (a.response ?? (a.review as { response?: unknown } | undefined)?.response) as { allowed?: unknown; status?: { message?: unknown } } | undefined;
  if (a.httpStatus !== 200 || resp === undefined) return `${String(a.httpStatus)} ${String(a.body ?? "").trim()}`;
  if (resp.allowed === true) return `200 allowed${patched ?? ""}`;
  return `200 denied: ${String(resp.status?.message ?? "")}`;
}

/** What a mismatch is matched against in known-differences.md: its signature, both answers, the input line. */
export function summary(sig: string, reason: string, exp: Vector["expect"] | undefined, duck: Answer, line: Record<string, unknown>): string {
  const { name: _name, ...input } = line;
  return `${sig}\nreason: ${reason}\nknative: ${said(exp)}\nduckbill: ${said(duck)}\ninput: ${JSON.stringify(input).slice(0, 4000)}`;
}

/** What Knative answered, in short: the body, or the denial message. */
function knativeSaid(exp: Vector["expect"] | undefined): string {
  if (exp === undefined) return "";
  const status = (exp.response as { status?: { message?: unknown } } | undefined)?.status;
  const text = exp.body ?? (typeof status?.message === "string" ? status.message : "allowed");
  return blur(text).slice(0, 110);
}

/**
 * A mismatch's group: `<path> <detail>`, the detail saying what differs and where, numbers blurred: for httpStatus
 * and allowed/denied, the two verdicts and what Knative said; for `X <got>, want <want>` reasons, the field and the
 * text around the first character where got and want part; for patched objects, the JSON path.
 */
export function signature(line: Record<string, unknown>, reason: string, exp?: Vector["expect"]): string {
  const path = String(line.path);
  const status = /^httpStatus (\S+), want (\S+)$/.exec(reason);
  if (status !== null) return `${path} httpStatus ${status[1]}, want ${status[2]}: ${knativeSaid(exp)}`;
  if (reason.startsWith("allowed, want denied")) return `${path} allowed, want denied: ${knativeSaid(exp)}`;
  if (reason.startsWith("denied (")) return `${path} denied, want allowed: ${blur(reason.slice(8, 118))}`;
  const at = /^(patched object differs at|exact patched object differs at|unexpected patch changes the object at) (\S+?):/.exec(reason);
  if (at !== null) return `${path} ${at[1]} ${(at[2] as string).replace(/\/\d+/g, "/N")}`;
  const m = /^([a-zA-Z.]+) ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[.*\]|\S+), want ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[.*\]|.+)$/s.exec(reason);
  if (m !== null) return `${path} ${m[1] as string}: ${where(m[2] as string, m[3] as string)}`;
  return `${path} ${blur(reason).slice(0, 140)}`;
}

interface Outcome {
  /** The referee's reason when Duckbill's answer differs; undefined when it conforms or there is nothing to compare. */
  readonly reason: string | undefined;
  /** Knative's handler panicked (no answer), or its JSON Patch does not apply to the object (e.g. "metadata": null,
   * which Go decodes as an empty ObjectMeta: the API server would reject it): nothing to compare with. */
  readonly skipped?: "knative-crashed" | "knative-bad-patch" | "knative-nondeterministic";
  readonly expect?: Vector["expect"];
  readonly duckbill?: Answer;
  /** The mismatch's group and the text known-differences.md's patterns are matched against. */
  readonly signature?: string;
  readonly summary?: string;
}

/** DIFF_EXACT: where the patched objects of two allowing answers differ, members compared as they are. */
function exactReason(line: Record<string, unknown>, knative: Answer, duckbill: Answer): string | undefined {
  const response = (a: Answer): Record<string, unknown> | undefined => (a.review as { response?: Record<string, unknown> } | undefined)?.response;
  const rk = response(knative);
  const rd = response(duckbill);
  if (rk?.allowed !== true || rd?.allowed !== true) return undefined;
  const object = (line.review as { request?: { object?: unknown } } | undefined)?.request?.object;
  try {
    const want = applyPatch(object, decodePatch(rk) ?? []);
    const got = applyPatch(object, decodePatch(rd) ?? []);
    const d = firstDiff(got, want);
    return d === undefined ? undefined : `exact patched object differs at ${d}`;
  } catch {
    return undefined;
  }
}

/**
 * The line as the referee should see it beside Knative's answer: the referee checks response.uid against request.uid
 * as the vectors spell it; Go matches JSON keys without regard to case, so for `"Uid": "x"` Knative answers uid "x".
 * Duckbill must answer Knative's uid.
 */
function judgedLine(line: Record<string, unknown>, exp: Vector["expect"]): Record<string, unknown> {
  const knativeUid = (exp?.response as { uid?: unknown } | undefined)?.uid;
  const request = (line.review as { request?: Record<string, unknown> } | undefined)?.request;
  if (typeof knativeUid === "string" && request !== null && typeof request === "object" && request.uid !== knativeUid) {
    return { ...line, review: { ...(line.review as object), request: { ...request, uid: knativeUid } } };
  }
  return line;
}

async function compare(sent: Record<string, unknown>, ref: ReferenceProcess, duck: (t: string) => Promise<Answer>): Promise<Outcome> {
  // Written with any repeated keys (repeated-cases.ts); judged on the object Knative's decoding sees.
  const text = lineText(sent);
  const line = goViewLine(sent);
  const [k, d] = await Promise.all([ref.ask(text), duck(text)]);
  let exp: Vector["expect"] | undefined;
  try {
    exp = expectFrom(line, k);
  } catch (e) {
    if (e instanceof PatchError) return { reason: undefined, skipped: "knative-bad-patch" };
    throw e;
  }
  if (exp === undefined) return { reason: undefined, skipped: "knative-crashed" };
  const judged = judgedLine(line, exp);
  const reason = judge({ ...(judged as unknown as Vector), expect: exp }, d) ?? (EXACT ? exactReason(line, k, d) : undefined);
  if (reason === undefined) return { reason, expect: exp, duckbill: d };
  // Knative answers some inputs nondeterministically: with two invalid entries in config-logging or config-domain it
  // reports whichever Go's randomised map order meets first. Ask again; one of its answers is as good as another.
  for (let retry = 0; retry < KNATIVE_RETRIES; retry++) {
    const again = await ref.ask(text);
    if (JSON.stringify(again) === JSON.stringify(k)) continue;
    let exp2: Vector["expect"] | undefined;
    try {
      exp2 = expectFrom(line, again);
    } catch {
      continue;
    }
    if (exp2 !== undefined && judge({ ...(judged as unknown as Vector), expect: exp2 }, d) === undefined && (!EXACT || exactReason(line, again, d) === undefined)) {
      return { reason: undefined, skipped: "knative-nondeterministic" };
    }
  }
  const sig = signature(line, reason, exp);
  return { reason, expect: exp, duckbill: d, signature: sig, summary: summary(sig, reason, exp, d, line) };
}

/**
 * Whether Knative answers a case in more than one way (DIFF_VARIES more asks, each judged against the first as
 * Duckbill's answer would be): the signature of the first differing answer, or undefined.
 */
async function knativeVaries(sent: Record<string, unknown>, ref: ReferenceProcess): Promise<string | undefined> {
  const text = lineText(sent);
  const line = goViewLine(sent);
  const first = await ref.ask(text);
  let exp: Vector["expect"] | undefined;
  try {
    exp = expectFrom(line, first);
  } catch {
    return undefined;
  }
  if (exp === undefined) return undefined;
  for (let i = 0; i < VARIES; i++) {
    const again = await ref.ask(text);
    const reason = judge({ ...(judgedLine(line, exp) as unknown as Vector), expect: exp }, again);
    if (reason !== undefined) return signature(line, reason, exp);
  }
  return undefined;
}

/** Greedy shrinking: drop configs entries and review members while the mismatch keeps its signature and stays unknown. */
async function shrink(line: Record<string, unknown>, keep: (o: Outcome) => boolean, ref: ReferenceProcess, duck: (t: string) => Promise<Answer>): Promise<{ line: Record<string, unknown>; outcome: Outcome }> {
  let best = line;
  let bestOutcome = await compare(best, ref, duck);
  let attempts = 0;
  for (let progress = true; progress && attempts < SHRINK_ATTEMPTS; ) {
    progress = false;
    for (const candidate of smaller(best)) {
      if (++attempts > SHRINK_ATTEMPTS) break;
      const o = await compare(candidate, ref, duck);
      if (keep(o)) {
        best = candidate;
        bestOutcome = o;
        progress = true;
        break;
      }
    }
  }
  return { line: best, outcome: bestOutcome };
}

function readKnown(version: string): KnownDifference[] {
  let text = "";
  try {
    text = readFileSync(join(CONFORMANCE_DIR, "known-differences.md"), "utf8");
  } catch {
    return [];
  }
  return knownDifferences(text).filter((k) => k.releases.includes("*") || k.releases.includes(version));
}

interface Group {
  count: number;
  readonly first: Case;
  readonly index: number;
  readonly summary: string;
}

/** Runs cases through both webhooks and reports (and fails on) the differences known-differences.md does not explain. */
async function runCases(version: string, family: string, cases: readonly Case[], ref: ReferenceProcess, duck: (t: string) => Promise<Answer>): Promise<void> {
  const known = readKnown(version);
  const classify = (summaryText: string): string | undefined => known.find((k) => k.pattern.test(summaryText))?.id;
  const knownCounts = new Map<string, Group>();
  const unknown = new Map<string, Group>();
  const skipped = { "knative-crashed": 0, "knative-bad-patch": 0, "knative-nondeterministic": 0 };
  const varies = new Map<string, Group>();
  const started = performance.now();
  for (let i = 0; i < cases.length; i += CHUNK) {
    const chunk = cases.slice(i, i + CHUNK);
    if (VARIES > 0) {
      const found = await Promise.all(chunk.map((c) => knativeVaries(c.line, ref)));
      found.forEach((sig, j) => {
        if (sig === undefined) return;
        const g = varies.get(sig);
        if (g === undefined) varies.set(sig, { count: 1, first: chunk[j] as Case, index: i + j, summary: sig });
        else g.count++;
      });
    }
    const outcomes = await Promise.all(chunk.map((c) => compare(c.line, ref, duck)));
    outcomes.forEach((o, j) => {
      if (o.skipped !== undefined) skipped[o.skipped]++;
      if (o.reason === undefined || o.signature === undefined || o.summary === undefined) return;
      const id = classify(o.summary);
      const table = id === undefined ? unknown : knownCounts;
      const key = id ?? o.signature;
      const g = table.get(key);
      if (g === undefined) table.set(key, { count: 1, first: chunk[j] as Case, index: i + j, summary: o.summary });
      else g.count++;
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const total = (m: Map<string, Group>): number => [...m.values()].reduce((n, g) => n + g.count, 0);
  const report: string[] = [
    `differential ${version} (${family}): ${cases.length} cases (seed ${SEED}) in ${seconds.toFixed(1)} s; not compared: Knative crashed on ` +
      `${skipped["knative-crashed"]}, answered ${skipped["knative-bad-patch"]} with a patch that does not apply; ` +
      `Duckbill gave one of Knative's answers where Knative varies: ${skipped["knative-nondeterministic"]}; ` +
      `${total(knownCounts)} known differences (${knownCounts.size} kinds), ${total(unknown)} unknown in ${unknown.size} groups`,
  ];
  if (VARIES > 0) report.push(`  Knative's own answers varied (${VARIES + 1} asks) on ${total(varies)} cases in ${varies.size} groups`);
  for (const [sig, g] of [...varies].sort((a, b) => b[1].count - a[1].count)) {
    report.push(`  ${String(g.count).padStart(6)}  VARIES ${sig}`);
    report.push(`          e.g. case ${g.index}: ${JSON.stringify({ ...g.first.line, name: undefined }).slice(0, 1500)}`);
  }
  for (const [id, g] of [...knownCounts].sort((a, b) => b[1].count - a[1].count)) report.push(`  ${String(g.count).padStart(6)}  known ${id}  (e.g. case ${g.index}: ${g.summary.split("\n")[0]})`);
  const shrunkLines: string[] = [];
  let shrunk = 0;
  for (const [sig, g] of [...unknown].sort((a, b) => b[1].count - a[1].count)) {
    report.push(`  ${String(g.count).padStart(6)}  NEW   ${sig}`);
    report.push(`          first: case ${g.index}, from ${g.first.base}: ${g.first.description.join("; ")}`);
    if (shrunk++ >= SHRINK_GROUPS) continue;
    const s = await shrink(g.first.line, (o) => o.signature === sig && o.summary !== undefined && classify(o.summary) === undefined, ref, duck);
    const vectorLine = lineText({ ...s.line, name: `differential/${version}/${family}/${g.index}`, expect: s.outcome.expect });
    shrunkLines.push(vectorLine);
    report.push(`          shrunk: ${vectorLine.length > 3000 ? `${vectorLine.slice(0, 3000)}…` : vectorLine}`);
    report.push(`          ${(s.outcome.summary ?? "").split("\n").slice(1).join("\n          ")}`);
  }
  console.log(report.join("\n"));
  if (OUT !== undefined) {
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, `shrunk-${family}-${version}.jsonl`), shrunkLines.join("\n") + (shrunkLines.length > 0 ? "\n" : ""));
    writeFileSync(join(OUT, `report-${family}-${version}.txt`), report.join("\n") + "\n");
  }
  expect([...unknown].map(([sig, g]) => `${g.count}× ${sig}`)).toEqual([]);
}

for (const release of RELEASES) {
  const version = release.version as KnativeRelease;
  const dir = release.dir;
  describe.skipIf(ONLY !== undefined && !ONLY.includes(version))(`Duckbill and Knative ${version}'s own webhook, on generated cases`, () => {
    let ref: ReferenceProcess;
    let duck: (t: string) => Promise<Answer>;
    let corpus: Vector[];

    beforeAll(async () => {
      corpus = readVectors(dir).filter((v) => v.review !== undefined);
      ref = new ReferenceProcess(await ensureBuilt(version));
      duck = duckbillAnswerer(PROFILES[version]);
    });
    afterAll(async () => ref?.close());

    it.skipIf(!FAMILIES.includes("mutated"))(`answers as Knative does on ${RUNS} cases mutated from its vectors, or as known-differences.md says`, async () => {
      const pools = buildPools(corpus);
      const plans: Plan[] = fc.sample(planArb(corpus.length), { seed: SEED, numRuns: RUNS });
      const cases = plans.map((p, i) => buildCase(corpus, pools, p, `differential/${version}/${SEED}/${i}`));
      await runCases(version, "mutated", cases, ref, duck);
    });

    it.skipIf(!FAMILIES.includes("typed"))(`answers as Knative does on ${TYPE_RUNS} cases drawn from the Go type model, or as known-differences.md says`, async () => {
      const typed = typeCorpus(corpus);
      const plans: TypePlan[] = fc.sample(typePlanArb(typed.length), { seed: SEED, numRuns: TYPE_RUNS });
      const cases = plans.map((p, i) => buildTypeCase(typed, p, `differential/${version}/typed/${SEED}/${i}`));
      await runCases(version, "typed", cases, ref, duck);
    });

    it.skipIf(!FAMILIES.includes("repeated"))(`answers as Knative does on ${REPEAT_RUNS} cases whose review repeats a key, or as known-differences.md says`, async () => {
      const plans: RepeatPlan[] = fc.sample(repeatPlanArb(corpus.length), { seed: SEED, numRuns: REPEAT_RUNS });
      const cases = plans.map((p, i) => buildRepeatCase(corpus, p, `differential/${version}/repeated/${SEED}/${i}`));
      await runCases(version, "repeated", cases, ref, duck);
    });

    it.skipIf(!FAMILIES.includes("configmaps"))(`answers as Knative does on ${CONFIGMAP_RUNS} cases setting ConfigMap keys to every value grammar's edges, or as known-differences.md says`, async () => {
      const pools = configMapPools(corpus, knativeConfigMapKeys(version));
      const plans: ConfigMapPlan[] = fc.sample(configMapPlanArb(), { seed: SEED, numRuns: CONFIGMAP_RUNS });
      const cases = plans.map((p, i) => buildConfigMapCase(pools, p, `differential/${version}/configmaps/${SEED}/${i}`));
      await runCases(version, "configmaps", cases, ref, duck);
    });

    it.skipIf(!FAMILIES.includes("annotations"))(`answers as Knative does on ${ANNOTATION_RUNS} cases setting the annotations Knative reads to every value grammar's edges, or as known-differences.md says`, async () => {
      const annotated = annotationCorpus(corpus);
      const plans: AnnotationPlan[] = fc.sample(annotationPlanArb(annotated.length), { seed: SEED, numRuns: ANNOTATION_RUNS });
      const cases = plans.map((p, i) => buildAnnotationCase(annotated, p, `differential/${version}/annotations/${SEED}/${i}`));
      await runCases(version, "annotations", cases, ref, duck);
    });
  });
}
