/**
 * Installing from an `npm pack` tarball, as docs/cli.md ("Installing") tells users to (the package is not on the npm
 * registry): the tarball holds the launcher and the bundle and nothing else, declares no runtime dependency (the
 * bundle holds them all), and so installs into an empty prefix with npm offline and an empty cache; the installed
 * `duckbill` reports its version and answers a review through `admit`.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, ensureBuilt, ROOT } from "../support/build.js";
import { serviceReview } from "../support/webhook.js";

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; dependencies?: Record<string, string> };

let dir = "";
let tarball = "";
let installed = "";

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "duckbill-tarball-"));
  const cache = join(dir, "cache");
  const { stdout } = await run("npm", ["pack", "--pack-destination", dir, "--cache", cache, "--silent"], { cwd: ROOT, env: childEnv() });
  tarball = join(dir, stdout.trim().split("\n").at(-1) ?? "");
  const prefix = join(dir, "prefix");
  await run("npm", ["install", "--global", "--prefix", prefix, "--offline", "--cache", cache, "--no-audit", "--no-fund", tarball], { env: childEnv() });
  installed = join(prefix, "bin", "duckbill");
}, 180_000);

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("the npm pack tarball", () => {
  it("holds package.json, the README, the launcher and the bundle, and needs no package from a registry", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n").map((f) => f.replace(/^package\//, ""));
    expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "bin/duckbill", "dist/bundle/index.js", "dist/bundle/THIRD-PARTY-LICENSES.txt"]));
    expect(files.filter((f) => !["package.json", "README.md", "bin/duckbill"].includes(f) && !/^dist\/bundle\/[^/]+\.(js|txt)$/.test(f))).toEqual([]);
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it("installs offline into a prefix, and the installed duckbill reports its version", async () => {
    const { stdout } = await run(installed, ["version"], { env: childEnv() });
    expect(stdout.split("\n")[0]).toBe(`duckbill ${pkg.version}`);
  });

  it("answers a review through admit", async () => {
    const child = spawn(installed, ["admit", "--path", "/defaulting"], { env: childEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => {
      child.on("exit", resolve);
      child.stdin.end(JSON.stringify(serviceReview({ uid: "tarball-1" })));
    });
    expect(code).toBe(0);
    expect((JSON.parse(out) as { response: { uid: string; allowed: boolean } }).response).toMatchObject({ uid: "tarball-1", allowed: true });
  });
});
