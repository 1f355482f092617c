/** Where the conformance harness finds its files: the repo's own copy, and ../shared when it is checked out. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const CONFORMANCE_DIR = dirname(fileURLToPath(import.meta.url));
export const VECTORS_DIR = join(CONFORMANCE_DIR, "vectors");
export const KNOWN_FAILURES_FILE = join(CONFORMANCE_DIR, "known-failures.txt");
export const SHARED_CONFORMANCE_DIR = resolve(CONFORMANCE_DIR, "..", "..", "..", "shared", "conformance");
export const SHARED_VECTORS_DIR = join(SHARED_CONFORMANCE_DIR, "vectors");
export const SHARED_COMPARE_PY = join(SHARED_CONFORMANCE_DIR, "compare.py");

/** One Knative release's public vectors: the repo's copy, ../shared's, and the vectors Duckbill does not pass yet. */
export interface ReleaseVectors {
  readonly version: "1.17" | "1.23" | "1.24";
  readonly dir: string;
  readonly sharedDir: string;
  readonly knownFailuresFile: string;
}

/** 1.17's vectors are `vectors/` (the corpus the project started from); later releases are `knative-<version>/`. */
export const RELEASES: readonly ReleaseVectors[] = [
  { version: "1.17", dir: VECTORS_DIR, sharedDir: SHARED_VECTORS_DIR, knownFailuresFile: KNOWN_FAILURES_FILE },
  ...(["1.23", "1.24"] as const).map((version) => ({
    version,
    dir: join(CONFORMANCE_DIR, `knative-${version}`),
    sharedDir: join(SHARED_CONFORMANCE_DIR, `knative-${version}`),
    knownFailuresFile: join(CONFORMANCE_DIR, `known-failures-${version}.txt`),
  })),
];

/** ../shared is only next to the repo in the development tree; a fresh clone elsewhere has just its own copy. */
export function sharedAvailable(): boolean {
  return existsSync(SHARED_COMPARE_PY) && existsSync(SHARED_VECTORS_DIR);
}

let lineCache: readonly Record<string, unknown>[] | undefined;

/** Every line of the repo's vector files, parsed, in file-name then line order (read once per process). */
export function vectorLines(): readonly Record<string, unknown>[] {
  if (lineCache !== undefined) return lineCache;
  const out: Record<string, unknown>[] = [];
  for (const f of readdirSync(VECTORS_DIR).filter((n) => n.endsWith(".jsonl")).sort()) {
    for (const text of readFileSync(join(VECTORS_DIR, f), "utf8").split("\n")) {
      if (text.trim() !== "") out.push(JSON.parse(text) as Record<string, unknown>);
    }
  }
  lineCache = out;
  return out;
}
