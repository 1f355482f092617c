/** The configuration store in directory mode (`--config-dir`): files, kubelet volumes, reloads, bad edits. */
import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConfigStore, ConfigStoreOptions } from "../../src/config/store.js";
import { createConfigStore } from "../../src/config/store.js";
import { execFileSync } from "node:child_process";
import { DirectoryConfigMapSource, ParsedFiles, readConfigDirectory } from "../../src/config/sources/directory.js";
import { inlineParser } from "../../src/config/sources/file-parser.js";
import { capturedLogger, closeAll, eventually, testStore, type LogLine, type TestStore } from "./store-harness.js";
import { DEFAULT_FEATURES } from "../../src/config/features.js";
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
    expect(view.get("config-features")?.observed?.error).toBe(`config-features is given more than once in ${dir} (config-features.yaml, config-features.json); keep one`);
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

  describe("an entry caught while it is being written", () => {
    const FEATURES = "config-features";

    function warnings(t: TestStore): LogLine[] {
      return t.lines.filter((l) => l.level === "warn" && l.configmap === FEATURES);
    }

    /** Waits until the source has read the directory `n` more times (each read ends in a sync). */
    async function moreReads(t: TestStore, n: number): Promise<void> {
      for (let i = 0; i < n; i++) {
        const before = t.store.lastSyncTime()?.getTime() ?? 0;
        await eventually(() => (t.store.lastSyncTime()?.getTime() ?? 0) > before, "another directory read", within(15_000));
      }
    }

    async function startWith(text: string): Promise<{ t: TestStore; file: string }> {
      const file = join(dir, `${FEATURES}.yaml`);
      await writeFile(file, text);
      const t = dirStore({ pollMs: 20 });
      await t.store.start();
      return { t, file };
    }

    it("keeps the last good value while a file is empty, warns once per content, then takes the written file", async () => {
      const { t, file } = await startWith("kubernetes.podspec-affinity: enabled\n");
      const good = t.store.current();
      expect(good.admission.features.podSpecAffinity).toBe("Enabled");

      await writeFile(file, ""); // truncated in place: what a writer does first
      const warned = await eventually(() => warnings(t)[0], "the empty file to be warned about", within(15_000));
      expect(warned).toMatchObject({ file, reason: "the file is empty" });
      expect(warned.msg).toBe(`cannot use ${file} as ${FEATURES}: the file is empty; the configuration in effect for it stays`);
      await moreReads(t, 3);
      expect(t.store.current()).toBe(good);
      expect(warnings(t)).toHaveLength(1);
      expect(t.store.notReadyReason()).toBeUndefined();

      await writeFile(file, "# being written\n"); // other content, still nothing in it: warned about once more
      await eventually(() => warnings(t).length === 2, "the second empty content to be warned about", within(15_000));
      await moreReads(t, 2);
      expect(t.store.current()).toBe(good);
      expect(warnings(t)).toHaveLength(2);

      await writeFile(file, "kubernetes.podspec-affinity: allowed\n");
      await eventually(() => t.store.current().admission.features.podSpecAffinity === "Allowed", "the written file to take effect", within(15_000));
    });

    it.each([
      { what: "a YAML syntax error", text: "kubernetes.podspec-affinity: [enab", reason: /must be YAML or JSON: / },
      { what: "JSON cut short", text: '{"kind":"ConfigMap","data":{"kubernetes.podspec-affinity":"en', reason: /must be YAML or JSON: / },
      { what: "a manifest cut short before its kind", text: "apiVersion: v1\n", reason: /must hold a ConfigMap or a map of strings, not a manifest of kind ""$/ },
      { what: "a list", text: "- kubernetes.podspec-affinity\n", reason: /must hold a ConfigMap or a map of strings$/ },
    ])("keeps the last good value over $what, warns once, then takes the next valid file", async ({ text, reason }) => {
      const { t, file } = await startWith("kubernetes.podspec-affinity: enabled\n");
      const good = t.store.current();

      await writeFile(file, text);
      const warned = await eventually(() => warnings(t)[0], "the garbage to be warned about", within(15_000));
      expect(warned.file).toBe(file);
      expect(String(warned.reason)).toMatch(reason);
      expect(String(warned.reason)).toContain(file);
      await moreReads(t, 3);
      expect(t.store.current()).toBe(good);
      expect(warnings(t)).toHaveLength(1);
      // As before: the store counts the rejected version once, and readiness does not change.
      expect(await t.metric("duckbill_config_invalid_updates_total", { configmap: FEATURES })).toBe(1);
      expect(t.store.notReadyReason()).toBeUndefined();

      await writeFile(file, "kubernetes.podspec-affinity: allowed\n");
      await eventually(() => t.store.current().admission.features.podSpecAffinity === "Allowed", "the valid file to take effect", within(15_000));
    });

    it.each([
      { what: "a manifest with `data: {}`", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\ndata: {}\n" },
      { what: "a ConfigMap manifest without data", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\n" },
      { what: "an explicit empty map", text: "{}\n" },
    ])("takes $what as a real, empty ConfigMap", async ({ text }) => {
      const { t, file } = await startWith("kubernetes.podspec-affinity: enabled\n");
      await writeFile(file, text);
      await eventually(() => t.store.current().admission.features.podSpecAffinity === "Disabled", "the empty ConfigMap to take effect", within(15_000));
      expect(t.store.current().data.get(FEATURES)).toEqual({});
      expect(warnings(t)).toHaveLength(0);
    });

    it("keeps a deleted file's last value when the file comes back empty", async () => {
      const { t, file } = await startWith("kubernetes.podspec-affinity: enabled\n");
      await unlink(file);
      await eventually(() => t.lines.find((l) => l.msg === `${FEATURES} was deleted; its last value stays in effect`), "the deletion to be seen", within(15_000));
      await writeFile(file, "");
      await eventually(() => warnings(t)[0], "the empty file to be warned about", within(15_000));
      await moreReads(t, 2);
      expect(t.store.current().admission.features.podSpecAffinity).toBe("Enabled");
    });

    it("at startup, with nothing read before, an empty file means Knative's defaults as before, with a warning", async () => {
      const { t, file } = await startWith("");
      expect(t.store.current().admission.features).toBe(DEFAULT_FEATURES);
      expect(t.store.notReadyReason()).toBeUndefined();
      expect(warnings(t)[0]?.msg).toBe(`cannot use ${file} as ${FEATURES}: the file is empty; nothing was read for it before, so Knative's defaults apply`);
    });

    it("at startup, with nothing read before, a file that does not parse means defaults and not ready as before, with a warning", async () => {
      const { t, file } = await startWith("kubernetes.podspec-affinity: [enab");
      expect(t.store.current().admission.features).toBe(DEFAULT_FEATURES);
      expect(t.store.notReadyReason()).toMatch(new RegExp(`^${FEATURES} in dir:.* is invalid and no earlier value is known: config file ".*" must be YAML or JSON: `));
      expect(warnings(t)[0]).toMatchObject({ file });
    });

    it("keeps a mounted ConfigMap's last good value while `..data` is mid-swap or its directory has no key files", async () => {
      const mounted = join(dir, FEATURES);
      const volume = new MountedVolume(mounted);
      await volume.publish({ "kubernetes.podspec-affinity": "enabled" });
      const t = dirStore({ pollMs: 20 });
      await t.store.start();
      const good = t.store.current();
      expect(good.admission.features.podSpecAffinity).toBe("Enabled");

      // `..data` swapped to a directory that is not there (yet): the key symlinks point nowhere too.
      await symlink("..2026_01_01_99_99_99.gone", join(mounted, "..data_tmp"));
      await rename(join(mounted, "..data_tmp"), join(mounted, "..data"));
      const midSwap = await eventually(() => warnings(t)[0], "the swap to be warned about", within(15_000));
      expect(midSwap).toMatchObject({ file: mounted, reason: "the mounted ConfigMap is being swapped (`..data` points to nothing)" });
      await moreReads(t, 3);
      expect(t.store.current()).toBe(good);

      await volume.publish({}); // a volume whose files are all absent
      const noFiles = await eventually(() => warnings(t)[1], "the empty volume to be warned about", within(15_000));
      expect(noFiles).toMatchObject({ file: mounted, reason: "the mounted ConfigMap directory has no key files" });
      await moreReads(t, 3);
      expect(t.store.current()).toBe(good);
      expect(warnings(t)).toHaveLength(2);

      await volume.publish({ "kubernetes.podspec-affinity": "allowed" });
      await eventually(() => t.store.current().admission.features.podSpecAffinity === "Allowed", "the next swap to take effect", within(15_000));
    });
  });

  it("never reads a FIFO or a file over 1 MiB: each is warned about, the value in effect stays, and a good file afterwards takes effect", async () => {
    const file = join(dir, "config-features.yaml");
    await writeFile(file, "kubernetes.podspec-affinity: enabled\n");
    const t = dirStore();
    await t.store.start();
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Enabled");

    await rm(file);
    execFileSync("mkfifo", [file]);
    await eventually(() => t.lines.find((l) => l.msg === `cannot use ${file} as config-features: cannot read ${file}: it is not a regular file (a FIFO, socket or device is never read); the configuration in effect for it stays`), "the FIFO warning");
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Enabled");

    await rm(file);
    await writeFile(file, `kubernetes.podspec-affinity: disabled\nfiller: "${"x".repeat(1024 * 1024)}"\n`);
    await eventually(() => t.lines.find((l) => typeof l.msg === "string" && l.msg.startsWith(`cannot use ${file} as config-features: cannot read ${file}: it holds 1048625 bytes or more, over 1048576, a ConfigMap's limit`)), "the size warning");
    expect(t.store.current().admission.features.podSpecAffinity).toBe("Enabled");
    expect(await t.metric("duckbill_config_invalid_updates_total", { configmap: "config-features" })).toBe(2);

    await replaceFile(file, "kubernetes.podspec-affinity: disabled\n");
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Disabled", "the good file to take effect");
  });

  it("parses a file again only when its bytes changed", async () => {
    await writeFile(join(dir, "config-features.yaml"), "kubernetes.podspec-affinity: enabled\n");
    await writeFile(join(dir, "config-defaults.yaml"), 'revision-timeout-seconds: "120"\n');
    const parsed: string[] = [];
    const files = new ParsedFiles({ parse: (file, text) => (parsed.push(file), inlineParser.parse(file, text)), close: () => Promise.resolve() });
    const names = ["config-features", "config-defaults"];
    const first = await readConfigDirectory(dir, names, files);
    expect(parsed).toHaveLength(2);
    expect(await readConfigDirectory(dir, names, files)).toEqual(first);
    expect(parsed).toHaveLength(2);
    await writeFile(join(dir, "config-defaults.yaml"), 'revision-timeout-seconds: "121"\n');
    await readConfigDirectory(dir, names, files);
    expect(parsed).toEqual([join(dir, "config-features.yaml"), join(dir, "config-defaults.yaml"), join(dir, "config-defaults.yaml")]);
  });

  it("gives up a read of the directory that does not finish, counts it, and reads anew on the next change", async () => {
    const file = join(dir, "config-features.yaml");
    await writeFile(file, "kubernetes.podspec-affinity: enabled\n");
    const { logger, lines } = capturedLogger();
    let stuck = false;
    const parser = { parse: (f: string, text: string) => (stuck ? new Promise<never>(() => undefined) : inlineParser.parse(f, text)), close: () => Promise.resolve() };
    const seen: string[] = [];
    const failures: string[] = [];
    const sink = { observe: (_n: string, o: { data?: Record<string, string> }) => seen.push(o.data?.["kubernetes.podspec-affinity"] ?? ""), observeMissing: () => undefined, synced: () => undefined, alive: () => undefined, trouble: () => undefined };
    const source = new DirectoryConfigMapSource({ dir, names: ["config-features"], sink, logger, pollMs: 60_000, debounceMs: 10, readTimeoutMs: 200, parser, onReadFailure: (r) => failures.push(r) });
    await source.start();
    try {
      expect(seen).toEqual(["enabled"]);
      stuck = true;
      await writeFile(file, "kubernetes.podspec-affinity: disabled\n");
      await eventually(() => failures.length === 1, "the read to be given up");
      expect(failures).toEqual(["timeout"]);
      expect(lines.find((l) => l.msg === "reading the configuration directory took longer than 200 ms and was given up; the values in effect stay, and the next read starts anew")).toBeDefined();
      stuck = false;
      await writeFile(file, "kubernetes.podspec-affinity: allowed\n");
      await eventually(() => seen.at(-1) === "allowed", "the next read to report");
    } finally {
      await source.close();
    }
  });

  it("hands each version of an observed ConfigMap (config-logging) to its observer, not to the admission configuration", async () => {
    const seen: Record<string, string>[] = [];
    await writeFile(join(dir, "config-logging.yaml"), 'loglevel.webhook: "debug"\n');
    const t = dirStore({ observers: new Map([["config-logging", (data: Record<string, string>) => void seen.push({ ...data })]]) });
    await t.store.start();
    expect(seen).toEqual([{ "loglevel.webhook": "debug" }]);
    expect(t.store.current().data.has("config-logging")).toBe(false);
    await writeFile(join(dir, "config-logging.yaml"), 'loglevel.webhook: "info"\n');
    await eventually(() => seen.length === 2, "the change to be handed over");
    expect(seen[1]).toEqual({ "loglevel.webhook": "info" });
    // A file that is not a ConfigMap is not handed over; the observer keeps what it has.
    await writeFile(join(dir, "config-logging.yaml"), "- not: a map\n");
    await writeFile(join(dir, "config-features.yaml"), "kubernetes.podspec-affinity: enabled\n");
    await eventually(() => t.store.current().admission.features.podSpecAffinity === "Enabled", "a later change to be read");
    expect(seen).toHaveLength(2);
  });

  it("refuses a directory that does not exist, at creation", () => {
    const { logger } = capturedLogger();
    expect(() => createConfigStore({ mode: "dir", dir: join(dir, "missing"), logger, registry: new Registry() })).toThrow(/config dir ".*missing" must be an existing directory/);
    expect(() => createConfigStore({ mode: "dir", logger, registry: new Registry() })).toThrow("the configuration store in dir mode needs a directory (--config-dir)");
  });
});
