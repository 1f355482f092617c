/**
 * `duckbill serve` in a cluster follows `loglevel.webhook` in config-logging (src/server/log-level.ts) through the
 * config store's ConfigMap watch, without making config-logging part of readiness.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultDeps } from "../../src/cli/deps.js";
import { resolveSettings } from "../../src/cli/settings/options.js";
import { parseServeSettings } from "../../src/cli/settings/serve-settings.js";
import { startWebhook } from "../../src/cli/serve/serve.js";
import { capturedLogger, eventually } from "../config/store-harness.js";
import { probe } from "../robustness/fault-support.js";
import { CLUSTER_NS as NS, useClusterServe } from "../support/cluster-serve.js";
import { configMap, CONFIGMAPS } from "../support/fake-apiserver.js";

describe("config-logging in a cluster", () => {
  const cluster = useClusterServe();

  async function serve(): Promise<ReturnType<typeof capturedLogger> & { port: number }> {
    const captured = capturedLogger();
    captured.logger.level = "info";
    const running = await cluster.serve(captured.logger, { "disable-ha": "true" });
    return { ...captured, port: running.port };
  }

  it("takes the level from loglevel.webhook at startup and follows its changes", async () => {
    cluster.fake.create(CONFIGMAPS, configMap(NS, "config-logging", { "loglevel.webhook": "debug", "loglevel.controller": "error" }));
    const { logger, lines } = await serve();
    await eventually(() => logger.level === "debug", "the startup level");
    cluster.fake.apply(CONFIGMAPS, configMap(NS, "config-logging", { "loglevel.webhook": "warn" }));
    await eventually(() => logger.level === "warn", "the new level");
    // Deleting the ConfigMap keeps the last level (the next version is seen from "warn", not from "info").
    cluster.fake.delete(CONFIGMAPS, "config-logging", NS);
    cluster.fake.create(CONFIGMAPS, configMap(NS, "config-logging", { "loglevel.webhook": "error" }));
    await eventually(() => logger.level === "error", "the recreated ConfigMap's level");
    // Removing the key gives --log-level's level back.
    cluster.fake.apply(CONFIGMAPS, configMap(NS, "config-logging", {}));
    await eventually(() => logger.level === "info", "--log-level's level");
    expect(lines.filter((l) => /^Updating logging level for webhook from \w+ to \w+\.$/.test(String(l.msg))).map((l) => [l.from, l.to])).toEqual([
      ["info", "debug"],
      ["debug", "warn"],
      // warn → error shows no info line on either side; a reset by the deletion would have added warn → info.
      ["error", "info"],
    ]);
  });

  it("keeps --log-level's level without config-logging, and readiness does not wait for it", async () => {
    const { logger, port } = await serve();
    await eventually(async () => ((await probe(port)).status === 200 ? true : undefined), "readiness");
    expect(logger.level).toBe("info");
  });
});

describe("config-logging in --config-dir", () => {
  it("takes the level from the directory's config-logging and follows its changes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-config-logging-"));
    await writeFile(join(dir, "config-logging.yaml"), 'loglevel.webhook: "debug"\n');
    const { logger } = capturedLogger();
    logger.level = "info";
    const certDir = await mkdtemp(join(tmpdir(), "duckbill-certs-"));
    const settings = { ...resolveSettings({}, {}), port: "0", host: "127.0.0.1", "metrics-port": "0", "generated-cert-dir": certDir, "config-dir": dir, "config-source": "dir" };
    const running = await startWebhook(parseServeSettings(settings), defaultDeps(), { logger });
    try {
      await eventually(() => logger.level === "debug", "the startup level");
      await writeFile(join(dir, "config-logging.yaml"), 'loglevel.webhook: "warn"\n');
      await eventually(() => logger.level === "warn", "the new level");
    } finally {
      await running.close();
      await rm(dir, { recursive: true, force: true });
      await rm(certDir, { recursive: true, force: true });
    }
  });
});
