// Rewrites the option tables of README.md and docs/cli.md from the settings table (src/cli/settings/options-docs.ts;
// run after `npm run build`). With --check it rewrites nothing and exits 1 when a file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { regenerateOptionTables } from "../dist/cli/settings/options-docs.js";

const check = process.argv.includes("--check");
let drifted = 0;
for (const file of ["README.md", "docs/cli.md"]) {
  const path = new URL(`../${file}`, import.meta.url);
  const text = readFileSync(path, "utf8");
  const next = regenerateOptionTables(text);
  if (next === text) continue;
  drifted++;
  if (check) console.error(`${file}: option tables differ from src/cli/settings (npm run docs:settings)`);
  else writeFileSync(path, next);
}
process.exit(check && drifted > 0 ? 1 : 0);
