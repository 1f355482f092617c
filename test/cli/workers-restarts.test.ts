/**
 * `serve --workers 2` replaces a worker that dies after it served, but not for ever: past MAX_RESTARTS_PER_MINUTE
 * replacements within a minute it exits non-zero (the kubelet then restarts the container, with its back-off and
 * an event). Timing project: the bound is a minute of wall clock.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { beforeAll, expect, it } from "vitest";
import { MAX_RESTARTS_PER_MINUTE } from "../../src/cli/serve/workers.js";
import { childEnv, ensureBuilt, ROOT } from "../support/build.js";

beforeAll(ensureBuilt);

it(`exits non-zero after ${MAX_RESTARTS_PER_MINUTE} replacements of served workers within a minute`, async () => {
  const dir = await mkdtemp(join(tmpdir(), "duckbill-workers-"));
  const child = spawn(process.execPath, [join(ROOT, "bin/duckbill"), "serve", "--workers", "2"], {
    env: childEnv({ WEBHOOK_PORT: "0", DUCKBILL_HOST: "127.0.0.1", DUCKBILL_METRICS_PORT: "0", DUCKBILL_GENERATED_CERT_DIR: dir, DUCKBILL_LOG_LEVEL: "info", DUCKBILL_CONFIG_SOURCE: "defaults" }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on("line", (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
  const closed = new Promise<number | null>((done) => child.once("close", done));
  const until = async (f: () => boolean): Promise<void> => {
    while (!f()) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    for (let killed = 0; killed <= MAX_RESTARTS_PER_MINUTE; killed++) {
      // Kill a worker once the workers serving so far (2 + the replacements) have all said so.
      await until(() => lines.filter((l) => l.message === "worker serving").length >= 2 + killed || child.exitCode !== null);
      const pids = spawnSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" }).stdout.trim().split("\n").filter((p) => p !== "").map(Number);
      if (pids.length === 0) break;
      process.kill(pids[0]!, "SIGKILL");
      await until(() => lines.filter((l) => typeof l.message === "string" && l.message.startsWith("worker")).length > 2 + 2 * killed || child.exitCode !== null);
    }
    expect(await closed).toBe(1);
    expect(lines.filter((l) => l.message === "worker exited; starting another")).toHaveLength(MAX_RESTARTS_PER_MINUTE);
    expect(lines.at(-1)?.message).toBe(`workers exited ${MAX_RESTARTS_PER_MINUTE + 1} times within a minute; serve stops`);
  } finally {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
