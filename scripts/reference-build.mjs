#!/usr/bin/env node
// Builds Knative's own webhook for each release in reference/ (reference/README.md) into
// ${DUCKBILL_REFERENCE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/duckbill-reference}/<release>/knative-reference,
// skipping a release whose binary is up to date (same sources, go.mod/go.sum, Go toolchain and flags).
//
//   npm run reference:build [-- 1.24 1.23 1.17]     (all releases by default)
//
//   REFERENCE_BUILD_PARALLEL   go build -p (default 2; the machine is shared)
//
// Needs Go and the Go module proxy the first time (Knative 1.17 is built with Go 1.23: Debian's golang-1.23-go
// when installed, else GOTOOLCHAIN=go1.23.12 fetched from the proxy). Progress goes to stderr; the binaries'
// paths, one per line, to stdout.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
export const REPO = resolve(dirname(here), "..");
const REFERENCE = join(REPO, "reference");

/** Debian's Go 1.23 (bookworm-backports golang-1.23-go), used for 1.17 when present. */
const DEBIAN_GO_1_23 = "/usr/lib/go-1.23/bin/go";

/**
 * Each release: its module directory and the Go that builds it. Knative 1.17 was released with Go 1.23, and
 * encoding/json's decode-error field paths changed in Go 1.24 (embedded struct names appear), so 1.17's envelope
 * messages need Go 1.23; 1.23 and 1.24 build with the machine's Go (their go.mod asks for 1.25 and 1.26).
 */
export const RELEASES = {
  "1.17": { serving: "v0.44.1", go: "go1.23.12" },
  "1.23": { serving: "v0.50.0", go: "local" },
  "1.24": { serving: "v0.51.0", go: "local" },
};

export function cacheRoot() {
  if (process.env.DUCKBILL_REFERENCE_CACHE) return resolve(process.env.DUCKBILL_REFERENCE_CACHE);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "duckbill-reference");
}

/** Where a release's binary is (built or not). */
export function binaryPath(release) {
  return join(cacheRoot(), release, "knative-reference");
}

function log(msg) {
  process.stderr.write(`reference-build: ${msg}\n`);
}

/** The go command and environment for a release. */
function goFor(release) {
  const env = { ...process.env, GOFLAGS: "-buildvcs=false -mod=readonly" };
  const want = RELEASES[release].go;
  if (want === "local") return { cmd: "go", env: { ...env, GOTOOLCHAIN: "local" } };
  if (want === "go1.23.12" && existsSync(DEBIAN_GO_1_23)) return { cmd: DEBIAN_GO_1_23, env: { ...env, GOTOOLCHAIN: "local" } };
  return { cmd: "go", env: { ...env, GOTOOLCHAIN: want } };
}

function goVersion(go) {
  const r = spawnSync(go.cmd, ["env", "GOVERSION"], { env: go.env, encoding: "utf8" });
  if (r.error || r.status !== 0) {
    throw new Error(`${go.cmd} env GOVERSION failed (GOTOOLCHAIN=${go.env.GOTOOLCHAIN}): ${r.error?.message ?? r.stderr.trim()}`);
  }
  return r.stdout.trim();
}

/** The flags of every build (part of the cache key). */
const BUILD_FLAGS = ["-trimpath", "-ldflags", "-s -w"];

/** Hash of everything the binary depends on: both modules' sources, go.mod/go.sum, the build flags, the toolchain. */
function sourceKey(release, version) {
  const h = createHash("sha256");
  for (const dir of [join(REFERENCE, `knative-${release}`), join(REFERENCE, "harness")]) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".go") || n === "go.mod" || n === "go.sum").sort()) {
      h.update(`${dir}/${f}\0`).update(readFileSync(join(dir, f))).update("\0");
    }
  }
  h.update(JSON.stringify(BUILD_FLAGS)).update(version);
  return h.digest("hex").slice(0, 16);
}

function readBuildInfo(release) {
  try {
    return JSON.parse(readFileSync(join(cacheRoot(), release, "build.json"), "utf8"));
  } catch {
    return undefined;
  }
}

function upToDate(release, key) {
  const info = readBuildInfo(release);
  return info?.key === key && existsSync(binaryPath(release));
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A lock directory per release, so two builds of one release do not race (a dead holder's lock is taken over). */
async function withLock(release, fn) {
  const lock = join(cacheRoot(), `${release}.lock`);
  mkdirSync(cacheRoot(), { recursive: true });
  let waited = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch {
      let pid = 0;
      try {
        pid = Number(readFileSync(join(lock, "pid"), "utf8"));
      } catch {
        // the holder has not written its pid yet
      }
      if (pid > 0 && !alive(pid)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waited) log(`${release}: another build (pid ${pid || "?"}) holds ${lock}; waiting`);
      waited = true;
      await sleep(2000);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function run(cmd, args, opts) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) => (code === 0 ? resolveRun() : reject(new Error(`${cmd} ${args.join(" ")} exited with ${signal ?? code}`))));
  });
}

/**
 * Builds one release unless its binary is up to date; returns the binary's path. Progress on stderr (a line every
 * 30 s while Go builds, since the first build takes minutes).
 */
export async function ensureBuilt(release, { quiet = false } = {}) {
  const rel = RELEASES[release];
  if (!rel) throw new Error(`unknown Knative release ${release} (known: ${Object.keys(RELEASES).join(", ")})`);
  const moduleDir = join(REFERENCE, `knative-${release}`);
  if (!existsSync(join(moduleDir, "go.mod"))) throw new Error(`${moduleDir}/go.mod not found: a clone of the repository is needed`);
  const go = goFor(release);
  const version = goVersion(go);
  const key = sourceKey(release, version);
  if (upToDate(release, key)) {
    if (!quiet) log(`${release}: up to date (${binaryPath(release)}, ${version})`);
    return binaryPath(release);
  }
  return withLock(release, async () => {
    if (upToDate(release, key)) return binaryPath(release); // built by whoever held the lock
    const out = join(cacheRoot(), release);
    mkdirSync(out, { recursive: true });
    const tmp = join(out, `.knative-reference.${process.pid}`);
    const first = readBuildInfo(release) === undefined ? " (the first build downloads modules and takes minutes)" : "";
    log(`${release}: building knative.dev/serving ${rel.serving} with ${version} into ${out}${first}`);
    const started = Date.now();
    const ticker = setInterval(() => log(`${release}: still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    try {
      await run("nice", ["-n", "10", go.cmd, "build", "-p", process.env.REFERENCE_BUILD_PARALLEL || "2", ...BUILD_FLAGS, "-o", tmp, "."], { cwd: moduleDir, env: go.env });
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    } finally {
      clearInterval(ticker);
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    renameSync(tmp, binaryPath(release));
    const info = { release, serving: rel.serving, go: version, key, buildSeconds: seconds, binaryBytes: statSync(binaryPath(release)).size, builtAt: new Date().toISOString() };
    writeFileSync(join(out, "build.json"), JSON.stringify(info, null, 2) + "\n");
    log(`${release}: built in ${seconds} s (${(info.binaryBytes / 1e6).toFixed(0)} MB)`);
    return binaryPath(release);
  });
}

async function main(argv) {
  if (argv.includes("-h") || argv.includes("--help")) {
    process.stdout.write(`usage: npm run reference:build [-- ${Object.keys(RELEASES).join(" ")}]\n`);
    return 0;
  }
  const releases = argv.length > 0 ? argv : Object.keys(RELEASES);
  for (const r of releases) {
    if (!RELEASES[r]) {
      log(`unknown Knative release ${r} (known: ${Object.keys(RELEASES).join(", ")})`);
      return 2;
    }
  }
  const started = Date.now();
  for (const r of releases) process.stdout.write(`${await ensureBuilt(r)}\n`);
  log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === here) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      log(`failed: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
