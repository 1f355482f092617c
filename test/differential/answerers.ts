/**
 * The two sides of a differential run: Knative's own webhook (the reference binary in batch mode, one long-lived
 * process answering line by line) and Duckbill in process (admitBatch, the code of `duckbill admit --batch`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { admitBatch } from "../../src/cli/admit/admit.js";
import { defaultDeps } from "../../src/cli/main.js";
import type { KnativeProfile } from "../../src/config/profile.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
import { applyPatch, deepCopy } from "../conformance/json-patch.js";
import { decodePatch, type Answer, type Vector } from "../conformance/compare.js";

/** A reference binary kept running in batch mode; `ask` sends one line and resolves with its answer line. */
export class ReferenceProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void }[] = [];
  private stderr = "";
  private exited: Error | undefined;

  constructor(binary: string) {
    this.child = spawn(binary, ["--batch", "--log-level", "fatal"], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (b: Buffer) => {
      this.stderr = (this.stderr + b.toString("utf8")).slice(-4000);
    });
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (text) => {
      const w = this.waiting.shift();
      if (w !== undefined) w.resolve(JSON.parse(text) as Answer);
    });
    // A write after the process died: the exit handler below rejects what is waiting.
    this.child.stdin.on("error", () => undefined);
    this.child.on("exit", (code, signal) => {
      this.exited = new Error(`reference exited with ${signal ?? code}: ${this.stderr}`);
      for (const w of this.waiting.splice(0)) w.reject(this.exited);
    });
  }

  ask(text: string): Promise<Answer> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(text + "\n");
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited !== undefined) return resolve();
      this.child.on("exit", () => resolve());
      this.child.stdin.end();
    });
  }
}

class Collector extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Duckbill for one release: one line in, the answer line out (a thrown error is an answer too). */
export function duckbillAnswerer(profile: KnativeProfile): (text: string) => Promise<Answer> {
  const deps = defaultDeps();
  const base = defaultSnapshot(profile);
  return async (text) => {
    const out = new Collector();
    try {
      await admitBatch(Readable.from([text + "\n"]), out, deps, base);
    } catch (e) {
      return { name: "", httpStatus: -1, body: `duckbill threw: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
    }
    const first = out.text.split("\n")[0] ?? "";
    return JSON.parse(first) as Answer;
  };
}

/**
 * Knative's answer as a vector's `expect` (test/conformance/README.md, "Line format"), so that Duckbill's answer
 * is judged by the conformance rules. undefined when Knative gave no answer (its handler panicked).
 */
export function expectFrom(line: Record<string, unknown>, ref: Answer): Vector["expect"] | undefined {
  if (ref.panic !== undefined || typeof ref.httpStatus !== "number" || ref.httpStatus === 0) return undefined;
  if (ref.httpStatus !== 200 || ref.review === undefined) return { httpStatus: ref.httpStatus, body: String(ref.body ?? "") };
  const response = { ...((ref.review as { response?: Record<string, unknown> }).response ?? {}) };
  const patch = decodePatch(response);
  delete response.patch;
  if (patch === null) return { httpStatus: 200, response };
  const request = (line.review as { request?: { object?: unknown } } | undefined)?.request;
  return { httpStatus: 200, response, patchedObject: applyPatch(deepCopy(request?.object ?? null), patch) };
}
