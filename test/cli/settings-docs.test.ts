import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DOCUMENTED_OPTIONS, optionTableNames, regenerateOptionTables } from "../../src/cli/settings/options-docs.js";

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
const FILES = ["README.md", "docs/cli.md"];

describe("the option tables of README.md and docs/cli.md", () => {
  it.each(FILES)("%s: every marked table is what the settings table generates (npm run docs:settings)", (file) => {
    const text = read(file);
    expect(optionTableNames(text).length).toBeGreaterThan(0);
    expect(regenerateOptionTables(text)).toBe(text);
  });

  it("document every command's options", () => {
    const documented = FILES.flatMap((f) => optionTableNames(read(f)));
    expect([...new Set(documented)].sort()).toEqual(Object.keys(DOCUMENTED_OPTIONS).sort());
  });

  it("rewrites a drifted table and refuses an unknown list", () => {
    const drifted = "<!-- options: version -->\n| old |\n<!-- /options -->";
    expect(regenerateOptionTables(drifted)).toContain("| `-o`, `--output` | — | `text` | text or json |");
    expect(() => regenerateOptionTables("<!-- options: nope -->\n<!-- /options -->")).toThrow("no such option list");
  });
});
