#!/usr/bin/env node
// Where a serving process's memory goes: `duckbill serve --workers 1` and the bare Node HTTPS floor, on the same
// Node.js with the same flags, at rest and at saturation (autocannon, 64 connections, the bench's mix). For each:
// RSS at rest and at its peak, split into file-backed pages (the `node` binary, shared between processes) and
// anonymous memory; for Duckbill also V8's heap spaces at the peak (its /metrics) and, from /proc/<pid>/smaps at
// the end, the malloc heap (`[heap]`) and V8's and other anonymous mappings. Bounded: a watchdog ends the run.
//
//   npm run build && node bench/memory.mjs [--node PATH] [--node-flags "--max-semi-space-size=4"] [--seconds 15]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { guardRun } from "./lib/guard.mjs";
import { scrapeMetrics } from "./lib/metrics-scrape.mjs";
import { DEFAULT_BENCH_RELEASE, IMAGE_NODE_FLAGS, releaseVectors } from "./lib/paths.mjs";
import { HOST, serverNode, startDuckbill, startFloor, stopChild } from "./lib/processes.mjs";
import { readProc } from "./lib/proc-stats.mjs";
import { autocannonRequests, saturate } from "./lib/saturation.mjs";
import { buildMix, loadVectors } from "./lib/vectors.mjs";

const { values: flags } = parseArgs({
  options: {
    node: { type: "string" },
    "node-flags": { type: "string", default: IMAGE_NODE_FLAGS },
    seconds: { type: "string", default: "15" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log('Usage: node bench/memory.mjs [--node PATH] [--node-flags "F"] [--seconds S]');
  process.exit(0);
}
if (flags.node !== undefined) process.env.BENCH_NODE = flags.node;
const NODE_FLAGS = flags["node-flags"].split(/\s+/).filter((f) => f !== "");
const MS = Number(flags.seconds) * 1000;
if (!(MS >= 1000)) {
  console.error("memory: bad --seconds");
  process.exit(2);
}

const children = new Set();
const workDir = mkdtempSync(join(tmpdir(), "duckbill-memory-"));
guardRun("memory", 2 * (MS + 3000) + 60_000, () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(workDir, { recursive: true, force: true });
});
const MB = (kB) => Math.round(kB / 1024);

/** VmRSS, RssFile and RssAnon of `pid` in kB. */
function rss(pid) {
  const p = readProc(pid);
  if (p === undefined) throw new Error(`process ${pid} is gone`);
  return { total: p.rssBytes / 1024, file: p.rssFileBytes / 1024, anon: p.rssAnonBytes / 1024 };
}

/** Resident kB of `pid`'s malloc heap ([heap]) and of its other anonymous mappings. */
function anonymousMappings(pid) {
  let name = "";
  const out = { malloc: 0, other: 0 };
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m !== null) {
      name = m[1] ?? "";
      continue;
    }
    const r = /^Rss:\s+(\d+)/.exec(line);
    if (r === null) continue;
    if (name === "[heap]") out.malloc += Number(r[1]);
    else if (name === "") out.other += Number(r[1]);
  }
  return out;
}

/** V8's heap spaces (total size, MB) from duckbill's /metrics (prom-client's default metrics); none when unreadable. */
async function heapSpaces(port) {
  const text = await scrapeMetrics(port).catch(() => "");
  const spaces = {};
  for (const m of text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([a-z_]+)"\} (\S+)$/gm)) if (Number(m[2]) > 0) spaces[m[1]] = Math.round(Number(m[2]) / 1048576);
  return spaces;
}

async function measure(name, srv, mix) {
  const atRest = rss(srv.pid);
  let peak = atRest;
  let spaces = {};
  let sampling = false;
  const timer = setInterval(async () => {
    if (sampling) return;
    sampling = true;
    const now = rss(srv.pid);
    if (now.total > peak.total) {
      peak = now;
      if (srv.metricsPort !== undefined) spaces = await heapSpaces(srv.metricsPort);
    }
    sampling = false;
  }, 200);
  const target = { host: HOST, port: srv.port, ca: srv.ca, servername: "localhost" };
  await saturate({ ...target, requests: autocannonRequests(mix), durationMs: 3000, connections: 64 });
  const r = await saturate({ ...target, requests: autocannonRequests(mix), durationMs: MS, connections: 64 });
  clearInterval(timer);
  const maps = anonymousMappings(srv.pid);
  return { name, reqPerSec: r.reqPerSec, atRest, peak, spaces, maps };
}

async function main() {
  const mix = buildMix(loadVectors(releaseVectors(DEFAULT_BENCH_RELEASE).dir));
  const certDir = join(workDir, "certs");
  const rows = [];
  const duckbill = await startDuckbill({ certDir, logFile: join(workDir, "duckbill.log"), logLevel: "info", release: DEFAULT_BENCH_RELEASE, workers: 1, nodeFlags: NODE_FLAGS });
  children.add(duckbill.child);
  rows.push(await measure("duckbill --workers 1", duckbill, mix));
  await stopChild(duckbill.child, 10_000);
  const floor = await startFloor({ certDir, nodeFlags: NODE_FLAGS });
  children.add(floor.child);
  rows.push(await measure("floor", floor, mix));
  floor.child.kill("SIGKILL");

  const node = spawn(serverNode(), ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
  let version = "";
  for await (const c of node.stdout) version += c;
  console.log(`Servers on Node ${version.trim()} ${NODE_FLAGS.join(" ")}, ${MS / 1000} s at saturation (64 connections, the ${DEFAULT_BENCH_RELEASE} mix); MB\n`);
  console.log("| server | req/s | RSS at rest (file + anon) | peak RSS (file + anon) | malloc heap at the end | other anonymous at the end | V8 heap spaces at the peak |");
  console.log("|---|---:|---:|---:|---:|---:|---|");
  for (const r of rows) {
    const spaces = Object.entries(r.spaces).map(([k, v]) => `${k} ${v}`).join(", ") || "–";
    console.log(`| ${r.name} | ${r.reqPerSec} | ${MB(r.atRest.total)} (${MB(r.atRest.file)} + ${MB(r.atRest.anon)}) | ${MB(r.peak.total)} (${MB(r.peak.file)} + ${MB(r.peak.anon)}) | ${MB(r.maps.malloc)} | ${MB(r.maps.other)} | ${spaces} |`);
  }
}

main().then(
  () => {
    rmSync(workDir, { recursive: true, force: true });
    process.exit(0);
  },
  (err) => {
    console.error(err);
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    rmSync(workDir, { recursive: true, force: true });
    process.exit(1);
  },
);
