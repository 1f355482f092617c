#!/usr/bin/env node
// `npm run soak`: `duckbill serve` as a child process under a steady paced load for a while (default 2,000 req/s
// for 60 s over loopback HTTPS/1.1 keep-alive, the bench's mix, after a 10 s warm-up), checking every answer
// (HTTP 200, the request's uid) and that the server does not leak: its RSS at the end against the end of the
// warm-up (< 10 % growth), and its event-loop delay over the run (prom-client's nodejs_eventloop_lag_p99_seconds,
// from its own metrics endpoint). Exits 1, saying why, when there were errors or RSS grew by 10 % or more.
// Bounded: fixed phases and a watchdog that ends the run and the server.
//
// The RSS that is gated leaves out V8's young generation (new space). V8 grows it from 1 to 32 MB under
// allocation and shrinks it after a mark-compact, whenever that comes: at 2,000 req/s the server's RSS swings
// between about 92 and 121 MB with a period of a minute or two and no trend, so two readings of the raw RSS
// differ by up to 30 % depending on where in that cycle they fall. New space is bounded by V8's semi-space
// limit, so it cannot hold a leak; everything that can (old space, code, large objects, Buffers, TLS and other
// native memory) stays in the figure. Both numbers come from one scrape of the server's metrics
// (process_resident_memory_bytes and nodejs_heap_space_size_total_bytes{space="new"}), so they are of the same
// moment. The raw RSS and a timeline of it are reported too.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { scrapeMetrics } from "./lib/metrics-scrape.mjs";
import { pacedLoad, requestBytes } from "./lib/paced-client.mjs";
import { REPO_DIR, releaseVectors } from "./lib/paths.mjs";
import { HOST, startDuckbill, stopChild } from "./lib/processes.mjs";
import { readProc, sampleProcess } from "./lib/proc-stats.mjs";
import { round } from "./lib/stats.mjs";
import { buildMix, describeMix, loadVectors } from "./lib/vectors.mjs";
import { guardRun } from "./lib/guard.mjs";

const MAX_RSS_GROWTH = 0.1;
/** RSS is also sampled every this many ms of the measured phase, to tell a leak (a steady climb) from a plateau. */
const TIMELINE_MS = 5000;

const { values: flags } = parseArgs({
  options: {
    rate: { type: "string", default: "2000" },
    duration: { type: "string", default: "60" },
    warmup: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    "log-level": { type: "string", default: "info" },
    // Node's defaults, on which the RSS gate was validated. With the image's --max-semi-space-size=4 more objects
    // reach old space and RSS follows major GCs in a sawtooth (2026-11-25, 150 s at 2,000 req/s: 89 → 104 MB,
    // a major GC back to 91, plateau ≈ 98 MB; heap used 21 → 23 MB), which an end-versus-start gate misreads.
    "node-flags": { type: "string", default: "" },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log(`Usage: npm run soak -- [--rate N] [--duration S] [--warmup S] [--out FILE]

  --rate N          requests per second, evenly paced (default 2000)
  --duration S      measured seconds (default 60), after the warm-up
  --warmup S        warm-up seconds at the same rate (default 10); RSS growth is measured from its end
  --connections N   keep-alive TLS connections of the load generator (default 64)
  --log-level L     the server's DUCKBILL_LOG_LEVEL (default info, as deployed; its lines go to a temporary file)
  --node-flags "F"  node flags for the server (default none; see the note on --max-semi-space-size at the top)
  --out FILE        also write the result as JSON there

Exits 1 when any request failed (transport error, non-2xx, an answer without the request's uid) or the
server's RSS (less V8's young generation, see the top of bench/soak.mjs) grew by ${MAX_RSS_GROWTH * 100} % or more
between the end of the warm-up and the end.`);
  process.exit(0);
}

function positive(name, integer) {
  const n = Number(flags[name]);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    console.error(`soak: --${name} must be a positive ${integer ? "whole " : ""}number, got "${flags[name]}"`);
    process.exit(2);
  }
  return n;
}
const RATE = positive("rate", false);
const DURATION_S = positive("duration", false);
const WARMUP_S = positive("warmup", false);
const CONNECTIONS = positive("connections", true);

if (!existsSync(join(REPO_DIR, "dist", "cli", "index.js")) && !existsSync(join(REPO_DIR, "dist", "bundle", "index.js"))) {
  console.error("soak: dist/ is missing; run `npm run build` first (npm run soak does)");
  process.exit(2);
}

const workDir = mkdtempSync(join(tmpdir(), "duckbill-soak-"));
let server;
function cleanup() {
  if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  rmSync(workDir, { recursive: true, force: true });
}
const WATCHDOG_MS = (WARMUP_S + DURATION_S) * 1000 + 60_000;
guardRun("soak", WATCHDOG_MS, cleanup);

/** The value of a sample in a Prometheus text exposition (the first, or the one whose labels include `label`). */
function sample(text, name, label) {
  const labels = label === undefined ? "(?:\\{[^}]*\\})?" : `\\{[^}]*${label}[^}]*\\}`;
  const m = new RegExp(`^${name}${labels} (\\S+)$`, "m").exec(text);
  return m === null ? undefined : Number(m[1]);
}

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
const ms = (seconds) => (seconds === undefined ? null : round(seconds * 1000));

async function main() {
  const mix = buildMix(loadVectors(releaseVectors("1.17").dir));
  server = await startDuckbill({ certDir: join(workDir, "certs"), logFile: join(workDir, "duckbill.log"), logLevel: flags["log-level"], nodeFlags: flags["node-flags"].split(/\s+/).filter((f) => f !== "") });
  const target = { host: HOST, port: server.port, ca: server.ca, servername: "localhost" };
  const requests = mix.map((r) => requestBytes(HOST, server.port, r.path, r.body));
  /** An answer is right when it is an AdmissionReview answering this request's uid. */
  const check = (i, body) => {
    let review;
    try {
      review = JSON.parse(body.toString("utf8"));
    } catch {
      return `${mix[i].name}: the answer is not JSON`;
    }
    if (review?.response?.uid !== mix[i].uid) return `${mix[i].name}: answered uid ${JSON.stringify(review?.response?.uid)}, sent ${JSON.stringify(mix[i].uid)}`;
    return undefined;
  };
  const load = (seconds) => pacedLoad({ ...target, requests, rate: RATE, durationMs: seconds * 1000, connections: CONNECTIONS, check });

  console.error(`soak: duckbill serve (pid ${server.pid}) ready in ${server.probedMs} ms; warm-up ${WARMUP_S} s, then ${DURATION_S} s at ${RATE} req/s on ${CONNECTIONS} connections`);
  const warm = await load(WARMUP_S);
  const metricsWarm = await scrapeMetrics(server.metricsPort);
  const proc = sampleProcess(server.pid, 1000);
  const timeline = [];
  const timelineTimer = setInterval(() => {
    const rss = readProc(server.pid)?.rssBytes;
    if (rss !== undefined) timeline.push(mb(rss));
  }, TIMELINE_MS);
  const run = await load(DURATION_S);
  clearInterval(timelineTimer);
  const procStats = proc.stop();
  const metricsEnd = await scrapeMetrics(server.metricsPort);
  /** The server's memory at one moment, from its default metrics (RSS as /proc/<pid>/status has it). */
  const memory = (text) => {
    const rss = sample(text, "process_resident_memory_bytes");
    const newSpace = sample(text, "nodejs_heap_space_size_total_bytes", 'space="new"');
    return {
      rss,
      newSpace,
      rssLessNewSpace: rss === undefined || newSpace === undefined ? undefined : rss - newSpace,
      heapUsed: sample(text, "nodejs_heap_size_used_bytes"),
      heapTotal: sample(text, "nodejs_heap_size_total_bytes"),
      external: sample(text, "nodejs_external_memory_bytes"),
    };
  };
  const [memWarm, memEnd] = [memory(metricsWarm), memory(metricsEnd)];
  const mbOrNull = (bytes) => (bytes === undefined ? null : mb(bytes));
  const growthOf = (a, b) => (a === undefined || b === undefined ? undefined : (b - a) / a);
  const pct = (g) => (g === undefined ? null : round(g * 100, 2));
  const stderr = server.stderr().trim();
  await stopChild(server.child);

  const growth = growthOf(memWarm.rssLessNewSpace, memEnd.rssLessNewSpace);
  const rawGrowth = growthOf(memWarm.rss, memEnd.rss);
  const result = {
    rate: RATE,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    connections: CONNECTIONS,
    logLevel: flags["log-level"],
    nodeFlags: flags["node-flags"],
    mix: describeMix(mix),
    requests: run.requests,
    achievedRate: run.achievedRate,
    errors: run.errors,
    errorsByKind: run.errorsByKind,
    firstError: run.firstError ?? null,
    statuses: run.statuses,
    warmup: { requests: warm.requests, errors: warm.errors, errorsByKind: warm.errorsByKind, firstError: warm.firstError ?? null },
    latencyMs: { p50: run.latencyMs.p50, p99: run.latencyMs.p99, max: run.latencyMs.max },
    // Gated: RSS less V8's young generation (see the top of this file).
    rssLessNewSpaceMB: { warmupEnd: mbOrNull(memWarm.rssLessNewSpace), end: mbOrNull(memEnd.rssLessNewSpace) },
    rssGrowthPct: pct(growth),
    rssMB: { warmupEnd: mbOrNull(memWarm.rss), end: mbOrNull(memEnd.rss), max: procStats.rssMaxMB },
    rawRssGrowthPct: pct(rawGrowth),
    v8NewSpaceMB: { warmupEnd: mbOrNull(memWarm.newSpace), end: mbOrNull(memEnd.newSpace) },
    rssTimelineMB: { everyS: TIMELINE_MS / 1000, values: timeline },
    heapUsedMB: { warmupEnd: mbOrNull(memWarm.heapUsed), end: mbOrNull(memEnd.heapUsed) },
    heapTotalMB: { warmupEnd: mbOrNull(memWarm.heapTotal), end: mbOrNull(memEnd.heapTotal) },
    externalMB: { warmupEnd: mbOrNull(memWarm.external), end: mbOrNull(memEnd.external) },
    // Over the measured phase (the warm-up's scrape reset the histogram). prom-client samples every 10 ms, and a
    // sample is the time between two of its timer callbacks: an idle loop reads about 10 ms.
    eventLoopMs: {
      p50: ms(sample(metricsEnd, "nodejs_eventloop_lag_p50_seconds")),
      p99: ms(sample(metricsEnd, "nodejs_eventloop_lag_p99_seconds")),
      max: ms(sample(metricsEnd, "nodejs_eventloop_lag_max_seconds")),
    },
    serverCpuCores: procStats.cpuCores,
    machineCpuCores: procStats.machineCpuCores,
    serverStderr: stderr === "" ? null : stderr.slice(0, 2000),
  };
  const failures = [];
  if (warm.errors > 0) failures.push(`${warm.errors} errors during the warm-up (${JSON.stringify(warm.errorsByKind)}; first: ${warm.firstError})`);
  if (run.errors > 0) failures.push(`${run.errors} errors (${JSON.stringify(run.errorsByKind)}; first: ${run.firstError})`);
  if (growth === undefined) failures.push("could not read the server's RSS and V8 new space from its metrics");
  else if (growth >= MAX_RSS_GROWTH) {
    failures.push(`RSS less V8's young generation grew by ${result.rssGrowthPct} % (${result.rssLessNewSpaceMB.warmupEnd} → ${result.rssLessNewSpaceMB.end} MB), the limit is ${MAX_RSS_GROWTH * 100} %`);
  }
  result.ok = failures.length === 0;
  result.failures = failures;

  console.log(`# Soak: ${RATE} req/s for ${DURATION_S} s (after ${WARMUP_S} s warm-up), ${CONNECTIONS} keep-alive connections, DUCKBILL_LOG_LEVEL=${flags["log-level"]}

| | |
|---|---|
| requests sent | ${run.requests} (achieved ${run.achievedRate} req/s) |
| errors | ${run.errors} (transport ${run.errorsByKind.transport}, non-2xx ${run.errorsByKind.status}, wrong uid ${run.errorsByKind.check}, unanswered ${run.errorsByKind.unanswered}); warm-up ${warm.errors} |
| latency p50 / p99 / max | ${run.latencyMs.p50} / ${run.latencyMs.p99} / ${run.latencyMs.max} ms |
| server RSS less V8 new space, end of warm-up → end (gated < ${MAX_RSS_GROWTH * 100} %) | ${result.rssLessNewSpaceMB.warmupEnd} → ${result.rssLessNewSpaceMB.end} MB (${result.rssGrowthPct} %) |
| server RSS, end of warm-up → end | ${result.rssMB.warmupEnd} → ${result.rssMB.end} MB (${result.rawRssGrowthPct} %; max ${result.rssMB.max} MB; V8 new space ${result.v8NewSpaceMB.warmupEnd} → ${result.v8NewSpaceMB.end} MB) |
| server RSS every ${TIMELINE_MS / 1000} s | ${timeline.join(", ")} MB |
| server V8 heap used / committed; external | ${result.heapUsedMB.warmupEnd} / ${result.heapTotalMB.warmupEnd} → ${result.heapUsedMB.end} / ${result.heapTotalMB.end} MB; ${result.externalMB.warmupEnd} → ${result.externalMB.end} MB |
| event-loop delay p50 / p99 / max | ${result.eventLoopMs.p50} / ${result.eventLoopMs.p99} / ${result.eventLoopMs.max} ms (10 ms sampling; idle ≈ 10) |
| server CPU | ${result.serverCpuCores} cores (machine ${result.machineCpuCores}) |
`);
  if (flags.out !== undefined) writeFileSync(flags.out, JSON.stringify(result, null, 2) + "\n");
  if (failures.length > 0) {
    for (const f of failures) console.error(`soak: FAIL: ${f}`);
    return 1;
  }
  console.error("soak: ok");
  return 0;
}

main().then(
  (code) => {
    cleanup();
    process.exit(code);
  },
  (err) => {
    console.error(`soak: ${err?.stack ?? err}`);
    cleanup();
    process.exit(1);
  },
);
