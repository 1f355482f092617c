/**
 * `duckbill serve` in a cluster (issue [5]): the certificate controller (webhook-certs Secret, CA rotation, Lease),
 * the webhook-configuration reconciler and the PodSpec dry-run client. Imported on demand: it pulls in
 * @kubernetes/client-node, which standalone runs never load.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { GroupVersionKind } from "../apis/gvk.js";
import { generationalWebhookKinds } from "../admission/generation.js";
import { createCertController, type TlsMaterialUpdate } from "../kube/cert-controller.js";
import { resolveClusterDomain } from "../kube/cluster-domain.js";
import { RequestThrottle, type ClientRateLimits } from "../kube/client.js";
import { createPodDryRun } from "../kube/dry-run.js";
import { createKubeApi } from "../kube/json-api.js";
import { defaultLeaseIdentity } from "../kube/leader-election.js";
import { disableNamespaceOwnershipFromEnv, knativeWebhookTargets, parseWebhookUrl, startWebhookConfigReconciliation } from "../kube/webhook-config.js";
import type { RequestContext } from "../serving/context.js";
import type { KindRules } from "../serving/registry.js";

export interface ClusterOptions {
  readonly kubeConfig: KubeConfig;
  readonly rateLimits: ClientRateLimits;
  readonly namespace: string;
  readonly serviceName: string;
  readonly secretName: string;
  /** Manage TLS through the Secret (else the server keeps its own certificate). */
  readonly certificates: boolean;
  /** Reconcile the three webhook configurations. */
  readonly reconcileWebhooks: boolean;
  readonly webhookUrl: string;
  readonly leaderElection: boolean;
  readonly dryRunTimeoutMs: number;
  readonly kinds: readonly KindRules[];
  readonly generational: readonly GroupVersionKind[];
  readonly logger: Logger;
  readonly registry: Registry;
  /** Every new certificate (every replica follows the Secret). */
  readonly onTlsMaterial: (m: TlsMaterialUpdate) => void;
}

export interface ClusterParts {
  readonly podDryRun: NonNullable<RequestContext["podDryRun"]>;
  notReadyReason(): string | undefined;
  close(): Promise<void>;
}

export async function startClusterParts(o: ClusterOptions): Promise<ClusterParts> {
  const throttle = new RequestThrottle(o.rateLimits);
  const api = createKubeApi(o.kubeConfig, { throttle });
  const podDryRun = createPodDryRun({ api, timeoutMs: o.dryRunTimeoutMs, logger: o.logger });
  const identity = defaultLeaseIdentity();
  const certs = o.certificates
    ? createCertController({
        kubeConfig: o.kubeConfig,
        namespace: o.namespace,
        secretName: o.secretName,
        serviceName: o.serviceName,
        clusterDomain: resolveClusterDomain(),
        identity,
        leaderElection: o.leaderElection,
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
        targets: knativeWebhookTargets(o.kinds, generationalWebhookKinds(o.generational, o.kinds)),
        webhookUrl: o.webhookUrl === "" ? undefined : parseWebhookUrl(o.webhookUrl),
        namespaceOwnership: !disableNamespaceOwnershipFromEnv(),
        identity,
        leaderElection: o.leaderElection,
        throttle,
        logger: o.logger,
      })
    : undefined;
  return {
    podDryRun,
    notReadyReason: () => certs?.notReadyReason(),
    async close() {
      await reconciliation?.close();
      await certs?.close();
      api.close();
    },
  };
}
