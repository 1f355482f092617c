// Where the bench finds the repository's files.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_DIR = resolve(BENCH_DIR, "..");
/** The repo's copy of the conformance vectors (a fresh clone has no ../shared). */
export const VECTORS_DIR = join(REPO_DIR, "test", "conformance", "vectors");
/** Vectors the conformance suite knows Duckbill does not pass yet (a mismatch there is not news). */
export const KNOWN_FAILURES_FILE = join(REPO_DIR, "test", "conformance", "known-failures.txt");
export const RESULTS_DIR = join(BENCH_DIR, "results");
export const DUCKBILL_BIN = join(REPO_DIR, "bin", "duckbill");
export const FLOOR_SERVER = join(BENCH_DIR, "floor-server.mjs");
