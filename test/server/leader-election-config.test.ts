/**
 * config-leader-election in a cluster: read once at startup (src/kube/leader-election-config.ts), its durations,
 * buckets and lease prefixes reach the certificate and webhook-configuration Leases (src/cli/serve/cluster.ts), and
 * anything unusable means Knative's defaults with an error in the log rather than a webhook that will not start.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_LEADER_ELECTION } from "../../src/config/configmaps/leader-election.js";
import { createKubeApi, type KubeApi } from "../../src/kube/json-api.js";
import { createLeaderElector } from "../../src/kube/leader-election.js";
import { loadLeaderElectionConfig } from "../../src/kube/leader-election-config.js";
import { capturedLogger, eventually } from "../config/store-harness.js";
import { useClusterServe } from "../support/cluster-serve.js";
import { configMap, CONFIGMAPS, FakeApiServer, LEASES } from "../support/fake-apiserver.js";

const NS = "knative-serving";

describe("loadLeaderElectionConfig against the fake API server", () => {
  let fake: FakeApiServer;
  let api: KubeApi;
  beforeEach(async () => {
    fake = await FakeApiServer.start();
    api = createKubeApi(fake.kubeConfig());
  });
  afterEach(async () => {
    api.close();
    await fake.close();
  });

  it("gives Knative's defaults when the ConfigMap does not exist", async () => {
    const { logger, lines } = capturedLogger();
    expect(await loadLeaderElectionConfig({ api, namespace: NS, logger })).toEqual(DEFAULT_LEADER_ELECTION);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([["info", "config-leader-election not found; the Leases use Knative's defaults"]]);
  });

  it("reads the ConfigMap of its namespace by name with list (the Role grants no get)", async () => {
    fake.create(CONFIGMAPS, configMap(NS, "config-leader-election", { "lease-duration": "15s", "renew-deadline": "10s", "retry-period": "2s", buckets: "3" }));
    fake.create(CONFIGMAPS, configMap("elsewhere", "config-leader-election", { buckets: "7" }));
    const { logger, lines } = capturedLogger();
    const c = await loadLeaderElectionConfig({ api, namespace: NS, logger });
    expect(c).toMatchObject({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, buckets: 3 });
    expect(lines.find((l) => l.msg === "leader election configured")).toMatchObject({ level: "info", buckets: 3, leaseDurationMs: 15_000 });
    const calls = fake.requests.filter((r) => r.path.includes("/configmaps"));
    expect(calls.map((r) => [r.method, r.path])).toEqual([["GET", `/api/v1/namespaces/${NS}/configmaps`]]);
    expect(calls[0]?.query.get("fieldSelector")).toBe("metadata.name=config-leader-election");
  });

  it("follows CONFIG_LEADERELECTION_NAME's name when given one", async () => {
    fake.create(CONFIGMAPS, configMap(NS, "my-leader-election", { buckets: "2" }));
    const { logger } = capturedLogger();
    expect(await loadLeaderElectionConfig({ api, namespace: NS, name: "my-leader-election", logger })).toMatchObject({ buckets: 2 });
  });

  it.each([
    [{ buckets: "11" }, "config-leader-election is invalid; the Leases use Knative's defaults", "buckets: value must be between 1 <= 11 <= 10"],
    [{ "lease-duration": "fifteen" }, "config-leader-election is invalid; the Leases use Knative's defaults", 'failed to parse "lease-duration": time: invalid duration "fifteen"'],
    [{ "lease-duration": "10s", "renew-deadline": "15s" }, "config-leader-election has durations leader election cannot use; the Leases use Knative's defaults", "leaseDuration must be greater than renewDeadline"],
  ])("uses the defaults and logs an error for %j", async (data, msg, err) => {
    fake.create(CONFIGMAPS, configMap(NS, "config-leader-election", data));
    const { logger, lines } = capturedLogger();
    expect(await loadLeaderElectionConfig({ api, namespace: NS, logger })).toEqual(DEFAULT_LEADER_ELECTION);
    expect(lines).toEqual([expect.objectContaining({ level: "error", msg, err })]);
  });

  it("uses the defaults and logs an error when the API server cannot answer, after its attempts", async () => {
    const closed = await FakeApiServer.start();
    const gone = createKubeApi(closed.kubeConfig());
    await closed.close();
    const { logger, lines } = capturedLogger();
    try {
      expect(await loadLeaderElectionConfig({ api: gone, namespace: NS, logger, attempts: 2, backoffMs: 10, timeoutMs: 1000 })).toEqual(DEFAULT_LEADER_ELECTION);
    } finally {
      gone.close();
    }
    expect(lines).toEqual([expect.objectContaining({ level: "error", msg: "could not read config-leader-election; the Leases use Knative's defaults" })]);
  });
});

describe("duckbill serve with a config-leader-election", () => {
  const cluster = useClusterServe();

  it("holds the Leases knative/pkg would, with the configured duration", async () => {
    const fake = cluster.fake;
    fake.create(
      CONFIGMAPS,
      configMap(NS, "config-leader-election", { "lease-duration": "15s", "renew-deadline": "10s", "retry-period": "2s", buckets: "3", "map-lease-prefix.webhook.WebhookCertificates": "custom.prefix" }),
    );
    await cluster.serve(capturedLogger().logger);
    // The owners of each reconciler's key among 3 buckets, as knative/pkg's BucketSet answers (src/kube/testdata).
    const expected = ["custom.prefix.02-of-03", "webhook.configmapwebhook.01-of-03", "webhook.defaultingwebhook.00-of-03", "webhook.validationwebhook.02-of-03"];
    const leases = await eventually(() => {
      const held = fake.list(LEASES, NS).filter((l) => (l.spec as { holderIdentity?: string } | undefined)?.holderIdentity);
      return held.length >= expected.length ? held : undefined;
    }, "the four Leases to be held");
    expect(leases.map((l) => l.metadata.name).sort()).toEqual(expected);
    for (const l of leases) expect((l.spec as { leaseDurationSeconds?: number }).leaseDurationSeconds).toBe(15);
  });
});

describe("duckbill serve with --config-leader-election-name", () => {
  const cluster = useClusterServe();

  it("reads the named ConfigMap instead of config-leader-election", async () => {
    cluster.fake.create(CONFIGMAPS, configMap(NS, "config-leader-election", { buckets: "1" }));
    cluster.fake.create(CONFIGMAPS, configMap(NS, "my-leader-election", { buckets: "3" }));
    await cluster.serve(capturedLogger().logger, { "config-leader-election-name": "my-leader-election" });
    // knative-serving/webhook-certs belongs to bucket 01 of 3 (src/kube/testdata/lease-owners.tsv).
    await eventually(() => cluster.fake.get(LEASES, "webhook.webhookcertificates.01-of-03", NS), "the certificates Lease of 3 buckets");
  });
});

describe("a Lease the Role does not name", () => {
  it("is a warning in the log, once, not a silent debug line", async () => {
    const fake = await FakeApiServer.start();
    const { logger, lines } = capturedLogger();
    // What the API server answers when the Role's resourceNames do not include the Lease.
    fake.failNext(1_000_000, 403, { plural: "leases" });
    const elector = createLeaderElector({
      kubeConfig: fake.kubeConfig(),
      namespace: NS,
      leaseName: "webhook.webhookcertificates.01-of-03",
      identity: "a",
      leaseDurationMs: 4000,
      renewDeadlineMs: 2500,
      retryPeriodMs: 50,
      logger,
      onStartedLeading: () => undefined,
    });
    try {
      elector.start();
      await eventually(() => fake.count({ plural: "leases" }) >= 3, "a few attempts");
      const refused = lines.filter((l) => l.msg === "could not acquire or renew the lease");
      expect(refused).toEqual([expect.objectContaining({ level: "warn", lease: `${NS}/webhook.webhookcertificates.01-of-03` })]);
      expect(elector.isLeader()).toBe(false);
    } finally {
      await elector.close();
      await fake.close();
    }
  });
});
