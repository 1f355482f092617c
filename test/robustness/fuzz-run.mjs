#!/usr/bin/env node
// `npm run fuzz -- [--runs N] [--seed N]`: the robustness fuzzing (fuzz.test.ts) with more runs than the bounded
// version `npm test` runs, or another seed. Sets FUZZ_RUNS / FUZZ_SEED and runs vitest on that file only.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string" }, seed: { type: "string" }, help: { type: "boolean", default: false } }, strict: true });
if (values.help) {
  console.log("usage: npm run fuzz -- [--runs N] [--seed N]   (defaults: 2500 runs, seed 20261122, as in npm test)");
  process.exit(0);
}
const env = { ...process.env };
for (const [flag, name] of [["runs", "FUZZ_RUNS"], ["seed", "FUZZ_SEED"]]) {
  const v = values[flag];
  if (v === undefined) continue;
  if (!/^\d+$/.test(v) || (flag === "runs" && Number(v) < 1)) {
    console.error(`fuzz: --${flag} must be a whole number${flag === "runs" ? " of at least 1" : ""}, got "${v}"`);
    process.exit(2);
  }
  env[name] = v;
}
const r = spawnSync("npx", ["vitest", "run", "test/robustness/fuzz.test.ts"], { stdio: "inherit", env });
process.exit(r.status ?? 1);
