import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Agent } from "node:https";
import { createInterface } from "node:readline";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { usableCpus } from "../../src/cli/serve/cpu-limit.js";
import { resolveSettings } from "../../src/cli/settings/options.js";
import { everyWorkerExited, workerCount } from "../../src/cli/serve/workers.js";
import { parseServeSettings } from "../../src/cli/settings/serve-settings.js";
import { freePort, getText, samplesOf } from "../support/metrics-scrape.js";
import { httpsCall, serviceReview } from "../support/webhook.js";

const root = resolve(import.meta.dirname, "../..");

/** Resolves once `ok()` holds, looking every 50 ms (the test's timeout bounds the wait). */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((resolve) => setTimeout(resolve, 50));
}
const bin = join(root, "bin/duckbill");

describe("--workers", () => {
  it.each([
    ["1", 1],
    ["2", 2],
    ["auto", 3],
    ["0", 3],
  ])("reads %s as %d serving processes (3 CPUs usable)", (s, n) => {
    expect(workerCount(parseServeSettings({ ...resolveSettings({}, {}), workers: s }).workers, () => 3)).toBe(n);
  });

  it("sizes auto, the default, by the CPUs this process may use", () => {
    expect(resolveSettings({}, {}).workers).toBe("auto");
    expect(workerCount("auto")).toBe(usableCpus());
    expect(usableCpus()).toBeLessThanOrEqual(availableParallelism());
  });

  it.each(["-1", "two", "1.5", "", "257", "AUTO"])("refuses %j with a message that says what is wanted", (s) => {
    expect(() => parseServeSettings({ ...resolveSettings({}, {}), workers: s })).toThrow(/--workers \(DUCKBILL_WORKERS\) must be auto or a whole number from 0 to 256/);
  });
});

describe("everyWorkerExited", () => {
  const worker = (dead: boolean) => ({ isDead: () => dead });

  it("counts a worker that exited as gone while cluster.workers still lists it (its IPC channel not closed yet)", () => {
    expect(everyWorkerExited({ 1: worker(true), 2: worker(true) })).toBe(true);
    expect(everyWorkerExited({ 2: worker(true) })).toBe(true);
    expect(everyWorkerExited({})).toBe(true);
  });

  it("waits for a worker still running", () => {
    expect(everyWorkerExited({ 1: worker(true), 2: worker(false) })).toBe(false);
  });
});

describe("duckbill serve --workers 2", () => {
  // What the test was waiting for and what the processes logged, printed when it fails (a timeout included), and
  // the processes killed: a test that times out never reaches its own finally.
  let step = "";
  let logs: Record<string, unknown>[] = [];
  let running: ChildProcess | undefined;
  afterEach((ctx) => {
    if (ctx.task.result?.state === "fail") console.error(`workers test failed while ${step}; ${logs.length} log lines:\n${logs.map((l) => JSON.stringify(l)).join("\n")}`);
    running?.kill("SIGKILL");
  });

  beforeAll(() => {
    // `npm test` builds first; a bare `vitest run` on a fresh clone builds here.
    if (existsSync(join(root, "dist/cli/index.js"))) return;
    const r = spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" });
    if (r.status !== 0) throw new Error("build failed");
  });

  /** `duckbill serve --workers 2` on a free port, its log lines gathered into `logs`; `ready` is its serving line. */
  function startWorkers(dir: string, env: Record<string, string>): { child: ChildProcess; ready: Promise<{ port: number; metricsPort: number; workers: number }> } {
    step = "starting";
    const child = spawn(process.execPath, [bin, "serve", "--workers", "2"], {
      env: { ...process.env, WEBHOOK_PORT: "0", DUCKBILL_HOST: "127.0.0.1", DUCKBILL_GENERATED_CERT_DIR: dir, DUCKBILL_DRAIN_TIMEOUT: "200ms", DUCKBILL_LOG_LEVEL: "info", DUCKBILL_CONFIG_SOURCE: "defaults", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    running = child;
    logs = [];
    const ready = new Promise<{ port: number; metricsPort: number; workers: number }>((done, reject) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          // The primary passes the workers' lines on whole: a line that is not JSON fails the test with what it was.
          reject(new Error(`a log line that is not JSON: ${line.slice(0, 500)}`));
          return;
        }
        logs.push(entry);
        if (entry.message === "duckbill webhook serving") done(entry as never);
      });
      child.once("exit", (code) => reject(new Error(`serve exited early with ${code}`)));
    });
    step = "waiting for the serving line";
    return { child, ready };
  }

  it("serves one port from two processes with one certificate, sums their metrics, and drains both on SIGTERM", async () => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-workers-"));
    const metricsPortWanted = await freePort();
    const { child, ready } = startWorkers(dir, { DUCKBILL_METRICS_PORT: String(metricsPortWanted), DUCKBILL_METRICS_HOST: "127.0.0.1", DUCKBILL_KNATIVE_METRICS: "true" });
    try {
      const { port, metricsPort, workers } = await ready;
      expect(workers).toBe(2);
      expect(metricsPort).toBe(metricsPortWanted);
      const ca = await readFile(join(dir, "ca.crt"), "utf8");
      const n = 12;
      step = "sending reviews";
      for (let i = 0; i < n; i++) {
        // A new connection each time: the primary hands connections to the workers in turn.
        const r = await httpsCall(port, ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid: `w-${i}` })) });
        expect(r.status).toBe(200);
        expect(JSON.parse(r.body).response.uid).toBe(`w-${i}`);
      }
      step = "scraping the summed metrics";
      const before = Date.now() / 1000;
      const metrics = await getText(metricsPort, "/metrics");
      const after = Date.now() / 1000;
      expect(metrics).toContain(`duckbill_admission_duration_seconds_count{type="defaulting",group="serving.knative.dev",version="v1",kind="Service",subresource="",operation="CREATE",status="success"} ${n}`);
      // Knative's series (offline `auto`: 1.24's; shown with DUCKBILL_KNATIVE_METRICS=true, since 1.24 exports none by
      // default) are summed the same way.
      expect(metrics).toContain(`kn_webhook_handler_duration_seconds_count{http_route="/defaulting",kn_webhook_operation_status="success",kn_webhook_operation_type="CREATE",kn_webhook_resource_group="serving.knative.dev",kn_webhook_resource_kind="Service",kn_webhook_resource_version="v1",kn_webhook_subresource="",kn_webhook_type="admission",otel_scope_name="knative.dev/pkg/webhook",otel_scope_schema_url="",otel_scope_version=""} ${n}`);

      // Per-process gauges are not summed: the last sync reads a time (a sum of two workers' read twice the Unix
      // time), and the configuration's age is the oldest worker's, at most the time since that last sync.
      const [lastSync, ...moreSyncs] = samplesOf(metrics, "duckbill_config_last_sync_timestamp_seconds");
      expect(moreSyncs).toEqual([]);
      expect(lastSync!.value).toBeGreaterThan(Date.now() / 1000 - 86_400);
      expect(lastSync!.value).toBeLessThanOrEqual(after);
      const ages = samplesOf(metrics, "duckbill_config_age_seconds");
      expect(ages.map((a) => a.labels.configmap)).toContain("config-features");
      for (const age of ages) {
        expect(age.value).toBeGreaterThanOrEqual(before - lastSync!.value - 0.001);
        expect(age.value).toBeLessThanOrEqual(after - lastSync!.value + 0.001);
      }
      const [startTime] = samplesOf(metrics, "process_start_time_seconds");
      expect(startTime!.value).toBeGreaterThan(Date.now() / 1000 - 86_400);
      expect(startTime!.value).toBeLessThanOrEqual(after);
      const [maxFds] = samplesOf(metrics, "process_max_fds");
      const limit = spawnSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).stdout.trim();
      if (/^\d+$/.test(limit)) expect(maxFds!.value).toBe(Number(limit));

      const exited = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
      step = "waiting for the drain after SIGTERM";
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      // Both workers announced themselves on the same port (each process writes its own lines, so their order
      // relative to the primary's ready line is the pipe's, not a promise).
      expect(logs.filter((l) => l.message === "worker serving").map((l) => l.port)).toEqual([port, port]);
      const served = new Set(logs.filter((l) => l.message === "remote admission controller audit annotations=map[string]string(nil)").map((l) => l.worker));
      expect(served).toEqual(new Set([1, 2]));
      expect(logs.filter((l) => l.message === "stopped").map((l) => l.worker ?? "primary").sort()).toEqual([1, 2, "primary"]);
    } finally {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
  it("spreads a keep-alive client's connections over both workers again once a killed worker's replacement serves", async () => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-workers-"));
    const { child, ready } = startWorkers(dir, { DUCKBILL_METRICS_PORT: "0" });
    const pool = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const { port } = await ready;
      const ca = await readFile(join(dir, "ca.crt"), "utf8");
      let next = 0;
      const answeredBy = (uid: string): unknown => logs.find((l) => l["admissionreview/uid"] === uid)?.worker;
      /** Eight requests at once, so each goes on its own pooled connection: how many each worker answered. */
      const round = async (): Promise<Map<unknown, number>> => {
        const uids = Array.from({ length: 8 }, () => `k-${next++}`);
        await Promise.all(
          uids.map(async (uid) => {
            const call = (): ReturnType<typeof httpsCall> => httpsCall(port, ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid })), tls: { agent: pool } });
            // A pooled connection to the killed worker may still look open: retried once on a new one, as Go's transport does.
            const r = await call().catch(call);
            expect(r.status).toBe(200);
          }),
        );
        await until(() => uids.every((uid) => answeredBy(uid) !== undefined));
        const by = new Map<unknown, number>();
        for (const uid of uids) by.set(answeredBy(uid), (by.get(answeredBy(uid)) ?? 0) + 1);
        return by;
      };
      step = "opening the pool's connections";
      for (let i = 0; i < 3; i++) await round();

      step = "killing a worker";
      const workerPids = spawnSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" }).stdout.trim().split("\n").map(Number);
      expect(workerPids).toHaveLength(2);
      process.kill(workerPids[0]!, "SIGKILL");
      await until(() => logs.some((l) => l.message === "worker exited; starting another"));
      step = "refilling the pool while one worker serves";
      const whileOne = await round();

      step = "waiting for the replacement to serve";
      await until(() => logs.filter((l) => l.message === "worker serving").length === 3);
      const serving = logs.filter((l) => l.message === "worker serving").map((l) => l.worker);
      const replacement = serving[2];
      step = "waiting for the connections to spread";
      let spread = new Map<unknown, number>();
      for (let i = 0; i < 120; i++) {
        spread = await round();
        if ((spread.get(replacement) ?? 0) >= 3 && spread.size === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      console.log(`connections per worker: while one served ${JSON.stringify([...whileOne])}, after the replacement served ${JSON.stringify([...spread])}`);
      expect(spread.size).toBe(2);
      expect(spread.get(replacement)).toBeGreaterThanOrEqual(3);
      expect(spread.get(replacement)).toBeLessThanOrEqual(5);
    } finally {
      pool.destroy();
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("duckbill serve: a failure to start fails", () => {
  it.each([
    ["1", "9090"],
    ["2", "9090"],
    ["3", "9090"],
    ["2", "0"],
  ])("--workers %s --metrics-port %s on an HTTPS port in use: exits non-zero with the reason, no restarts", async (workers, metrics) => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-workers-"));
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as { port: number }).port;
    const metricsPort = metrics === "0" ? "0" : String(await freePort());
    try {
      const child = spawn(process.execPath, [bin, "serve", "--workers", workers], {
        env: { ...process.env, WEBHOOK_PORT: String(port), DUCKBILL_HOST: "127.0.0.1", DUCKBILL_METRICS_PORT: metricsPort, DUCKBILL_METRICS_HOST: "127.0.0.1", DUCKBILL_GENERATED_CERT_DIR: dir, DUCKBILL_LOG_LEVEL: "info", DUCKBILL_CONFIG_SOURCE: "defaults" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((done) => child.once("close", done));
      expect(code).not.toBe(0);
      expect(stdout + stderr).toMatch(/EADDRINUSE/);
      expect(stdout).not.toContain("worker exited; starting another");
      if (workers !== "1") expect(stdout).toMatch(/a worker exited before it served \(.*EADDRINUSE.*\); serve stops/);
    } finally {
      taken.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
