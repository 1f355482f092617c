/**
 * Proof that reference/ is Knative (`npm run test:reference`, not part of `npm test`): every public vector of each
 * release (../shared/conformance/vectors = 1.17, knative-1.23/, knative-1.24/; the repo's copies in
 * test/conformance/ without ../shared) is answered by that release's reference in batch mode and judged by the
 * conformance referee (test/conformance/compare.ts) and, when ../shared is there, by compare.py itself. The
 * vectors were produced by Knative's code, so every one must pass: a miss means the wiring differs from
 * cmd/webhook/main.go (kinds, config store, dry run, envelope). The references are built first
 * (scripts/reference-build.mjs: minutes the first time, cached in ~/.cache/duckbill-reference).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, type KnativeRelease } from "../../scripts/reference-build.mjs";
import { categoryOf, judge, type Answer, type Vector } from "../conformance/compare.js";
import { RELEASES, sharedAvailable } from "../conformance/paths.js";
import { runCompareCliOn } from "../conformance/python-referee.js";

/** RELEASE=1.24 (or a comma-separated list) runs only those releases. */
const ONLY = process.env.RELEASE?.split(",").map((s) => s.trim());

interface Corpus {
  readonly dir: string;
  readonly text: string;
  readonly vectors: readonly Vector[];
}

function readCorpus(dir: string): Corpus {
  const vectors: Vector[] = [];
  let text = "";
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl")).sort()) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      vectors.push(JSON.parse(line) as Vector);
      text += line + "\n";
    }
  }
  return { dir, text, vectors };
}

interface BatchRun {
  readonly answers: readonly Answer[];
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly elapsedMs: number;
}

/** The reference binary in batch mode: the corpus on stdin, answer lines on stdout. */
function runBatch(binary: string, input: string): Promise<BatchRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(binary, ["--batch"], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      const answers = Buffer.concat(out)
        .toString("utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Answer);
      resolve({ answers, stderr: Buffer.concat(err).toString("utf8"), exitCode: code, elapsedMs: performance.now() - started });
    });
    child.stdin.end(input);
  });
}

function table(vectors: readonly Vector[], failed: ReadonlySet<string>): string {
  const rows = new Map<string, [number, number]>();
  for (const v of vectors) {
    const c = categoryOf(v.name);
    const r = rows.get(c) ?? [0, 0];
    r[1]++;
    if (!failed.has(v.name)) r[0]++;
    rows.set(c, r);
  }
  const lines = ["category            passed    total"];
  for (const [c, [p, t]] of [...rows].sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`${c.padEnd(18)}${String(p).padStart(8)}${String(t).padStart(9)}`);
  return lines.join("\n");
}

for (const release of RELEASES) {
  const version = release.version as KnativeRelease;
  const dir = existsSync(release.sharedDir) ? release.sharedDir : release.dir;
  const skip = (ONLY !== undefined && !ONLY.includes(version)) || !existsSync(dir);

  describe.skipIf(skip)(`Knative ${version}'s own webhook (reference/knative-${version})`, () => {
    let corpus: Corpus;
    let run: BatchRun;
    let byName: Map<string, Answer>;

    beforeAll(async () => {
      corpus = readCorpus(dir);
      const binary = await ensureBuilt(version);
      run = await runBatch(binary, corpus.text);
      byName = new Map();
      for (const a of run.answers) if (typeof a.name === "string" && !byName.has(a.name)) byName.set(a.name, a);
    });

    it("answers every line", () => {
      const unreadable = run.answers.filter((a) => typeof a.name !== "string");
      expect(unreadable, "lines the reference could not read").toEqual([]);
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      expect(run.answers.length).toBe(corpus.vectors.length);
    });

    it("passes every public vector (the referee's verdicts)", () => {
      const failures = corpus.vectors.flatMap((v) => {
        const reason = judge(v, byName.get(v.name));
        return reason === undefined ? [] : [`${v.name}: ${reason}`];
      });
      const failed = new Set(failures.map((f) => f.slice(0, f.indexOf(": "))));
      const passed = corpus.vectors.length - failures.length;
      console.log(
        `${table(corpus.vectors, failed)}\n\nreference ${version} (${dir}): ${passed} passed, ${failures.length} failed ` +
          `(${((100 * passed) / corpus.vectors.length).toFixed(2)} %), batch ${Math.round(run.elapsedMs)} ms`,
      );
      expect(failures).toEqual([]);
    });

    it.skipIf(!sharedAvailable())("compare.py gives the same verdict", () => {
      const py = runCompareCliOn(dir, corpus.vectors, run.answers);
      expect([...py.failures].map(([n, r]) => `${n}: ${r}`)).toEqual([]);
      expect(py.passed).toBe(corpus.vectors.length);
    });
  });
}
