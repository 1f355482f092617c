/** Types of bench/lib/rounds.mjs for its tests. */
export interface Phase {
  reqPerSec?: number;
  achievedRate?: number;
  targetRate?: number;
  connections?: number;
  requests?: number;
  errors?: number;
  latencyMs?: { p50?: number | null; p90?: number | null; p99?: number | null; max?: number | null };
  server?: { cpuCores?: number | null; machineCpuCores?: number | null; cpuMicrosPerRequest?: number | null; rssMaxMB?: number | null; rssMaxPerProcessMB?: number | null };
  client?: { cpuCores?: number | null };
}
export interface PhaseSummary extends Phase {
  rounds: number;
  requests: number;
  errors: number;
  latencyMs: { p50: number | null; p90: number | null; p99: number | null; max: number | null };
  server: { cpuCores: number | null; machineCpuCores: number | null; cpuMicrosPerRequest: number | null; rssMaxMB: number | null; rssMaxPerProcessMB: number | null };
  client: { cpuCores: number | null };
}
export declare function roundSchedule<T>(targets: readonly T[], rounds: number): { round: number; target: T }[];
export declare function summariseRounds(phases: readonly Phase[]): PhaseSummary;
