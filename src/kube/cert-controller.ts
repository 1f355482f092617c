/**
 * The certificates controller (knative.dev/pkg webhook/certificates/certificates.go:
 * (*reconciler).reconcileCertificate; docs/knative-behavior.md#certificates and #leader-election; docs/adr/0006):
 * every replica watches the `webhook-certs` Secret and hands each usable version to `onTlsMaterial` (the server swaps
 * its TLS context in place, the webhook-configuration reconcilers inject the bundle as `caBundle`); the replica
 * holding the Lease also writes it: fills it when empty, renews the serving certificate, rotates the CA without ever
 * breaking trust (cert-rotation.ts). Writes carry the resourceVersion they were computed from, so a conflicting
 * writer costs a re-read, never a lost update. The Secret must pre-exist (Knative's installer creates it empty);
 * readiness and the log say so when it does not.
 */
import { isIP } from "node:net";
import { CoreV1Api, type KubeConfig, type V1Secret } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import { Backoff, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import { describeApiError, statusCodeOf, withSignal } from "./api-request.js";
import { knativeCommonName, knativeDnsNames } from "../certs/certificate-issuer.js";
import { readCertSecret, tlsMaterialOf, type TlsMaterialUpdate } from "../certs/cert-secret.js";
import { DEFAULT_ROTATION_POLICY, planRotation, rotationPolicyProblems, type CertificateNames, type RotationPolicy } from "../certs/cert-rotation.js";
import type { RequestThrottle } from "./client.js";
import { createLeaderElector, defaultLeaseIdentity, KNATIVE_LEASE_TIMING, type LeaderElector, type LeaseTiming } from "./leader-election.js";
import { knativeLeaseName } from "./lease-buckets.js";
import { SecretWatch } from "./secret-watch.js";

export type { TlsMaterialUpdate } from "../certs/cert-secret.js";

export const DEFAULT_SECRET_NAME = "webhook-certs";
/** Knative's Lease for its certificates controller (docs/knative-behavior.md#leader-election). */
/** Knative's names for the Service, plus `extraHost` (an IP SAN when it is an address, else a DNS SAN). */
export function certificateNames(o: Pick<CertControllerOptions, "serviceName" | "namespace" | "clusterDomain" | "extraHost">): CertificateNames {
  const dnsNames = knativeDnsNames(o.serviceName, o.namespace, o.clusterDomain);
  const host = o.extraHost?.replace(/^\[(.*)\]$/, "$1");
  if (host === undefined || host === "") return { commonName: knativeCommonName(o.serviceName, o.namespace), dnsNames };
  if (isIP(host) !== 0) return { commonName: knativeCommonName(o.serviceName, o.namespace), dnsNames, ips: [host] };
  return { commonName: knativeCommonName(o.serviceName, o.namespace), dnsNames: dnsNames.includes(host) ? dnsNames : [...dnsNames, host] };
}

export const CERTIFICATES_LEASE_NAME = knativeLeaseName("webhook", "WebhookCertificates");

export interface CertControllerOptions extends Partial<LeaseTiming>, Partial<RotationPolicy> {
  readonly kubeConfig: KubeConfig;
  /** SYSTEM_NAMESPACE: where the Secret and the Lease live. */
  readonly namespace: string;
  /** WEBHOOK_SECRET_NAME, default `webhook-certs`. */
  readonly secretName?: string;
  /** WEBHOOK_NAME: the Service the certificates are for. */
  readonly serviceName: string;
  readonly clusterDomain: string;
  /**
   * A host the API server calls besides the Service (`--webhook-url`'s): a DNS name or IP address the serving
   * certificate must name too, or the API server cannot verify it.
   */
  readonly extraHost?: string;
  /** Default `webhook.webhookcertificates.00-of-01`. */
  readonly leaseName?: string;
  /** Default `<host>_<uuid>`. */
  readonly identity?: string;
  /** false (`--disable-ha`): no Lease; this replica always writes. */
  readonly leaderElection?: boolean;
  /** Receives every usable version of the Secret this replica sees (in order, deduplicated). Must not throw. */
  readonly onTlsMaterial: (material: TlsMaterialUpdate) => void;
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly throttle?: RequestThrottle;
  /** Retry policy for API errors (watch, reads, writes). */
  readonly backoff?: BackoffPolicy;
  /** Silence on the Secret watch after which it is re-listed (default 2 min). */
  readonly watchdogMs?: number;
  /** The leader looks at the Secret at least this often, even with nothing due (default 10 h, Knative's resync). */
  readonly resyncMs?: number;
  readonly now?: () => number;
}

export interface CertController {
  /** Starts watching the Secret and campaigning for the Lease, in the background. */
  start(): void;
  /** Stops everything; a leader releases the Lease. */
  close(): Promise<void>;
  /** Undefined when this replica has a usable certificate; otherwise why not. */
  notReadyReason(): string | undefined;
  /** The material last handed to onTlsMaterial. */
  current(): TlsMaterialUpdate | undefined;
  isLeader(): boolean;
}

const DEFAULT_RESYNC_MS = 10 * 3_600_000;
/** Conflicting writes retried at once before backing off. */
const CONFLICT_RETRIES = 5;
/** setTimeout's limit. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type SecretState = { kind: "unknown" } | { kind: "missing" } | { kind: "unreadable"; message: string } | { kind: "unusable"; problem: string } | { kind: "usable" };

export function createCertController(opts: CertControllerOptions): CertController {
  return new SecretCertController(opts);
}

function decodeData(secret: V1Secret): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(secret.data ?? {})) out[k] = Buffer.from(v, "base64").toString("utf8");
  return out;
}

function encodeData(data: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = Buffer.from(v, "utf8").toString("base64");
  return out;
}

class SecretCertController implements CertController {
  private readonly api: CoreV1Api;
  private readonly policy: RotationPolicy;
  private readonly names: CertificateNames;
  private readonly secretName: string;
  private readonly what: string;
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly watch: SecretWatch;
  private readonly elector: LeaderElector | undefined;
  private readonly stopping = new AbortController();
  private readonly metrics: CertMetrics | undefined;
  private state: SecretState = { kind: "unknown" };
  private material: TlsMaterialUpdate | undefined;
  private leading: Promise<void> | undefined;
  /** Wakes the leader's loop early (the Secret changed). */
  private wake: (() => void) | undefined;
  private woken = false;

  constructor(private readonly opts: CertControllerOptions) {
    this.policy = {
      caValidityMs: opts.caValidityMs ?? DEFAULT_ROTATION_POLICY.caValidityMs,
      caRotateBeforeMs: opts.caRotateBeforeMs ?? DEFAULT_ROTATION_POLICY.caRotateBeforeMs,
      caOverlapMs: opts.caOverlapMs ?? DEFAULT_ROTATION_POLICY.caOverlapMs,
      certValidityMs: opts.certValidityMs ?? DEFAULT_ROTATION_POLICY.certValidityMs,
      certRenewBeforeMs: opts.certRenewBeforeMs ?? DEFAULT_ROTATION_POLICY.certRenewBeforeMs,
    };
    this.secretName = opts.secretName ?? DEFAULT_SECRET_NAME;
    this.what = `Secret ${opts.namespace}/${this.secretName}`;
    const problems = rotationPolicyProblems(this.policy);
    if (problems.length > 0) throw new Error(`certificate durations for ${this.what}: ${problems.join("; ")}`);
    this.names = certificateNames(opts);
    this.now = opts.now ?? Date.now;
    this.log = opts.logger.child({ secret: `${opts.namespace}/${this.secretName}` });
    this.api = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.metrics = opts.registry === undefined ? undefined : new CertMetrics(opts.registry, () => this.material, () => this.isLeader());
    this.watch = new SecretWatch({
      kubeConfig: opts.kubeConfig,
      namespace: opts.namespace,
      name: this.secretName,
      onSecret: (s) => this.observe(s),
      onTrouble: (message) => {
        if (this.material === undefined) this.state = { kind: "unreadable", message };
      },
      logger: this.log,
      throttle: opts.throttle,
      backoff: opts.backoff,
      watchdogMs: opts.watchdogMs,
    });
    if (opts.leaderElection !== false) {
      this.elector = createLeaderElector({
        kubeConfig: opts.kubeConfig,
        namespace: opts.namespace,
        leaseName: opts.leaseName ?? CERTIFICATES_LEASE_NAME,
        identity: opts.identity ?? defaultLeaseIdentity(),
        leaseDurationMs: opts.leaseDurationMs ?? KNATIVE_LEASE_TIMING.leaseDurationMs,
        renewDeadlineMs: opts.renewDeadlineMs ?? KNATIVE_LEASE_TIMING.renewDeadlineMs,
        retryPeriodMs: opts.retryPeriodMs ?? KNATIVE_LEASE_TIMING.retryPeriodMs,
        logger: this.log,
        throttle: opts.throttle,
        onStartedLeading: (signal) => {
          this.leading = this.lead(signal);
        },
      });
    }
  }

  start(): void {
    this.watch.start();
    if (this.elector !== undefined) this.elector.start();
    else this.leading ??= this.lead(this.stopping.signal);
  }

  async close(): Promise<void> {
    this.stopping.abort(new Error("certificates controller closed"));
    this.wake?.();
    await this.elector?.close();
    await this.leading;
    await this.watch.close();
  }

  isLeader(): boolean {
    return this.elector === undefined ? !this.stopping.signal.aborted : this.elector.isLeader();
  }

  current(): TlsMaterialUpdate | undefined {
    return this.material;
  }

  notReadyReason(): string | undefined {
    const m = this.material;
    if (m !== undefined) {
      return this.now() < m.notAfter ? undefined : `the serving certificate from ${this.what} expired at ${new Date(m.notAfter).toISOString()} and no usable successor arrived`;
    }
    switch (this.state.kind) {
      case "unknown":
        return `waiting for the first read of ${this.what}`;
      case "missing":
        return `${this.what} does not exist: create it (empty), as Knative's installer does`;
      case "unreadable":
        return `${this.what} cannot be read: ${this.state.message}`;
      case "unusable":
        return `${this.what} has no usable certificate yet: ${this.state.problem}`;
      case "usable":
        return undefined;
    }
  }

  // ---- every replica: follow the Secret ---------------------------------------------------------------------

  private observe(secret: V1Secret | undefined): void {
    const before = this.state.kind;
    if (secret === undefined) {
      this.state = { kind: "missing" };
      if (before !== "missing") {
        const consequence = this.material === undefined ? "the webhook serves no certificate until it exists" : "the certificate in use is kept until it expires";
        this.log.warn(`${this.what} does not exist: create it (empty), as Knative's installer does; ${consequence}`);
      }
    } else {
      const r = tlsMaterialOf(decodeData(secret), this.now());
      if ("material" in r) {
        this.state = { kind: "usable" };
        this.apply(r.material);
      } else {
        const changed = this.state.kind !== "unusable" || this.state.problem !== r.problem;
        this.state = { kind: "unusable", problem: r.problem };
        // The leader is about to fix it; only a replica with nothing to serve has reason to worry.
        if (changed) this.log[this.material === undefined ? "warn" : "info"]({ problem: r.problem }, `${this.what} has no usable certificate; ${this.material === undefined ? "waiting for the leader to write one" : "keeping the one in use"}`);
      }
    }
    this.kick();
  }

  private apply(m: TlsMaterialUpdate): void {
    const old = this.material;
    if (old !== undefined && old.cert === m.cert && old.key === m.key && old.caBundle === m.caBundle) return;
    this.material = m;
    this.metrics?.reloaded();
    this.log.info({ notAfter: new Date(m.notAfter).toISOString(), cas: m.caBundle.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0 }, "using the certificate from the Secret");
    try {
      this.opts.onTlsMaterial(m);
    } catch (err) {
      this.log.error({ err }, "applying the new TLS material failed");
    }
  }

  // ---- the leader: write the Secret -------------------------------------------------------------------------

  private kick(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Waits `ms`, or less when the Secret changes or leadership ends. */
  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      signal.addEventListener("abort", done, { once: true });
      this.wake = done;
    });
  }

  private async lead(term: AbortSignal): Promise<void> {
    const signal = AbortSignal.any([term, this.stopping.signal]);
    const backoff = new Backoff(this.opts.backoff ?? DEFAULT_BACKOFF);
    const resync = this.opts.resyncMs ?? DEFAULT_RESYNC_MS;
    this.woken = false;
    while (!signal.aborted) {
      let wait: number;
      try {
        const nextAt = await this.reconcile(signal);
        backoff.reset();
        wait = Math.min(resync, nextAt - this.now());
      } catch (err) {
        if (signal.aborted) break;
        wait = backoff.next();
        this.log.warn({ err: describeApiError(err), retryInMs: wait }, "reconciling the certificates failed; retrying");
      }
      await this.sleep(wait, signal);
    }
  }

  /** Reads the Secret, writes its next version if anything is due; returns when to look again. */
  private async reconcile(signal: AbortSignal): Promise<number> {
    const { namespace } = this.opts;
    const name = this.secretName;
    for (let attempt = 0; ; attempt++) {
      await this.opts.throttle?.acquire(signal);
      let secret: V1Secret;
      try {
        secret = await this.api.readNamespacedSecret({ name, namespace }, withSignal(signal));
      } catch (err) {
        if (statusCodeOf(err) !== 404) throw err;
        return this.now() + (this.opts.resyncMs ?? DEFAULT_RESYNC_MS); // the watch wakes us when it appears
      }
      const plan = await planRotation(readCertSecret(decodeData(secret)), this.now(), this.policy, this.names);
      if (plan.data === undefined) return plan.nextAt;
      signal.throwIfAborted(); // no longer the leader: leave the write to the next one
      const body: V1Secret = { ...secret, data: { ...secret.data, ...encodeData(plan.data) } };
      try {
        await this.opts.throttle?.acquire(signal);
        await this.api.replaceNamespacedSecret({ name, namespace, body }, withSignal(signal));
      } catch (err) {
        if (statusCodeOf(err) === 409 && attempt < CONFLICT_RETRIES) {
          this.log.debug("the Secret changed while it was being updated; reading it again");
          continue;
        }
        if (statusCodeOf(err) === 404) return this.now() + (this.opts.resyncMs ?? DEFAULT_RESYNC_MS);
        throw err;
      }
      for (const step of plan.steps) {
        this.metrics?.updated(step.action);
        this.log[step.trustAtRisk === true ? "warn" : "info"]({ action: step.action, detail: step.detail, nextCheck: new Date(plan.nextAt).toISOString() }, `certificates: ${step.action}`);
      }
      return plan.nextAt;
    }
  }
}

class CertMetrics {
  private readonly updates: Counter<"action">;
  private readonly reloads: Counter;

  constructor(registry: Registry, material: () => TlsMaterialUpdate | undefined, leader: () => boolean) {
    new Gauge({
      name: "duckbill_webhook_certificate_expiry_timestamp_seconds",
      help: "NotAfter (Unix time) of the serving certificate this replica uses.",
      registers: [registry],
      // Under --workers: the earliest of the workers' certificates (one that has not taken a renewal yet), not a sum.
      aggregator: "min",
      collect() {
        const m = material();
        if (m !== undefined) this.set(m.notAfter / 1000);
      },
    });
    new Gauge({
      name: "duckbill_webhook_certificate_leader",
      help: "1 when this replica holds the certificates Lease and writes the Secret.",
      registers: [registry],
      // Under --workers: 1 when one of the workers holds it.
      aggregator: "max",
      collect() {
        this.set(leader() ? 1 : 0);
      },
    });
    this.updates = new Counter({
      name: "duckbill_webhook_certificate_updates_total",
      help: "Changes this replica wrote to the certificates Secret: filled, renewed, published-ca, switched-ca, dropped-ca.",
      labelNames: ["action"],
      registers: [registry],
    });
    this.reloads = new Counter({
      name: "duckbill_webhook_certificate_reloads_total",
      help: "New TLS material this replica took from the Secret (first load included).",
      registers: [registry],
    });
  }

  updated(action: string): void {
    this.updates.inc({ action });
  }

  reloaded(): void {
    this.reloads.inc();
  }
}
