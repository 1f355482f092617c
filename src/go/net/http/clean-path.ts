// net/http's ServeMux path cleaning (golang/go src/net/http/server.go: cleanPath; ServeMux.Handler redirects a
// request whose path it changes).
import { cleanPath as pathClean } from "../../path/clean.js";

/** The canonical path for `p`: path.Clean of a rooted `p`, with a trailing slash kept. */
export function muxCleanPath(p: string): string {
  if (p === "") return "/";
  const rooted = p.charCodeAt(0) === 0x2f ? p : `/${p}`;
  let np = pathClean(rooted);
  if (rooted.endsWith("/") && np !== "/") {
    np = rooted.length === np.length + 1 && rooted.startsWith(np) ? rooted : `${np}/`;
  }
  return np;
}
