/**
 * Every repository path that README.md, SECURITY.md and docs/ name exists: a file moved or renamed without its
 * mentions fails here instead of sending a reader to nothing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
// certs/ holds what `serve` generates at run time, so its files are not checked.
const TOP = ["src", "test", "bench", "scripts", "manifests", "docs", "reference", "bin", ".ci"];
/** Folders of src/: `src/runtime/...` in a sentence about Go's own source tree is not ours. */
const SRC_ROOMS = new Set(readdirSync(join(ROOT, "src")));

function markdown(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? docs(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : []));
  return ["README.md", "SECURITY.md", ...docs("docs")];
}

/** The repository paths a document names: `src/...`, `test/...` and so on, as written (`:line`, anchors and globs cut). */
export function pathsIn(text: string): string[] {
  const found = new Set<string>();
  const pattern = new RegExp(`(?<![\\w./-])(?:\\.\\./)*((?:${TOP.map((t) => t.replace(".", "\\.")).join("|")})/[\\w./@*-]*)`, "g");
  for (const m of text.matchAll(pattern)) {
    let p = (m[1] ?? "").replace(/[.,:;)]+$/, "");
    if (/[*<>{}]|\.\.\.|NNNN/.test(p)) continue; // globs, placeholders
    p = p.replace(/#.*$/, "").replace(/\/$/, "");
    if (p.startsWith("src/") && !SRC_ROOMS.has(p.split("/")[1] ?? "")) continue;
    if (p.includes("/")) found.add(p);
  }
  return [...found];
}

describe("paths named in the docs", () => {
  for (const doc of markdown()) {
    it(`${doc}: every repository path it names exists`, () => {
      const text = readFileSync(join(ROOT, doc), "utf8");
      const base = doc.startsWith("docs/") ? [ROOT, join(ROOT, "docs"), join(ROOT, doc, "..")] : [ROOT];
      // A short name such as docs/adr/0006 stands for the file it starts.
      const exists = (b: string, p: string): boolean => existsSync(join(b, p)) || (existsSync(join(b, p, "..")) && readdirSync(join(b, p, "..")).some((n) => n.startsWith(p.split("/").at(-1) ?? "")));
      const missing = pathsIn(text).filter((p) => !base.some((b) => exists(b, p)));
      expect(missing).toEqual([]);
    });
  }
});
