import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { usableCpus } from "../../src/cli/cpu-limit.js";
import { resolveSettings } from "../../src/cli/options.js";
import { parseWorkers } from "../../src/cli/workers.js";
import { freePort, getText } from "../support/metrics-scrape.js";
import { httpsCall, serviceReview } from "../support/webhook.js";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "bin/duckbill");

describe("--workers", () => {
  it.each([
    ["1", 1],
    ["2", 2],
    ["auto", 3],
    ["0", 3],
  ])("reads %s as %d serving processes (3 CPUs usable)", (s, n) => {
    expect(parseWorkers(s, () => 3)).toBe(n);
  });

  it("sizes auto, the default, by the CPUs this process may use", () => {
    expect(resolveSettings({}, {}).workers).toBe("auto");
    expect(parseWorkers("auto")).toBe(usableCpus());
    expect(usableCpus()).toBeLessThanOrEqual(availableParallelism());
  });

  it.each(["-1", "two", "1.5", "", "257", "AUTO"])("refuses %j with a message that says what is wanted", (s) => {
    expect(() => parseWorkers(s)).toThrow(/--workers \(WEBHOOK_WORKERS\) must be auto or a whole number from 0 to 256/);
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

  it("serves one port from two processes with one certificate, sums their metrics, and drains both on SIGTERM", async () => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-workers-"));
    const metricsPortWanted = await freePort();
    step = "starting";
    const child = spawn(process.execPath, [bin, "serve", "--workers", "2"], {
      env: { ...process.env, WEBHOOK_PORT: "0", WEBHOOK_HOST: "127.0.0.1", METRICS_PORT: String(metricsPortWanted), METRICS_HOST: "127.0.0.1", GENERATED_CERT_DIR: dir, DRAIN_TIMEOUT: "200ms", LOG_LEVEL: "info", CONFIG_SOURCE: "defaults", DUCKBILL_KNATIVE_METRICS: "true" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    running = child;
    logs = [];
    try {
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
      const metrics = await getText(metricsPort, "/metrics");
      expect(metrics).toContain(`duckbill_admission_duration_seconds_count{type="defaulting",group="serving.knative.dev",version="v1",kind="Service",subresource="",operation="CREATE",status="success"} ${n}`);
      // Knative's series (offline `auto`: 1.24's; shown with DUCKBILL_KNATIVE_METRICS=true, since 1.24 exports none by
      // default) are summed the same way.
      expect(metrics).toContain(`kn_webhook_handler_duration_seconds_count{http_route="/defaulting",kn_webhook_operation_status="success",kn_webhook_operation_type="CREATE",kn_webhook_resource_group="serving.knative.dev",kn_webhook_resource_kind="Service",kn_webhook_resource_version="v1",kn_webhook_subresource="",kn_webhook_type="admission",otel_scope_name="knative.dev/pkg/webhook",otel_scope_schema_url="",otel_scope_version=""} ${n}`);

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
});
