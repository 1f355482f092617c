/**
 * bin/duckbill as a program: a POSIX shell script whose second line execs node with the V8 flag, and the same file
 * an ES module node runs. It must work wherever /bin/sh is a plain POSIX shell (dash here, BusyBox ash in Alpine
 * images: no `env -S`), executed directly, through /bin/sh, through a symlink elsewhere (npm's bin links), and as
 * `node bin/duckbill`, with its arguments and exit code passed through unchanged.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./dockerfile.js";

const BIN = join(ROOT, "bin", "duckbill");
const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

/** Our environment without what vitest adds to Node's options; `node` on PATH is the one running the tests. */
function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(process.execPath, "..")}:${process.env.PATH ?? ""}` };
  delete e.NODE_OPTIONS;
  return e;
}

let dir = "";

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist", "bundle", "index.js"))) {
    const r = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: "inherit", env: env() });
    if (r.status !== 0) throw new Error("npm run build failed");
  }
  dir = mkdtempSync(join(tmpdir(), "duckbill-launcher-"));
  symlinkSync(BIN, join(dir, "duckbill"));
}, 120_000);

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("bin/duckbill", () => {
  it("starts with a plain /bin/sh line, no `env -S`", () => {
    const [first, second] = readFileSync(BIN, "utf8").split("\n");
    expect(first).toBe("#!/bin/sh");
    expect(second).toMatch(/exec node --max-semi-space-size=4 --max-old-space-size=384 --no-maglev "\$0" "\$@"/);
  });

  it.each([
    { how: "through /bin/sh", cmd: "/bin/sh", args: [BIN] },
    { how: "executed directly", cmd: BIN, args: [] },
    { how: "through a symlink in another directory, from there", cmd: "./duckbill", args: [], inDir: true },
    { how: "as node bin/duckbill", cmd: process.execPath, args: [BIN] },
  ])("runs $how", ({ cmd, args, inDir }) => {
    const r = spawnSync(cmd, [...args, "version"], { cwd: inDir === true ? dir : ROOT, env: env(), encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(version);
  });

  it("replaces the shell with node, the V8 flag first and every argument unchanged (Linux: /proc/<pid>/cmdline)", async () => {
    const certDir = join(dir, "a b*  c $HOME '\"");
    const args = ["serve", "--port", "0", "--host", "127.0.0.1", "--metrics-port", "0", "--config-source", "defaults", "--drain-timeout", "0", "--generated-cert-dir", certDir];
    const child = spawn("/bin/sh", [BIN, ...args], { cwd: ROOT, env: env(), stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    try {
      // Serving (so its SIGTERM handling is in place) ...
      await new Promise<void>((resolve, reject) => {
        let out = "";
        child.stdout?.on("data", (c: Buffer) => {
          out += c.toString("utf8");
          if (out.includes('"message":"duckbill webhook serving"')) resolve();
        });
        child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      // ... with its generated CA in the directory named by the odd argument: it arrived in one piece.
      expect(existsSync(join(certDir, "ca.crt"))).toBe(true);
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0").slice(0, -1);
      expect(argv.slice(1)).toEqual(["--max-semi-space-size=4", "--max-old-space-size=384", "--no-maglev", BIN, ...args]);
      expect(argv[0]).toMatch(/(^|\/)node$/);
      // The pid spawn returned is node's own, no shell in between: a signal to it drains the webhook, exit 0 (serve
      // handles SIGTERM from before it starts listening, src/cli/main.ts).
      child.kill("SIGTERM");
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("exits with node's exit code", () => {
    const viaSh = spawnSync("/bin/sh", [BIN, "no-such-command"], { cwd: ROOT, env: env(), encoding: "utf8" });
    const viaNode = spawnSync(process.execPath, [BIN, "no-such-command"], { cwd: ROOT, env: env(), encoding: "utf8" });
    expect(viaNode.status).not.toBe(0);
    expect(viaSh.status).toBe(viaNode.status);
    expect(viaSh.stderr).toBe(viaNode.stderr);
  });
});
