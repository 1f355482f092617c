/**
 * `duckbill serve` in a cluster: the certificate controller (webhook-certs Secret, CA rotation, Lease),
 * the webhook-configuration reconciler and the PodSpec dry-run client. Imported on demand: it pulls in
 * @kubernetes/client-node, which standalone runs never load.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { KnativeProfile } from "../../config/profile.js";
import type { NamespaceLabelsView } from "../../config/feature-scopes.js";
import type { ConfigSnapshot } from "../../config/snapshot.js";
import { relabelImpact } from "../../admission/scoped-config.js";
import type { Registry } from "prom-client";
import type { GroupVersionKind } from "../../apis/gvk.js";
import { generationalWebhookKinds } from "../../admission/generation.js";
import { createCertController, type TlsMaterialUpdate } from "../../kube/cert-controller.js";
import { RequestThrottle } from "../../kube/client.js";
import type { ClientRateLimits } from "../../kube/client-rate-limits.js";
import { createPodDryRun } from "../../kube/dry-run.js";
import { createKubeApi } from "../../kube/json-api.js";
import { DEFAULT_LEADER_ELECTION } from "../../config/configmaps/leader-election.js";
import { defaultLeaseIdentity } from "../../kube/leader-election.js";
import { loadLeaderElectionConfig } from "../../kube/leader-election-config.js";
import { leaseNameFor } from "../../kube/lease-buckets.js";
import { knativeWebhookTargets, startWebhookConfigReconciliation } from "../../kube/webhook-config.js";
import type { RequestContext } from "../../serving/context.js";
import type { GatedUsageView } from "../../serving/gated-usage.js";
import type { KindRules } from "../../serving/registry.js";

export interface ClusterOptions {
  readonly kubeConfig: KubeConfig;
  readonly rateLimits: ClientRateLimits;
  readonly namespace: string;
  /** The cluster's DNS domain (src/kube/cluster-domain.ts: resolveClusterDomain). */
  readonly clusterDomain: string;
  /** Make the system Namespace the webhook configurations' owner (false: WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP). */
  readonly namespaceOwnership: boolean;
  readonly serviceName: string;
  readonly secretName: string;
  /** Manage TLS through the Secret (else the server keeps its own certificate). */
  readonly certificates: boolean;
  /** Reconcile the three webhook configurations. */
  readonly reconcileWebhooks: boolean;
  /** `--webhook-url` as parsed (scheme, host and port), "" for the webhook Service. */
  readonly webhookUrl: string;
  readonly leaderElection: boolean;
  /** The ConfigMap read for the Leases' settings (`--config-leader-election-name`, default config-leader-election). */
  readonly leaderElectionConfigName?: string;
  readonly dryRunTimeoutMs: number;
  /** The Knative release answered as (it can change under --knative-version auto; see releaseChanged). */
  readonly knativeProfile: () => KnativeProfile;
  readonly kinds: readonly KindRules[];
  readonly generational: readonly GroupVersionKind[];
  /** `--impact-warnings`: list and watch Services and Configurations for /config-validation's impact warnings. */
  readonly impactWarnings?: boolean;
  /**
   * `--feature-scopes`: list and watch Namespaces for the selectors of config-features-scopes (the snapshot in
   * effect, `config`, says what a relabelling changes).
   */
  readonly featureScopes?: { readonly config: () => ConfigSnapshot };
  readonly logger: Logger;
  readonly registry: Registry;
  /** Every new certificate (every replica follows the Secret). */
  readonly onTlsMaterial: (m: TlsMaterialUpdate) => void;
}

export interface ClusterParts {
  readonly podDryRun: NonNullable<RequestContext["podDryRun"]>;
  /** With `impactWarnings`: the usage index (kube/gated-usage-watch.ts, imported only then). */
  readonly gatedUsage?: GatedUsageView;
  /** With `featureScopes`: the namespaces' labels (kube/namespace-watch.ts, imported only then). */
  readonly namespaces?: NamespaceLabelsView;
  notReadyReason(): string | undefined;
  /** The release answered as changed: the webhook configurations are reconciled again (the owner reference). */
  releaseChanged(): void;
  close(): Promise<void>;
}

/** The component name Knative's Serving webhook runs under (sharedmain), the first part of its Lease names. */
const COMPONENT = "webhook";

export async function startClusterParts(o: ClusterOptions): Promise<ClusterParts> {
  const throttle = new RequestThrottle(o.rateLimits);
  const api = createKubeApi(o.kubeConfig, { throttle });
  const podDryRun = createPodDryRun({ api, timeoutMs: o.dryRunTimeoutMs, logger: o.logger });
  const identity = defaultLeaseIdentity();
  // Knative's Serving webhook runs as component "webhook"; its reconcilers' Leases follow config-leader-election.
  const election = o.leaderElection
    ? await loadLeaderElectionConfig({ api, namespace: o.namespace, name: o.leaderElectionConfigName, logger: o.logger })
    : DEFAULT_LEADER_ELECTION;
  const timing = { leaseDurationMs: election.leaseDurationMs, renewDeadlineMs: election.renewDeadlineMs, retryPeriodMs: election.retryPeriodMs };
  const certs = o.certificates
    ? createCertController({
        kubeConfig: o.kubeConfig,
        namespace: o.namespace,
        secretName: o.secretName,
        serviceName: o.serviceName,
        clusterDomain: o.clusterDomain,
        // With --webhook-url the API server calls that host: the certificate must name it.
        extraHost: o.webhookUrl === "" ? undefined : new URL(o.webhookUrl).hostname,
        identity,
        leaderElection: o.leaderElection,
        leaseName: leaseNameFor(COMPONENT, "WebhookCertificates", `${o.namespace}/${o.secretName}`, election),
        ...timing,
        onTlsMaterial: o.onTlsMaterial,
        logger: o.logger,
        registry: o.registry,
        throttle,
      })
    : undefined;
  certs?.start();
  const reconciliation = o.reconcileWebhooks
    ? await startWebhookConfigReconciliation({
        kubeConfig: o.kubeConfig,
        namespace: o.namespace,
        // Cluster-scoped configurations: the key is `/<name>` (types.NamespacedName's String()).
        targets: knativeWebhookTargets(o.kinds, generationalWebhookKinds(o.generational, o.kinds)).map((t) => ({ ...t, leaseName: leaseNameFor(COMPONENT, t.queue, `/${t.name}`, election) })),
        webhookUrl: o.webhookUrl === "" ? undefined : o.webhookUrl,
        namespaceOwnership: o.namespaceOwnership,
        ownerController: () => o.knativeProfile().namespaceOwnerController,
        identity,
        leaderElection: o.leaderElection,
        ...timing,
        throttle,
        logger: o.logger,
      })
    : undefined;
  const usage = o.impactWarnings === true ? new (await import("../../kube/gated-usage-watch.js")).GatedUsageWatch({ kubeConfig: o.kubeConfig, logger: o.logger, throttle }) : undefined;
  usage?.start();
  const scopes = o.featureScopes;
  const namespaces =
    scopes === undefined
      ? undefined
      : new (await import("../../kube/namespace-watch.js")).NamespaceWatch({
          kubeConfig: o.kubeConfig,
          logger: o.logger,
          throttle,
          onRelabel: (namespace, before, after) => {
            const impact = relabelImpact(scopes.config(), namespace, before, after, usage?.view);
            if (impact.changes.length === 0) return;
            o.logger.info({ namespace, changes: impact.changes }, "feature scopes: a relabelled namespace changed its flags");
            for (const warning of impact.warnings) o.logger.warn({ namespace, warning }, "feature scopes: impact of a relabelled namespace");
          },
        });
  namespaces?.start();
  return {
    podDryRun,
    ...(usage !== undefined ? { gatedUsage: usage.view } : {}),
    ...(namespaces !== undefined ? { namespaces: namespaces.view } : {}),
    // Until the namespaces are listed every selector would miss: a pod that would deny what its peers admit waits.
    notReadyReason: () => certs?.notReadyReason() ?? (namespaces === undefined || namespaces.view.synced() ? undefined : "waiting for the first list of namespaces (--feature-scopes)"),
    releaseChanged: () => reconciliation?.controller.enqueue(),
    async close() {
      await namespaces?.close();
      await usage?.close();
      await reconciliation?.close();
      await certs?.close();
      api.close();
    },
  };
}
