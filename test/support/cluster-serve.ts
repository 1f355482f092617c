/**
 * `duckbill serve` in cluster mode against a fresh fake API server per test (an empty webhook-certs Secret in
 * knative-serving, a kubeconfig in a temporary directory); registers the hooks that start and stop both.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { afterEach, beforeEach } from "vitest";
import { defaultDeps } from "../../src/cli/main.js";
import { resolveSettings, type ServeSettings } from "../../src/cli/settings/options.js";
import { parseServeSettings } from "../../src/cli/settings/serve-settings.js";
import { startWebhook, type RunningWebhook } from "../../src/cli/serve/serve.js";
import { FakeApiServer, SECRETS, type FakeApiServerOptions } from "./fake-apiserver.js";

export const CLUSTER_NS = "knative-serving";

export interface ClusterServe {
  /** This test's fake API server. */
  readonly fake: FakeApiServer;
  /** Starts the webhook against it (stopped after the test). */
  serve(logger: Logger, overrides?: Partial<ServeSettings>): Promise<RunningWebhook>;
}

export function useClusterServe(options: FakeApiServerOptions = {}): ClusterServe {
  let fake: FakeApiServer | undefined;
  let dir: string | undefined;
  let running: RunningWebhook | undefined;
  beforeEach(async () => {
    fake = await FakeApiServer.start({ bookmarkIntervalMs: 200, ...options });
    fake.create(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "webhook-certs", namespace: CLUSTER_NS } });
    dir = await mkdtemp(join(tmpdir(), "duckbill-cluster-serve-"));
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await fake?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return {
    get fake(): FakeApiServer {
      if (fake === undefined) throw new Error("useClusterServe: used outside a test");
      return fake;
    },
    async serve(logger, overrides = {}) {
      if (fake === undefined || dir === undefined) throw new Error("useClusterServe: used outside a test");
      const kubeconfig = join(dir, "kubeconfig");
      await writeFile(kubeconfig, fake.kubeconfigYaml());
      running = await startWebhook(parseServeSettings({ ...resolveSettings({}, {}), port: "0", host: "127.0.0.1", "metrics-port": "0", kubeconfig, "generated-cert-dir": join(dir, "certs"), ...overrides }), defaultDeps(), { logger });
      return running;
    },
  };
}
