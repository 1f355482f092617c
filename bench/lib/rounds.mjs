// The bench's alternating rounds: which server is measured when, and one figure per server from its rounds.
import { median, round } from "./stats.mjs";

/**
 * Every target once per round, in the given order, `rounds` times (A, B, C, A, B, C, ...): drift on a shared
 * machine (another build starting, the VM's speed changing) then lands on every server alike.
 */
export function roundSchedule(targets, rounds) {
  const out = [];
  for (let r = 1; r <= rounds; r++) for (const target of targets) out.push({ round: r, target });
  return out;
}

/** Median of the finite values of `xs`, or null when there are none. */
function medianOf(xs) {
  const finite = xs.filter((x) => typeof x === "number" && Number.isFinite(x));
  return finite.length === 0 ? null : round(median(finite));
}

function maxOf(xs) {
  const finite = xs.filter((x) => typeof x === "number" && Number.isFinite(x));
  return finite.length === 0 ? null : Math.max(...finite);
}

/**
 * One phase, in the shape of a measured one, from the same phase's rounds: medians of throughput, latency
 * percentiles, CPU and CPU per request; the most RSS any round reached (peak); requests and errors summed.
 */
export function summariseRounds(phases) {
  const pick = (get) => phases.map(get);
  const out = {
    rounds: phases.length,
    requests: pick((p) => p.requests).reduce((a, b) => a + (b ?? 0), 0),
    errors: pick((p) => p.errors).reduce((a, b) => a + (b ?? 0), 0),
    latencyMs: {
      p50: medianOf(pick((p) => p.latencyMs?.p50)),
      p90: medianOf(pick((p) => p.latencyMs?.p90)),
      p99: medianOf(pick((p) => p.latencyMs?.p99)),
      max: maxOf(pick((p) => p.latencyMs?.max)),
    },
    server: {
      cpuCores: medianOf(pick((p) => p.server?.cpuCores)),
      machineCpuCores: medianOf(pick((p) => p.server?.machineCpuCores)),
      cpuMicrosPerRequest: medianOf(pick((p) => p.server?.cpuMicrosPerRequest)),
      rssMaxMB: maxOf(pick((p) => p.server?.rssMaxMB)),
      rssMaxPerProcessMB: maxOf(pick((p) => p.server?.rssMaxPerProcessMB)),
    },
    client: { cpuCores: medianOf(pick((p) => p.client?.cpuCores)) },
  };
  if (phases.some((p) => p.reqPerSec !== undefined)) out.reqPerSec = Math.round(medianOf(pick((p) => p.reqPerSec)) ?? 0);
  if (phases.some((p) => p.achievedRate !== undefined)) out.achievedRate = Math.round(medianOf(pick((p) => p.achievedRate)) ?? 0);
  if (phases[0]?.targetRate !== undefined) out.targetRate = phases[0].targetRate;
  if (phases[0]?.connections !== undefined) out.connections = phases[0].connections;
  return out;
}
