/**
 * Answers vector lines through `admitBatch`, the code behind `duckbill admit --batch` (and, via answerHttp, the
 * HTTPS server), with in-memory streams.
 */
import { Readable, Writable } from "node:stream";
import { admitBatch } from "../../src/cli/admit/admit.js";
import { defaultDeps } from "../../src/cli/main.js";
import type { KnativeProfile } from "../../src/config/profile.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
import type { Answer } from "./compare.js";

export interface VectorLine {
  readonly name: string;
  /** The line exactly as it is in the vectors file. */
  readonly text: string;
}

export interface BatchResult {
  /** Vector name → answer line (the first one for a name, as compare.py takes it). */
  readonly answers: ReadonlyMap<string, Answer>;
  /** Vectors during which admitBatch threw instead of answering → the error. */
  readonly crashes: ReadonlyMap<string, string>;
  /** Input lines admitBatch could not read (its `{line, error}` output). */
  readonly unreadable: readonly string[];
  readonly elapsedMs: number;
}

class LineCollector extends Writable {
  private pending = "";
  readonly lines: string[] = [];

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    const text = this.pending + chunk.toString();
    const parts = text.split("\n");
    this.pending = parts.pop() ?? "";
    for (const p of parts) if (p !== "") this.lines.push(p);
    done();
  }
}

/**
 * Runs all lines through one admitBatch call. Should it throw, the first vector without an answer is recorded as
 * the crash and the batch resumes after it, so one crash does not hide the rest of the corpus.
 */
export async function answerThroughBatch(lines: readonly VectorLine[], profile?: KnativeProfile): Promise<BatchResult> {
  const deps = defaultDeps();
  const base = defaultSnapshot(profile);
  const answers = new Map<string, Answer>();
  const crashes = new Map<string, string>();
  const unreadable: string[] = [];
  const started = performance.now();
  let next = 0;
  while (next < lines.length) {
    const rest = lines.slice(next);
    const out = new LineCollector();
    let error: unknown;
    try {
      await admitBatch(Readable.from([rest.map((l) => l.text).join("\n") + "\n"]), out, deps, base);
    } catch (e) {
      error = e;
    }
    for (const text of out.lines) {
      const a = JSON.parse(text) as Answer;
      if (typeof a.name === "string") {
        if (!answers.has(a.name)) answers.set(a.name, a);
      } else unreadable.push(String(a.error ?? text));
    }
    if (error === undefined) break;
    const culprit = rest.findIndex((l) => !answers.has(l.name));
    if (culprit === -1) break;
    const line = rest[culprit] as VectorLine;
    crashes.set(line.name, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    next += culprit + 1;
  }
  return { answers, crashes, unreadable, elapsedMs: performance.now() - started };
}
