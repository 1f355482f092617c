/**
 * Leader election on a coordination.k8s.io Lease against the in-process API server (real HTTP), with millisecond
 * timings: one leader among racing candidates, hand-over on release and on expiry, stepping down when renewals fail.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pino } from "pino";
import { createLeaderElector, leaseTimingProblems, type LeaderElector, type LeaderElectorOptions } from "../../src/kube/leader-election.js";
import { knativeLeaseName } from "../../src/kube/lease-buckets.js";
import { FakeApiServer, LEASES } from "../support/fake-apiserver.js";
import { eventually } from "../config/store-harness.js";
import { within } from "../support/timing.js";

/** Live HTTP under a shared 2-core CI machine: a run starved of CPU may retry (not a logic check). */
const TIMING_SENSITIVE = { retry: 2 } as const;

const NS = "knative-serving";
const LEASE = "webhook.webhookcertificates.00-of-01";
/**
 * Short leases, but longer than the pauses a throttled machine takes (test/support/timing.ts): the whole process,
 * API server included, stops during one, and a lease shorter than the pause would expire under its holder.
 */
const FAST = { leaseDurationMs: 4000, renewDeadlineMs: 2500, retryPeriodMs: 200 };

interface Candidate {
  readonly elector: LeaderElector;
  readonly events: string[];
  /** The signal of the current (or last) term. */
  signal: AbortSignal | undefined;
}

describe("createLeaderElector", TIMING_SENSITIVE, () => {
  let api: FakeApiServer;
  const opened: LeaderElector[] = [];

  function candidate(identity: string, opts: Partial<LeaderElectorOptions> = {}): Candidate {
    const c: Candidate = {
      events: [],
      signal: undefined,
      elector: createLeaderElector({
        kubeConfig: api.kubeConfig(),
        namespace: NS,
        leaseName: LEASE,
        identity,
        ...FAST,
        logger: pino({ level: "silent" }),
        onStartedLeading: (signal) => {
          c.signal = signal;
          c.events.push("started");
        },
        onStoppedLeading: () => c.events.push("stopped"),
        ...opts,
      }),
    };
    opened.push(c.elector);
    return c;
  }

  function holder(): string | undefined {
    return (api.get(LEASES, LEASE, NS)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
  }

  beforeEach(async () => {
    api = await FakeApiServer.start();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((e) => e.close()));
    await api.close();
  });

  it("creates the missing Lease, holds it and renews it", async () => {
    const a = candidate("a");
    a.elector.start();
    await eventually(() => a.elector.isLeader(), "leadership");
    const lease = api.get(LEASES, LEASE, NS);
    expect(lease?.spec).toMatchObject({ holderIdentity: "a", leaseDurationSeconds: 4, leaseTransitions: 0 });
    const firstRenew = (lease?.spec as { renewTime: string }).renewTime;
    expect(firstRenew).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await eventually(() => (api.get(LEASES, LEASE, NS)?.spec as { renewTime: string }).renewTime !== firstRenew, "a renewal");
    expect(a.events).toEqual(["started"]);
    expect(a.signal?.aborted).toBe(false);
  });

  it("elects exactly one of several racing candidates, and the Lease names it", async () => {
    const cs = ["a", "b", "c", "d"].map((id) => candidate(id));
    for (const c of cs) c.elector.start();
    await eventually(() => cs.some((c) => c.elector.isLeader()), "a leader");
    // Watch for a while: never two leaders, always the one the Lease names.
    for (let i = 0; i < 20; i++) {
      const leaders = cs.filter((c) => c.elector.isLeader());
      expect(leaders).toHaveLength(1);
      expect(holder()).toBe(["a", "b", "c", "d"][cs.indexOf(leaders[0] as Candidate)]);
      await new Promise((r) => setTimeout(r, 20));
    }
    const leader = cs.find((c) => c.elector.isLeader());
    for (const c of cs) if (c !== leader) expect(c.elector.observedLeader()).toBe(holder());
  });

  it("hands over at once when the leader closes and releases the Lease", async () => {
    const a = candidate("a");
    a.elector.start();
    await eventually(() => a.elector.isLeader(), "a leads");
    const b = candidate("b");
    b.elector.start();
    await eventually(() => b.elector.observedLeader() === "a", "b sees a");
    const t0 = Date.now();
    await a.elector.close();
    expect(a.events).toEqual(["started", "stopped"]);
    expect(a.signal?.aborted).toBe(true);
    await eventually(() => b.elector.isLeader(), "b leads");
    // Well under the 4 s lease: b did not wait for expiry.
    expect(Date.now() - t0).toBeLessThan(within(500));
    expect(api.get(LEASES, LEASE, NS)?.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
  });

  it("waits for a crashed leader's Lease to expire, then takes over", async () => {
    const a = candidate("a", { releaseOnClose: false });
    a.elector.start();
    await eventually(() => a.elector.isLeader(), "a leads");
    const b = candidate("b");
    b.elector.start();
    await eventually(() => b.elector.observedLeader() === "a", "b sees a");
    await a.elector.close();
    const t0 = Date.now();
    expect(b.elector.isLeader()).toBe(false);
    await eventually(() => b.elector.isLeader(), "b leads", within(FAST.leaseDurationMs + 1000));
    // The Lease says 4 s: b waited that long after it last saw a renewal (at most two jittered retry periods ago).
    expect(Date.now() - t0).toBeGreaterThanOrEqual(FAST.leaseDurationMs - 1000);
  });

  it("steps down within the renew deadline when renewals fail", async () => {
    const a = candidate("a");
    a.elector.start();
    await eventually(() => a.elector.isLeader(), "a leads");
    api.failNext(1_000_000, 500, { plural: "leases" });
    const t0 = Date.now();
    await eventually(() => !a.elector.isLeader(), "a steps down", within(FAST.renewDeadlineMs + 1000));
    const took = Date.now() - t0;
    expect(took).toBeLessThanOrEqual(within(FAST.renewDeadlineMs + FAST.retryPeriodMs + 150));
    // Not before the deadline: failed renewals are retried until then.
    expect(took).toBeGreaterThanOrEqual(FAST.renewDeadlineMs - FAST.retryPeriodMs - 100);
    expect(a.signal?.aborted).toBe(true);
    expect(a.events).toEqual(["started", "stopped"]);
  });

  it("does not take a Lease another holder keeps renewing", async () => {
    api.create(LEASES, { metadata: { name: LEASE, namespace: NS }, spec: { holderIdentity: "other", leaseDurationSeconds: 3, leaseTransitions: 3 } });
    const renewing = setInterval(() => {
      const lease = api.get(LEASES, LEASE, NS);
      if (lease !== undefined) api.replace(LEASES, { ...lease, spec: { ...(lease.spec as object), renewTime: new Date().toISOString() } });
    }, 100);
    try {
      const a = candidate("a");
      a.elector.start();
      // Longer than the 3 s lease: only the renewals keep a from taking it.
      await new Promise((r) => setTimeout(r, 4000));
      expect(a.elector.isLeader()).toBe(false);
      expect(a.elector.observedLeader()).toBe("other");
    } finally {
      clearInterval(renewing);
    }
  });

  it("refuses timings client-go refuses", () => {
    expect(leaseTimingProblems({ leaseDurationMs: 40_000, renewDeadlineMs: 40_000, retryPeriodMs: 10_000 })).toEqual(["leaseDuration must be greater than renewDeadline"]);
    expect(leaseTimingProblems({ leaseDurationMs: 60_000, renewDeadlineMs: 12_000, retryPeriodMs: 10_000 })).toEqual(["renewDeadline must be greater than retryPeriod*JitterFactor(1.2)"]);
    expect(() => candidate("a", { renewDeadlineMs: FAST.leaseDurationMs })).toThrow("lease knative-serving/webhook.webhookcertificates.00-of-01: leaseDuration must be greater than renewDeadline");
  });
});

describe("knativeLeaseName", () => {
  it.each([
    ["webhook", "WebhookCertificates", 0, 1, "webhook.webhookcertificates.00-of-01"],
    ["webhook", "DefaultingWebhook", 0, 1, "webhook.defaultingwebhook.00-of-01"],
    ["webhook", "ValidationWebhook", 2, 10, "webhook.validationwebhook.02-of-10"],
  ])("names bucket %s.%s %i of %i like Knative", (component, queue, index, total, want) => {
    expect(knativeLeaseName(component, queue, index, total)).toBe(want);
  });
});
