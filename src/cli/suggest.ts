/** "Did you mean": the known names closest to a misspelled one, by edit distance. */
import type { ParseArgsConfig } from "node:util";

/** Levenshtein distance: insertions, deletions and substitutions, each costing 1. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * Up to `most` of `candidates` within a distance that grows with the word (2, or a third of its length), nearest
 * first, case ignored; ties in the candidates' order.
 */
export function closest(word: string, candidates: Iterable<string>, most = 3): string[] {
  const w = word.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 3));
  const scored: Array<{ c: string; d: number; i: number }> = [];
  const seen = new Set<string>();
  let i = 0;
  for (const c of candidates) {
    if (seen.has(c)) continue;
    seen.add(c);
    const d = editDistance(w, c.toLowerCase());
    if (d <= limit) scored.push({ c, d, i: i++ });
  }
  return scored
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .slice(0, most)
    .map((s) => s.c);
}

/** "A, B or C". */
export function orList(values: readonly string[]): string {
  return values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values[values.length - 1] ?? ""}`;
}

/**
 * node:util parseArgs' errors in the words of the rest of the command line: a misspelled option gets the closest
 * ones ("did you mean"), and the advice about `--` only when nothing is close.
 */
export function argsProblem(e: Error & { code?: string }, options: NonNullable<ParseArgsConfig["options"]>): string {
  const names = Object.entries(options).flatMap(([long, o]) => [`--${long}`, ...(o.short === undefined ? [] : [`-${o.short}`])]);
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const given = /Unknown option '([^']+)'/.exec(e.message)?.[1] ?? "";
    const near = closest(given, names);
    return near.length > 0
      ? `unknown option ${given}; did you mean ${orList(near)}?`
      : `unknown option ${given} (an argument that starts with '-' goes after --, as in -- ${JSON.stringify(given)})`;
  }
  if (e.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const missing = /^Option '(-[^ ']+)(?:, (-[^ ']+))? <value>' argument missing/.exec(e.message);
    if (missing !== null) return `${missing[2] ?? missing[1]} needs a value`;
    const noValue = /^Option '(-[^ ']+)(?:, (-[^ ']+))?' does not take an argument/.exec(e.message);
    if (noValue !== null) return `${noValue[2] ?? noValue[1]} is a switch and takes no value`;
  }
  if (e.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const arg = /Unexpected argument '([^']*)'/.exec(e.message)?.[1];
    if (arg !== undefined) return `unexpected argument ${JSON.stringify(arg)}: this command takes options only`;
  }
  return e.message;
}
