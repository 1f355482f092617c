/** "Did you mean": the known names closest to a misspelled one, by edit distance. */

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
