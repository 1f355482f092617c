// bench/lib/heap-profile.mjs: a sampling heap profile as bytes per request by function (bench/allocation.mjs).
import { describe, expect, it } from "vitest";
import { summariseHeapProfile, type HeapProfileNode } from "../../bench/lib/heap-profile.mjs";

function node(functionName: string, url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode {
  return { callFrame: { functionName, url, lineNumber: 9, columnNumber: 0 }, selfSize, children };
}

describe("summariseHeapProfile", () => {
  it("gives self and inclusive bytes per request, counting a recursive function once per call path", () => {
    const head = node("(root)", "", 0, [
      node("answer", "dist/bundle/app.js", 100, [node("walk", "dist/bundle/walk.js", 300, [node("walk", "dist/bundle/walk.js", 200)]), node("log", "node_modules/pino/lib/proto.js", 400)]),
      node("log", "node_modules/pino/lib/proto.js", 1000),
    ]);
    const s = summariseHeapProfile({ head }, 10);
    expect(s.totalBytes).toBe(2000);
    expect(s.bytesPerRequest).toBe(200);
    expect(s.self).toEqual([
      { name: "log node_modules/pino/lib/proto.js:10", bytesPerRequest: 140 },
      { name: "walk dist/bundle/walk.js:10", bytesPerRequest: 50 },
      { name: "answer dist/bundle/app.js:10", bytesPerRequest: 10 },
    ]);
    expect(s.inclusive).toEqual([
      { name: "(root)", bytesPerRequest: 200 },
      { name: "log node_modules/pino/lib/proto.js:10", bytesPerRequest: 140 },
      { name: "answer dist/bundle/app.js:10", bytesPerRequest: 100 },
      { name: "walk dist/bundle/walk.js:10", bytesPerRequest: 50 },
    ]);
  });

  it("keeps the top entries only, and refuses a profile of no requests", () => {
    const head = node("(root)", "", 0, [node("a", "node:fs", 30), node("b", "node:fs", 20), node("c", "node:fs", 10)]);
    expect(summariseHeapProfile({ head }, 1, 2).self.map((r) => r.name)).toEqual(["a node:fs:10", "b node:fs:10"]);
    expect(() => summariseHeapProfile({ head }, 0)).toThrow(/no requests/);
  });
});
