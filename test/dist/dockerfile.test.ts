/**
 * No Docker engine runs here, so the image is not built in tests; what can be checked statically is that the build
 * stage has every file `npm run build` reads (a script added to the build once broke the image this way).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };

/** The COPY sources of the stage named `name` (`FROM ... AS name` up to the next FROM). */
function copiedInStage(name: string): string[] {
  const stage = dockerfile.split(/^FROM /m).find((s) => new RegExp(`\\bAS ${name}\\s*$`, "m").test(s.split("\n")[0] ?? ""));
  if (stage === undefined) throw new Error(`no stage ${name} in the Dockerfile`);
  return [...stage.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => (m[1] ?? "").split(/\s+/));
}

describe("Dockerfile build stage", () => {
  const copied = copiedInStage("build");
  it.each(["package.json", "tsconfig.json", "tsconfig.build.json", "src"])("copies %s", (f) => {
    expect(copied).toContain(f);
  });
  it("copies every file the build script runs with node", () => {
    const scripts = [...pkg.scripts.build!.matchAll(/\bnode (\S+)/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(copied.some((c) => s === c || s.startsWith(c.replace(/\/?$/, "/"))), s).toBe(true);
  });
});
