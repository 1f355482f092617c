// Starting and stopping the servers under test: `duckbill serve`, Knative's own webhook (the reference's server
// mode) and the bare-Node floor, as child processes on loopback ports.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DUCKBILL_BIN, FLOOR_SERVER, REPO_DIR } from "./paths.mjs";

export const HOST = "127.0.0.1";

/** A port the kernel says is free on loopback now (the server binds it a moment later). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** GET with the kube-probe user agent over TLS, trusting only `ca`; resolves to the HTTP status. */
function probe(port, ca) {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path: "/", ca, servername: "localhost", headers: { "user-agent": "kube-probe/bench" }, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("timeout", () => req.destroy(new Error("probe timed out")));
    req.on("error", reject);
    req.end();
  });
}

/** The first pino line with this message in the log file, parsed; undefined while there is none. */
function findLogLine(logFile, msg) {
  if (!existsSync(logFile)) return undefined;
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.includes(msg)) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === msg) return entry;
    } catch {
      // a partly written line: look again next time
    }
  }
  return undefined;
}

function exited(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited(child);
  clearTimeout(timer);
}

/**
 * Waits until `child` answers a readiness probe that trusts `caFile` with 200 (the file may appear only once the
 * server generated it). Resolves to its stderr so far (a function: it keeps collecting) and the ms from `startMono`
 * (the spawn) to that answer; stops the child and throws when it exits first or `deadline` passes.
 */
async function untilProbed(name, child, port, caFile, deadline, startMono = performance.now()) {
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited early (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
    if (performance.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${name} was not ready in time: ${stderr.trim()}`);
    }
    if (existsSync(caFile)) {
      const status = await probe(port, readFileSync(caFile)).catch(() => undefined);
      if (status === 200) return { stderr: () => stderr, probedMs: Math.round(performance.now() - startMono) };
    }
    await sleep(3);
  }
}

/**
 * Starts `node [nodeFlags] bin/duckbill serve` standalone, answering as Knative `release`: generated certificates in `certDir`, webhook and
 * metrics on free loopback ports, pino's stdout into `logFile` (a file, as a container runtime would take it,
 * without the bench's event loop reading it). Resolves once a readiness probe that trusts the generated ca.crt
 * answers 200. `readyMs` is process start → the "duckbill webhook serving" line's timestamp (when logging).
 * `bin`: another build's bin/duckbill (bench/ab.mjs), this checkout's by default.
 */
/** The Node binary the servers run on: `--node` of the bench (BENCH_NODE), else the bench's own. */
export function serverNode() {
  return process.env.BENCH_NODE || process.execPath;
}

export async function startDuckbill({ certDir, logFile, logLevel, release, nodeFlags = [], workers, timeoutMs = 15_000, bin = DUCKBILL_BIN, node = serverNode() }) {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const env = { ...process.env, WEBHOOK_PORT: String(port), DUCKBILL_HOST: HOST, DUCKBILL_METRICS_PORT: String(metricsPort), DUCKBILL_METRICS_HOST: HOST, DUCKBILL_GENERATED_CERT_DIR: certDir, DUCKBILL_LOG_LEVEL: logLevel, DUCKBILL_DRAIN_TIMEOUT: "0s", DUCKBILL_KNATIVE_VERSION: release };
  for (const inherited of ["DUCKBILL_CERT_DIR", "DUCKBILL_CONFIG_DIR", "DUCKBILL_HTTP2", "WEBHOOK_TLS_MIN_VERSION", "DUCKBILL_WORKERS", "NODE_OPTIONS"]) delete env[inherited];
  // Without `workers`, duckbill serve's own default (the bench's "default settings").
  if (workers !== undefined) env.DUCKBILL_WORKERS = String(workers);
  const out = openSync(logFile, "w");
  const startWall = Date.now();
  const startMono = performance.now();
  const child = spawn(node, [...nodeFlags, bin, "serve"], { cwd: REPO_DIR, env, stdio: ["ignore", out, "pipe"] });
  closeSync(out);
  const { stderr, probedMs } = await untilProbed("duckbill serve", child, port, join(certDir, "ca.crt"), startMono + timeoutMs, startMono);
  let readyLine;
  if (logLevel !== "silent") {
    // pino writes asynchronously: give the line a moment to reach the file.
    for (let i = 0; i < 200 && readyLine === undefined; i++) {
      readyLine = findLogLine(logFile, "duckbill webhook serving");
      if (readyLine === undefined) await sleep(5);
    }
  }
  const readyMs = readyLine !== undefined && typeof readyLine.time === "string" ? Date.parse(readyLine.time) - startWall : undefined;
  return { child, pid: child.pid, port, metricsPort, ca: readFileSync(join(certDir, "ca.crt")), readyMs, probedMs, stderr };
}

/**
 * Starts Knative's own webhook, the reference's server mode (reference/harness/serve.go: knative.dev/pkg's
 * Webhook.Run, Knative's TLS defaults), from the binary `npm run reference:build` cached, with the certificate
 * Duckbill generated in `certDir` and zap logging at `logLevel` into `logFile`. It listens on every address (as
 * Knative does; the bench talks to it on loopback). Ready when its drainer answers a kube-probe with 200. Stop it with killChild: on SIGTERM it drains for 45 s, as Knative does.
 */
export async function startKnative({ binary, certDir, logFile, logLevel, timeoutMs = 15_000 }) {
  const port = await freePort();
  const env = { ...process.env };
  // Go's runtime defaults, as in a pod without these set (GOMAXPROCS: the CPUs the process may use).
  for (const inherited of ["WEBHOOK_TLS_MIN_VERSION", "SYSTEM_NAMESPACE", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG"]) delete env[inherited];
  const out = openSync(logFile, "w");
  const startMono = performance.now();
  const child = spawn(binary, ["--serve", "--port", String(port), "--cert-dir", certDir, "--log-level", logLevel], { cwd: REPO_DIR, env, stdio: ["ignore", out, "pipe"] });
  closeSync(out);
  const { stderr, probedMs } = await untilProbed("knative-reference --serve", child, port, join(certDir, "ca.crt"), startMono + timeoutMs, startMono);
  return { child, pid: child.pid, port, ca: readFileSync(join(certDir, "ca.crt")), probedMs, stderr };
}

/** SIGKILL, and wait for the exit. */
export async function killChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGKILL");
  await exited(child);
}

/** Starts the bare Node HTTPS floor with the certificate duckbill generated in `certDir` (same key type), on the same Node with the same flags as duckbill. */
export async function startFloor({ certDir, nodeFlags = [], timeoutMs = 10_000, node = serverNode() }) {
  const port = await freePort();
  const child = spawn(node, [...nodeFlags, FLOOR_SERVER], {
    cwd: REPO_DIR,
    env: { ...process.env, FLOOR_CERT_DIR: certDir, FLOOR_PORT: String(port), FLOOR_HOST: HOST },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`floor server not ready within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.stdout.setEncoding("utf8").once("data", () => {
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`floor server exited (${code}): ${stderr}`));
    });
  });
  child.stdout.resume();
  return { child, pid: child.pid, port, ca: readFileSync(join(certDir, "ca.crt")) };
}
