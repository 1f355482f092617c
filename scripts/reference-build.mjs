#!/usr/bin/env node
// Builds Knative's own webhook for each release in reference/ (reference/README.md) into
// ${DUCKBILL_REFERENCE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/duckbill-reference}/<release>/knative-reference,
// skipping a release whose binary is up to date (same sources, go.mod/go.sum, Go toolchain and flags).
//
//   npm run reference:build [-- 1.24 1.23 1.17]     (all releases by default)
//   npm run reference:build -- --controller [1.24 1.23]   Knative's controller instead (the control-plane suite's)
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
import { dirname, join, relative, resolve } from "node:path";
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

/** Where a release's binary is (built or not): Knative's webhook, or with `target` "controller" its controller. */
export function binaryPath(release, target = "webhook") {
  return join(cacheRoot(), release, TARGETS[target].binary);
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

/**
 * What can be built per release: Knative's webhook wired by reference/ (the default), and Knative's controller
 * (`knative.dev/serving/cmd/controller` at the release's module versions, for the control-plane suite: docs/e2e.md).
 * Each has its module directories (hashed into the cache key; the first is where `go build` runs), the package
 * built, and its file names in the release's cache directory.
 */
const TARGETS = {
  webhook: {
    dirs: (release) => [join(REFERENCE, `knative-${release}`), join(REFERENCE, "harness")],
    pkg: ".",
    binary: "knative-reference",
    info: "build.json",
  },
  controller: {
    dirs: (release) => [join(REPO, "test", "control-plane", "controller", `knative-${release}`)],
    pkg: "knative.dev/serving/cmd/controller",
    binary: "knative-controller",
    info: "controller-build.json",
  },
};

/** The releases whose controller test/control-plane/controller/ builds. */
export const CONTROLLER_RELEASES = ["1.17", "1.23", "1.24"];

/** Hash of everything the binary depends on: the modules' sources, go.mod/go.sum, the build flags, the toolchain. */
function sourceKey(target, release, version) {
  const h = createHash("sha256");
  for (const dir of target.dirs(release)) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".go") || n === "go.mod" || n === "go.sum").sort()) {
      // Paths relative to the checkout: worktrees of one repository share the cache without rebuilding for each other.
      h.update(`${relative(REPO, dir)}/${f}\0`).update(readFileSync(join(dir, f))).update("\0");
    }
  }
  h.update(JSON.stringify(BUILD_FLAGS)).update(version);
  return h.digest("hex").slice(0, 16);
}

function readBuildInfo(release, target) {
  try {
    return JSON.parse(readFileSync(join(cacheRoot(), release, TARGETS[target].info), "utf8"));
  } catch {
    return undefined;
  }
}

function upToDate(release, target, key) {
  const info = readBuildInfo(release, target);
  return info?.key === key && existsSync(binaryPath(release, target));
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
  const lock = join(cacheRoot(), `${release}.lock`); // one lock per release for both targets: they share Go's build cache
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
 * 30 s while Go builds, since the first build takes minutes). `target` "controller" builds Knative's controller
 * instead of the webhook.
 */
export async function ensureBuilt(release, { quiet = false, target: targetName = "webhook" } = {}) {
  const rel = RELEASES[release];
  if (!rel) throw new Error(`unknown Knative release ${release} (known: ${Object.keys(RELEASES).join(", ")})`);
  const target = TARGETS[targetName];
  const moduleDir = target.dirs(release)[0];
  if (!existsSync(join(moduleDir, "go.mod"))) throw new Error(`${moduleDir}/go.mod not found: a clone of the repository is needed`);
  const go = goFor(release);
  const version = goVersion(go);
  const key = sourceKey(target, release, version);
  const out = binaryPath(release, targetName);
  const what = `${release} ${targetName}`;
  if (upToDate(release, targetName, key)) {
    if (!quiet) log(`${what}: up to date (${out}, ${version})`);
    return out;
  }
  return withLock(release, async () => {
    if (upToDate(release, targetName, key)) return out; // built by whoever held the lock
    const dir = join(cacheRoot(), release);
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `.${target.binary}.${process.pid}`);
    const first = readBuildInfo(release, targetName) === undefined ? " (the first build downloads modules and takes minutes)" : "";
    log(`${what}: building ${target.pkg === "." ? "" : `${target.pkg} of `}knative.dev/serving ${rel.serving} with ${version} into ${dir}${first}`);
    const started = Date.now();
    const ticker = setInterval(() => log(`${what}: still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
    try {
      await run("nice", ["-n", "10", go.cmd, "build", "-p", process.env.REFERENCE_BUILD_PARALLEL || "2", ...BUILD_FLAGS, "-o", tmp, target.pkg], { cwd: moduleDir, env: go.env });
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    } finally {
      clearInterval(ticker);
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    renameSync(tmp, out);
    const info = { release, serving: rel.serving, target: targetName, go: version, key, buildSeconds: seconds, binaryBytes: statSync(out).size, builtAt: new Date().toISOString() };
    writeFileSync(join(dir, target.info), JSON.stringify(info, null, 2) + "\n");
    log(`${what}: built in ${seconds} s (${(info.binaryBytes / 1e6).toFixed(0)} MB)`);
    return out;
  });
}

async function main(argv) {
  if (argv.includes("-h") || argv.includes("--help")) {
    process.stdout.write(`usage: npm run reference:build [-- [--controller] ${Object.keys(RELEASES).join(" ")}]\n`);
    return 0;
  }
  const target = argv.includes("--controller") ? "controller" : "webhook";
  const named = argv.filter((a) => a !== "--controller");
  const releases = named.length > 0 ? named : Object.keys(RELEASES).filter((r) => target === "webhook" || CONTROLLER_RELEASES.includes(r));
  for (const r of releases) {
    if (!RELEASES[r] || (target === "controller" && !CONTROLLER_RELEASES.includes(r))) {
      log(`unknown Knative release ${r} (known: ${(target === "controller" ? CONTROLLER_RELEASES : Object.keys(RELEASES)).join(", ")})`);
      return 2;
    }
  }
  const started = Date.now();
  for (const r of releases) process.stdout.write(`${await ensureBuilt(r, { target })}\n`);
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
