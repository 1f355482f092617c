import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { NamespaceWatch } from "../../src/kube/namespace-watch.js";
import { eventually } from "../config/store-harness.js";
import { BUILTIN_RESOURCES, FakeApiServer, NAMESPACES } from "../support/fake-apiserver.js";

const logger = pino({ level: "silent" });

describe("NamespaceWatch", () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function start(): Promise<{ fake: FakeApiServer; watch: NamespaceWatch; relabels: string[] }> {
    const fake = await FakeApiServer.start({ resources: BUILTIN_RESOURCES });
    open.push(fake);
    fake.create(NAMESPACES, { metadata: { name: "platform", labels: { tenant: "platform" } } });
    fake.create(NAMESPACES, { metadata: { name: "team-b" } });
    const relabels: string[] = [];
    const watch = new NamespaceWatch({
      kubeConfig: fake.kubeConfig(),
      logger,
      pageSize: 1,
      onRelabel: (ns, before, after) => relabels.push(`${ns}: ${JSON.stringify([...before])} → ${JSON.stringify([...after])}`),
    });
    open.push(watch);
    watch.start();
    await eventually(() => watch.view.synced(), "the first list");
    return { fake, watch, relabels };
  }

  it("keeps each namespace's labels, listed in pages and then followed", async () => {
    const { fake, watch, relabels } = await start();
    expect(watch.view.labels("platform")).toEqual(new Map([["tenant", "platform"]]));
    expect(watch.view.labels("team-b")).toEqual(new Map());
    await eventually(() => fake.openWatches(NAMESPACES) > 0, "the watch");
    fake.replace(NAMESPACES, { metadata: { name: "team-b", labels: { tenant: "platform" } } });
    await eventually(() => watch.view.labels("team-b")?.get("tenant") === "platform", "the relabelling");
    expect(relabels).toEqual(['team-b: [] → [["tenant","platform"]]']);
    fake.delete(NAMESPACES, "platform");
    await eventually(() => watch.view.labels("platform") === undefined, "the deletion");
  });

  it("reads a namespace it does not know yet, and answers undefined for one that does not exist", async () => {
    const { watch } = await start();
    expect(await watch.view.fetch?.("nowhere")).toBeUndefined();
    expect(watch.view.labels("nowhere")).toBeUndefined();
  });
});
