import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The import graph of src/ (tests excluded): no cycles, and no import from a lower layer to a higher one
 * (cli → server → admission / kube → certs, serving → config / duck → apis → go), nor, inside src/cli, from a lower
 * room to a higher one (CLI_RANK). eslint.config.js checks the same file by file as code is written; this draws the
 * whole graph, which is what a cycle needs.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
const RANK: Record<string, number> = { go: 0, apis: 1, duck: 2, config: 2, certs: 3, serving: 3, admission: 4, kube: 4, server: 5, cli: 6 };

/**
 * The rooms of src/cli, lowest first: kubectl's manifest handling and the settings (the one table of every command's
 * flags and variables, parsed into typed settings), neither importing the other; the command line's own files (help,
 * usage, io: src/cli/*.ts but main.ts); reading a cluster for the commands; check, which upgrade, features and
 * test-suites build on; the other commands and serve; main.ts, which dispatches to them.
 */
const CLI_RANK: Record<string, number> = { kubectl: 0, settings: 0, "": 1, cluster: 2, check: 3, upgrade: 4, features: 4, "test-suites": 4, admit: 4, serve: 4, main: 5 };

function cliRoom(file: string): string | undefined {
  const parts = relative(SRC, file).split("/");
  if (parts[0] !== "cli") return undefined;
  if (parts.length === 2) return parts[1] === "main.ts" || parts[1] === "index.ts" ? "main" : "";
  return parts[1];
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith(".ts") && !p.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

function graph(): Map<string, string[]> {
  const files = sources(SRC);
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    const deps = new Set<string>();
    for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\("(\.[^"]+)"\)/gs)) {
      const spec = m[1] ?? m[2];
      if (spec !== undefined) deps.add(resolve(dirname(f), spec).replace(/\.js$/, ".ts"));
    }
    edges.set(f, [...deps].filter((d) => known.has(d)));
  }
  return edges;
}

/** Tarjan's strongly connected components with more than one member: the cycles. */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(relative(SRC, w));
      } while (w !== v);
      if (scc.length > 1) found.push(scc);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("src/ import graph", () => {
  const edges = graph();

  it("covers every layer", () => {
    const layers = new Set([...edges.keys()].map((f) => relative(SRC, f).split("/")[0]));
    expect([...layers].sort()).toEqual(Object.keys(RANK).sort());
  });

  it("has no import cycles", () => {
    expect(cycles(edges)).toEqual([]);
  });

  it("imports only downward", () => {
    const upward: string[] = [];
    for (const [from, deps] of edges) {
      const a = relative(SRC, from).split("/")[0] as string;
      for (const to of deps) {
        const b = relative(SRC, to).split("/")[0] as string;
        if (a !== b && (RANK[b] as number) >= (RANK[a] as number)) upward.push(`${relative(SRC, from)} -> ${relative(SRC, to)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("imports only downward between the rooms of src/cli", () => {
    const upward: string[] = [];
    const rooms = new Set<string>();
    for (const [from, deps] of edges) {
      const a = cliRoom(from);
      if (a === undefined) continue;
      rooms.add(a);
      for (const to of deps) {
        const b = cliRoom(to);
        if (b === undefined || a === b) continue;
        if ((CLI_RANK[b] as number) >= (CLI_RANK[a] as number)) upward.push(`${relative(SRC, from)} -> ${relative(SRC, to)}`);
      }
    }
    expect([...rooms].sort()).toEqual(Object.keys(CLI_RANK).sort());
    expect(upward).toEqual([]);
  });
});

describe("the process environment", () => {
  // Read in one place, src/cli/main.ts, and handed down: the settings table (src/cli/settings/options.ts) says
  // which variables exist, and everything below takes values, not `process.env`.
  it("is read only by src/cli/main.ts", () => {
    const readers = sources(SRC).filter((f) => /process\.env\b/.test(readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")));
    expect(readers.map((f) => relative(SRC, f))).toEqual(["cli/main.ts"]);
  });
});

describe("what a standalone start loads", () => {
  // @kubernetes/client-node takes about a second and tens of MB of heap to load; only cluster mode needs it, so it is
  // imported on demand (`await import(...)`). Nothing main.ts reaches through static imports may import it at runtime.
  it("does not load @kubernetes/client-node through main.ts's static imports", () => {
    const staticDeps = (file: string): string[] => {
      const text = readFileSync(file, "utf8");
      const out: string[] = [];
      for (const m of text.matchAll(/^(?:import|export)\s(?!type\s)[^;]*?from\s+"(\.[^"]+)"/gms)) out.push(resolve(dirname(file), m[1] as string).replace(/\.js$/, ".ts"));
      return out;
    };
    const seen = new Set<string>();
    const pending = [join(SRC, "cli", "main.ts"), join(SRC, "cli", "index.ts")];
    const loaders: string[] = [];
    while (pending.length > 0) {
      const f = pending.pop() as string;
      if (seen.has(f)) continue;
      seen.add(f);
      if (/^import\s(?!type\s)[^;]*?from\s+"@kubernetes\/client-node"/m.test(readFileSync(f, "utf8"))) loaders.push(relative(SRC, f));
      pending.push(...staticDeps(f));
    }
    expect(seen.size).toBeGreaterThan(20);
    expect(loaders).toEqual([]);
  });
});
