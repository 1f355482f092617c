/**
 * `duckbill version` names the commit the bundle was built from: scripts/bundle.mjs embeds `git rev-parse --short
 * HEAD` (with -dirty when tracked files differ), DUCKBILL_COMMIT when given (the Dockerfile's build argument), and
 * "unknown" where there is no git checkout (a source tarball, the image's build context). The last two are built here
 * in a copy of the build's inputs outside the repository, as the Dockerfile's build stage has them.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatVersion, versionInfo } from "../../src/cli/version.js";
import { childEnv, ensureBuilt, ROOT } from "../support/build.js";

const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

/** The child's environment, DUCKBILL_COMMIT only when given. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const e = childEnv(extra);
  if (extra.DUCKBILL_COMMIT === undefined) delete e.DUCKBILL_COMMIT;
  return e;
}

function versionOf(dir: string): string[] {
  const r = spawnSync(process.execPath, [join(dir, "bin", "duckbill"), "version"], { encoding: "utf8", env: env() });
  expect(r.stderr).toBe("");
  return r.stdout.trimEnd().split("\n");
}

let tree = "";

beforeAll(() => {
  ensureBuilt();
  // The build stage's inputs after tsc: package.json, the bundler script, tsc's output, the dependencies; no .git.
  tree = mkdtempSync(join(tmpdir(), "duckbill-nogit-"));
  cpSync(join(ROOT, "package.json"), join(tree, "package.json"));
  mkdirSync(join(tree, "scripts"));
  cpSync(join(ROOT, "scripts", "bundle.mjs"), join(tree, "scripts", "bundle.mjs"));
  mkdirSync(join(tree, "bin"));
  cpSync(join(ROOT, "bin", "duckbill"), join(tree, "bin", "duckbill"));
  cpSync(join(ROOT, "dist"), join(tree, "dist"), { recursive: true, filter: (src) => !src.startsWith(join(ROOT, "dist", "bundle")) });
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
}, 120_000);

afterAll(() => {
  if (tree !== "") rmSync(tree, { recursive: true, force: true });
});

describe("the commit in duckbill version", () => {
  it("is the checkout's HEAD for a build in the repository", () => {
    const head = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const [first, commit, node] = versionOf(ROOT);
    expect(first).toBe(`duckbill ${version}`);
    expect(commit).toMatch(new RegExp(`^commit: ${head}(-dirty)?$`));
    expect(node).toBe(`node: ${process.version}`);
  });

  it("is unknown for a build without git, and DUCKBILL_COMMIT when given", () => {
    const bundle = (extra: NodeJS.ProcessEnv): void => {
      const r = spawnSync(process.execPath, [join(tree, "scripts", "bundle.mjs")], { cwd: tree, encoding: "utf8", env: env(extra) });
      expect(r.status, r.stderr).toBe(0);
    };
    bundle({});
    expect(versionOf(tree)[1]).toBe("commit: unknown");
    bundle({ DUCKBILL_COMMIT: "abc1234" });
    expect(versionOf(tree)[1]).toBe("commit: abc1234");
  }, 120_000);

  it("is unknown when the code runs unbundled, and the text lists the releases after the commit and Node.js", () => {
    const info = versionInfo();
    expect(info.commit).toBe("unknown");
    expect(formatVersion({ ...info, commit: "abc1234", node: "v22.1.0" }).split("\n").slice(0, 4)).toEqual([
      `duckbill ${version}`,
      "commit: abc1234",
      "node: v22.1.0",
      "knative 1.24 (default without a cluster): knative.dev/serving v0.51.0",
    ]);
  });
});
