// path.Clean (golang/go src/path/path.go).

/** Go's `path.Clean`: the shortest path name equivalent to `p`, by purely lexical processing. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.charCodeAt(0) === 0x2f;
  const n = p.length;
  let out = rooted ? "/" : "";
  let r = rooted ? 1 : 0;
  let dotdot = out.length;
  while (r < n) {
    const c = p.charCodeAt(r);
    if (c === 0x2f) {
      r++;
    } else if (c === 0x2e && (r + 1 === n || p.charCodeAt(r + 1) === 0x2f)) {
      r++;
    } else if (c === 0x2e && p.charCodeAt(r + 1) === 0x2e && (r + 2 === n || p.charCodeAt(r + 2) === 0x2f)) {
      r += 2;
      if (out.length > dotdot) {
        // Backtrack to the previous element.
        let w = out.length - 1;
        while (w > dotdot && out.charCodeAt(w) !== 0x2f) w--;
        out = out.slice(0, w);
      } else if (!rooted) {
        out += out.length > 0 ? "/.." : "..";
        dotdot = out.length;
      }
    } else {
      if ((rooted && out.length !== 1) || (!rooted && out.length !== 0)) out += "/";
      const end = p.indexOf("/", r);
      const stop = end < 0 ? n : end;
      out += p.slice(r, stop);
      r = stop;
    }
  }
  return out === "" ? "." : out;
}
