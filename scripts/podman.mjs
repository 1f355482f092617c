// How this repository runs podman (scripts/image.mjs builds with it, test/image/ runs the image with it).
// - A machine whose cgroups are a v1/v2 hybrid (Debian 12 VMs booted with systemd's legacy layout) cannot run
//   containers with crun, podman's default runtime ("cgroups in hybrid mode not supported"); runc can, so it is used
//   there (Debian package `runc`).
// - Containers get these resource limits explicitly: podman's defaults raise nofile and nproc to the host's hard
//   maximum, which a VM may refuse to grant (the container then fails to start).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export const LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"];

export const INSTALL_HINT = "podman is not installed: `sudo apt-get install podman` (Debian/Ubuntu; on a cgroups v1/v2 hybrid host also `runc`)";

/** True where /sys/fs/cgroup is a v1 hierarchy with a v2 one beside it (not unified). */
export function hybridCgroups() {
  return !existsSync("/sys/fs/cgroup/cgroup.controllers") && existsSync("/sys/fs/cgroup/unified");
}

/** podman's global flags for this machine, or throws INSTALL_HINT when podman is missing. */
export function podmanGlobals() {
  try {
    execFileSync("podman", ["--version"], { stdio: "ignore" });
  } catch (err) {
    if (err && err.code === "ENOENT") throw new Error(INSTALL_HINT);
    throw err;
  }
  if (!hybridCgroups()) return [];
  const runc = ["/usr/bin/runc", "/usr/sbin/runc", "/usr/local/bin/runc"].find((p) => existsSync(p));
  if (runc === undefined) throw new Error("this host's cgroups are a v1/v2 hybrid, which podman's default runtime (crun) cannot use: `sudo apt-get install runc`");
  return ["--runtime", runc];
}

/** Runs podman with the globals; returns stdout (trimmed). */
export function podman(globals, args, opts = {}) {
  const { quiet, ...rest } = opts;
  const out = execFileSync("podman", [...globals, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", quiet ? "pipe" : "inherit"], ...rest });
  return (out ?? "").trim();
}
