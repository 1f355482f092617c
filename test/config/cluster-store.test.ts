/**
 * The configuration store in cluster mode against a real HTTP API server (test/support/fake-apiserver.ts):
 * changes reach admission decisions, bad versions never take effect, and lost, stalled or expired watches recover.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerReview } from "../../src/admission/http.js";
import { defaultDeps } from "../../src/cli/main.js";
import type { ConfigStore, ConfigStoreOptions } from "../../src/config/store.js";
import { clusterConfigSource } from "../../src/kube/config-source.js";
import { CONFIGMAPS, configMap, FakeApiServer, type FakeApiServerOptions } from "../support/fake-apiserver.js";
import { serviceReview } from "../support/webhook.js";
import { closeAll, eventually, testStore, type TestStore } from "./store-harness.js";
import { within } from "../support/timing.js";

const NS = "knative-serving";
const AFFINITY_DENIED = "validation failed: must not set the field(s): spec.template.spec.affinity";

const deps = defaultDeps();

/** A (defaulted) Service CREATE whose pod spec sets `affinity`, which config-features gates (spec §5.2). */
function serviceWithAffinity(): string {
  const review = serviceReview() as { request: { object: { spec: { template: { spec: Record<string, unknown> }; traffic?: unknown } } } };
  review.request.object.spec.traffic = [{ latestRevision: true, percent: 100 }];
  review.request.object.spec.template.spec.affinity = {
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }] }] } },
  };
  return JSON.stringify(review);
}

const AFFINITY_REVIEW = serviceWithAffinity();

/** The admission decision for the affinity Service under the store's current snapshot. */
async function decide(store: ConfigStore): Promise<{ allowed: boolean; message: string }> {
  const answer = await answerReview("/resource-validation", AFFINITY_REVIEW, deps, { config: store.current() });
  const body = JSON.parse(answer.body) as { response: { allowed: boolean; status?: { message?: string } } };
  return { allowed: body.response.allowed, message: body.response.status?.message ?? "" };
}

describe("configuration store, cluster mode", () => {
  let api: FakeApiServer;
  const opened: ConfigStore[] = [];

  async function start(apiOpts: FakeApiServerOptions = {}): Promise<void> {
    api = await FakeApiServer.start(apiOpts);
  }

  function clusterStore(opts: Partial<ConfigStoreOptions> = {}): TestStore {
    return testStore(
      {
        mode: "cluster",
        namespace: NS,
        watchdogMs: 10_000,
        cluster: clusterConfigSource({ kubeConfig: api.kubeConfig(), backoff: { initialMs: 10, maxMs: 100 }, watchTimeoutSeconds: 60 }),
        ...opts,
      },
      opened,
    );
  }

  beforeEach(async () => start());
  afterEach(async () => {
    await closeAll(opened);
    await api.close();
  });

  it("starts from Knative's defaults when the ConfigMaps are missing, and says so in the log", async () => {
    const { store, lines } = clusterStore();
    expect(store.notReadyReason()).toMatch(/^waiting for the first read of the configuration from cluster:knative-serving/);
    await store.start();
    expect(store.notReadyReason()).toBeUndefined();
    expect(store.current().source).toBe("cluster:knative-serving");
    expect(store.current().admission.features.podSpecAffinity).toBe("Disabled");
    const missing = lines.filter((l) => /not found in cluster:knative-serving; using Knative's defaults/.test(l.msg)).map((l) => l.configmap);
    expect(missing.sort()).toEqual(["config-autoscaler", "config-defaults", "config-features", "config-features-scopes"]);
    const watch = await eventually(() => api.requests.find((r) => r.watch), "the watch request");
    expect(watch?.path).toBe("/api/v1/namespaces/knative-serving/configmaps");
    expect(watch?.query.get("allowWatchBookmarks")).toBe("true");
    expect(watch?.query.get("resourceVersion")).toBe(api.resourceVersion());
    expect(watch?.authorization).toBe(`Bearer ${FakeApiServer.TOKEN}`);
  });

  it("applies a config-features flip to the next admission decision within 1 s", async () => {
    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "disabled" }));
    const { store } = clusterStore();
    await store.start();
    expect(await decide(store)).toEqual({ allowed: false, message: AFFINITY_DENIED });

    const changedAt = Date.now();
    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "enabled" }));
    await eventually(async () => (await decide(store)).allowed, "the affinity Service to be allowed", within(1000));
    expect(Date.now() - changedAt).toBeLessThan(within(1000));

    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "disabled" }));
    await eventually(async () => !(await decide(store)).allowed, "the affinity Service to be denied again", within(1000));
  });

  it("rejects an invalid update, counts and logs it, and keeps the last good value", async () => {
    api.apply(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "120" }));
    const t = clusterStore();
    await t.store.start();
    const good = t.store.current();
    expect(good.admission.defaults.revisionTimeoutSeconds).toBe(120);

    api.apply(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "abc" }));
    const logged = await eventually(() => t.lines.find((l) => l.level === "error" && l.configmap === "config-defaults"), "the rejection to be logged");
    expect(logged.error).toBe('failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "abc": invalid syntax');
    expect(logged.msg).toBe("rejected an invalid config-defaults; its last good value stays in effect");
    expect(t.store.current()).toBe(good);
    expect(await t.metric("duckbill_config_invalid_updates_total", { configmap: "config-defaults" })).toBe(1);
    expect(t.store.notReadyReason()).toBeUndefined();

    api.apply(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "90" }));
    await eventually(() => t.store.current().admission.defaults.revisionTimeoutSeconds === 90, "the next valid update to apply");
  });

  it("keeps a deleted ConfigMap's last value", async () => {
    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "enabled" }));
    const t = clusterStore();
    await t.store.start();
    expect((await decide(t.store)).allowed).toBe(true);

    api.delete(CONFIGMAPS, "config-features", NS);
    await eventually(() => t.lines.find((l) => l.msg === "config-features was deleted; its last value stays in effect"), "the deletion to be logged");
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Enabled");
    expect((await decide(t.store)).allowed).toBe(true);
  });

  it("detects a stalled watch with the watchdog and recovers by listing again", async () => {
    const t = clusterStore({ watchdogMs: 300 });
    await t.store.start();
    await eventually(() => api.openWatches() === 1, "the watch");
    const listsBefore = api.count({ watch: false });
    api.stallWatches();
    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "enabled" }));
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Disabled");

    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "the watchdog to re-list", within(2000));
    expect(api.count({ watch: false })).toBeGreaterThan(listsBefore);
    // The stalled stream was hung up, not leaked.
    await eventually(() => api.openWatches() === 1, "only the new watch to remain open");
    expect(await t.metric("duckbill_config_watch_restarts_total", { reason: "stalled" })).toBeGreaterThanOrEqual(1);
    expect(t.lines.some((l) => l.level === "warn" && l.reason === "stalled")).toBe(true);
  });

  it("does not restart a quiet watch that receives bookmarks", async () => {
    await api.close();
    await start({ bookmarkIntervalMs: 50 });
    // A watchdog period longer than a pause (test/support/timing.ts), which would otherwise look like a stall.
    const watchdogMs = within(500);
    const t = clusterStore({ watchdogMs });
    await t.store.start();
    await new Promise((r) => setTimeout(r, watchdogMs + 500));
    expect(await t.metric("duckbill_config_watch_restarts_total", { reason: "stalled" })).toBeUndefined();
    expect(api.count({ watch: true })).toBe(1);
    // Bookmarks confirm the values are current: the age stays well below the watchdog period.
    expect(await t.metric("duckbill_config_age_seconds", { configmap: "config-features" })).toBeLessThan(watchdogMs / 1000);
  });

  it.each([
    { how: "cleanly (EOF)", abrupt: false },
    { how: "abruptly (socket reset)", abrupt: true },
  ])("reconnects when the server drops the stream $how", async ({ abrupt }) => {
    const t = clusterStore();
    await t.store.start();
    await eventually(() => api.openWatches() === 1, "the first watch");
    api.dropWatches({ abrupt });
    await eventually(() => api.count({ watch: true }) === 2 && api.openWatches() === 1, "a second watch");
    // Resumed from the last resourceVersion: no re-list was needed.
    expect(api.count({ watch: false })).toBe(1);
    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "enabled" }));
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "the update over the new watch", within(1000));
    expect(await t.metric("duckbill_config_watch_restarts_total", { reason: abrupt ? "error" : "closed" })).toBe(1);
  });

  it.each([
    { as: "an ERROR event", expiredWatchAs: "event" as const },
    { as: "an HTTP 410 response", expiredWatchAs: "status" as const },
  ])("lists again after 410 Gone delivered as $as", async ({ expiredWatchAs }) => {
    await api.close();
    await start({ expiredWatchAs });
    const t = clusterStore();
    await t.store.start();
    await eventually(() => api.openWatches() === 1, "the first watch");
    // The update happens while the stream is stuck, and its history is compacted away before the client resumes.
    api.stallWatches();
    api.apply(CONFIGMAPS, configMap(NS, "config-features", { "kubernetes.podspec-affinity": "enabled" }));
    api.compact();
    api.dropWatches();
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "a re-list after 410", within(1000));
    expect(api.count({ watch: false })).toBe(2);
    expect(await t.metric("duckbill_config_watch_restarts_total", { reason: "gone" })).toBe(1);
  });

  it("is not ready while the API server fails, then retries with backoff until the first list succeeds", async () => {
    api.failNext(3, 503, { watch: false });
    const t = clusterStore();
    const started = t.store.start();
    const reason = "waiting for the first read of the configuration from cluster:knative-serving: listing ConfigMaps in knative-serving failed: HTTP 503: injected failure (503)";
    await eventually(() => t.store.notReadyReason() === reason, "the failure in the readiness reason");
    await started;
    expect(t.store.notReadyReason()).toBeUndefined();
    expect(api.count({ watch: false })).toBe(4);
  });

  it("reports not ready for a ConfigMap invalid at startup, with Knative's defaults in effect until it is fixed", async () => {
    api.apply(CONFIGMAPS, configMap(NS, "config-autoscaler", { "max-scale-limit": "-1" }));
    const t = clusterStore();
    await t.store.start();
    expect(t.store.notReadyReason()).toBe("config-autoscaler in cluster:knative-serving is invalid and no earlier value is known: max-scale-limit = -1, must be at least 0");
    expect(t.store.current().admission.autoscaler.maxScaleLimit).toBe(0);

    // Still broken: the reason follows the latest version.
    api.apply(CONFIGMAPS, configMap(NS, "config-autoscaler", { "max-scale-limit": "-2" }));
    await eventually(() => t.store.notReadyReason()?.endsWith("max-scale-limit = -2, must be at least 0"), "the reason to follow the latest version");

    api.apply(CONFIGMAPS, configMap(NS, "config-autoscaler", { "max-scale-limit": "100", "max-scale": "10" }));
    await eventually(() => t.store.notReadyReason() === undefined, "readiness after the fix");
    expect(t.store.current().admission.autoscaler.maxScaleLimit).toBe(100);
  });

  it("exposes the age of each ConfigMap and the last sync time as metrics", async () => {
    let now = 1_700_000_000_000;
    const t = clusterStore({ now: () => now });
    await t.store.start();
    expect(await t.metric("duckbill_config_last_sync_timestamp_seconds")).toBe(1_700_000_000);
    expect(t.store.lastSyncTime()?.getTime()).toBe(now);
    now += 42_000;
    expect(await t.metric("duckbill_config_age_seconds", { configmap: "config-defaults" })).toBe(42);
    const text = await t.registry.metrics();
    expect(text).toContain('duckbill_config_age_seconds{configmap="config-autoscaler"} 42');
  });

  it("stops watching on close", async () => {
    const t = clusterStore();
    await t.store.start();
    await eventually(() => api.openWatches() === 1, "the watch");
    await t.store.close();
    await eventually(() => api.openWatches() === 0, "the watch to be closed");
    const requests = api.requests.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(api.requests.length).toBe(requests);
  });

  it("ends start() when closed before the first list succeeds", async () => {
    api.failNext(1000, 500, { watch: false });
    const t = clusterStore();
    const started = t.store.start();
    await eventually(() => api.count({ watch: false }) >= 2, "a retry");
    await t.store.close();
    await started;
    expect(t.store.notReadyReason()).toMatch(/^waiting for the first read/);
  });
});
