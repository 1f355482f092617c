import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfigDir, parseConfigFile } from "./dir.js";

describe("loadConfigDir", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-config-"));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("reads ConfigMap manifests, plain maps and kubelet-mounted directories", async () => {
    await writeFile(join(dir, "config-features.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\ndata:\n  kubernetes.podspec-affinity: enabled\n");
    await writeFile(join(dir, "config-defaults.json"), JSON.stringify({ "revision-timeout-seconds": "120" }));
    // kubelet layout: ..data → ..2026_11_22 (a timestamped dir), key files are symlinks into ..data.
    const mounted = join(dir, "config-autoscaler");
    await mkdir(join(mounted, "..2026_11_22"), { recursive: true });
    await writeFile(join(mounted, "..2026_11_22", "max-scale-limit"), "10");
    await symlink("..2026_11_22", join(mounted, "..data"));
    await symlink("..data/max-scale-limit", join(mounted, "max-scale-limit"));
    await writeFile(join(dir, "README.txt"), "ignored");

    const snap = await loadConfigDir(dir);
    expect(snap.source).toBe(`dir:${dir}`);
    expect(snap.data.get("config-features")).toEqual({ "kubernetes.podspec-affinity": "enabled" });
    expect(snap.data.get("config-defaults")).toEqual({ "revision-timeout-seconds": "120" });
    expect(snap.data.get("config-autoscaler")).toEqual({ "max-scale-limit": "10" });
    expect([...snap.data.keys()].sort()).toEqual(["config-autoscaler", "config-defaults", "config-features"]);
  });

  it("says what is wrong with a directory that does not exist", async () => {
    await expect(loadConfigDir(join(dir, "missing"))).rejects.toThrow(/must be an existing directory/);
  });
});

describe("parseConfigFile", () => {
  it("rejects values that are not strings, as a ConfigMap's data must be strings", () => {
    expect(() => parseConfigFile("f.yaml", "a: 1\n")).toThrow('config file "f.yaml": value of "a" must be a string');
  });

  it("rejects a document that is not a map", () => {
    expect(() => parseConfigFile("f.yaml", "- a\n")).toThrow(/must hold a ConfigMap or a map of strings/);
  });

  it("reads an empty file as no data", () => {
    expect(parseConfigFile("f.yaml", "")).toEqual({});
  });
});
