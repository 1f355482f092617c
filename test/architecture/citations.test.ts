import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Comments in src/ cite what they port as `repo path: Function` (e.g. `knative.dev/pkg apis/field_error.go:
 * (*FieldError).Error`) or explain with docs/knative-behavior.md#<section>; they never cite documents that are not in
 * this repository (the shared spec's sections and appendices, seed documents, DEVELOPERS.md). Issue [15].
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = join(ROOT, "src");
const BEHAVIOR_DOC = "docs/knative-behavior.md";

/** What an out-of-repo citation looks like: "spec §3.5", "spec Appendix A.4", "seed 003", "DEVELOPERS.md". */
const FOREIGN_CITATION = /spec §|spec Appendix|seed 0|DEVELOPERS\.md/i;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

interface Line {
  readonly where: string;
  readonly text: string;
}

function lines(): Line[] {
  const out: Line[] = [];
  for (const f of files(SRC)) {
    const rel = relative(ROOT, f);
    readFileSync(f, "utf8")
      .split("\n")
      .forEach((text, i) => out.push({ where: `${rel}:${i + 1}`, text }));
  }
  return out;
}

/** GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces as `-`. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m?.[1] === undefined) continue;
    found.add(
      m[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  }
  return found;
}

describe("citations in src/", () => {
  const all = lines();

  it("cite nothing outside the repository (spec sections, seeds, DEVELOPERS.md)", () => {
    const offending = all.filter((l) => FOREIGN_CITATION.test(l.text)).map((l) => `${l.where}: ${l.text.trim()}`);
    expect(offending).toEqual([]);
  });

  it(`point only at sections that ${BEHAVIOR_DOC} has`, () => {
    const known = anchors(readFileSync(join(ROOT, BEHAVIOR_DOC), "utf8"));
    const dangling: string[] = [];
    for (const l of all) {
      const at = l.text.indexOf(`${BEHAVIOR_DOC}#`);
      if (at === -1) continue;
      // "docs/knative-behavior.md#containers and #probes": every anchor after the first reference on the line.
      for (const m of l.text.slice(at).matchAll(/#([\p{L}\p{N}_-]+)/gu)) {
        if (!known.has(m[1] as string)) dangling.push(`${l.where}: #${m[1]}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it("finds the references it checks", () => {
    expect(all.filter((l) => l.text.includes(`${BEHAVIOR_DOC}#`)).length).toBeGreaterThan(50);
  });
});
