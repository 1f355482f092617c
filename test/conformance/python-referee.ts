/**
 * Runs ../shared/conformance/compare.py on the same data as compare.ts, so the tests can check that the TypeScript
 * referee gives the Python referee's verdicts (and reasons).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Answer, Vector } from "./compare.js";
import { SHARED_COMPARE_PY } from "./paths.js";

export interface PythonVerdicts {
  /** Failing case name → reason as compare.py prints it (newlines shown as `\n`). */
  readonly failures: ReadonlyMap<string, string>;
  readonly passed: number;
  readonly failed: number;
}

/** `python3 compare.py VECTORS OUTPUT` on the given vectors and answers (answers without a name are omitted). */
export function runCompareCli(vectors: readonly Vector[], answers: readonly Answer[]): PythonVerdicts {
  return withTempDir((dir) => {
    const vecFile = join(dir, "vectors.jsonl");
    writeFileSync(vecFile, vectors.map((v) => JSON.stringify(v)).join("\n") + "\n");
    return runCompareCliOn(vecFile, vectors, answers);
  });
}

/** `python3 compare.py VECTORS OUTPUT` where VECTORS is a vectors file or directory holding `vectors`. */
export function runCompareCliOn(vectorsPath: string, vectors: readonly Vector[], answers: readonly Answer[]): PythonVerdicts {
  return withTempDir((dir) => {
    const outFile = join(dir, "output.jsonl");
    writeFileSync(outFile, answers.map((a) => JSON.stringify(a)).join("\n") + "\n");
    const text = execFileSync("python3", [SHARED_COMPARE_PY, vectorsPath, outFile], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    return parseReport(text, vectors);
  });
}

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "duckbill-referee-"));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseReport(text: string, vectors: readonly Vector[]): PythonVerdicts {
  const summary = /^conformance: (\d+) passed, (\d+) failed$/m.exec(text);
  if (summary === null) throw new Error(`compare.py printed no summary line:\n${text}`);
  const names = new Set(vectors.map((v) => v.name));
  const failures = new Map<string, string>();
  const start = text.indexOf("\nfailures:\n");
  if (start !== -1) {
    for (const line of text.slice(start).split("\n")) {
      if (!line.startsWith("  ")) continue;
      // "  <name>: <reason>": names contain no ": ", so the first one ends the name.
      const sep = line.indexOf(": ");
      const name = line.slice(2, sep);
      if (sep !== -1 && names.has(name)) failures.set(name, line.slice(sep + 2));
    }
  }
  return { failures, passed: Number(summary[1]), failed: Number(summary[2]) };
}

// Imports compare.py as a module and answers JSON lines: {"patch": [doc, ops]}, {"base64": raw}, {"diff": [a, b]},
// {"text": v}.
const DRIVER = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("compare", sys.argv[1])
cmp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cmp)
for line in sys.stdin:
    q = json.loads(line)
    try:
        if "patch" in q:
            doc, ops = q["patch"]
            a = {"result": cmp.apply_patch(doc, ops)}
        elif "base64" in q:
            a = {"result": cmp._decode_patch({"patch": q["base64"]})}
        elif "diff" in q:
            a, b = q["diff"]
            a = {"result": cmp._first_diff(cmp.normalize(a), cmp.normalize(b))}
        else:
            v = q["text"]
            a = {"result": [repr(v), json.dumps(v, ensure_ascii=False), "%s" % (v,), v.strip() if isinstance(v, str) else None, cmp._short(v, 20)]}
    except Exception as e:
        a = {"error": [type(e).__name__, str(e)]}
    print(json.dumps(a))
`;

export type DriverQuery = { patch: [unknown, unknown] } | { base64: unknown } | { diff: [unknown, unknown] } | { text: unknown };
export type DriverAnswer = { result: unknown } | { error: [string, string] };

/** Asks compare.py's own functions (apply_patch, _decode_patch, normalize + _first_diff, Python's text forms). */
export function askCompareModule(queries: readonly DriverQuery[]): DriverAnswer[] {
  const input = queries.map((q) => JSON.stringify(q)).join("\n") + "\n";
  const text = execFileSync("python3", ["-c", DRIVER, SHARED_COMPARE_PY], { input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as DriverAnswer);
}
