/**
 * The CPUs this process may use, as Go's runtime counts them for its GOMAXPROCS default (Go 1.25 and later,
 * golang/go src/runtime/cgroup_linux.go: defaultGOMAXPROCS; src/internal/runtime/cgroup): the CPUs of the
 * affinity mask (Node's os.availableParallelism()), lowered to the cgroup's CPU quota (quota / period, a fraction
 * rounded up) when there is one. As Go, the limit is read from the cgroup that holds the process, found through
 * /proc/self/cgroup and /proc/self/mountinfo: cgroup v2's cpu.max, else v1's cpu.cfs_quota_us / cpu.cfs_period_us.
 * Unlike Go, a quota below 2 CPUs is not raised to 2: Go's floor keeps a second thread for its garbage collector,
 * which Node has beside its event loop anyway, and a second process would only add memory.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, posix } from "node:path";

/** Reads a file under `root` (the filesystem root; a fixture directory in tests), undefined when unreadable. */
function reader(root: string): (path: string) => string | undefined {
  return (path) => {
    try {
      return readFileSync(join(root, path), "utf8");
    } catch {
      return undefined;
    }
  };
}

interface CgroupLine {
  readonly controllers: readonly string[];
  readonly path: string;
}

/** /proc/self/cgroup: `hierarchy-ID:controller-list:cgroup-path` a line (v2's is `0::/path`). */
export function parseProcCgroup(text: string): CgroupLine[] {
  const out: CgroupLine[] = [];
  for (const line of text.split("\n")) {
    const first = line.indexOf(":");
    const second = line.indexOf(":", first + 1);
    if (first === -1 || second === -1) continue;
    const controllers = line.slice(first + 1, second);
    out.push({ controllers: controllers === "" ? [] : controllers.split(","), path: line.slice(second + 1) });
  }
  return out;
}

interface CgroupMount {
  readonly root: string;
  readonly mountPoint: string;
  readonly fsType: string;
  readonly superOptions: readonly string[];
}

/** /proc/self/mountinfo's cgroup and cgroup2 mounts (proc(5): root, mount point, then fstype and super options after ` - `). */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of text.split("\n")) {
    const sep = line.indexOf(" - ");
    if (sep === -1) continue;
    const before = line.slice(0, sep).split(" ");
    const [fsType, , superOptions = ""] = line.slice(sep + 3).split(" ");
    if ((fsType !== "cgroup" && fsType !== "cgroup2") || before.length < 5) continue;
    out.push({ root: unescapeMountPath(before[3] as string), mountPoint: unescapeMountPath(before[4] as string), fsType, superOptions: superOptions.split(",") });
  }
  return out;
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeMountPath(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** The directory of `cgroupPath` under `mount`, or undefined when the process's cgroup is outside what it mounts. */
function cgroupDir(mount: CgroupMount, cgroupPath: string): string | undefined {
  const rel = posix.relative(mount.root, cgroupPath);
  if (rel.startsWith("..")) return undefined;
  return posix.join(mount.mountPoint, rel);
}

/** cgroup v2's cpu.max (`max 100000` or `<quota> <period>`): CPUs, or undefined without a limit. */
export function parseCpuMax(text: string): number | undefined {
  const [quota, period] = text.trim().split(/\s+/);
  if (quota === undefined || quota === "max") return undefined;
  const q = Number(quota);
  const p = Number(period ?? 100_000);
  return q > 0 && p > 0 ? q / p : undefined;
}

/** cgroup v1's cpu.cfs_quota_us (-1: no limit) and cpu.cfs_period_us: CPUs, or undefined without a limit. */
export function parseCfsQuota(quotaText: string, periodText: string): number | undefined {
  const q = Number(quotaText.trim());
  const p = Number(periodText.trim());
  return q > 0 && p > 0 ? q / p : undefined;
}

/** The CPU quota of the cgroup that holds this process, in CPUs (may be fractional); undefined when there is none. */
export function cgroupCpuLimit(root = "/"): number | undefined {
  const read = reader(root);
  const cgroups = parseProcCgroup(read("/proc/self/cgroup") ?? "");
  const mounts = parseCgroupMounts(read("/proc/self/mountinfo") ?? "");
  const v2 = cgroups.find((c) => c.controllers.length === 0);
  const v2Mount = mounts.find((m) => m.fsType === "cgroup2");
  if (v2 !== undefined && v2Mount !== undefined) {
    const dir = cgroupDir(v2Mount, v2.path);
    const text = dir === undefined ? undefined : read(posix.join(dir, "cpu.max"));
    // No cpu.max: the cpu controller is not enabled there (a hybrid host's unified mount); v1 may have it.
    if (text !== undefined) return parseCpuMax(text);
  }
  const v1 = cgroups.find((c) => c.controllers.includes("cpu"));
  const v1Mount = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes("cpu"));
  if (v1 === undefined || v1Mount === undefined) return undefined;
  const dir = cgroupDir(v1Mount, v1.path);
  if (dir === undefined) return undefined;
  const quota = read(posix.join(dir, "cpu.cfs_quota_us"));
  const period = read(posix.join(dir, "cpu.cfs_period_us"));
  return quota === undefined || period === undefined ? undefined : parseCfsQuota(quota, period);
}

/** The CPUs this process may use: the affinity mask's, lowered to the cgroup quota rounded up (at least 1). */
export function usableCpus(root = "/", cpus: number = availableParallelism()): number {
  const limit = cgroupCpuLimit(root);
  return limit === undefined ? cpus : Math.max(1, Math.min(cpus, Math.ceil(limit)));
}
