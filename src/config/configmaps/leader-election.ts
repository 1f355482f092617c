/**
 * `config-leader-election` (knative/pkg leaderelection NewConfigFromMap, spec §5.10): durations (legacy
 * camelCase keys first, then the current ones) and 1 ≤ buckets ≤ 10. `map-lease-prefix.*` never fails.
 */
import { Duration } from "../../apis/golang/duration.js";
import { asDuration } from "../configmap-parse.js";
import type { ConfigData } from "../snapshot.js";
import { asUint32 } from "./configmap-ints.js";

export const LEADER_ELECTION_CONFIG_NAME = "config-leader-election";

const MAX_BUCKETS = 10n;
const DURATION_KEYS = ["leaseDuration", "renewDeadline", "retryPeriod", "lease-duration", "renew-deadline", "retry-period"] as const;
const ANY_DURATION = new Duration(0n);

export function parseLeaderElectionConfig(data: ConfigData): string | undefined {
  for (const key of DURATION_KEYS) {
    const d = asDuration(data, key, ANY_DURATION);
    if (!d.ok) return d.error;
  }
  const buckets = asUint32(data, "buckets", 1n);
  if (!buckets.ok) return buckets.error;
  if (buckets.value < 1n || buckets.value > MAX_BUCKETS) return `buckets: value must be between 1 <= ${buckets.value} <= ${MAX_BUCKETS}`;
  return undefined;
}
