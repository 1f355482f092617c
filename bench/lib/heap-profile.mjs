// A sampling heap profile (V8's HeapProfiler.stopSampling: a call tree whose nodes carry the bytes sampled as
// allocated there) as bytes per request, by function: self (allocated in the function, or in what V8 inlined into
// it) and inclusive (in it and everything it called, each function counted once per call path). Functions are
// named as in the CPU profile's summary (cpuprofile.mjs label: dist/ code mapped back to src/*.ts).
import { label } from "./cpuprofile.mjs";

/** { totalBytes, bytesPerRequest, self, inclusive } for `requests` requests, each list sorted by bytes, `top` long. */
export function summariseHeapProfile(profile, requests, top = 30) {
  if (!(requests > 0)) throw new Error("summariseHeapProfile: no requests were counted");
  const self = new Map();
  const inclusive = new Map();
  let totalBytes = 0;
  const walk = (node, onPath) => {
    const name = label(node.callFrame);
    totalBytes += node.selfSize;
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const first = !onPath.has(name);
    if (first) onPath.add(name);
    let sum = node.selfSize;
    for (const child of node.children) sum += walk(child, onPath);
    if (first) {
      onPath.delete(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + sum);
    }
    return sum;
  };
  walk(profile.head, new Set());
  const list = (m) =>
    [...m]
      .filter(([, bytes]) => bytes > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, bytes]) => ({ name, bytesPerRequest: Math.round(bytes / requests) }));
  return { totalBytes, bytesPerRequest: Math.round(totalBytes / requests), self: list(self), inclusive: list(inclusive) };
}
