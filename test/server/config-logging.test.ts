/**
 * `duckbill serve` in a cluster follows `loglevel.webhook` in config-logging (src/server/log-level.ts) through the
 * config store's ConfigMap watch, without making config-logging part of readiness.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultDeps } from "../../src/cli/main.js";
import { resolveSettings } from "../../src/cli/options.js";
import { startWebhook, type RunningWebhook } from "../../src/cli/serve.js";
import { capturedLogger, eventually } from "../config/store-harness.js";
import { probe } from "../robustness/fault-support.js";
import { configMap, CONFIGMAPS, FakeApiServer, SECRETS } from "../support/fake-apiserver.js";

const NS = "knative-serving";

describe("config-logging in a cluster", () => {
  let fake: FakeApiServer;
  let dir: string;
  let running: RunningWebhook | undefined;

  beforeEach(async () => {
    fake = await FakeApiServer.start({ bookmarkIntervalMs: 200 });
    fake.create(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "webhook-certs", namespace: NS } });
    dir = await mkdtemp(join(tmpdir(), "duckbill-logging-"));
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(): Promise<ReturnType<typeof capturedLogger>> {
    const kubeconfig = join(dir, "kubeconfig");
    await writeFile(kubeconfig, fake.kubeconfigYaml());
    const captured = capturedLogger();
    captured.logger.level = "info";
    running = await startWebhook({ ...resolveSettings({}, {}), port: "0", host: "127.0.0.1", "metrics-port": "0", kubeconfig, "disable-ha": "true" }, defaultDeps(), { logger: captured.logger });
    return captured;
  }

  it("takes the level from loglevel.webhook at startup and follows its changes", async () => {
    fake.create(CONFIGMAPS, configMap(NS, "config-logging", { "loglevel.webhook": "debug", "loglevel.controller": "error" }));
    const { logger, lines } = await serve();
    await eventually(() => logger.level === "debug", "the startup level");
    fake.apply(CONFIGMAPS, configMap(NS, "config-logging", { "loglevel.webhook": "warn" }));
    await eventually(() => logger.level === "warn", "the new level");
    // Deleting the ConfigMap keeps the last level (the next version is seen from "warn", not from "info").
    fake.delete(CONFIGMAPS, "config-logging", NS);
    fake.create(CONFIGMAPS, configMap(NS, "config-logging", { "loglevel.webhook": "error" }));
    await eventually(() => logger.level === "error", "the recreated ConfigMap's level");
    // Removing the key gives --log-level's level back.
    fake.apply(CONFIGMAPS, configMap(NS, "config-logging", {}));
    await eventually(() => logger.level === "info", "--log-level's level");
    expect(lines.filter((l) => l.msg === "log level changed by config-logging").map((l) => [l.from, l.to])).toEqual([
      ["info", "debug"],
      ["debug", "warn"],
      // warn → error shows no info line on either side; a reset by the deletion would have added warn → info.
      ["error", "info"],
    ]);
  });

  it("keeps --log-level's level without config-logging, and readiness does not wait for it", async () => {
    const { logger } = await serve();
    const port = running?.port as number;
    await eventually(async () => ((await probe(port)).status === 200 ? true : undefined), "readiness");
    expect(logger.level).toBe("info");
  });
});
