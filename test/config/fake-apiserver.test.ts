/** The fake API server behaves like kube-apiserver where the store (and later tests) depend on it. */
import { AdmissionregistrationV1Api, CoreV1Api } from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CONFIGMAPS, configMap, FakeApiServer, VALIDATING_WEBHOOK_CONFIGURATIONS, type FakeApiServerOptions } from "../support/fake-apiserver.js";

interface WatchEvent {
  type: string;
  object: { kind?: string; code?: number; metadata?: { name?: string; resourceVersion?: string } };
}

const CM_PATH = "/api/v1/namespaces/ns/configmaps";

describe("FakeApiServer", () => {
  let api: FakeApiServer;
  const start = async (opts: FakeApiServerOptions = {}): Promise<void> => {
    api = await FakeApiServer.start(opts);
  };
  beforeEach(async () => start());
  afterEach(async () => api.close());

  /** Reads `n` events from a watch (or everything until the server ends it), then hangs up. */
  async function watchEvents(query: string, n: number, during?: () => void): Promise<WatchEvent[]> {
    const abort = new AbortController();
    const res = await fetch(`${api.url}${CM_PATH}?watch=true&${query}`, { signal: abort.signal });
    expect(res.status).toBe(200);
    during?.();
    const events: WatchEvent[] = [];
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf("\n")) !== -1) {
          events.push(JSON.parse(buffered.slice(0, nl)) as WatchEvent);
          buffered = buffered.slice(nl + 1);
        }
        if (events.length >= n) break;
      }
    } finally {
      abort.abort();
    }
    return events;
  }

  it("lists with the latest resourceVersion and items without apiVersion/kind, as kube-apiserver does", async () => {
    api.create(CONFIGMAPS, configMap("ns", "b", { k: "1" }));
    api.create(CONFIGMAPS, configMap("ns", "a", { k: "2" }));
    api.create(CONFIGMAPS, configMap("other", "c", {}));
    const res = await fetch(`${api.url}${CM_PATH}`);
    const list = (await res.json()) as { kind: string; metadata: { resourceVersion: string }; items: { kind?: string; metadata: { name: string } }[] };
    expect(list.kind).toBe("ConfigMapList");
    expect(list.metadata.resourceVersion).toBe(api.resourceVersion());
    expect(list.items.map((i) => i.metadata.name)).toEqual(["a", "b"]);
    expect(list.items[0]?.kind).toBeUndefined();
  });

  it("starts a watch without resourceVersion with synthetic ADDED events, and one with it after that version", async () => {
    api.create(CONFIGMAPS, configMap("ns", "a", {}));
    const rv = api.resourceVersion();
    api.create(CONFIGMAPS, configMap("ns", "b", {}));
    expect((await watchEvents("", 2)).map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(["ADDED a", "ADDED b"]);
    const replay = await watchEvents(`resourceVersion=${rv}`, 3, () => {
      api.replace(CONFIGMAPS, configMap("ns", "a", { k: "v" }));
      api.delete(CONFIGMAPS, "a", "ns");
    });
    expect(replay.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(["ADDED b", "MODIFIED a", "DELETED a"]);
    expect(replay[2]?.object.metadata?.resourceVersion).toBe(api.resourceVersion());
  });

  it("answers a watch from a compacted resourceVersion with a 410 ERROR event", async () => {
    const rv = api.create(CONFIGMAPS, configMap("ns", "a", {})).metadata.resourceVersion;
    api.replace(CONFIGMAPS, configMap("ns", "a", { k: "v" }));
    api.compact();
    const [event] = await watchEvents(`resourceVersion=${rv}`, 1);
    expect(event).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 410 } });
  });

  it("can answer it with an HTTP 410 instead", async () => {
    await api.close();
    await start({ expiredWatchAs: "status" });
    api.create(CONFIGMAPS, configMap("ns", "a", {}));
    api.compact();
    const res = await fetch(`${api.url}${CM_PATH}?watch=true&resourceVersion=1`);
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({ kind: "Status", reason: "Expired", code: 410 });
  });

  it("sends bookmarks only to watches that allow them", async () => {
    const events = await watchEvents("allowWatchBookmarks=true", 1, () => api.sendBookmarks());
    expect(events[0]).toMatchObject({ type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: api.resourceVersion() } } });
  });

  it("filters lists and watches by label and field selectors", async () => {
    api.create(CONFIGMAPS, configMap("ns", "a", {}, { labels: { app: "x" } }));
    api.create(CONFIGMAPS, configMap("ns", "b", {}, { labels: { app: "y" } }));
    const names = async (q: string): Promise<string[]> =>
      ((await (await fetch(`${api.url}${CM_PATH}?${q}`)).json()) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    expect(await names("labelSelector=app%3Dx")).toEqual(["a"]);
    expect(await names("labelSelector=app!%3Dx")).toEqual(["b"]);
    expect(await names("fieldSelector=metadata.name%3Db")).toEqual(["b"]);
  });

  it("serves client-node's generated clients, including cluster-scoped resources, optimistic concurrency and patches", async () => {
    const kc = api.kubeConfig();
    const admission = kc.makeApiClient(AdmissionregistrationV1Api);
    const created = await admission.createValidatingWebhookConfiguration({ body: { metadata: { name: "validation.webhook.serving.knative.dev" }, webhooks: [] } });
    expect(created.metadata?.uid).toBeDefined();
    const read = await admission.readValidatingWebhookConfiguration({ name: "validation.webhook.serving.knative.dev" });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(api.get(VALIDATING_WEBHOOK_CONFIGURATIONS, "validation.webhook.serving.knative.dev")).toBeDefined();

    const core = kc.makeApiClient(CoreV1Api);
    const cm = await core.createNamespacedConfigMap({ namespace: "ns", body: { metadata: { name: "a" }, data: { k: "1" } } });
    await core.replaceNamespacedConfigMap({ namespace: "ns", name: "a", body: { ...cm, data: { k: "2" } } });
    await expect(core.replaceNamespacedConfigMap({ namespace: "ns", name: "a", body: { ...cm, data: { k: "3" } } })).rejects.toMatchObject({ code: 409 });
    expect(api.get(CONFIGMAPS, "a", "ns")?.data).toEqual({ k: "2" });
    await core.deleteNamespacedConfigMap({ namespace: "ns", name: "a" });
    expect(api.get(CONFIGMAPS, "a", "ns")).toBeUndefined();
  });

  it("applies merge patches", async () => {
    api.create(CONFIGMAPS, configMap("ns", "a", { keep: "1", drop: "2" }));
    const res = await fetch(`${api.url}${CM_PATH}/a`, {
      method: "PATCH",
      headers: { "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify({ data: { drop: null, add: "3" } }),
    });
    expect(res.status).toBe(200);
    expect(api.get(CONFIGMAPS, "a", "ns")?.data).toEqual({ keep: "1", add: "3" });
  });

  it("fails the next matching requests on demand, then recovers", async () => {
    api.failNext(2, 503, { watch: false });
    expect((await fetch(`${api.url}${CM_PATH}`)).status).toBe(503);
    expect((await fetch(`${api.url}${CM_PATH}`)).status).toBe(503);
    expect((await fetch(`${api.url}${CM_PATH}`)).status).toBe(200);
    expect(api.count({ method: "GET", plural: "configmaps" })).toBe(3);
  });

  it("answers unknown resources with a NotFound Status", async () => {
    const res = await fetch(`${api.url}/apis/example.com/v1/widgets`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 });
  });
});
