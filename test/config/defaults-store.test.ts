/** The configuration store without a cluster or directory: Knative's defaults. */
import { afterEach, describe, expect, it } from "vitest";
import { chooseConfigStoreMode, type ConfigStore } from "../../src/config/store.js";
import { closeAll, testStore } from "./store-harness.js";

describe("configuration store, defaults mode", () => {
  const opened: ConfigStore[] = [];
  afterEach(async () => closeAll(opened));

  it("is ready at once with Knative's defaults", async () => {
    const t = testStore({ mode: "defaults" }, opened);
    await t.store.start();
    expect(t.store.notReadyReason()).toBeUndefined();
    expect(t.store.current().source).toBe("defaults");
    expect(t.store.current().admission.features.multiContainer).toBe("Enabled");
  });

  it("answers current() with the same object every time (no per-request work)", async () => {
    const t = testStore({ mode: "defaults" }, opened);
    await t.store.start();
    expect(t.store.current()).toBe(t.store.current());
  });
});

describe("chooseConfigStoreMode", () => {
  it.each([
    { settings: { source: "defaults", dir: "/etc/duckbill" }, env: { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, want: "defaults" },
    { settings: { source: "cluster" }, env: {}, want: "cluster" },
    { settings: { dir: "/etc/duckbill" }, env: { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, want: "dir" },
    { settings: { source: "auto", kubeconfig: "/k" }, env: {}, want: "cluster" },
    { settings: {}, env: { KUBECONFIG: "/k" }, want: "cluster" },
    { settings: {}, env: { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, want: "cluster" },
    { settings: {}, env: {}, want: "defaults" },
  ])("$settings with $env → $want", ({ settings, env, want }) => {
    expect(chooseConfigStoreMode(settings, env)).toBe(want);
  });

  it("rejects an unknown source", () => {
    expect(() => chooseConfigStoreMode({ source: "etcd" }, {})).toThrow('the configuration source must be auto, cluster, dir or defaults, got "etcd"');
  });
});
