// Maps a position in compiled dist/*.js back to its TypeScript source through the .js.map tsc writes, so
// profile summaries point at src/...ts lines. Only what that needs: VLQ "mappings", no names.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const BASE64 = new Map([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c, i) => [c, i]));

/** One segment's VLQ fields. */
function decodeVlq(segment) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = BASE64.get(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** Per generated line: segments [generatedColumn, sourceIndex, sourceLine] (all 0-based), in column order. */
function parseMappings(mappings) {
  const lines = [];
  let source = 0;
  let sourceLine = 0;
  for (const line of mappings.split(";")) {
    const segs = [];
    let column = 0;
    for (const seg of line.split(",")) {
      if (seg === "") continue;
      const f = decodeVlq(seg);
      column += f[0];
      if (f.length >= 4) {
        source += f[1];
        sourceLine += f[2];
        segs.push([column, source, sourceLine]);
      }
    }
    lines.push(segs);
  }
  return lines;
}

const cache = new Map();

function load(jsFile) {
  if (cache.has(jsFile)) return cache.get(jsFile);
  let map;
  const mapFile = `${jsFile}.map`;
  if (existsSync(mapFile)) {
    try {
      const raw = JSON.parse(readFileSync(mapFile, "utf8"));
      const root = resolve(dirname(jsFile), raw.sourceRoot ?? "");
      map = { sources: raw.sources.map((s) => resolve(root, s)), lines: parseMappings(raw.mappings) };
    } catch {
      map = undefined;
    }
  }
  cache.set(jsFile, map);
  return map;
}

/** { file, line } (absolute path, 1-based line) in the source of `jsFile` at 0-based line/column, if mapped. */
export function originalPosition(jsFile, line, column) {
  const map = load(jsFile);
  const segs = map?.lines[line];
  if (segs === undefined || segs.length === 0) return undefined;
  let best = segs[0];
  for (const s of segs) if (s[0] <= column) best = s;
  return { file: map.sources[best[1]], line: best[2] + 1 };
}
