/**
 * Webhook configuration reconciliation (knative.dev/pkg webhook/resourcesemantics/defaulting/defaulting.go:
 * reconcileMutatingWebhook, validation/reconcile_config.go: reconcileValidatingWebhook,
 * webhook/configmaps/configmaps.go: reconcileValidatingWebhook; docs/knative-behavior.md#webhook-configurations):
 * keeps Knative's three configurations — `MutatingWebhookConfiguration webhook.serving.knative.dev`,
 * `ValidatingWebhookConfiguration validation.webhook.serving.knative.dev` and `config.webhook.serving.knative.dev` —
 * pointing at this webhook with the current CA, the rules of the kind registry and the `webhooks.knative.dev/exclude`
 * namespace selector.
 *
 * As in knative/pkg: the configurations must be installed beforehand (never created here); only entries whose
 * name equals the configuration's name are touched; the object is written only when something differs; only the
 * leader for a configuration writes it. Triggers: a change of the configuration, a change of the certificate
 * Secret, becoming leader (`enqueue`), and a periodic resync.
 *
 * Objects are read and written as plain JSON (json-api.ts), so fields this code does not know survive.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { abortableDelay, type RequestThrottle } from "./client.js";
import { createKubeApi, type KubeApi, type WatchEvent } from "./json-api.js";
import { knativeLeaseName } from "./lease-buckets.js";
import { jsonEqual } from "../duck/json-equal.js";
import { asJsonObject, type JsonObject } from "../go/encoding/json/json-value.js";


/** The Secret the certificate controller maintains (knative.dev/pkg webhook/certificates) and its CA key. */
export const WEBHOOK_CERTS_SECRET = "webhook-certs";
export const CA_CERT_KEY = "ca-cert.pem";
/** Namespaces labelled with this key are never sent to the resource webhooks. */
export const EXCLUDE_LABEL = "webhooks.knative.dev/exclude";

export type WebhookConfigKind = "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration";

/** admissionregistration.k8s.io/v1 RuleWithOperations, as JSON. */
export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: string;
}

/** One configuration this webhook owns. */
export interface WebhookConfigTarget {
  readonly kind: WebhookConfigKind;
  /** The configuration's name, which is also the name of the entries in `webhooks[]` that are ours. */
  readonly name: string;
  /** The HTTP path the entries call. */
  readonly path: string;
  readonly rules: readonly WebhookRule[];
  /** Resource webhooks get the exclude requirement in `namespaceSelector`; the config webhook keeps its selectors. */
  readonly excludeSelector: boolean;
  /** Knative's work-queue name of this configuration's reconciler, which names its Leases (lease-buckets.ts). */
  readonly queue: string;
  /**
   * Knative's Lease for this reconciler with one bucket (docs/knative-behavior.md#leader-election), shared with
   * Knative's own webhook during a switch-over; cluster.ts replaces it with the bucket that config-leader-election
   * makes the owner.
   */
  readonly leaseName: string;
}

/** A kind as the registry describes it (KindRules has these fields). */
export interface RegisteredKind {
  readonly gvk: { readonly group: string; readonly version: string };
  readonly plural: string;
}

/**
 * One rule per kind for the main resource and `/status`, sorted by group, version, plural (knative.dev/pkg
 * defaulting.go: reconcileMutatingWebhook, validation/reconcile_config.go: reconcileValidatingWebhook).
 * Knative leaves `scope` unset and the API server stores `"*"`; writing `"*"` makes the stored object equal to
 * the computed one, so an unchanged configuration is recognised without a write.
 */
export function resourceWebhookRules(kinds: readonly RegisteredKind[], operations: readonly string[]): WebhookRule[] {
  const rules = kinds.map((k) => ({
    operations: [...operations],
    apiGroups: [k.gvk.group],
    apiVersions: [k.gvk.version],
    resources: [k.plural, `${k.plural}/status`],
    scope: "*",
  }));
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  rules.sort((a, b) => cmp(a.apiGroups[0] ?? "", b.apiGroups[0] ?? "") || cmp(a.apiVersions[0] ?? "", b.apiVersions[0] ?? "") || cmp(a.resources[0] ?? "", b.resources[0] ?? ""));
  return rules;
}

/** The config webhook's rule: every ConfigMap (`configmaps/*` also matches the main resource). */
export const CONFIG_WEBHOOK_RULES: readonly WebhookRule[] = [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps/*"], scope: "Namespaced" }];

/**
 * Knative Serving's three configurations with their paths and Lease names (knative.dev/serving cmd/webhook/main.go,
 * config/core/webhooks/*.yaml; docs/knative-behavior.md#webhook-configurations and #leader-election).
 * `mutatingOnly` adds kinds only /defaulting handles (the `--generational` kinds Knative does not register).
 */
export function knativeWebhookTargets(kinds: readonly RegisteredKind[], mutatingOnly: readonly RegisteredKind[] = []): WebhookConfigTarget[] {
  return [
    {
      kind: "MutatingWebhookConfiguration",
      name: "webhook.serving.knative.dev",
      path: "/defaulting",
      rules: resourceWebhookRules([...kinds, ...mutatingOnly], ["CREATE", "UPDATE"]),
      excludeSelector: true,
      queue: "DefaultingWebhook",
      leaseName: knativeLeaseName("webhook", "DefaultingWebhook"),
    },
    {
      kind: "ValidatingWebhookConfiguration",
      name: "validation.webhook.serving.knative.dev",
      path: "/resource-validation",
      rules: resourceWebhookRules(kinds, ["CREATE", "UPDATE", "DELETE"]),
      excludeSelector: true,
      queue: "ValidationWebhook",
      leaseName: knativeLeaseName("webhook", "ValidationWebhook"),
    },
    {
      kind: "ValidatingWebhookConfiguration",
      name: "config.webhook.serving.knative.dev",
      path: "/config-validation",
      rules: CONFIG_WEBHOOK_RULES,
      excludeSelector: false,
      queue: "ConfigMapWebhook",
      leaseName: knativeLeaseName("webhook", "ConfigMapWebhook"),
    },
  ];
}


/** What the configuration should say besides the rules. */
export interface WebhookConfigInputs {
  /** The CA bundle, base64 as in the Secret's data (and in `clientConfig.caBundle`). */
  readonly caBundle: string;
  /** The Namespace owner reference; undefined leaves `ownerReferences` alone (WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP). */
  readonly owner?: JsonObject;
  /** `--webhook-url`: write `clientConfig.url` instead of the service reference. */
  readonly webhookUrl?: string;
}

/**
 * metav1.NewControllerRef(ns, v1/Namespace), as knative/pkg writes it: with `controller: true` up to the knative.dev/pkg
 * of serving v0.44.2, then `nsRef.Controller = ptr.Bool(false)` (the profile's namespaceOwnerController).
 */
export function namespaceOwnerReference(ns: JsonObject, controller = true): JsonObject {
  const meta = asJsonObject(ns.metadata) ?? {};
  return { apiVersion: "v1", kind: "Namespace", name: meta.name, uid: meta.uid, controller, blockOwnerDeletion: true };
}


/** knative/pkg webhook.EnsureLabelSelectorExpressions with the exclude requirement. */
export function ensureExcludeSelector(current: unknown): JsonObject {
  const wanted = { key: EXCLUDE_LABEL, operator: "DoesNotExist" };
  const selector = asJsonObject(current);
  if (selector === undefined) return { matchExpressions: [wanted] };
  const out: JsonObject = {};
  const labels = asJsonObject(selector.matchLabels);
  if (labels !== undefined && Object.keys(labels).length > 0) out.matchLabels = labels;
  const expressions = Array.isArray(selector.matchExpressions) ? (selector.matchExpressions as unknown[]) : [];
  // Knative's own requirements are replaced; everyone else's are kept after ours.
  const others = expressions.filter((e) => !String(asJsonObject(e)?.key ?? "").includes("knative.dev"));
  out.matchExpressions = [wanted, ...others];
  return out;
}


/**
 * The configuration as it should be (docs/knative-behavior.md#webhook-configurations), computed from the stored one,
 * which is not modified. Throws Knative's error when one of our entries has no service reference (and no
 * --webhook-url is given).
 */
export function desiredWebhookConfiguration(current: JsonObject, target: WebhookConfigTarget, inputs: WebhookConfigInputs): JsonObject {
  const next = structuredClone(current);
  if (inputs.owner !== undefined) {
    next.metadata = { ...(asJsonObject(next.metadata) ?? {}), ownerReferences: [inputs.owner] };
  }
  const webhooks = Array.isArray(next.webhooks) ? (next.webhooks as unknown[]) : [];
  for (const entry of webhooks) {
    const wh = asJsonObject(entry);
    if (wh === undefined || wh.name !== target.name) continue;
    wh.rules = target.rules.map((r) => ({ ...r, operations: [...r.operations], apiGroups: [...r.apiGroups], apiVersions: [...r.apiVersions], resources: [...r.resources] }));
    if (target.excludeSelector) wh.namespaceSelector = ensureExcludeSelector(wh.namespaceSelector);
    const clientConfig = { ...(asJsonObject(wh.clientConfig) ?? {}) };
    clientConfig.caBundle = inputs.caBundle;
    if (inputs.webhookUrl !== undefined) {
      delete clientConfig.service;
      clientConfig.url = `${inputs.webhookUrl}${target.path}`;
    } else {
      const service = asJsonObject(clientConfig.service);
      if (service === undefined) throw new Error(`missing service reference for webhook: ${target.name}`);
      // A configuration switched back from --webhook-url keeps no stale url (url and service are exclusive).
      delete clientConfig.url;
      clientConfig.service = { ...service, path: target.path };
    }
    wh.clientConfig = clientConfig;
    if (target.kind === "MutatingWebhookConfiguration") wh.reinvocationPolicy = "IfNeeded";
  }
  return next;
}

export type ReconcileOutcome = "updated" | "unchanged" | "not-leader";

export interface WebhookConfigControllerOptions {
  readonly api: KubeApi;
  /** SYSTEM_NAMESPACE: where the Secret lives and the Namespace that owns the configurations. */
  readonly namespace: string;
  readonly targets: readonly WebhookConfigTarget[];
  readonly secretName?: string;
  /** Set ownerReferences to the system Namespace (default true; WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP=true turns it off). */
  readonly namespaceOwnership?: boolean;
  /** The owner reference's `controller` value, read at each reconcile (the release answered as; default true). */
  readonly ownerController?: () => boolean;
  /** `--webhook-url` (already checked with parseWebhookUrl). */
  readonly webhookUrl?: string;
  /** Whether this replica leads the configuration's reconciler (default: always, i.e. no election). */
  readonly isLeader?: (target: WebhookConfigTarget) => boolean;
  readonly logger?: Logger;
  /** Periodic reconcile of every configuration (Knative's informer resync: 10 h). */
  readonly resyncMs?: number;
  /** Retry after a failure: doubling from `initialMs` up to `maxMs`. */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
  /** Bounds of the server-side watch timeout (a random value in between, as client-go's reflector). */
  readonly watchTimeoutSeconds?: { readonly min: number; readonly max: number };
}

interface TargetState {
  readonly target: WebhookConfigTarget;
  running: Promise<void> | undefined;
  dirty: boolean;
  failures: number;
  retryTimer: NodeJS.Timeout | undefined;
  lastOutcome: ReconcileOutcome | undefined;
  lastError: string | undefined;
}

export interface TargetStatus {
  readonly name: string;
  readonly lastOutcome: ReconcileOutcome | undefined;
  readonly lastError: string | undefined;
}

const ADMISSION_API = "/apis/admissionregistration.k8s.io/v1";

function collectionOf(kind: WebhookConfigKind): string {
  return `${ADMISSION_API}/${kind === "MutatingWebhookConfiguration" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations"}`;
}

/** Reconciles the configurations and, once started, keeps them reconciled. */
export class WebhookConfigController {
  private readonly states = new Map<string, TargetState>();
  private readonly stopping = new AbortController();
  private readonly watches: Promise<void>[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private readonly secretName: string;
  private readonly retry: { readonly initialMs: number; readonly maxMs: number };

  constructor(private readonly opts: WebhookConfigControllerOptions) {
    this.secretName = opts.secretName ?? WEBHOOK_CERTS_SECRET;
    this.retry = opts.retry ?? { initialMs: 1_000, maxMs: 300_000 };
    for (const target of opts.targets) {
      this.states.set(target.name, { target, running: undefined, dirty: false, failures: 0, retryTimer: undefined, lastOutcome: undefined, lastError: undefined });
    }
  }

  /**
   * One reconcile of one configuration (docs/knative-behavior.md#webhook-configurations). Throws Knative's error
   * texts.
   */
  async reconcile(target: WebhookConfigTarget): Promise<ReconcileOutcome> {
    if (this.opts.isLeader !== undefined && !this.opts.isLeader(target)) return "not-leader";
    const { api, namespace } = this.opts;
    const secret = asJsonObject(await api.request({ method: "GET", path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(this.secretName)}` })) ?? {};
    const caBundle = asJsonObject(secret.data)?.[CA_CERT_KEY];
    if (typeof caBundle !== "string") throw new Error(`secret "${this.secretName}" is missing "${CA_CERT_KEY}" key`);
    const path = `${collectionOf(target.kind)}/${encodeURIComponent(target.name)}`;
    let current: JsonObject;
    try {
      current = asJsonObject(await api.request({ method: "GET", path })) ?? {};
    } catch (err) {
      throw new Error(`error retrieving webhook: ${(err as Error).message}`);
    }
    let owner: JsonObject | undefined;
    if (this.opts.namespaceOwnership ?? true) {
      try {
        owner = namespaceOwnerReference(asJsonObject(await api.request({ method: "GET", path: `/api/v1/namespaces/${encodeURIComponent(namespace)}` })) ?? {}, this.opts.ownerController?.() ?? true);
      } catch (err) {
        throw new Error(`failed to fetch namespace: ${(err as Error).message}`);
      }
    }
    const desired = desiredWebhookConfiguration(current, target, { caBundle, owner, webhookUrl: this.opts.webhookUrl });
    if (jsonEqual(current, desired)) return "unchanged";
    try {
      // metadata.resourceVersion is kept: a concurrent change makes this a 409 and the next attempt starts over.
      await api.request({ method: "PUT", path, body: desired });
    } catch (err) {
      throw new Error(`failed to update webhook: ${(err as Error).message}`);
    }
    this.opts.logger?.info({ webhook: target.name, kind: target.kind }, "updated webhook configuration");
    return "updated";
  }

  /** Watches the configurations and the Secret, reconciles everything now and every resync period. */
  start(): void {
    const seen = new Set<string>();
    for (const target of this.opts.targets) {
      const key = `${target.kind}/${target.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.watches.push(this.watchLoop(collectionOf(target.kind), target.name, () => this.enqueue(target.name)));
    }
    const secrets = `/api/v1/namespaces/${encodeURIComponent(this.opts.namespace)}/secrets`;
    this.watches.push(this.watchLoop(secrets, this.secretName, () => this.enqueue()));
    const resyncMs = this.opts.resyncMs ?? 10 * 60 * 60 * 1000;
    this.resyncTimer = setInterval(() => this.enqueue(), resyncMs);
    this.resyncTimer.unref();
    this.enqueue();
  }

  /** Reconciles one configuration (by name) or all of them soon; call it on becoming leader. */
  enqueue(name?: string): void {
    if (this.stopping.signal.aborted) return;
    for (const state of this.states.values()) {
      if (name !== undefined && state.target.name !== name) continue;
      clearTimeout(state.retryTimer);
      state.retryTimer = undefined;
      if (state.running !== undefined) state.dirty = true;
      else state.running = this.run(state);
    }
  }

  /** Resolves once nothing is running or queued (retries waiting on a timer do not count). */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.states.values()].map((s) => s.running).filter((p): p is Promise<void> => p !== undefined);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  status(): TargetStatus[] {
    return [...this.states.values()].map((s) => ({ name: s.target.name, lastOutcome: s.lastOutcome, lastError: s.lastError }));
  }

  async close(): Promise<void> {
    this.stopping.abort(new Error("webhook configuration controller closed"));
    clearInterval(this.resyncTimer);
    for (const s of this.states.values()) clearTimeout(s.retryTimer);
    await Promise.all(this.watches);
    await this.idle();
  }

  private async run(state: TargetState): Promise<void> {
    // Yield first, so that a burst of triggers collapses into one pass.
    await Promise.resolve();
    do {
      state.dirty = false;
      try {
        const outcome = await this.reconcile(state.target);
        state.failures = 0;
        state.lastOutcome = outcome;
        state.lastError = undefined;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        state.lastError = message;
        if (state.dirty || this.stopping.signal.aborted) continue;
        const delay = Math.min(this.retry.maxMs, this.retry.initialMs * 2 ** state.failures);
        state.failures++;
        this.opts.logger?.warn({ webhook: state.target.name, err: message, retryInMs: delay }, "reconciling the webhook configuration failed");
        state.retryTimer = setTimeout(() => this.enqueue(state.target.name), delay);
        state.retryTimer.unref();
      }
    } while (state.dirty && !this.stopping.signal.aborted);
    state.running = undefined;
  }

  /** A watch on one object (by field selector, which RBAC resourceNames require), restarted until close(). */
  private async watchLoop(collection: string, name: string, onChange: () => void): Promise<void> {
    const signal = this.stopping.signal;
    const bounds = this.opts.watchTimeoutSeconds ?? { min: 300, max: 600 };
    let failures = 0;
    while (!signal.aborted) {
      const timeoutSeconds = Math.floor(bounds.min + Math.random() * (bounds.max - bounds.min));
      const query = { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: "true", timeoutSeconds: String(timeoutSeconds) };
      let events = 0;
      let problem: string | undefined;
      try {
        // Without a resourceVersion the server starts with ADDED for what exists, so every (re)connect reconciles.
        await this.opts.api.watch(
          collection,
          query,
          (e: WatchEvent) => {
            if (e.type === "ERROR") {
              // A Status (e.g. 410 Gone): this stream is over; a fresh one starts from the current state.
              problem = String(asJsonObject(e.object)?.message ?? "watch error");
              return false;
            }
            events++;
            if (e.type !== "BOOKMARK") onChange();
            return true;
          },
          signal,
          (timeoutSeconds + 30) * 1000,
        );
      } catch (err) {
        problem = (err as Error).message;
      }
      if (signal.aborted) break;
      if (events > 0) failures = 0;
      // A stream that delivered nothing before failing is retried with backoff, so a broken watch cannot spin.
      if (problem !== undefined || events === 0) {
        const delay = Math.min(this.retry.maxMs, this.retry.initialMs * 2 ** failures);
        failures++;
        if (problem !== undefined) this.opts.logger?.warn({ collection, name, err: problem, retryInMs: delay }, "watch failed; watching again");
        await abortableDelay(delay, signal).catch(() => undefined);
      }
    }
  }
}

export interface WebhookConfigReconciliationOptions {
  readonly kubeConfig: KubeConfig;
  /** SYSTEM_NAMESPACE. */
  readonly namespace: string;
  readonly targets: readonly WebhookConfigTarget[];
  readonly webhookUrl?: string;
  readonly namespaceOwnership?: boolean;
  readonly ownerController?: () => boolean;
  /** Unique per process (leader-election.ts defaultLeaseIdentity()). */
  readonly identity: string;
  /** Lease timing (config-leader-election); default Knative's 60 s / 40 s / 10 s. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** false: no election, this process reconciles (`--disable-ha`). */
  readonly leaderElection?: boolean;
  readonly throttle?: RequestThrottle;
  readonly logger?: Logger;
}

export interface RunningWebhookConfigReconciliation {
  readonly controller: WebhookConfigController;
  close(): Promise<void>;
}

/**
 * The cluster wiring: a controller per process and, unless disabled, one Lease elector per configuration with
 * Knative's Lease names, so that a replica (or Knative's own webhook during a switch-over) reconciles a
 * configuration only while it holds that Lease; becoming leader reconciles at once.
 */
export async function startWebhookConfigReconciliation(opts: WebhookConfigReconciliationOptions): Promise<RunningWebhookConfigReconciliation> {
  const api = createKubeApi(opts.kubeConfig, { throttle: opts.throttle });
  const leaders = new Set<string>();
  const election = opts.leaderElection ?? true;
  const controller = new WebhookConfigController({
    api,
    namespace: opts.namespace,
    targets: opts.targets,
    webhookUrl: opts.webhookUrl,
    namespaceOwnership: opts.namespaceOwnership,
    ownerController: opts.ownerController,
    isLeader: election ? (t) => leaders.has(t.name) : undefined,
    logger: opts.logger,
  });
  const electors: Array<{ close(): Promise<void> }> = [];
  if (election) {
    const { createLeaderElector, KNATIVE_LEASE_TIMING } = await import("./leader-election.js");
    for (const target of opts.targets) {
      const elector = createLeaderElector({
        kubeConfig: opts.kubeConfig,
        namespace: opts.namespace,
        leaseName: target.leaseName,
        identity: opts.identity,
        leaseDurationMs: opts.leaseDurationMs ?? KNATIVE_LEASE_TIMING.leaseDurationMs,
        renewDeadlineMs: opts.renewDeadlineMs ?? KNATIVE_LEASE_TIMING.renewDeadlineMs,
        retryPeriodMs: opts.retryPeriodMs ?? KNATIVE_LEASE_TIMING.retryPeriodMs,
        throttle: opts.throttle,
        logger: opts.logger,
        onStartedLeading: () => {
          leaders.add(target.name);
          controller.enqueue(target.name);
        },
        onStoppedLeading: () => leaders.delete(target.name),
      });
      elector.start();
      electors.push(elector);
    }
  }
  controller.start();
  return {
    controller,
    async close() {
      await Promise.all(electors.map((e) => e.close()));
      await controller.close();
      api.close();
    },
  };
}
