/** The configuration store in directory mode (`--config-dir`): files, kubelet volumes, reloads, bad edits. */
import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConfigStore, ConfigStoreOptions } from "../../src/config/store.js";
import { createConfigStore } from "../../src/config/store.js";
import { readConfigDirectory } from "../../src/config/sources/directory.js";
import { capturedLogger, closeAll, eventually, testStore, type TestStore } from "./store-harness.js";
import { within } from "../support/timing.js";
import { Registry } from "prom-client";

/** Replaces a file by rename, as editors and config-management tools do, so no reader sees it half-written. */
async function replaceFile(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

/** kubelet's AtomicWriter: a fresh timestamped directory, then `..data` swapped to it by rename, then cleanup. */
class MountedVolume {
  private generation = 0;
  private current: string | undefined;

  constructor(readonly dir: string) {}

  async publish(files: Record<string, string>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const ts = `..2026_01_01_00_00_0${this.generation++}.${process.pid}`;
    await mkdir(join(this.dir, ts));
    for (const [name, text] of Object.entries(files)) await writeFile(join(this.dir, ts, name), text);
    await symlink(ts, join(this.dir, "..data_tmp"));
    await rename(join(this.dir, "..data_tmp"), join(this.dir, "..data"));
    for (const name of Object.keys(files)) await symlink(join("..data", name), join(this.dir, name)).catch(() => undefined);
    if (this.current !== undefined) await rm(join(this.dir, this.current), { recursive: true, force: true });
    this.current = ts;
  }
}

describe("configuration store, directory mode", () => {
  let dir: string;
  const opened: ConfigStore[] = [];

  function dirStore(opts: Partial<ConfigStoreOptions> = {}): TestStore {
    // A long poll: changes below must arrive through fs.watch unless a test says otherwise.
    return testStore({ mode: "dir", dir, pollMs: 60_000, debounceMs: 10, ...opts }, opened);
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-config-store-"));
  });
  afterEach(async () => {
    await closeAll(opened);
    await rm(dir, { recursive: true, force: true });
  });

  it("reads manifests, plain maps and mounted directories, and names what falls back to defaults", async () => {
    await writeFile(join(dir, "config-features.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\ndata:\n  kubernetes.podspec-affinity: enabled\n");
    await new MountedVolume(join(dir, "config-autoscaler")).publish({ "max-scale-limit": "10", "max-scale": "5" });
    await writeFile(join(dir, "README.txt"), "ignored");
    const t = dirStore();
    expect(t.store.notReadyReason()).toMatch(/^waiting for the first read/);
    await t.store.start();
    const snap = t.store.current();
    expect(snap.source).toBe(`dir:${dir}`);
    expect(snap.admission.features.podSpecAffinity).toBe("Enabled");
    expect(snap.admission.autoscaler.maxScaleLimit).toBe(10);
    expect(snap.data.get("config-autoscaler")).toEqual({ "max-scale-limit": "10", "max-scale": "5" });
    expect(t.store.notReadyReason()).toBeUndefined();
    expect(t.lines.find((l) => l.msg === `config-defaults not found in dir:${dir}; using Knative's defaults for it`)).toBeDefined();
  });

  it("takes an edited file into effect", async () => {
    const file = join(dir, "config-features.json");
    await writeFile(file, JSON.stringify({ "kubernetes.podspec-affinity": "disabled" }));
    const t = dirStore();
    await t.store.start();
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Disabled");
    await writeFile(file, JSON.stringify({ "kubernetes.podspec-affinity": "enabled" })); // in place, as `echo >` does
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "the edit to take effect", within(15_000));
    await replaceFile(file, JSON.stringify({ "kubernetes.podspec-affinity": "allowed" }));
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Allowed", "the replacement to take effect", within(15_000));
  });

  it("takes a file created after startup into effect", async () => {
    const t = dirStore();
    await t.store.start();
    await writeFile(join(dir, "config-defaults.yaml"), "revision-timeout-seconds: '42'\n");
    await eventually(() => t.store.current().admission.defaults.revisionTimeoutSeconds === 42, "the new file to take effect", within(15_000));
  });

  it("takes a kubelet `..data` swap of a mounted ConfigMap into effect", async () => {
    const volume = new MountedVolume(join(dir, "config-features"));
    await volume.publish({ "kubernetes.podspec-affinity": "disabled" });
    const t = dirStore();
    await t.store.start();
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Disabled");
    await volume.publish({ "kubernetes.podspec-affinity": "enabled" });
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "the first swap to take effect", within(15_000));
    // The watches follow the new `..data` target: a second swap is seen too.
    await volume.publish({ "kubernetes.podspec-affinity": "allowed" });
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Allowed", "the second swap to take effect", within(15_000));
  });

  it("takes a swap into effect when the whole directory is a kubelet volume of manifest files", async () => {
    const volume = new MountedVolume(dir);
    await volume.publish({ "config-defaults.yaml": "revision-timeout-seconds: '100'\n" });
    const t = dirStore();
    await t.store.start();
    expect(t.store.current().admission.defaults.revisionTimeoutSeconds).toBe(100);
    await volume.publish({ "config-defaults.yaml": "revision-timeout-seconds: '200'\n" });
    await eventually(() => t.store.current().admission.defaults.revisionTimeoutSeconds === 200, "the swap to take effect", within(15_000));
  });

  it.each([
    { what: "a YAML syntax error", text: "revision-timeout-seconds: [\n", error: /^config file ".*config-defaults.yaml" must be YAML or JSON: / },
    { what: "a value that is not a string", text: "revision-timeout-seconds: 5\n", error: /value of "revision-timeout-seconds" must be a string$/ },
    { what: "a value Knative rejects", text: "revision-timeout-seconds: '900'\n", error: /^revision-timeout-seconds \(900\) cannot be greater than max-revision-timeout-seconds \(600\)$/ },
  ])("keeps the last good value over an edit with $what, and counts it once", async ({ text, error }) => {
    const file = join(dir, "config-defaults.yaml");
    await writeFile(file, "revision-timeout-seconds: '120'\n");
    const t = dirStore({ pollMs: 30 });
    await t.store.start();
    const good = t.store.current();
    await replaceFile(file, text);
    const logged = await eventually(() => t.lines.find((l) => l.level === "error"), "the rejection to be logged", within(15_000));
    expect(String(logged.error)).toMatch(error);
    // Several polls later: still the good value, still one rejection.
    await new Promise((r) => setTimeout(r, 120));
    expect(t.store.current()).toBe(good);
    expect(await t.metric("duckbill_config_invalid_updates_total", { configmap: "config-defaults" })).toBe(1);
    expect(t.lines.filter((l) => l.level === "error")).toHaveLength(1);
  });

  it("keeps a deleted file's last value", async () => {
    const file = join(dir, "config-features.yaml");
    await writeFile(file, "kubernetes.podspec-affinity: enabled\n");
    const t = dirStore();
    await t.store.start();
    await unlink(file);
    await eventually(() => t.lines.find((l) => l.msg === "config-features was deleted; its last value stays in effect"), "the deletion to be seen", within(15_000));
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Enabled");
  });

  it("picks changes up by polling when file events are not available", async () => {
    const file = join(dir, "config-features.yaml");
    await writeFile(file, "kubernetes.podspec-affinity: disabled\n");
    const t = dirStore({ fsWatch: false, pollMs: 50 });
    await t.store.start();
    await writeFile(file, "kubernetes.podspec-affinity: enabled\n");
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "the poll to see the edit", within(15_000));
  });

  it("treats a ConfigMap given twice as invalid", async () => {
    await writeFile(join(dir, "config-features.yaml"), "kubernetes.podspec-affinity: enabled\n");
    await writeFile(join(dir, "config-features.json"), "{}");
    const view = await readConfigDirectory(dir, ["config-features"]);
    expect(view.get("config-features")?.error).toBe(`config-features is given more than once in ${dir} (config-features.yaml, config-features.json); keep one`);
  });

  it("stops reloading on close", async () => {
    const file = join(dir, "config-features.yaml");
    await writeFile(file, "kubernetes.podspec-affinity: disabled\n");
    const t = dirStore({ pollMs: 20 });
    await t.store.start();
    await t.store.close();
    await writeFile(file, "kubernetes.podspec-affinity: enabled\n");
    await new Promise((r) => setTimeout(r, 100));
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Disabled");
  });

  it("refuses a directory that does not exist, at creation", () => {
    const { logger } = capturedLogger();
    expect(() => createConfigStore({ mode: "dir", dir: join(dir, "missing"), logger, registry: new Registry() })).toThrow(/config dir ".*missing" must be an existing directory/);
    expect(() => createConfigStore({ mode: "dir", logger, registry: new Registry() })).toThrow("the configuration store in dir mode needs a directory (--config-dir)");
  });
});
