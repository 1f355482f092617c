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
    { settings: { source: "defaults", dir: "/etc/duckbill", credentials: true }, want: "defaults" },
    { settings: { source: "cluster", credentials: false }, want: "cluster" },
    { settings: { dir: "/etc/duckbill", credentials: true }, want: "dir" },
    { settings: { source: "auto", credentials: true }, want: "cluster" },
    { settings: { credentials: true }, want: "cluster" },
    { settings: { source: "", credentials: false }, want: "defaults" },
  ])("$settings → $want", ({ settings, want }) => {
    expect(chooseConfigStoreMode(settings)).toBe(want);
  });

  it("rejects an unknown source", () => {
    expect(() => chooseConfigStoreMode({ source: "etcd", credentials: false })).toThrow('the configuration source must be auto, cluster, dir or defaults, got "etcd"');
  });
});
