// Finding Knative's own webhook for the bench: the binary `npm run reference:build` caches per release
// (scripts/reference-build.mjs). The bench never builds it (minutes of Go on a shared machine); it says so.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { binaryPath } from "../../scripts/reference-build.mjs";

/**
 * { binary, build } when the release's reference is built (build: its build.json, with the knative.dev/serving
 * and Go versions), else { missing }: a message that says how to build it.
 */
export function findReference(release) {
  const binary = binaryPath(release);
  if (!existsSync(binary)) {
    return { missing: `no Knative ${release} reference at ${binary}; build it with \`npm run reference:build -- ${release}\` (minutes the first time) to run Knative's webhook side by side` };
  }
  let build;
  try {
    build = JSON.parse(readFileSync(join(dirname(binary), "build.json"), "utf8"));
  } catch {
    build = undefined;
  }
  return { binary, build };
}
