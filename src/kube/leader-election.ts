/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's algorithm (tools/leaderelection), so that of
 * several replicas exactly one runs a reconciler (docs/knative-behavior.md#leader-election).
 *
 * Usage:
 *
 *   const elector = createLeaderElector({
 *     kubeConfig, namespace: "knative-serving", leaseName: knativeLeaseName("webhook", "WebhookCertificates"), // lease-buckets.ts
 *     identity: defaultLeaseIdentity(), ...KNATIVE_LEASE_TIMING, logger,
 *     onStartedLeading: (signal) => void reconcileUntil(signal), // stop writing once `signal` aborts
 *     onStoppedLeading: () => logger.info("demoted"),
 *   });
 *   elector.start();          // campaigns in the background, forever (again after losing the lease)
 *   elector.isLeader();       // cheap, for metrics and for guarding writes
 *   await elector.close();    // stops leading (signal aborts, onStoppedLeading) and releases the Lease
 *
 * Guarantees: `onStartedLeading` and `onStoppedLeading` alternate, starting with the former. A leader that cannot
 * renew for `renewDeadlineMs` steps down (its signal aborts) before any other candidate may take over, since others
 * wait a full lease duration after they last saw the Lease change. Writes the leader makes should still use
 * optimistic concurrency (resourceVersion): a paused process can outlive its lease.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease, type V1LeaseSpec } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { abortableDelay, type RequestThrottle } from "./client.js";
import { describeApiError, statusCodeOf, withSignal } from "./api-request.js";

export interface LeaseTiming {
  /** How long others wait after they last saw the Lease change before taking it over (Knative: 60 s). */
  readonly leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it steps down (Knative: 40 s). */
  readonly renewDeadlineMs: number;
  /** Pause between attempts to acquire or renew (Knative: 10 s). */
  readonly retryPeriodMs: number;
}

/** config-leader-election's defaults (knative.dev/pkg leaderelection/config.go). */
export const KNATIVE_LEASE_TIMING: LeaseTiming = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 10_000 };

export interface LeaderElectorOptions extends LeaseTiming {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly leaseName: string;
  /** Unique per process: see defaultLeaseIdentity(). */
  readonly identity: string;
  /** Called on becoming leader; `signal` aborts when leadership ends (lost, or close()). Must not throw. */
  readonly onStartedLeading: (signal: AbortSignal) => void;
  /** Called once leadership ended, after the signal aborted. */
  readonly onStoppedLeading?: () => void;
  /** Called when the observed holder changes ("" when the Lease is released or absent). */
  readonly onNewLeader?: (identity: string) => void;
  readonly logger?: Logger;
  /** Shared client-side rate limit. */
  readonly throttle?: RequestThrottle;
  /** Give the Lease up on close() so a successor need not wait for it to expire (default true; client-go's ReleaseOnCancel). */
  readonly releaseOnClose?: boolean;
  readonly now?: () => number;
  readonly random?: () => number;
}

export interface LeaderElector {
  /** Starts campaigning in the background; idempotent. */
  start(): void;
  /** Stops campaigning; a leader steps down and releases the Lease. */
  close(): Promise<void>;
  isLeader(): boolean;
  /** The holder last observed ("" when none), for logs and status. */
  observedLeader(): string;
}

/** client-go's wait.JitterUntil factor for the acquire loop. */
const JITTER_FACTOR = 1.2;

/** `<host>_<uuid>`, as Knative's leaderelection.UniqueID. */
export function defaultLeaseIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}


/** client-go's config checks, with its wording. */
export function leaseTimingProblems(t: LeaseTiming): string[] {
  const out: string[] = [];
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) out.push("leaseDuration must be greater than renewDeadline");
  if (!(t.renewDeadlineMs > JITTER_FACTOR * t.retryPeriodMs)) out.push(`renewDeadline must be greater than retryPeriod*JitterFactor(${JITTER_FACTOR})`);
  if (!(t.leaseDurationMs > 0)) out.push("leaseDuration must be greater than zero");
  if (!(t.renewDeadlineMs > 0)) out.push("renewDeadline must be greater than zero");
  if (!(t.retryPeriodMs > 0)) out.push("retryPeriod must be greater than zero");
  return out;
}

export function createLeaderElector(opts: LeaderElectorOptions): LeaderElector {
  const problems = leaseTimingProblems(opts);
  if (problems.length > 0) throw new Error(`lease ${opts.namespace}/${opts.leaseName}: ${problems.join("; ")}`);
  if (opts.identity === "") throw new Error(`lease ${opts.namespace}/${opts.leaseName}: identity must not be empty`);
  return new LeaseElector(opts);
}

class LeaseElector implements LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly stopping = new AbortController();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly log: Logger | undefined;
  private loop: Promise<void> | undefined;
  private leading: AbortController | undefined;
  /** The Lease as last read or written, and when (local clock) its content last changed. */
  private observed: V1Lease | undefined;
  private observedAt = 0;
  private holder = "";
  private lastError = "";

  constructor(private readonly opts: LeaderElectorOptions) {
    this.api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.log = opts.logger?.child({ lease: `${opts.namespace}/${opts.leaseName}` });
  }

  start(): void {
    this.loop ??= this.run();
  }

  isLeader(): boolean {
    return this.leading !== undefined;
  }

  observedLeader(): string {
    return this.holder;
  }

  async close(): Promise<void> {
    this.stopping.abort(new Error("leader election stopped"));
    await this.loop;
    if (this.leading === undefined) return;
    this.stepDown("leader election stopped");
    if (this.opts.releaseOnClose !== false) await this.release();
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    try {
      while (!signal.aborted) {
        await this.acquire(signal);
        if (signal.aborted) return;
        await this.renewWhileLeading(signal);
      }
    } catch (err) {
      if (!signal.aborted) this.log?.error({ err }, "leader election stopped unexpectedly");
    }
  }

  /** Tries at once, then every retryPeriod (jittered) until the Lease is ours or we are stopped. */
  private async acquire(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (await this.tryAcquireOrRenew(signal, this.opts.retryPeriodMs)) break;
      const wait = this.opts.retryPeriodMs * (1 + JITTER_FACTOR * this.random());
      await abortableDelay(Math.round(wait), signal);
    }
    this.leading = new AbortController();
    this.log?.info({ identity: this.opts.identity }, "became leader");
    try {
      this.opts.onStartedLeading(this.leading.signal);
    } catch (err) {
      this.log?.error({ err }, "onStartedLeading failed");
    }
  }

  /** Renews every retryPeriod; steps down when renewDeadline passes without a successful renewal. */
  private async renewWhileLeading(signal: AbortSignal): Promise<void> {
    let renewedAt = this.now();
    for (;;) {
      await abortableDelay(this.opts.retryPeriodMs, signal);
      for (;;) {
        const left = renewedAt + this.opts.renewDeadlineMs - this.now();
        if (left <= 0) {
          this.stepDown(`could not renew within ${this.opts.renewDeadlineMs} ms: ${this.lastError || "the Lease is held by another candidate"}`);
          return;
        }
        if (await this.tryAcquireOrRenew(signal, left)) {
          renewedAt = this.now();
          break;
        }
        if (this.leading === undefined) return; // another holder took over the Lease
        await abortableDelay(Math.min(this.opts.retryPeriodMs, Math.max(1, renewedAt + this.opts.renewDeadlineMs - this.now())), signal);
      }
    }
  }

  private stepDown(why: string): void {
    const leading = this.leading;
    if (leading === undefined) return;
    this.leading = undefined;
    this.log?.warn({ identity: this.opts.identity, reason: why }, "stopped leading");
    leading.abort(new Error(`lost the lease ${this.opts.namespace}/${this.opts.leaseName}: ${why}`));
    this.opts.onStoppedLeading?.();
  }

  private durationOf(spec: V1LeaseSpec | undefined): number {
    const seconds = spec?.leaseDurationSeconds ?? 0;
    return seconds > 0 ? seconds * 1000 : this.opts.leaseDurationMs;
  }

  private specFor(now: number, previous: V1LeaseSpec | undefined, ours: boolean): V1LeaseSpec {
    return {
      holderIdentity: this.opts.identity,
      // Whole seconds on the wire; sub-second durations (tests) round up so others never wait less than we assume.
      leaseDurationSeconds: Math.max(1, Math.ceil(this.opts.leaseDurationMs / 1000)),
      acquireTime: ours && previous?.acquireTime !== undefined ? previous.acquireTime : new V1MicroTime(now),
      renewTime: new V1MicroTime(now),
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (ours ? 0 : previous === undefined ? 0 : 1),
    };
  }

  /** One round of client-go's tryAcquireOrRenew; true when we hold the Lease afterwards. */
  private async tryAcquireOrRenew(stop: AbortSignal, timeoutMs: number): Promise<boolean> {
    const { namespace, leaseName: name } = this.opts;
    const signal = AbortSignal.any([stop, AbortSignal.timeout(Math.max(1, timeoutMs))]);
    try {
      await this.opts.throttle?.acquire(signal);
      let lease: V1Lease;
      try {
        lease = await this.api.readNamespacedLease({ name, namespace }, withSignal(signal));
      } catch (err) {
        if (statusCodeOf(err) !== 404) throw err;
        const created = await this.api.createNamespacedLease(
          { namespace, body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace }, spec: this.specFor(this.now(), undefined, false) } },
          withSignal(signal),
        );
        this.observe(created);
        return true;
      }
      this.observe(lease);
      const spec = lease.spec;
      const holder = spec?.holderIdentity ?? "";
      const ours = holder === this.opts.identity;
      if (holder !== "" && !ours && this.observedAt + this.durationOf(spec) > this.now()) {
        // Someone else holds a live lease: a leader that sees this has lost it.
        if (this.leading !== undefined) this.stepDown(`the Lease is now held by ${holder}`);
        return false;
      }
      const body: V1Lease = { ...lease, spec: { ...spec, ...this.specFor(this.now(), spec, ours) } };
      this.observe(await this.api.replaceNamespacedLease({ name, namespace, body }, withSignal(signal)));
      this.lastError = "";
      return true;
    } catch (err) {
      if (stop.aborted) return false;
      const code = statusCodeOf(err);
      const message = code === 409 ? "another candidate updated the Lease first" : describeApiError(err);
      // A refusal (e.g. a Role that does not name this Lease) never fixes itself: say it where operators look.
      if (message !== this.lastError) {
        if (code === 403) this.log?.warn({ err: message }, "could not acquire or renew the lease");
        else this.log?.debug({ err: message }, "could not acquire or renew the lease");
      }
      this.lastError = message;
      return false;
    }
  }

  private observe(lease: V1Lease): void {
    const rv = lease.metadata?.resourceVersion;
    if (this.observed === undefined || rv !== this.observed.metadata?.resourceVersion) this.observedAt = this.now();
    this.observed = lease;
    const holder = lease.spec?.holderIdentity ?? "";
    if (holder !== this.holder) {
      this.holder = holder;
      if (holder !== this.opts.identity) this.log?.info({ leader: holder }, holder === "" ? "the lease is free" : "observed a new leader");
      this.opts.onNewLeader?.(holder);
    }
  }

  /** Gives the Lease up (client-go's release): empty holder, so candidates take it on their next attempt. */
  private async release(): Promise<void> {
    const lease = this.observed;
    if (lease?.spec?.holderIdentity !== this.opts.identity) return;
    const now = new V1MicroTime(this.now());
    const body: V1Lease = {
      ...lease,
      spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: lease.spec.leaseTransitions ?? 0 },
    };
    const signal = AbortSignal.timeout(Math.min(this.opts.renewDeadlineMs, 5_000));
    try {
      await this.opts.throttle?.acquire(signal);
      this.observe(await this.api.replaceNamespacedLease({ name: this.opts.leaseName, namespace: this.opts.namespace, body }, withSignal(signal)));
      this.log?.info("released the lease");
    } catch (err) {
      this.log?.warn({ err: describeApiError(err) }, "could not release the lease; others take over once it expires");
    }
  }
}
