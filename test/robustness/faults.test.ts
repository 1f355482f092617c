/**
 * Fault injection, configuration side: `duckbill serve` in cluster mode (startWebhook, config from the ConfigMaps,
 * certificate from the Secret) against the fake API server behind a proxy that refuses connections or corrupts
 * answers (fault-support.ts). Every test checks the admission answers and the readiness probe; logs where they
 * are the only witness. The certificate Secret is in faults-tls.test.ts, the SIGTERM drain in faults-drain.test.ts.
 *
 * Proved elsewhere, not repeated here (store level, against the same fake API server):
 * - test/config/cluster-store.test.ts: an invalid update is rejected, logged, counted and the last good value kept
 *   ("rejects an invalid update…"); a deleted ConfigMap keeps its value; stalled, dropped (clean and abrupt) and
 *   410-expired watches recover; the API server failing with 503 at startup keeps the store not ready with the
 *   reason, then retries until the first list succeeds; a ConfigMap invalid at startup makes it not ready.
 * - test/server/config-wiring.test.ts: a config change reaches admission decisions (directory source).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIGMAPS, configMap, FakeApiServer, SECRETS } from "../support/fake-apiserver.js";
import { serviceReview } from "../support/webhook.js";
import { admit, affinityDecision, AFFINITY_DENIED, FaultyProxy, NS, probe, secretData, startClusterWebhook, until, type ClusterWebhook } from "./fault-support.js";

/** A shared 2-core machine: a run starved of CPU may retry (the assertions are not timing checks). */
const TIMING_SENSITIVE = { retry: 1 } as const;

const features = (affinity: string): ReturnType<typeof configMap> => configMap(NS, "config-features", { "kubernetes.podspec-affinity": affinity });

/** The timeoutSeconds /defaulting gives the Service's template (config-defaults revision-timeout-seconds). */
async function defaultedTimeout(wh: ClusterWebhook, uid: string): Promise<number> {
  const r = await admit(wh.port, undefined, "/defaulting", JSON.stringify(serviceReview({ uid })));
  expect(r.status).toBe(200);
  const response = (JSON.parse(r.body) as { response: { uid: string; allowed: boolean; patch: string } }).response;
  expect(response).toMatchObject({ uid, allowed: true });
  const ops = JSON.parse(Buffer.from(response.patch, "base64").toString("utf8")) as Array<{ op: string; path: string; value?: unknown }>;
  const template = ops.find((o) => o.path === "/spec/template/spec/timeoutSeconds");
  if (typeof template?.value === "number") return template.value;
  const spec = ops.find((o) => o.path === "/spec/template/spec")?.value as { timeoutSeconds?: number } | undefined;
  if (typeof spec?.timeoutSeconds === "number") return spec.timeoutSeconds;
  throw new Error(`no timeoutSeconds in the patch: ${JSON.stringify(ops)}`);
}

describe("configuration source faults, end to end", TIMING_SENSITIVE, () => {
  let api: FakeApiServer;
  let proxy: FaultyProxy;
  let wh: ClusterWebhook | undefined;

  beforeEach(async () => {
    api = await FakeApiServer.start({ bookmarkIntervalMs: 200 });
    api.create(SECRETS, { metadata: { name: "webhook-certs", namespace: NS } });
  });
  afterEach(async () => {
    await wh?.stop();
    wh = undefined;
    await proxy?.close();
    await api.close();
  });

  /** Starts the webhook and waits until it is ready and serves the Secret's certificate; returns the CA. */
  async function serving(): Promise<string> {
    wh = await startClusterWebhook(proxy);
    const w = wh;
    await until(async () => (await probe(w.port)).status === 200, "readiness");
    const ca = await until(() => secretData(api)["ca-cert.pem"], "the filled Secret");
    await until(() => affinityDecision(w.port, "tls-ready", ca).then(() => true, () => false), "the Secret's certificate to be served");
    return ca;
  }

  it("keeps the last good configuration while the API server is gone, and follows changes again once it is back", async () => {
    api.create(CONFIGMAPS, features("enabled"));
    proxy = await FaultyProxy.start(api);
    const ca = await serving();
    const w = wh as ClusterWebhook;
    expect(await affinityDecision(w.port, "before", ca)).toEqual({ allowed: true, message: "" });
    await until(() => api.openWatches(CONFIGMAPS) === 1, "the ConfigMap watch");

    await proxy.down();
    // The watch dropped and reconnecting is refused: the log says so, and the retries back off.
    const failed = await until(() => w.lines.find((l) => l.msg === "ConfigMap watch failed; watching again" && /ECONNREFUSED/.test(String(l.detail))), "a refused reconnect");
    expect(failed).toMatchObject({ level: "warn", namespace: NS, reason: "error" });
    // What changes meanwhile is out of sight, and etcd compacts the history the watch would resume from.
    api.apply(CONFIGMAPS, features("disabled"));
    api.compact();
    // Admission keeps being answered with the last good configuration, and the replica stays ready (deliberately:
    // Knative's webhook keeps serving its last configuration; duckbill_config_age_seconds shows the staleness).
    for (let i = 0; i < 10; i++) {
      expect(await affinityDecision(w.port, `outage-${i}`, ca)).toEqual({ allowed: true, message: "" });
      expect(await probe(w.port)).toEqual({ status: 200, body: "" });
      await new Promise((r) => setTimeout(r, 60));
    }

    await proxy.up();
    // Back: the watch from the compacted resourceVersion gets 410, the store lists again and applies the change.
    expect(await until(() => affinityDecision(w.port, "after", ca).then((d) => (d.allowed ? undefined : d)), "the change made during the outage", 15_000)).toEqual({
      allowed: false,
      message: AFFINITY_DENIED,
    });
    expect(w.lines.some((l) => l.msg === "ConfigMap watch expired; listing again")).toBe(true);
    // And the new watch carries later changes.
    api.apply(CONFIGMAPS, features("enabled"));
    await until(() => affinityDecision(w.port, "later", ca).then((d) => d.allowed), "a change over the new watch");
    expect((await probe(w.port)).status).toBe(200);
  });

  it("starts without the API server, is not ready with the reason, and becomes ready once it appears", async () => {
    api.create(CONFIGMAPS, features("enabled"));
    proxy = await FaultyProxy.start(api, { listening: false });
    wh = await startClusterWebhook(proxy);
    const w = wh;
    // Serving (a throwaway certificate) and answering probes with the reason.
    const notReady = await until(async () => {
      const p = await probe(w.port);
      return p.status === 503 && /ECONNREFUSED/.test(p.body) ? p : undefined;
    }, "a 503 probe naming the refused connection");
    expect(notReady.body).toMatch(/^waiting for the first read of the configuration from cluster:knative-serving: listing ConfigMaps in knative-serving failed: .*ECONNREFUSED.*\n$/);
    expect(w.lines.some((l) => l.msg === "listing ConfigMaps failed; retrying" && l.level === "warn")).toBe(true);
    // Admission requests are answered meanwhile (with Knative's defaults: affinity disabled).
    expect(await affinityDecision(w.port, "early")).toEqual({ allowed: false, message: AFFINITY_DENIED });
    await new Promise((r) => setTimeout(r, 500));

    await proxy.up();
    await until(async () => (await probe(w.port)).status === 200, "readiness once the API server is there", 15_000);
    const ca = await until(() => secretData(api)["ca-cert.pem"], "the filled Secret");
    const decided = await until(() => affinityDecision(w.port, "up", ca).catch(() => undefined), "the Secret's certificate");
    expect(decided).toEqual({ allowed: true, message: "" });
    expect(w.lines.some((l) => l.msg === "configuration loaded")).toBe(true);
  });

  it("keeps the last good value of an invalid ConfigMap, logs it, and stays ready; a bad flag value means the default, as in Knative", async () => {
    api.create(CONFIGMAPS, features("enabled"));
    api.create(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "120" }));
    proxy = await FaultyProxy.start(api);
    const ca = await serving();
    const w = wh as ClusterWebhook;
    expect(await defaultedTimeout(w, "t-120")).toBe(120);

    api.apply(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "abc" }));
    const rejected = await until(() => w.lines.find((l) => l.level === "error" && l.configmap === "config-defaults"), "the rejection in the log");
    expect(rejected).toMatchObject({
      msg: "rejected an invalid config-defaults; its last good value stays in effect",
      error: 'failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "abc": invalid syntax',
    });
    expect(await defaultedTimeout(w, "t-still-120")).toBe(120);
    expect(await probe(w.port)).toEqual({ status: 200, body: "" });

    // config-features never fails to parse (Knative's asFlag): an unknown value is the flag's default, Disabled.
    // Duckbill keeps that on purpose (a drop-in replacement decides as Knative would); the log shows the change.
    api.apply(CONFIGMAPS, features("maybe"));
    await until(() => affinityDecision(w.port, "bad-flag", ca).then((d) => (d.allowed ? undefined : d)), "the unknown flag value to mean Disabled");
    expect(w.lines.some((l) => l.msg === "config-features changed; the new value is in effect")).toBe(true);
    expect((await probe(w.port)).status).toBe(200);

    api.apply(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "90" }));
    await until(async () => (await defaultedTimeout(w, `t-90-${Date.now()}`)) === 90, "the next valid config-defaults");
  });

  it("is not ready, with the parse error, while a ConfigMap is invalid at startup; ready once it is fixed", async () => {
    api.create(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "abc" }));
    proxy = await FaultyProxy.start(api);
    wh = await startClusterWebhook(proxy);
    const w = wh;
    const p = await until(async () => {
      const r = await probe(w.port);
      return r.status === 503 && r.body.startsWith("config-defaults") ? r : undefined;
    }, "the invalid-at-startup reason");
    expect(p.body).toBe('config-defaults in cluster:knative-serving is invalid and no earlier value is known: failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "abc": invalid syntax\n');
    expect(await defaultedTimeout(w, "t-default")).toBe(300);
    api.apply(CONFIGMAPS, configMap(NS, "config-defaults", { "revision-timeout-seconds": "60" }));
    await until(async () => (await probe(w.port)).status === 200, "readiness after the fix");
    expect(await defaultedTimeout(w, "t-60")).toBe(60);
  });

  it("survives list answers that are not JSON: not ready at startup with the reason, last good config kept later", async () => {
    api.create(CONFIGMAPS, features("enabled"));
    proxy = await FaultyProxy.start(api);
    proxy.garbageLists = true;
    wh = await startClusterWebhook(proxy);
    const w = wh;
    const p = await until(async () => {
      const r = await probe(w.port);
      return r.status === 503 && r.body.includes("listing ConfigMaps") ? r : undefined;
    }, "a 503 probe naming the failed list");
    expect(p.body).toMatch(/^waiting for the first read of the configuration from cluster:knative-serving: listing ConfigMaps in knative-serving failed: .+\n$/);
    const warned = await until(() => w.lines.find((l) => l.msg === "listing ConfigMaps failed; retrying"), "the failed list in the log");
    expect(warned.level).toBe("warn");
    expect(proxy.garbageAnswers).toBeGreaterThanOrEqual(1);

    proxy.garbageLists = false;
    await until(async () => (await probe(w.port)).status === 200, "readiness once lists are JSON again");
    const ca = await until(() => secretData(api)["ca-cert.pem"], "the filled Secret");
    await until(() => affinityDecision(w.port, "ok", ca).then((d) => d.allowed, () => false), "the configuration in effect");

    // Mid-run: the watch expires (410) and the re-list gets garbage; the last good configuration stays.
    await until(() => api.openWatches(CONFIGMAPS) === 1, "the ConfigMap watch");
    const answersBefore = proxy.garbageAnswers;
    const listFailuresBefore = w.lines.filter((l) => l.msg === "listing ConfigMaps failed; retrying").length;
    proxy.garbageLists = true;
    api.stallWatches();
    api.apply(CONFIGMAPS, features("disabled"));
    api.compact();
    api.dropWatches();
    await until(() => proxy.garbageAnswers >= answersBefore + 2, "two garbage list answers");
    expect(w.lines.filter((l) => l.msg === "listing ConfigMaps failed; retrying").length).toBeGreaterThan(listFailuresBefore);
    expect(await affinityDecision(w.port, "garbage-mid-run", ca)).toEqual({ allowed: true, message: "" });
    expect(await probe(w.port)).toEqual({ status: 200, body: "" });

    proxy.garbageLists = false;
    await until(() => affinityDecision(w.port, "recovered", ca).then((d) => (d.allowed ? undefined : d)), "the change once lists are JSON again", 15_000);
  });

  it("does not lose a change whose watch event arrives garbled: logs it and lists again", async () => {
    api.create(CONFIGMAPS, features("enabled"));
    proxy = await FaultyProxy.start(api);
    const ca = await serving();
    const w = wh as ClusterWebhook;
    await until(() => api.openWatches(CONFIGMAPS) === 1, "the ConfigMap watch");

    proxy.corruptNextEvent();
    api.apply(CONFIGMAPS, features("disabled"));
    await until(() => proxy.corruptedEvents === 1, "the garbled event");
    // Bookmarks keep coming (every 200 ms) with later resourceVersions: a client that skipped the bad line would
    // move past the change for good. The store must notice, say so, and read the ConfigMaps again.
    const logged = await until(() => w.lines.find((l) => l.reason === "undecodable"), "the undecodable event in the log");
    expect(logged).toMatchObject({ level: "warn", msg: "ConfigMap watch sent an event that does not decode; listing again", namespace: NS });
    expect(logged.detail).toMatch(/^unable to decode an event from the watch stream: .+: \{"type":"MODIFIED","object":\{/);
    expect(await until(() => affinityDecision(w.port, "after-garble", ca).then((d) => (d.allowed ? undefined : d)), "the garbled change to take effect")).toEqual({
      allowed: false,
      message: AFFINITY_DENIED,
    });
    expect(await probe(w.port)).toEqual({ status: 200, body: "" });
    // Later events are followed as usual.
    api.apply(CONFIGMAPS, features("enabled"));
    await until(() => affinityDecision(w.port, "after-garble-2", ca).then((d) => d.allowed), "the next change");
  });
});
