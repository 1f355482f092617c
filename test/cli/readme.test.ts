import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { optionsTable, SERVE_OPTIONS, UPGRADE_CHECK_OPTIONS } from "../../src/cli/settings/options.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("documents every serve flag and environment variable in the table generated from SERVE_OPTIONS (`serve --help` renders the same list as text)", () => {
    expect(readme).toContain(optionsTable());
    for (const o of SERVE_OPTIONS) {
      expect(readme).toContain(`--${o.flag}`);
      expect(readme).toContain(o.env);
    }
  });

  it("documents every upgrade-check flag in the table generated from UPGRADE_CHECK_OPTIONS", () => {
    expect(readme).toContain(optionsTable(UPGRADE_CHECK_OPTIONS));
  });

  it("shows the one command that runs the webhook and the one that runs the tests", () => {
    expect(readme).toContain("npm ci && npm run build && npm start");
    expect(readme).toContain("npm ci && npm test");
  });
});
