/** test/conformance/known-failures.txt: the vectors Duckbill does not pass yet (README-harness.md). */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export interface KnownFailures {
  /** The names, in file order. */
  readonly names: readonly string[];
  /** Problems with the file itself: unsorted or repeated names. */
  readonly problems: readonly string[];
}

/** One name per line; blank lines and lines starting with `#` are ignored. A missing file lists nothing. */
export function readKnownFailures(file: string): KnownFailures {
  if (!existsSync(file)) return { names: [], problems: [] };
  const names: string[] = [];
  const problems: string[] = [];
  const lines = readFileSync(file, "utf8").split("\n");
  for (const [i, raw] of lines.entries()) {
    const name = raw.trim();
    if (name === "" || name.startsWith("#")) continue;
    const prev = names[names.length - 1];
    if (prev !== undefined && name === prev) problems.push(`line ${i + 1}: ${name} is listed twice`);
    else if (prev !== undefined && name < prev) problems.push(`line ${i + 1}: ${name} comes after ${prev} (the list must be sorted)`);
    names.push(name);
  }
  return { names, problems };
}

const HEADER = `# Conformance vectors Duckbill does not pass yet: one vector name per line, sorted; # starts a comment.
# The conformance suite fails when a vector fails that is not listed here, when a listed vector passes and
# when a listed name is not a vector, so this list stays true and only shrinks.
# Regenerate it from the current failures with:
#   UPDATE_KNOWN_FAILURES=1 npx vitest run test/conformance/conformance.test.ts
`;

export function writeKnownFailures(file: string, names: Iterable<string>): void {
  const sorted = [...new Set(names)].sort();
  writeFileSync(file, HEADER + sorted.map((n) => `${n}\n`).join(""));
}
