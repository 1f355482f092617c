#!/usr/bin/env node
// A/B of two builds of `duckbill serve` in the same run conditions: server CPU per request (the figure that moves
// least when the machine is shared), each build in turn, in ABBA order so that drift hits both alike.
//
//   mkdir -p /tmp/a && cp -r bin dist /tmp/a      # a build to compare against (e.g. main's), then change and rebuild
//   node bench/ab.mjs --a /tmp/a --b . [--rounds 6] [--seconds 5] [--workers 1]
//   node bench/ab.mjs --a . --b . --b-node-flags "--max-semi-space-size=2 ..."   # one build, two sets of runtime flags
//   node bench/ab.mjs --a . --b . --b-log-level silent                           # what info logging costs
//
// Each directory holds bin/duckbill and dist/ (`npm run build`). Both serve `--workers N` (default 1) with info
// logging into a file and the image's node flags, on loopback, answering the bench's 400-request mix (Knative
// --knative-version's vectors). Per round and build: CPU seconds of the server's process tree / answered
// requests, at saturation (autocannon, 64 connections) and at --rate req/s (paced), and the most RSS one process
// reached. Bounded: a watchdog ends the
// run and its children.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { guardRun } from "./lib/guard.mjs";
import { pacedLoad, requestBytes } from "./lib/paced-client.mjs";
import { BENCH_RELEASES, DEFAULT_BENCH_RELEASE, IMAGE_NODE_FLAGS, releaseVectors } from "./lib/paths.mjs";
import { HOST, startDuckbill, stopChild } from "./lib/processes.mjs";
import { readProcTree, sampleProcess } from "./lib/proc-stats.mjs";
import { autocannonRequests, saturate } from "./lib/saturation.mjs";
import { median } from "./lib/stats.mjs";
import { buildMix, loadVectors } from "./lib/vectors.mjs";

const { values: flags } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "5" },
    rate: { type: "string", default: "1000" },
    workers: { type: "string", default: "1" },
    "knative-version": { type: "string", default: DEFAULT_BENCH_RELEASE },
    "node-flags": { type: "string", default: IMAGE_NODE_FLAGS },
    "b-node-flags": { type: "string" },
    "b-log-level": { type: "string" },
    node: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help || flags.a === undefined || flags.b === undefined) {
  console.log("Usage: node bench/ab.mjs --a DIR --b DIR [--rounds N] [--seconds S] [--rate R] [--workers N] [--knative-version V] [--node-flags F] [--b-node-flags F] [--b-log-level L] [--node PATH]");
  process.exit(flags.help ? 0 : 2);
}
const ROUNDS = Number(flags.rounds);
const MS = Number(flags.seconds) * 1000;
const RATE = Number(flags.rate);
if (!BENCH_RELEASES.includes(flags["knative-version"]) || !(ROUNDS >= 1) || !(MS >= 1000) || !(RATE >= 1)) {
  console.error("ab: bad --knative-version, --rounds, --seconds or --rate");
  process.exit(2);
}
const nodeFlags = (text) => text.split(/\s+/).filter((f) => f !== "");
const NODE_FLAGS = nodeFlags(flags["node-flags"]);
// --b-node-flags: B runs with other runtime flags (A/B of a flag with --a and --b the same build).
const B_NODE_FLAGS = flags["b-node-flags"] === undefined ? NODE_FLAGS : nodeFlags(flags["b-node-flags"]);
// The Node binary both builds run on (startDuckbill reads BENCH_NODE); the load generator stays on this one.
if (flags.node !== undefined) process.env.BENCH_NODE = flags.node;

const children = new Set();
const workDir = mkdtempSync(join(tmpdir(), "duckbill-ab-"));
const cleanup = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(workDir, { recursive: true, force: true });
};
guardRun("ab", 4 * ROUNDS * (2 * MS + 4000) + 120_000, cleanup);
const log = (m) => process.stderr.write(`ab: ${m}\n`);

/** CPU µs of `pid`'s process tree per answered request while `run` runs, and the most RSS one process reached. */
async function cpuPerRequest(pid, run) {
  const before = readProcTree(pid);
  const rss = sampleProcess(pid, 250, true);
  const r = await run();
  const after = readProcTree(pid);
  const { rssMaxPerProcessMB } = rss.stop();
  const answered = r.requests - r.errors;
  return { micros: ((after.cpuSeconds - before.cpuSeconds) / answered) * 1e6, rps: r.achievedRate ?? r.reqPerSec, errors: r.errors, p99: r.latencyMs.p99, rssMB: rssMaxPerProcessMB };
}

async function main() {
  const mix = buildMix(loadVectors(releaseVectors(flags["knative-version"]).dir));
  const certDir = join(workDir, "certs");
  const builds = [];
  for (const [name, dir] of [
    ["A", flags.a],
    ["B", flags.b],
  ]) {
    const srv = await startDuckbill({ certDir, logFile: join(workDir, `${name}.log`), logLevel: name === "B" ? (flags["b-log-level"] ?? "info") : "info", release: flags["knative-version"], workers: Number(flags.workers), nodeFlags: name === "B" ? B_NODE_FLAGS : NODE_FLAGS, bin: join(resolve(dir), "bin", "duckbill") });
    children.add(srv.child);
    const target = { host: HOST, port: srv.port, ca: srv.ca, servername: "localhost" };
    builds.push({ name, dir, srv, target, bytes: mix.map((r) => requestBytes(HOST, srv.port, r.path, r.body)), sat: [], paced: [] });
  }
  for (const b of builds) {
    log(`${b.name}: warm-up`);
    await saturate({ ...b.target, requests: autocannonRequests(mix), durationMs: 3000 });
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const b of order) {
      log(`round ${round}/${ROUNDS}: ${b.name}`);
      b.sat.push(await cpuPerRequest(b.srv.pid, () => saturate({ ...b.target, requests: autocannonRequests(mix), durationMs: MS })));
      b.paced.push(await cpuPerRequest(b.srv.pid, () => pacedLoad({ ...b.target, requests: b.bytes, rate: RATE, durationMs: MS })));
    }
  }
  const f = (x) => Math.round(x);
  const runtime = B_NODE_FLAGS === NODE_FLAGS ? `node flags ${NODE_FLAGS.join(" ")}` : `A's node flags ${NODE_FLAGS.join(" ")}, B's ${B_NODE_FLAGS.join(" ")}`;
  const logLevels = flags["b-log-level"] === undefined ? "info logging" : `A logs at info, B at ${flags["b-log-level"]}`;
  const lines = [`A = ${flags.a}, B = ${flags.b}; ${runtime}; ${logLevels}; ${ROUNDS} rounds of ${MS / 1000} s; --workers ${flags.workers}; load average at end ${loadavg().map((x) => x.toFixed(1)).join(" ")}`, ""];
  lines.push("| build | CPU µs/req at saturation (median; rounds) | req/s at saturation (median) | CPU µs/req at " + RATE + " req/s (median; rounds) | p99 ms at " + RATE + " req/s (median; rounds) | peak RSS MB (max) | errors |");
  lines.push("|---|---|---:|---|---|---:|---:|");
  for (const b of builds) {
    const errors = [...b.sat, ...b.paced].reduce((n, p) => n + p.errors, 0);
    lines.push(`| ${b.name} | **${f(median(b.sat.map((p) => p.micros)))}**; ${b.sat.map((p) => f(p.micros)).join(", ")} | ${f(median(b.sat.map((p) => p.rps)))} | **${f(median(b.paced.map((p) => p.micros)))}**; ${b.paced.map((p) => f(p.micros)).join(", ")} | **${median(b.paced.map((p) => p.p99)).toFixed(2)}**; ${b.paced.map((p) => p.p99.toFixed(2)).join(", ")} | ${Math.max(...[...b.sat, ...b.paced].map((p) => p.rssMB))} | ${errors} |`);
  }
  const [a, b] = builds;
  const ratio = (k) => median(b[k].map((p) => p.micros)) / median(a[k].map((p) => p.micros));
  lines.push("", `B / A CPU per request: ${ratio("sat").toFixed(3)} at saturation, ${ratio("paced").toFixed(3)} at ${RATE} req/s`);
  const perRound = (k) => a[k].map((p, i) => (b[k][i].micros / p.micros).toFixed(3)).join(", ");
  lines.push(`per round: saturation ${perRound("sat")}; ${RATE} req/s ${perRound("paced")}`);
  process.stdout.write(lines.join("\n") + "\n");
  for (const x of builds) await stopChild(x.srv.child);
}

main().then(
  () => {
    cleanup();
    process.exit(0);
  },
  (err) => {
    console.error(`ab: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    cleanup();
    process.exit(2);
  },
);
