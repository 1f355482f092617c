// CPU and memory of a process, from /proc (Linux). Elsewhere the sampler reports nothing rather than guessing.
import { readdirSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * { cpuSeconds, rssBytes, rssFileBytes, rssAnonBytes } of `pid` now (RSS and its file-backed and anonymous parts), or
 * undefined when /proc is not there or the process is gone.
 */
export function readProc(pid) {
  return readOne(pid);
}

function readOne(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (1-based).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuTicks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kB = (field) => {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
      return m === null ? Number.NaN : Number(m[1]) * 1024;
    };
    return { cpuSeconds: cpuTicks / clockTicks(), rssBytes: kB("VmRSS"), rssFileBytes: kB("RssFile"), rssAnonBytes: kB("RssAnon") };
  } catch {
    return undefined;
  }
}

/** `pid` and every process below it (a `--workers` primary and its workers), from the parent ids in /proc. */
function processTree(pid) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]) ?? []));
  return out;
}

/**
 * readProc summed over `pid` and its descendants, with the largest RSS of any one of them (`maxProcessRssBytes`).
 * Exited descendants drop out of the CPU sum, so a phase's CPU is right only while the process tree is stable (as
 * it is while a server runs).
 */
export function readProcTree(pid) {
  const root = readProc(pid);
  if (root === undefined) return undefined;
  let { cpuSeconds, rssBytes } = root;
  let maxProcessRssBytes = rssBytes;
  for (const child of processTree(pid).slice(1)) {
    const c = readProc(child);
    if (c === undefined) continue;
    cpuSeconds += c.cpuSeconds;
    rssBytes += c.rssBytes;
    if (c.rssBytes > maxProcessRssBytes) maxProcessRssBytes = c.rssBytes;
  }
  return { cpuSeconds, rssBytes, maxProcessRssBytes };
}

/** Busy CPU seconds of the whole machine (all cores, idle and iowait excluded), from /proc/stat. */
function machineBusySeconds() {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / clockTicks();
  } catch {
    return undefined;
  }
}

/**
 * Samples a process every `intervalMs` while a phase runs. stop() returns its mean CPU use (1.0 = one core busy)
 * and its RSS (max and at the end) over the phase. With `tree`, the process and its descendants, summed, and
 * the most RSS any one of them reached (`rssMaxPerProcessMB`).
 */
export function sampleProcess(pid, intervalMs = 250, tree = false) {
  const readProc = tree ? readProcTree : readOne;
  const first = readProc(pid);
  const busy0 = machineBusySeconds();
  const t0 = performance.now();
  let maxRss = Number.NaN;
  let maxProcessRss = Number.NaN;
  const track = (s) => {
    if (s === undefined) return;
    if (!(s.rssBytes <= maxRss)) maxRss = s.rssBytes;
    const one = s.maxProcessRssBytes ?? s.rssBytes;
    if (!(one <= maxProcessRss)) maxProcessRss = one;
  };
  track(first);
  const timer = setInterval(() => track(readProc(pid)), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const last = readProc(pid);
      const busy1 = machineBusySeconds();
      if (first === undefined || last === undefined) return { cpuCores: null, rssMaxMB: null, rssMaxPerProcessMB: null, rssEndMB: null, machineCpuCores: null };
      track(last);
      const wall = (performance.now() - t0) / 1000;
      return {
        cpuCores: Math.round(((last.cpuSeconds - first.cpuSeconds) / wall) * 100) / 100,
        // Everything busy on the machine (server, load generator and anything else), to tell a quiet run from a shared one.
        machineCpuCores: busy0 === undefined || busy1 === undefined ? null : Math.round(((busy1 - busy0) / wall) * 100) / 100,
        rssMaxMB: Math.round(maxRss / 1048576),
        rssMaxPerProcessMB: Math.round(maxProcessRss / 1048576),
        rssEndMB: Math.round(last.rssBytes / 1048576),
      };
    },
  };
}

/** Same as sampleProcess for the bench's own process (the load generator), from process.cpuUsage. */
export function sampleSelf() {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  return {
    stop() {
      const d = process.cpuUsage(cpu0);
      return { cpuCores: Math.round(((d.user + d.system) / 1e6 / ((performance.now() - t0) / 1000)) * 100) / 100 };
    },
  };
}
