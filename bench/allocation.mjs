#!/usr/bin/env node
// What a serving process allocates per request, by function: `duckbill serve --workers 1` with info logging, the
// image's node flags and V8's sampling heap profiler (bench/lib/heap-sampler.mjs), at saturation on the bench's
// mix (autocannon, 64 connections). Allocation is what drives scavenges and much of the CPU a request costs, and
// unlike CPU time on a shared VM (up to 2x between rounds) it moves by under a tenth from run to run (43–50 kB per
// request in four runs of one build): the figure to weigh a change by. Bounded: a
// watchdog ends the run.
//
//   npm run build && node bench/allocation.mjs [--seconds 5] [--warmup 6] [--top 30] [--node PATH] [--json]
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { guardRun } from "./lib/guard.mjs";
import { summariseHeapProfile } from "./lib/heap-profile.mjs";
import { BENCH_DIR, DEFAULT_BENCH_RELEASE, IMAGE_NODE_FLAGS, releaseVectors } from "./lib/paths.mjs";
import { HOST, startDuckbill, stopChild } from "./lib/processes.mjs";
import { autocannonRequests, saturate } from "./lib/saturation.mjs";
import { buildMix, loadVectors } from "./lib/vectors.mjs";

const { values: flags } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    warmup: { type: "string", default: "6" },
    top: { type: "string", default: "30" },
    node: { type: "string" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log("Usage: node bench/allocation.mjs [--seconds 5] [--warmup 6] [--top 30] [--node PATH] [--json]");
  process.exit(0);
}
const sampleMs = Number(flags.seconds) * 1000;
const warmupMs = Number(flags.warmup) * 1000;
const top = Number(flags.top);
if (!(sampleMs >= 1000) || !(warmupMs >= 1000) || !(top >= 1)) {
  console.error("allocation: bad --seconds, --warmup or --top");
  process.exit(2);
}
if (flags.node !== undefined) process.env.BENCH_NODE = flags.node;

const workDir = mkdtempSync(join(tmpdir(), "duckbill-allocation-"));
const out = join(workDir, "heap-profile.json");
let server;
guardRun("allocation", warmupMs + sampleMs + 90_000, () => {
  server?.child.kill("SIGKILL");
  rmSync(workDir, { recursive: true, force: true });
});

const requests = autocannonRequests(buildMix(loadVectors(releaseVectors(DEFAULT_BENCH_RELEASE).dir)));
process.env.HEAP_SAMPLE_OUT = out;
process.env.HEAP_SAMPLE_MS = String(sampleMs);
process.env.HEAP_SAMPLE_DELAY_MS = String(warmupMs);
const nodeFlags = [...IMAGE_NODE_FLAGS.split(" "), `--import=${join(BENCH_DIR, "lib", "heap-sampler.mjs")}`];
server = await startDuckbill({ certDir: workDir, logFile: join(workDir, "serve.log"), logLevel: "info", release: DEFAULT_BENCH_RELEASE, nodeFlags, workers: 1 });
// The sampler starts --warmup after the process did (before it was ready): the load covers its window and more.
const load = await saturate({ host: HOST, port: server.port, ca: server.ca, requests, durationMs: warmupMs + sampleMs + 2000 });
for (let i = 0; i < 100 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 100));
await stopChild(server.child);
if (!existsSync(out)) throw new Error("allocation: the sampler wrote no profile");
const sampled = JSON.parse(readFileSync(out, "utf8"));
rmSync(workDir, { recursive: true, force: true });
if (sampled.error !== undefined) throw new Error(`allocation: ${sampled.error}`);
const summary = summariseHeapProfile(sampled.profile, sampled.requests, top);

if (flags.json) {
  console.log(JSON.stringify({ requests: sampled.requests, loadReqPerSec: load.reqPerSec, ...summary }, null, 2));
} else {
  console.log(`duckbill serve --workers 1 (info, ${IMAGE_NODE_FLAGS}): ${sampled.requests} requests in the ${sampleMs / 1000} s sampled, ${(summary.totalBytes / 1e6).toFixed(1)} MB allocated: **${(summary.bytesPerRequest / 1024).toFixed(1)} kB per request** (sampling slows the server: ${load.reqPerSec} req/s over the whole load)\n`);
  for (const [title, rows] of [["allocated in the function (self)", summary.self], ["allocated in it and what it called (inclusive)", summary.inclusive]]) {
    console.log(`| bytes per request | ${title} |\n|---:|---|`);
    for (const r of rows) console.log(`| ${r.bytesPerRequest} | ${r.name} |`);
    console.log("");
  }
}
