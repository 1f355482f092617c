// Where the bench finds the repository's files.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_DIR = resolve(BENCH_DIR, "..");
const CONFORMANCE_DIR = join(REPO_DIR, "test", "conformance");
export const RESULTS_DIR = join(BENCH_DIR, "results");
export const DUCKBILL_BIN = join(REPO_DIR, "bin", "duckbill");
export const FLOOR_SERVER = join(BENCH_DIR, "floor-server.mjs");

/**
 * The Node.js flags Duckbill runs with everywhere, read from bin/duckbill's launcher line (`exec node FLAGS "$0"`),
 * which the Dockerfile's entry point and `npm start` repeat (test/dist/launcher.test.ts and dockerfile.test.ts hold
 * them equal): the bench's servers and the floor run with these unless told otherwise.
 */
export const IMAGE_NODE_FLAGS = (() => {
  const m = /exec node (.*?) "\$0" "\$@"/.exec(readFileSync(DUCKBILL_BIN, "utf8"));
  if (m === null) throw new Error(`bin/duckbill has no "exec node FLAGS" launcher line`);
  return m[1];
})();

/** The Knative releases the bench can run (Duckbill's profiles, the reference's modules). */
export const BENCH_RELEASES = ["1.24", "1.23", "1.17"];
export const DEFAULT_BENCH_RELEASE = "1.24";

/**
 * A release's public vectors (the repo's copy, so a fresh clone works) and the vectors the conformance suite
 * knows Duckbill does not pass yet (a mismatch there is not news), as test/conformance/paths.ts lays them out:
 * 1.17's are `vectors/`, later releases' `knative-<release>/`.
 */
export function releaseVectors(release) {
  if (release === "1.17") return { dir: join(CONFORMANCE_DIR, "vectors"), knownFailuresFile: join(CONFORMANCE_DIR, "known-failures.txt") };
  return { dir: join(CONFORMANCE_DIR, `knative-${release}`), knownFailuresFile: join(CONFORMANCE_DIR, `known-failures-${release}.txt`) };
}
