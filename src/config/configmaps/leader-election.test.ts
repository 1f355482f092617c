import { describe, expect, it } from "vitest";
import { DEFAULT_LEADER_ELECTION, parseLeaderElectionConfig, readLeaderElectionConfig } from "./leader-election.js";

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

describe("readLeaderElectionConfig", () => {
  it("gives Knative's defaults for an empty ConfigMap", () => {
    expect(readLeaderElectionConfig({})).toEqual({ ok: true, value: DEFAULT_LEADER_ELECTION });
    expect(DEFAULT_LEADER_ELECTION).toMatchObject({ leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 10_000, buckets: 1 });
  });

  it("reads the current keys over the legacy ones, buckets and the lease prefixes", () => {
    const r = readLeaderElectionConfig({
      leaseDuration: "20s",
      "lease-duration": "15s",
      renewDeadline: "9s",
      "retry-period": "1500ms",
      buckets: "3",
      "map-lease-prefix.webhook.WebhookCertificates": "certs",
      "map-lease-prefixXwebhook.DefaultingWebhook": "odd",
      "map-lease-prefix.": "too short",
      _example: "ignored",
    });
    expect(r).toEqual({
      ok: true,
      value: {
        leaseDurationMs: 15_000,
        renewDeadlineMs: 9_000,
        retryPeriodMs: 1_500,
        buckets: 3,
        // CollectMapEntriesWithPrefix drops the prefix and the character after it, whatever that is.
        leasePrefixes: new Map([
          ["webhook.WebhookCertificates", "certs"],
          ["webhook.DefaultingWebhook", "odd"],
        ]),
      },
    });
  });

  it("keeps prototype keys as plain entries", () => {
    const r = readLeaderElectionConfig(JSON.parse('{"map-lease-prefix.__proto__":"x"}') as Record<string, string>);
    expect(r.ok && r.value.leasePrefixes.get("__proto__")).toBe("x");
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("fails with the same error as parseLeaderElectionConfig", () => {
    expect(readLeaderElectionConfig({ buckets: "11" })).toEqual({ ok: false, error: "buckets: value must be between 1 <= 11 <= 10" });
  });
});
