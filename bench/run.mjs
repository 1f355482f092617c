#!/usr/bin/env node
// `npm run bench`: in-process admission cost, then duckbill serve and a bare Node HTTPS floor driven over
// loopback TLS keep-alive; prints Markdown, writes bench/results/<time>-<commit>.json, and with
// --compare <baseline.json> fails when saturation throughput dropped by more than 15 %.
// Everything is bounded: fixed phase lengths, and a watchdog that ends the run and its children.
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from "node:os";
import { basename, join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { summariseProfile } from "./lib/cpuprofile.mjs";
import { pacedLoad, requestBytes } from "./lib/paced-client.mjs";
import { BENCH_DIR, KNOWN_FAILURES_FILE, REPO_DIR, RESULTS_DIR, VECTORS_DIR } from "./lib/paths.mjs";
import { HOST, startDuckbill, startFloor, stopChild } from "./lib/processes.mjs";
import { sampleProcess, sampleSelf } from "./lib/proc-stats.mjs";
import { compareWithBaseline, cpuMicrosPerRequest, evaluateTargets, markdownReport, otherCpuMax } from "./lib/report.mjs";
import { autocannonRequests, saturate } from "./lib/saturation.mjs";
import { median } from "./lib/stats.mjs";
import { buildMix, describeMix, loadVectors } from "./lib/vectors.mjs";
import { guardRun } from "./lib/guard.mjs";

const ALL_PARTS = ["inprocess", "startup", "duckbill", "silent", "workers", "floor", "profile"];
const { values: flags } = parseArgs({
  options: {
    compare: { type: "string" },
    quick: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    only: { type: "string" },
    // As the image runs it (Dockerfile ENTRYPOINT, bin/duckbill's shebang, npm start).
    "node-flags": { type: "string", default: "--max-semi-space-size=4" },
    workers: { type: "string", default: "2" },
    out: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log(`Usage: npm run bench -- [--compare bench/results/<baseline>.json] [--quick] [--profile] [--only PARTS] [--out FILE]

  --compare FILE    exit 1 when duckbill's saturation throughput is more than 15 % below FILE's
  --quick           short phases (about 40 s): a smoke run, not for baselines
  --profile         also run duckbill under --cpu-prof at saturation and summarise where the time goes
  --only PARTS      comma-separated subset of ${ALL_PARTS.join(",")} (e.g. --only profile to iterate on the
                    hot path); --compare needs duckbill
  --node-flags "F"  node flags for every duckbill process (default "--max-semi-space-size=4", as the image runs
                    it; --node-flags "" measures Node's defaults)
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

/** Phase lengths in ms. The default run stays under 3 minutes including the build. */
const PHASES = flags.quick
  ? { warmup: 1000, rate: 3000, saturation: 4000, saturationRounds: 2, rates: [500, 1000, 2000], restarts: 1, inprocessSampleMs: 150 }
  : { warmup: 3000, rate: 8000, saturation: 10_000, saturationRounds: 2, rates: [500, 1000, 2000], restarts: 3, inprocessSampleMs: 500 };
const CONNECTIONS = 64;
const NODE_FLAGS = flags["node-flags"].split(/\s+/).filter((f) => f !== "");
const WORKERS = Number(flags.workers);
if (!Number.isInteger(WORKERS) || WORKERS < 2) {
  console.error(`bench: --workers must be a whole number of at least 2, got "${flags.workers}"`);
  process.exit(2);
}
const REGRESSION_THRESHOLD = 0.15;
const WATCHDOG_MS = (flags.quick ? 100_000 : 190_000) + (parts.has("profile") ? 40_000 : 0);

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
    platform: `${process.platform} ${release()}`,
    totalMemMB: Math.round(totalmem() / 1048576),
    freeMemMB: Math.round(freemem() / 1048576),
    loadavgAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

function runInProcess() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(BENCH_DIR, "inprocess.mjs"), "--json", "--sample-ms", String(PHASES.inprocessSampleMs)], { cwd: REPO_DIR, stdio: ["ignore", "pipe", "inherit"] });
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

function knownFailures() {
  if (!existsSync(KNOWN_FAILURES_FILE)) return new Set();
  return new Set(
    readFileSync(KNOWN_FAILURES_FILE, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#")),
  );
}

/**
 * Sends every request of the mix once over HTTPS, trusting only the generated ca.crt, and checks each answer
 * against its vector (HTTP 200, uid echoed, allowed as expected): the load phases then measure correct work.
 * Vectors on the conformance suite's known-failures list are counted apart.
 */
async function sanityCheck(port, ca, mix) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca, servername: "localhost" });
  const mismatches = [];
  for (const r of mix) {
    const answer = await new Promise((resolve, reject) => {
      const req = request({ host: HOST, port, path: r.path, method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
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
  const known = knownFailures();
  const unexpected = mismatches.filter((n) => !known.has(n));
  return { requests: mix.length, mismatches: unexpected.length, knownFailures: mismatches.length - unexpected.length, firstMismatches: unexpected.slice(0, 5) };
}

/** One measured phase: the load, plus CPU/RSS of the server and CPU of this process (the load generator). */
async function phase(pid, run, tree = false) {
  const server = sampleProcess(pid, 250, tree);
  const client = sampleSelf();
  const result = await run();
  const out = { ...result, server: server.stop(), client: client.stop() };
  out.server.cpuMicrosPerRequest = cpuMicrosPerRequest(out);
  return out;
}

/** A started server under test, with what its phases need. */
async function startTarget(name, start, mix) {
  log(`${name}: starting`);
  const srv = await start();
  children.add(srv.child);
  const target = { host: HOST, port: srv.port, ca: srv.ca, servername: "localhost" };
  return { name, srv, target, bytes: mix.map((r) => requestBytes(HOST, srv.port, r.path, r.body)), requests: autocannonRequests(mix), out: {} };
}

async function stopTarget(t) {
  await stopChild(t.srv.child);
  children.delete(t.srv.child);
}

async function warmUp(t) {
  log(`${t.name}: warm-up ${PHASES.warmup / 1000} s at saturation`);
  await saturate({ ...t.target, requests: t.requests, durationMs: PHASES.warmup, connections: CONNECTIONS });
}

async function fixedRates(t, rates) {
  t.out.rates = [];
  for (const rate of rates) {
    log(`${t.name}: ${rate} req/s for ${PHASES.rate / 1000} s`);
    t.out.rates.push(await phase(t.srv.pid, () => pacedLoad({ ...t.target, requests: t.bytes, rate, durationMs: PHASES.rate, connections: CONNECTIONS }), t.tree));
  }
}

/**
 * Saturation in rounds that alternate between the servers, so that a burst of other work on the machine hits
 * them alike; each server's figure is its best round (capacity is what it reaches when it gets the machine).
 */
async function saturationRounds(targets) {
  const each = PHASES.saturation / PHASES.saturationRounds;
  for (let round = 1; round <= PHASES.saturationRounds; round++) {
    for (const t of targets) {
      log(`${t.name}: saturation round ${round} for ${each / 1000} s`);
      const logBefore = t.logFile === undefined ? 0 : statSync(t.logFile).size;
      const p = await phase(t.srv.pid, () => saturate({ ...t.target, requests: t.requests, durationMs: each, connections: CONNECTIONS }), t.tree);
      if (t.logFile !== undefined && p.requests > 0) {
        await sleep(200);
        p.logBytesPerRequest = Math.round((statSync(t.logFile).size - logBefore) / p.requests);
      }
      (t.out.saturationRounds ??= []).push(p);
    }
  }
  for (const t of targets) {
    const rounds = t.out.saturationRounds;
    const best = rounds.reduce((a, b) => (b.reqPerSec > a.reqPerSec ? b : a));
    // RSS is the most any round reached, not the best round's.
    t.out.saturation = { ...best, server: { ...best.server, rssMaxMB: Math.max(...rounds.map((r) => r.server.rssMaxMB ?? 0)) } };
    if (best.logBytesPerRequest !== undefined) t.out.logBytesPerRequest = best.logBytesPerRequest;
  }
}

async function duckbillTarget(name, certDir, logLevel, mix, workers = 1) {
  const logFile = join(workDir, `${name}.log`);
  const t = await startTarget(name, () => startDuckbill({ certDir, logFile, logLevel, workers, nodeFlags: NODE_FLAGS }), mix);
  if (logLevel !== "silent") t.logFile = logFile;
  // The primary and its workers: CPU and RSS summed over the process tree.
  t.tree = workers > 1;
  t.out = { logLevel, workers, readyMs: t.srv.readyMs, probedMs: t.srv.probedMs };
  return t;
}

/** Start-to-ready of standalone `duckbill serve`: once generating certificates, then restarts that reuse them. */
async function measureStartup(certDir, restartCount) {
  const once = async (i) => {
    const srv = await startDuckbill({ certDir, logFile: join(workDir, `startup-${i}.log`), logLevel: "info", nodeFlags: NODE_FLAGS });
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
  const srv = await startDuckbill({ certDir, logFile: join(workDir, "profile.log"), logLevel: "info", nodeFlags: [...NODE_FLAGS, "--cpu-prof", `--cpu-prof-dir=${profDir}`] });
  children.add(srv.child);
  try {
    const target = { host: HOST, port: srv.port, ca: srv.ca, servername: "localhost" };
    await saturate({ ...target, requests: autocannonRequests(mix), durationMs: PHASES.warmup, connections: CONNECTIONS });
    await saturate({ ...target, requests: autocannonRequests(mix), durationMs: PHASES.saturation, connections: CONNECTIONS });
  } finally {
    await stopChild(srv.child, 10_000);
    children.delete(srv.child);
  }
  const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error("duckbill serve exited without writing a CPU profile");
  const kept = join(RESULTS_DIR, `${stamp}-saturation.cpuprofile`);
  copyFileSync(join(profDir, file), kept);
  return { file: kept, ...summariseProfile(kept) };
}

const stamp = new Date().toISOString().replace(/[:.]/g, "-").replace(/-\d+Z$/, "Z");

async function main() {
  const started = performance.now();
  const commit = gitCommit();
  const result = { schema: 1, startedAt: new Date().toISOString(), quick: flags.quick, nodeFlags: NODE_FLAGS, commit, machine: machine(), phases: PHASES, connections: CONNECTIONS };
  const mix = buildMix(loadVectors(VECTORS_DIR));
  result.mix = describeMix(mix);
  if (parts.has("inprocess")) {
    log("in-process: one admission per vector category through answerReview");
    result.inProcess = await runInProcess();
  }
  const certDir = join(workDir, "certs");
  log("startup: standalone duckbill serve, start to ready");
  // The first start generates the certificates every later server (and the floor) uses.
  const startup = await measureStartup(certDir, parts.has("startup") ? PHASES.restarts : 0);
  if (parts.has("startup")) result.startup = startup;
  const targets = [];
  try {
    if (parts.has("duckbill")) {
      const t = await duckbillTarget("duckbill", certDir, "info", mix);
      targets.push(t);
      t.out.sanity = await sanityCheck(t.srv.port, t.srv.ca, mix);
      await warmUp(t);
      await fixedRates(t, PHASES.rates);
      result.duckbill = t.out;
    }
    if (parts.has("silent")) {
      const t = await duckbillTarget("duckbill-silent", certDir, "silent", mix);
      targets.push(t);
      await warmUp(t);
      result.duckbillSilent = t.out;
    }
    if (parts.has("workers")) {
      const t = await duckbillTarget(`duckbill-${WORKERS}-workers`, certDir, "info", mix, WORKERS);
      targets.push(t);
      await warmUp(t);
      await fixedRates(t, [1000]);
      result.duckbillWorkers = t.out;
    }
    if (parts.has("floor")) {
      const t = await startTarget("floor", () => startFloor({ certDir }), mix);
      targets.push(t);
      await warmUp(t);
      await fixedRates(t, [1000]);
      result.floor = t.out;
    }
    if (targets.length > 0) await saturationRounds(targets);
  } finally {
    for (const t of targets) await stopTarget(t);
  }
  if (parts.has("profile")) result.profile = await profileAtSaturation(certDir, mix);
  result.machine.loadavgAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  result.elapsedSeconds = Math.round((performance.now() - started) / 1000);
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
