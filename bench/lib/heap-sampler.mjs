// Loaded into `duckbill serve` with `node --import` by bench/allocation.mjs: after HEAP_SAMPLE_DELAY_MS, V8's
// sampling heap profiler runs for HEAP_SAMPLE_MS (every allocation sampled at about HEAP_SAMPLE_INTERVAL bytes,
// objects that minor and major GCs collected included), counting the HTTP requests that start meanwhile
// (diagnostics_channel `http.server.request.start`); then it writes { requests, profile } to HEAP_SAMPLE_OUT.
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const delayMs = Number(process.env.HEAP_SAMPLE_DELAY_MS ?? 6000);
const lengthMs = Number(process.env.HEAP_SAMPLE_MS ?? 5000);
const interval = Number(process.env.HEAP_SAMPLE_INTERVAL ?? 256);
const out = process.env.HEAP_SAMPLE_OUT;
if (out === undefined) throw new Error("heap-sampler: HEAP_SAMPLE_OUT is not set");

let counting = false;
let requests = 0;
subscribe("http.server.request.start", () => {
  if (counting) requests++;
});
const session = new Session();
session.connect();
const options = { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
setTimeout(() => {
  session.post("HeapProfiler.enable", () =>
    session.post("HeapProfiler.startSampling", options, () => {
      counting = true;
      setTimeout(() => {
        counting = false;
        session.post("HeapProfiler.stopSampling", (err, result) => {
          writeFileSync(out, JSON.stringify(err ? { error: String(err) } : { requests, profile: result.profile }));
        });
      }, lengthMs).unref();
    }),
  );
}, delayMs).unref();
