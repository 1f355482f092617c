import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full garbage collection once a large body has been answered. V8 lets old space grow to about twice what
 * survived its last full collection before collecting again, so the garbage of one 3 MiB body with a million
 * list entries (a few hundred megabytes) stays in the heap until the next large allocation, and a second such
 * body stacks on top of it: peak RSS grew from 283 to 720 MB over eight bodies in a row. Collecting right after
 * the answer costs a few tens of milliseconds once per large body and returns the heap to its size at rest.
 */
export const LARGE_BODY_BYTES = 1024 * 1024;

let collect: (() => void) | undefined | null;
let pending = false;

function collector(): (() => void) | undefined {
  if (collect === undefined) {
    collect = null;
    try {
      // `node --expose-gc` gives globalThis.gc; otherwise the flag is turned on for a new context's global.
      const g = (globalThis as { gc?: () => void }).gc;
      if (typeof g === "function") collect = g;
      else {
        setFlagsFromString("--expose-gc");
        const fromContext = runInNewContext("gc") as unknown;
        if (typeof fromContext === "function") collect = fromContext as () => void;
      }
    } catch {
      collect = null;
    }
  }
  return collect ?? undefined;
}

/** After a body of `bytes` was answered: one full collection on the next turn (coalesced), when it is large. */
export function releaseAfterBody(bytes: number): void {
  if (bytes < LARGE_BODY_BYTES || pending) return;
  const gc = collector();
  if (gc === undefined) return;
  pending = true;
  setImmediate(() => {
    pending = false;
    gc();
  });
}
