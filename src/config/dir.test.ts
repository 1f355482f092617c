import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfigDir, readConfigFile } from "./dir.js";

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

  it("refuses a FIFO or a file over 1 MiB with the reason, instead of blocking on it or reading it whole", async () => {
    execFileSync("mkfifo", [join(dir, "config-features.yaml")]);
    await expect(loadConfigDir(dir)).rejects.toThrow(`cannot read config file "${join(dir, "config-features.yaml")}": it is not a regular file (a FIFO, socket or device is never read)`);
    await rm(join(dir, "config-features.yaml"));
    await writeFile(join(dir, "config-defaults.yaml"), `a: "${"x".repeat(1024 * 1024)}"\n`);
    await expect(loadConfigDir(dir)).rejects.toThrow(/it holds 1048582 bytes or more, over 1048576, a ConfigMap's limit/);
  });

  it("says what is wrong with a directory that does not exist", async () => {
    await expect(loadConfigDir(join(dir, "missing"))).rejects.toThrow(/must be an existing directory/);
  });
});


describe("readConfigFile: what is not a ConfigMap", () => {
  it("rejects values that are not strings, as a ConfigMap's data must be strings", () => {
    expect(readConfigFile("f.yaml", "a: 1\n")).toEqual({ kind: "invalid", error: 'config file "f.yaml": value of "a" must be a string' });
  });

  it("rejects a document that is not a map", () => {
    expect(readConfigFile("f.yaml", "- a\n")).toEqual({ kind: "invalid", error: expect.stringMatching(/must hold a ConfigMap or a map of strings/) as unknown });
  });

  it("rejects a key given twice, in any mapping, naming where: in linear time (16,000 keys and a duplicate)", () => {
    const keys = Array.from({ length: 16000 }, (_, i) => `  key-${i}: "v"\n`).join("");
    expect(readConfigFile("f.yaml", `kind: ConfigMap\ndata:\n${keys}  key-7: "again"\n`)).toEqual({
      kind: "invalid",
      error: 'config file "f.yaml" must be YAML or JSON: Map keys must be unique at line 16003, column 3',
    });
    expect(readConfigFile("f.yaml", `kind: ConfigMap\ndata:\n${keys}`)).toMatchObject({ kind: "data" });
    expect(readConfigFile("f.json", '{"data": {"a": "1", "a": "2"}, "kind": "ConfigMap"}')).toEqual({
      kind: "invalid",
      error: 'config file "f.json" must be YAML or JSON: Map keys must be unique at line 1, column 21',
    });
    expect(readConfigFile("f.yaml", "a: x\n'a': y\n")).toMatchObject({ kind: "invalid" });
    // The library's equality: scalar keys by value, so the number 1 and the string "1" are two keys (the last is kept).
    expect(readConfigFile("f.yaml", '1: x\n"1": y\n')).toEqual({ kind: "data", data: { "1": "y" } });
  });
});

describe("readConfigFile", () => {
  it.each([
    ["a zero-byte file", ""],
    ["whitespace", " \n\t\n"],
    ["comments only", "# being written\n"],
    ["a bare document marker", "---\n"],
    ["a YAML null", "~\n"],
  ])("tells %s apart from an empty ConfigMap", (_what, text) => {
    expect(readConfigFile("f.yaml", text)).toEqual({ kind: "empty" });
  });

  it.each([
    ["a manifest with `data: {}`", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\ndata: {}\n"],
    ["a ConfigMap manifest without data", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\n"],
    ["a ConfigMap manifest with `data:` left null", "kind: ConfigMap\ndata:\n"],
    ["an explicit empty map", "{}\n"],
  ])("takes %s as a real, empty ConfigMap", (_what, text) => {
    expect(readConfigFile("f.yaml", text)).toEqual({ kind: "data", data: {} });
  });

  it.each([
    ["a YAML syntax error", "kubernetes.podspec-affinity: [enab", /^config file "f.yaml" must be YAML or JSON: /],
    ["JSON cut short", '{"kind":"ConfigMap","data":{"multi-container":"enabled"', /^config file "f.yaml" must be YAML or JSON: /],
    ["a list", "- a\n", /^config file "f.yaml" must hold a ConfigMap or a map of strings$/],
    ["a bare scalar", "kubernetes.podspec-affinity\n", /^config file "f.yaml" must hold a ConfigMap or a map of strings$/],
    ["a manifest cut short before its kind", "apiVersion: v1\n", /^config file "f.yaml" must hold a ConfigMap or a map of strings, not a manifest of kind ""$/],
    ["a manifest of another kind", "apiVersion: v1\nkind: Secret\ndata: {}\n", /^config file "f.yaml" must hold a ConfigMap or a map of strings, not a manifest of kind "Secret"$/],
    ["data that is not a map", "kind: ConfigMap\ndata: [a]\n", /^config file "f.yaml": data must be a map of strings$/],
    ["a value that is not a string", "multi-container: 1\n", /^config file "f.yaml": value of "multi-container" must be a string$/],
  ])("names what is wrong with %s", (_what, text, error) => {
    const r = readConfigFile("f.yaml", text);
    expect(r.kind).toBe("invalid");
    expect(r.kind === "invalid" ? r.error : "").toMatch(error);
  });

  it("reads a manifest's data and a flat map alike", () => {
    expect(readConfigFile("f.yaml", "kind: ConfigMap\ndata:\n  multi-container: enabled\n")).toEqual({ kind: "data", data: { "multi-container": "enabled" } });
    expect(readConfigFile("f.json", '{"multi-container":"enabled"}')).toEqual({ kind: "data", data: { "multi-container": "enabled" } });
  });
});
