#!/usr/bin/env node
// How cost grows: server CPU per request, throughput, p99 and peak RSS of `duckbill serve --workers 1`, Knative's own
// webhook (the release's reference, when built) and the bare Node HTTPS floor, as the object grows (a Service of
// ≈ 1 kB to ≈ 1 MB: more environment variables in its container) and as the number of concurrent keep-alive
// connections grows (1 to 500, as several API server replicas hold, the bench's 400-request mix). Each step is a
// closed loop (autocannon) for --seconds, the servers in turn within the step, so drift lands on all alike.
// Bounded: a watchdog ends the run and its children.
//
//   npm run build && node bench/growth.mjs [--seconds 4] [--knative-version 1.24] [--node PATH]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import jsonPatch from "fast-json-patch";
import { answerReview } from "../dist/admission/http.js";
import { defaultDeps } from "../dist/cli/main.js";
import { PROFILES } from "../dist/config/profile.js";
import { defaultSnapshot } from "../dist/config/snapshot.js";
import { guardRun } from "./lib/guard.mjs";
import { BENCH_RELEASES, DEFAULT_BENCH_RELEASE, IMAGE_NODE_FLAGS, releaseVectors } from "./lib/paths.mjs";
import { HOST, killChild, startDuckbill, startFloor, startKnative, stopChild } from "./lib/processes.mjs";
import { readProcTree, sampleProcess } from "./lib/proc-stats.mjs";
import { findReference } from "./lib/reference.mjs";
import { autocannonRequests, saturate } from "./lib/saturation.mjs";
import { buildMix, loadVectors } from "./lib/vectors.mjs";

const { values: flags } = parseArgs({
  options: {
    seconds: { type: "string", default: "4" },
    "knative-version": { type: "string", default: DEFAULT_BENCH_RELEASE },
    "node-flags": { type: "string", default: IMAGE_NODE_FLAGS },
    node: { type: "string" },
    sizes: { type: "string", default: "1,10,100,1000" },
    connections: { type: "string", default: "1,10,100,500" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log("Usage: node bench/growth.mjs [--seconds S] [--knative-version V] [--node-flags F] [--node PATH] [--sizes kB,...] [--connections N,...]");
  process.exit(0);
}
const MS = Number(flags.seconds) * 1000;
const RELEASE = flags["knative-version"];
const SIZES_KB = flags.sizes.split(",").map(Number);
const CONNECTIONS = flags.connections.split(",").map(Number);
if (!BENCH_RELEASES.includes(RELEASE) || !(MS >= 1000) || SIZES_KB.some((n) => !(n >= 1)) || CONNECTIONS.some((n) => !(n >= 1))) {
  console.error("growth: bad --seconds, --knative-version, --sizes or --connections");
  process.exit(2);
}
if (flags.node !== undefined) process.env.BENCH_NODE = flags.node;
const NODE_FLAGS = flags["node-flags"].split(/\s+/).filter((f) => f !== "");
/** Connections for the size steps: enough to keep a server busy, few enough that 1 MB bodies stay small in flight. */
const SIZE_CONNECTIONS = 8;

const children = new Set();
const workDir = mkdtempSync(join(tmpdir(), "duckbill-growth-"));
const cleanup = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(workDir, { recursive: true, force: true });
};
const steps = SIZES_KB.length + CONNECTIONS.length;
guardRun("growth", 3 * steps * (MS + 2000) + 120_000, cleanup);
const log = (m) => process.stderr.write(`growth: ${m}\n`);
const deps = defaultDeps();

/**
 * An AdmissionReview for a Service of about `kb` kilobytes: its container's environment variables make the bulk,
 * so defaulting, validation and the patch all walk it.
 */
function serviceReview(kb, path, uid) {
  const env = [];
  const base = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" };
  const object = { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "grow", namespace: "default" }, spec: { template: { spec: { containers: [{ image: "registry.example/app:1", env }] } } } };
  const request = { uid, kind: { group: "serving.knative.dev", version: "v1", kind: "Service" }, resource: { group: "serving.knative.dev", version: "v1", resource: "services" }, namespace: "default", name: "grow", operation: "CREATE", userInfo: { username: "bench" }, object };
  const size = () => JSON.stringify({ ...base, request }).length;
  // Each variable is ≈ 100 bytes of JSON.
  while (size() < kb * 1024 - 100) env.push({ name: `VAR_${env.length}`, value: "v".repeat(70) });
  return { path, body: JSON.stringify({ ...base, request }) };
}

/**
 * The /defaulting review of a Service of about `kb` kilobytes and the /resource-validation one of the same Service
 * defaulted (Duckbill's patch applied), as the API server sends them: both are answered allowed.
 */
async function servicePair(kb) {
  const defaulting = serviceReview(kb, "/defaulting", "g-d");
  const answer = await answerReview("/defaulting", Buffer.from(defaulting.body), deps, { config: defaultSnapshot(PROFILES[RELEASE]) });
  const { response } = JSON.parse(answer.body);
  const review = JSON.parse(defaulting.body);
  const patch = response.patch === undefined ? [] : JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"));
  review.request.uid = "g-v";
  review.request.object = jsonPatch.applyPatch(review.request.object, patch, false, false).newDocument;
  const validation = { path: "/resource-validation", body: JSON.stringify(review) };
  const checked = await answerReview(validation.path, Buffer.from(validation.body), deps, { config: defaultSnapshot(PROFILES[RELEASE]) });
  if (JSON.parse(checked.body).response?.allowed !== true) throw new Error(`the ${kb} kB Service is not allowed once defaulted: ${checked.body.slice(0, 300)}`);
  return [defaulting, validation];
}

async function measure(pid, run) {
  const sampler = sampleProcess(pid, 250, true);
  const before = readProcTree(pid);
  const r = await run();
  const after = readProcTree(pid);
  const stats = sampler.stop();
  const answered = r.requests - r.errors;
  return { rps: r.reqPerSec, cpuMicros: Math.round(((after.cpuSeconds - before.cpuSeconds) / Math.max(answered, 1)) * 1e6), p99: r.latencyMs.p99, rssMaxMB: stats.rssMaxPerProcessMB, errors: r.errors };
}

async function main() {
  const certDir = join(workDir, "certs");
  const servers = [];
  const duck = await startDuckbill({ certDir, logFile: join(workDir, "duckbill.log"), logLevel: "info", release: RELEASE, workers: 1, nodeFlags: NODE_FLAGS });
  children.add(duck.child);
  servers.push({ name: "duckbill --workers 1", srv: duck, stop: stopChild });
  const reference = findReference(RELEASE);
  if (reference.missing === undefined) {
    const kn = await startKnative({ binary: reference.binary, certDir, logFile: join(workDir, "knative.log"), logLevel: "info" });
    children.add(kn.child);
    servers.push({ name: `Knative ${RELEASE}`, srv: kn, stop: killChild });
  } else log(reference.missing);
  const floor = await startFloor({ certDir, nodeFlags: NODE_FLAGS });
  children.add(floor.child);
  servers.push({ name: "floor", srv: floor, stop: stopChild });
  for (const s of servers) s.target = { host: HOST, port: s.srv.port, ca: s.srv.ca, servername: "localhost" };

  const mix = buildMix(loadVectors(releaseVectors(RELEASE).dir));
  for (const s of servers) await saturate({ ...s.target, requests: autocannonRequests(mix), durationMs: 2000 });
  const rows = [];
  // Connections first: RSS only grows, and the 1 MB bodies would set every later step's peak.
  for (const n of CONNECTIONS) {
    for (const s of servers) {
      log(`${n} connections: ${s.name}`);
      rows.push({ axis: "connections", step: String(n), server: s.name, ...(await measure(s.srv.pid, () => saturate({ ...s.target, requests: autocannonRequests(mix), durationMs: MS, connections: n }))) });
    }
  }
  for (const kb of SIZES_KB) {
    const pair = await servicePair(kb);
    const requests = autocannonRequests(pair);
    const bytes = requests[0].body.length;
    for (const s of servers) {
      log(`${kb} kB: ${s.name}`);
      rows.push({ axis: "size", step: `${Math.round(bytes / 1024)} kB`, server: s.name, ...(await measure(s.srv.pid, () => saturate({ ...s.target, requests, durationMs: MS, connections: SIZE_CONNECTIONS }))) });
    }
  }
  for (const s of servers) await s.stop(s.srv.child);

  const names = servers.map((s) => s.name);
  const out = [`Cost growth (${MS / 1000} s closed loop per step and server; Node ${process.version} for the bench; load average at end ${loadavg().map((x) => x.toFixed(1)).join(" ")})`, ""];
  const table = (axis, title) => {
    out.push(`| ${title} | ${names.map((n) => `${n}: CPU µs/req · req/s · p99 ms · peak RSS MB`).join(" | ")} |`, `|---|${names.map(() => "---:").join("|")}|`);
    for (const step of [...new Set(rows.filter((r) => r.axis === axis).map((r) => r.step))]) {
      const cells = names.map((n) => {
        const r = rows.find((x) => x.axis === axis && x.step === step && x.server === n);
        return r === undefined ? "–" : `${r.cpuMicros} · ${r.rps} · ${r.p99} · ${r.rssMaxMB}${r.errors > 0 ? ` (${r.errors} errors)` : ""}`;
      });
      out.push(`| ${step} | ${cells.join(" | ")} |`);
    }
    out.push("");
  };
  table("connections", "concurrent connections (the mix)");
  table("size", `body size (/defaulting and /resource-validation of one Service, ${SIZE_CONNECTIONS} connections)`);
  process.stdout.write(out.join("\n"));
}

main().then(
  () => {
    cleanup();
    process.exit(0);
  },
  (err) => {
    console.error(`growth: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    cleanup();
    process.exit(2);
  },
);
