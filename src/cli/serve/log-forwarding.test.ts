import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { forwardLines, lineForwarder } from "./log-forwarding.js";

describe("lineForwarder", () => {
  it("passes on whole lines only, holding an unfinished one until its newline", () => {
    const out: string[] = [];
    const f = lineForwarder((t) => out.push(t));
    f.push('{"a":1}\n{"b"');
    f.push(":2}");
    expect(out).toEqual(['{"a":1}\n']);
    f.push('\n{"c":3}\n{"d":4}\n');
    expect(out).toEqual(['{"a":1}\n', '{"b":2}\n{"c":3}\n{"d":4}\n']);
    f.push('{"e"');
    f.end();
    expect(out.at(-1)).toBe('{"e"\n');
  });

  it("passes a line longer than its bound on in pieces instead of holding it", () => {
    const out: string[] = [];
    const f = lineForwarder((t) => out.push(t), 10);
    f.push("x".repeat(8));
    expect(out).toEqual([]);
    f.push("y".repeat(8));
    expect(out).toEqual(["x".repeat(8) + "y".repeat(8)]);
    f.push("z\n");
    expect(out.join("")).toBe("x".repeat(8) + "y".repeat(8) + "z\n");
  });

  it("keeps every line whole when several workers' output, cut anywhere, reaches one writer", () => {
    const sink: string[] = [];
    const write = (t: string): void => void sink.push(t);
    const workers = [1, 2, 3].map((w) => ({ f: lineForwarder(write), text: Array.from({ length: 200 }, (_, i) => `${JSON.stringify({ worker: w, i, pad: "é".repeat(i % 37) })}\n`).join(""), at: 0 }));
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    while (workers.some((w) => w.at < w.text.length)) {
      const w = workers[rand(workers.length)]!;
      if (w.at >= w.text.length) continue;
      const n = 1 + rand(5000);
      w.f.push(w.text.slice(w.at, w.at + n));
      w.at += n;
    }
    for (const w of workers) w.f.end();
    const lines = sink.join("").split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(600);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    for (const w of [1, 2, 3]) expect(lines.map((l) => JSON.parse(l) as { worker: number; i: number }).filter((e) => e.worker === w).map((e) => e.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});

describe("forwardLines", () => {
  it("decodes UTF-8 cut between chunks and resolves once the stream ended", async () => {
    const out: string[] = [];
    const s = new PassThrough();
    const done = forwardLines(s, (t) => out.push(t));
    const bytes = Buffer.from('{"msg":"héllo"}\n{"msg":"wörld"}', "utf8");
    s.write(bytes.subarray(0, 11)); // inside "é"
    s.write(bytes.subarray(11));
    s.end();
    await done;
    expect(out.join("")).toBe('{"msg":"héllo"}\n{"msg":"wörld"}\n');
  });
});
