/**
 * A Node.js binary of a given major for tests that must run what the image runs on the image's Node.js line: the
 * npm registry's `node-<platform>-<arch>` package (the binary the `node` package installs), installed once into a
 * directory under the system's temporary directory and reused. The registry is the only place this project's
 * machines get software from (docs/adr/0013-image-and-node-versions.md).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The path of a `node` binary of this major (the newest release of it the registry has, the first time). */
export async function nodeOfMajor(major: number): Promise<string> {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const dir = join(tmpdir(), `duckbill-${pkg}-${major}`);
  const bin = join(dir, "node_modules", pkg, "bin", process.platform === "win32" ? "node.exe" : "node");
  if (!existsSync(bin)) {
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    // About 190 MB from the npm registry, once per machine: say so, since the run seems to stall meanwhile.
    process.stdout.write(`note: installing Node.js ${major} (${pkg}, about 190 MB from the npm registry) into ${dir} for the image tests; later runs reuse it\n`);
    await run(NPM, ["install", "--prefix", dir, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefer-offline", `${pkg}@${major}`], { env, maxBuffer: 16 * 1024 * 1024 });
  }
  return bin;
}
