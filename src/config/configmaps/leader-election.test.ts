import { describe, expect, it } from "vitest";
import { parseLeaderElectionConfig } from "./leader-election.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"buckets": "10"}, undefined],
  [{"buckets": "11"}, "buckets: value must be between 1 <= 11 <= 10"],
  [{"buckets": "0"}, "buckets: value must be between 1 <= 0 <= 10"],
  [{"buckets": "-1"}, "failed to parse \"buckets\": strconv.ParseUint: parsing \"-1\": invalid syntax"],
  [{"buckets": "4294967296"}, "failed to parse \"buckets\": strconv.ParseUint: parsing \"4294967296\": value out of range"],
  [{"lease-duration": "fifteen"}, "failed to parse \"lease-duration\": time: invalid duration \"fifteen\""],
  [{"leaseDuration": "1x", "lease-duration": "15s"}, "failed to parse \"leaseDuration\": time: unknown unit \"x\" in duration \"1x\""],
  [{"retry-period": "2"}, "failed to parse \"retry-period\": time: missing unit in duration \"2\""],
  [{"map-lease-prefix.webhook": "custom"}, undefined],
];

describe("parseLeaderElectionConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseLeaderElectionConfig(data)).toBe(error);
  });
});
