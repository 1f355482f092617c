/**
 * `config-leader-election` (knative.dev/pkg leaderelection/config.go: NewConfigFromMap): durations (legacy
 * camelCase keys first, then the current ones) and 1 ≤ buckets ≤ 10. `map-lease-prefix.*` never fails.
 */
import { Duration } from "../../go/time/duration.js";
import { asDuration } from "../configmap-parse.js";
import type { ConfigData } from "../types.js";
import { asUint32 } from "./configmap-ints.js";

export const LEADER_ELECTION_CONFIG_NAME = "config-leader-election";

const MAX_BUCKETS = 10n;
const NS_PER_MS = 1_000_000n;
const LEASE_PREFIX_KEY = "map-lease-prefix";

/** What the reconcilers' Leases follow: knative/pkg's leaderelection.Config. */
export interface LeaderElectionConfig {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** How many Leases (buckets) each reconciler's keys are spread over. */
  readonly buckets: number;
  /** `map-lease-prefix.<component>.<queue>` → the Lease name prefix used instead of `<component>.<queue>`. */
  readonly leasePrefixes: ReadonlyMap<string, string>;
}

/** knative/pkg's defaultConfig(): 60 s, 40 s, 10 s, one bucket. */
export const DEFAULT_LEADER_ELECTION: LeaderElectionConfig = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 10_000, buckets: 1, leasePrefixes: new Map() };

const LEGACY_THEN_CURRENT = [
  ["leaseDuration", "renewDeadline", "retryPeriod"],
  ["lease-duration", "renew-deadline", "retry-period"],
] as const;

/** NewConfigFromMap: the configuration, or Knative's error text. Absent keys keep the defaults. */
export function readLeaderElectionConfig(data: ConfigData): { ok: true; value: LeaderElectionConfig } | { ok: false; error: string } {
  const durations = [DEFAULT_LEADER_ELECTION.leaseDurationMs, DEFAULT_LEADER_ELECTION.renewDeadlineMs, DEFAULT_LEADER_ELECTION.retryPeriodMs].map((ms) => new Duration(BigInt(ms) * NS_PER_MS));
  for (const keys of LEGACY_THEN_CURRENT) {
    for (let i = 0; i < keys.length; i++) {
      const d = asDuration(data, keys[i] as string, durations[i] as Duration);
      if (!d.ok) return d;
      durations[i] = d.value;
    }
  }
  const buckets = asUint32(data, "buckets", 1n);
  if (!buckets.ok) return buckets;
  if (buckets.value < 1n || buckets.value > MAX_BUCKETS) return { ok: false, error: `buckets: value must be between 1 <= ${buckets.value} <= ${MAX_BUCKETS}` };
  const leasePrefixes = new Map<string, string>();
  for (const [key, value] of Object.entries(data)) {
    // CollectMapEntriesWithPrefix: whatever follows the prefix and one more character (the dot).
    if (key.startsWith(LEASE_PREFIX_KEY) && key.length > LEASE_PREFIX_KEY.length + 1) leasePrefixes.set(key.slice(LEASE_PREFIX_KEY.length + 1), value);
  }
  const [lease, renew, retry] = durations.map((d) => Number(d.ns / NS_PER_MS)) as [number, number, number];
  return { ok: true, value: { leaseDurationMs: lease, renewDeadlineMs: renew, retryPeriodMs: retry, buckets: Number(buckets.value), leasePrefixes } };
}

/** config-validation's check of the ConfigMap. */
export function parseLeaderElectionConfig(data: ConfigData): string | undefined {
  const r = readLeaderElectionConfig(data);
  return r.ok ? undefined : r.error;
}
