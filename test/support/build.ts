/** For tests that run the built CLI: the repository root, a clean child environment, and a build when dist/ is missing. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** Our environment without what vitest adds to Node's options, plus `extra`. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

/** `npm test` builds first; a bare `vitest run` on a fresh clone builds here. */
export function ensureBuilt(): void {
  if (existsSync(join(ROOT, "dist", "bundle", "index.js")) && existsSync(join(ROOT, "dist", "cli", "index.js"))) return;
  const r = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: "inherit", env: childEnv() });
  if (r.status !== 0) throw new Error("npm run build failed");
}
