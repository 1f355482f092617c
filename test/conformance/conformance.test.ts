/**
 * The conformance suite, per Knative release: every vector of the release (test/conformance/vectors = 1.17,
 * knative-1.23/, knative-1.24/), answered through admitBatch (the code of `duckbill admit --batch`) with that
 * release's profile, judged by compare.ts, held against the release's known-failures file (README-harness.md).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNATIVE_VERSIONS, PROFILES, knativeProfile } from "../../src/config/profile.js";
import { answerThroughBatch, type BatchResult, type VectorLine } from "./batch-runner.js";
import { categoryOf, judge, type Vector } from "./compare.js";
import { readKnownFailures, writeKnownFailures, type KnownFailures } from "./known-failures.js";
import { runCompareCliOn } from "./python-referee.js";
import { CONFORMANCE_DIR, RELEASES, SHARED_CONFORMANCE_DIR, sharedAvailable, type ReleaseVectors } from "./paths.js";

const UPDATE = process.env.UPDATE_KNOWN_FAILURES === "1";

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
}

interface Verdict {
  readonly vector: Vector;
  /** undefined when the answer conforms. */
  readonly reason: string | undefined;
}

function listing(items: readonly string[]): string {
  return items.map((s) => `  ${s.replaceAll("\n", "\\n")}`).join("\n");
}

function suite(release: ReleaseVectors): void {
  const VECTORS_DIR = release.dir;
  const KNOWN_FAILURES_FILE = release.knownFailuresFile;
  const KNOWN = KNOWN_FAILURES_FILE.slice(CONFORMANCE_DIR.length + 1);
  // Read at collection time: the categories become test names.
  const FILES = jsonlFiles(VECTORS_DIR);
  const LINES: VectorLine[] = [];
  const VECTORS: Vector[] = [];
  for (const file of FILES) {
    for (const [i, text] of readFileSync(join(VECTORS_DIR, file), "utf8").split("\n").entries()) {
      if (text.trim() === "") continue;
      const v = JSON.parse(text) as Vector;
      if (typeof v.name !== "string" || typeof v.expect !== "object") throw new Error(`${file}:${i + 1}: not a vector (no name or expect); run npm run vectors:sync`);
      VECTORS.push(v);
      LINES.push({ name: v.name, text });
    }
  }
  const NAMES = new Set(VECTORS.map((v) => v.name));
  const CATEGORIES = [...new Set(VECTORS.map((v) => categoryOf(v.name)))].sort();

  let batch: BatchResult;
  let verdicts: Verdict[] = [];
  let known: KnownFailures = { names: [], problems: [] };

  beforeAll(async () => {
    // The newest release's vectors are answered as `--knative-version auto` answers without a cluster (the
    // default of every command), which must be that release.
    const profile = release.version === KNATIVE_VERSIONS[0] ? knativeProfile("auto") : PROFILES[release.version];
    expect(profile).toBe(PROFILES[release.version]);
    batch = await answerThroughBatch(LINES, profile);
    verdicts = VECTORS.map((vector) => {
      const crash = batch.crashes.get(vector.name);
      return { vector, reason: crash !== undefined ? `admitBatch threw: ${crash}` : judge(vector, batch.answers.get(vector.name)) };
    });
    if (UPDATE) {
      writeKnownFailures(
        KNOWN_FAILURES_FILE,
        verdicts.filter((v) => v.reason !== undefined).map((v) => v.vector.name),
      );
    }
    known = readKnownFailures(KNOWN_FAILURES_FILE);
  });

  afterAll(() => {
    if (verdicts.length === 0) return;
    const rows = CATEGORIES.map((c) => {
      const mine = verdicts.filter((v) => categoryOf(v.vector.name) === c);
      return [c, mine.filter((v) => v.reason === undefined).length, mine.length] as const;
    });
    const width = Math.max(8, ...CATEGORIES.map((c) => c.length));
    const table = [`${"category".padEnd(width)} ${"passed".padStart(8)} ${"total".padStart(8)}`, ...rows.map(([c, ok, n]) => `${c.padEnd(width)} ${String(ok).padStart(8)} ${String(n).padStart(8)}`)];
    const failed = verdicts.filter((v) => v.reason !== undefined).length;
    console.log(
      [
        ...table,
        "",
        `answered ${verdicts.length} vectors through admitBatch in ${Math.round(batch.elapsedMs)} ms`,
        `conformance ${release.version}: ${verdicts.length - failed} passed, ${failed} failed`,
      ].join("\n"),
    );
  });

  describe("conformance vectors", () => {
    it("admitBatch answers every vector line without throwing or rejecting a line", () => {
      const crashes = [...batch.crashes].map(([name, e]) => `${name}: ${e}`);
      expect(crashes, `admitBatch threw on:\n${listing(crashes)}`).toEqual([]);
      expect(batch.unreadable, `admitBatch could not read:\n${listing(batch.unreadable)}`).toEqual([]);
    });

    it.each(CATEGORIES)(`%s: only the vectors in ${KNOWN} fail`, (category) => {
      const listed = new Set(known.names);
      const unexpected: string[] = [];
      const fixed: string[] = [];
      for (const { vector, reason } of verdicts) {
        if (categoryOf(vector.name) !== category) continue;
        if (reason !== undefined && !listed.has(vector.name)) unexpected.push(`${vector.name}: ${reason}`);
        if (reason === undefined && listed.has(vector.name)) fixed.push(`${vector.name} passes now: remove it from ${KNOWN}`);
      }
      const message = [
        unexpected.length > 0 ? `${unexpected.length} vector(s) fail that ${KNOWN} does not list:\n${listing(unexpected)}` : "",
        fixed.length > 0 ? `${fixed.length} listed vector(s) pass:\n${listing(fixed)}` : "",
      ]
        .filter((s) => s !== "")
        .join("\n");
      expect(unexpected.length + fixed.length, message).toBe(0);
    });

    it(`${KNOWN} lists existing vectors, sorted, each once`, () => {
      const unknown = known.names.filter((n) => !NAMES.has(n)).map((n) => `${n}: no such vector`);
      const problems = [...known.problems, ...unknown];
      expect(problems, `${KNOWN}:\n${listing(problems)}`).toEqual([]);
    });
  });

  describe("referee", () => {
    it("compare.ts gives compare.py's verdicts and reasons on this run's answers", () => {
      expect(verdicts.length).toBe(VECTORS.length);
      if (!sharedAvailable()) {
        return;
      }
      const py = runCompareCliOn(VECTORS_DIR, VECTORS, [...batch.answers.values()]);
      const disagreements: string[] = [];
      for (const { vector, reason } of verdicts) {
        if (batch.crashes.has(vector.name)) continue;
        const ts = reason?.replaceAll("\n", "\\n");
        const want = py.failures.get(vector.name);
        if (ts !== want) disagreements.push(`${vector.name}: compare.ts says ${ts ?? "pass"}, compare.py says ${want ?? "pass"}`);
      }
      expect(disagreements, `compare.ts and compare.py disagree:\n${listing(disagreements)}`).toEqual([]);
    });
  });

  describe("vector copy", () => {
    it(`test/conformance matches ../shared/conformance byte for byte (npm run vectors:sync)`, () => {
      expect(FILES.length).toBeGreaterThan(0);
      if (!sharedAvailable()) {
        return;
      }
      const shared = jsonlFiles(release.sharedDir);
      expect(FILES, "vector file set differs from ../shared: run npm run vectors:sync").toEqual(shared);
      const stale = [...shared.map((f) => [join(release.sharedDir, f), join(VECTORS_DIR, f), `${VECTORS_DIR.slice(CONFORMANCE_DIR.length + 1)}/${f}`] as const), [join(SHARED_CONFORMANCE_DIR, "README.md"), join(CONFORMANCE_DIR, "README.md"), "README.md"] as const]
        .filter(([from, to]) => !existsSync(to) || !readFileSync(from).equals(readFileSync(to)))
        .map(([, , label]) => label);
      expect(stale, "differs from ../shared/conformance: run npm run vectors:sync").toEqual([]);
    });
  });
}

for (const release of RELEASES) describe(`Knative ${release.version}`, () => suite(release));
