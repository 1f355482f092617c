// Summarises a V8 .cpuprofile (node --cpu-prof): where the samples land, by function and by file.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_DIR } from "./paths.mjs";
import { originalPosition } from "./source-map.mjs";

/** `file:line` of a frame; compiled dist/ code is mapped back to its src/*.ts line. */
function where(frame) {
  const url = frame.url ?? "";
  if (url === "") return "";
  if (!url.startsWith("file://")) return `${url}:${frame.lineNumber + 1}`;
  const file = fileURLToPath(url);
  // V8's lineNumber and columnNumber are 0-based.
  const original = originalPosition(file, frame.lineNumber, frame.columnNumber);
  if (original !== undefined) return `${relative(REPO_DIR, original.file)}:${original.line}`;
  return `${relative(REPO_DIR, file)}:${frame.lineNumber + 1}`;
}

function label(frame) {
  const name = frame.functionName === "" ? "(anonymous)" : frame.functionName;
  return frame.url === "" ? name : `${name} ${where(frame)}`;
}

/** Top functions by self time, files by self time and functions by inclusive time, as shares of all samples. */
export function summariseProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const byFunction = new Map();
  const byFile = new Map();
  for (const [id, n] of hits) {
    const frame = byId.get(id).callFrame;
    const key = label(frame);
    byFunction.set(key, (byFunction.get(key) ?? 0) + n);
    const fileKey = frame.url === "" ? frame.functionName : where(frame).replace(/:\d+$/, "");
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + n);
  }
  // Inclusive time: a sample counts once for every distinct function on its stack.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map();
  for (const [id, n] of hits) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur).callFrame;
      if (frame.url === "" && frame.functionName.startsWith("(")) continue;
      seen.add(label(frame));
    }
    for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + n);
  }
  const rank = (m, n = top) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, n]) => ({ name, selfPercent: Math.round((n / total) * 1000) / 10 }));
  return { samples: total, durationMs: Math.round((profile.endTime - profile.startTime) / 1000), functions: rank(byFunction), files: rank(byFile), inclusive: rank(inclusive, 2 * top) };
}
