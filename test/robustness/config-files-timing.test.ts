/**
 * A large configuration file does not stall admission (src/config/sources/file-parser.ts): `duckbill serve --workers
 * 2 --config-dir`, as built, answers reviews without a pause while a 16,000-key config-features file (357 KB; the
 * YAML library's quadratic duplicate-key check took 4.9–5.9 s for it on the event loop) is read and takes effect.
 * Timing project: the bound is wall-clock.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent } from "node:https";
import { afterEach, beforeAll, expect, it } from "vitest";
import { childEnv, ensureBuilt, ROOT } from "../support/build.js";
import { within } from "../support/timing.js";
import { httpsCall, serviceReview } from "../support/webhook.js";

let child: ChildProcess | undefined;
const dirs: string[] = [];
beforeAll(ensureBuilt);
afterEach(async () => {
  child?.kill("SIGKILL");
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

it("reviews wait at most 0.5 s while a 16,000-key config-features file loads", async () => {
  const config = await mkdtemp(join(tmpdir(), "duckbill-config-"));
  const certs = await mkdtemp(join(tmpdir(), "duckbill-certs-"));
  dirs.push(config, certs);
  const lines: Record<string, unknown>[] = [];
  child = spawn(process.execPath, [join(ROOT, "bin/duckbill"), "serve", "--workers", "2", "--config-dir", config], {
    env: childEnv({ WEBHOOK_PORT: "0", DUCKBILL_HOST: "127.0.0.1", DUCKBILL_METRICS_PORT: "0", DUCKBILL_GENERATED_CERT_DIR: certs, DUCKBILL_LOG_LEVEL: "info" }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  createInterface({ input: child.stdout! }).on("line", (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  const until = async (what: string, f: () => boolean): Promise<void> => {
    const deadline = Date.now() + within(60_000);
    while (!f()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await until("the serving line", () => lines.some((l) => l.message === "duckbill webhook serving"));
  const port = lines.find((l) => l.message === "duckbill webhook serving")?.port as number;
  const ca = await readFile(join(certs, "ca.crt"), "utf8");
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let stop = false;
  let slowest = 0;
  let answered = 0;
  const body = JSON.stringify(serviceReview());
  const clients = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const started = performance.now();
      const r = await httpsCall(port, ca, { path: "/defaulting", body, tls: { agent } });
      expect(r.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      answered++;
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  try {
    await until("reviews answered before the change", () => answered >= 200);
    slowest = 0;
    const keys = Array.from({ length: 16000 }, (_, i) => `  key-${i}: "Enabled"\n`).join("");
    await writeFile(join(config, "config-features.yaml"), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\ndata:\n  kubernetes.podspec-affinity: enabled\n${keys}`);
    await until("both workers to take the file", () => lines.filter((l) => l.message === "config-features changed; the new value is in effect").length >= 2);
    const before = answered;
    await until("reviews after the change", () => answered >= before + 100);
  } finally {
    stop = true;
    await Promise.all(clients);
    agent.destroy();
  }
  expect(slowest).toBeLessThan(within(500));
}, 120_000);
