/**
 * Reading `config-leader-election` once at startup, as Knative's sharedmain does (GetLeaderElectionConfig), for
 * the Leases of the certificate and webhook-configuration reconcilers. Knative exits when the ConfigMap cannot be
 * read or is invalid; Duckbill keeps serving admissions instead and uses Knative's defaults, saying so in the log
 * at error level. A missing ConfigMap means the defaults, as in Knative.
 */
import type { Logger } from "pino";
import { DEFAULT_LEADER_ELECTION, LEADER_ELECTION_CONFIG_NAME, readLeaderElectionConfig, type LeaderElectionConfig } from "../config/configmaps/leader-election.js";
import { abortableDelay } from "./client.js";
import type { KubeApi } from "./json-api.js";
import { leaseTimingProblems } from "./leader-election.js";

export interface LoadLeaderElectionOptions {
  readonly api: KubeApi;
  readonly namespace: string;
  /** knative/pkg's CONFIG_LEADERELECTION_NAME, default `config-leader-election`. */
  readonly name?: string;
  readonly logger: Logger;
  /** Attempts before falling back to the defaults (default 3), and the first pause between them (doubling). */
  readonly attempts?: number;
  readonly backoffMs?: number;
  /** Per attempt (default 5 s). */
  readonly timeoutMs?: number;
}

interface ConfigMapList {
  items?: Array<{ data?: Record<string, string> }>;
}

/**
 * The effective configuration. Listed by name with a field selector: the Role grants `list` on ConfigMaps (the
 * config store needs it), never `get`.
 */
export async function loadLeaderElectionConfig(o: LoadLeaderElectionOptions): Promise<LeaderElectionConfig> {
  const name = o.name ?? LEADER_ELECTION_CONFIG_NAME;
  const attempts = Math.max(1, o.attempts ?? 3);
  let delay = o.backoffMs ?? 500;
  let list: ConfigMapList | undefined;
  for (let attempt = 1; list === undefined; attempt++) {
    try {
      list = (await o.api.request({
        method: "GET",
        path: `/api/v1/namespaces/${encodeURIComponent(o.namespace)}/configmaps`,
        query: { fieldSelector: `metadata.name=${name}` },
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      })) as ConfigMapList;
    } catch (err) {
      if (attempt >= attempts) {
        o.logger.error({ configmap: name, err: (err as Error).message }, `could not read ${name}; the Leases use Knative's defaults`);
        return DEFAULT_LEADER_ELECTION;
      }
      await abortableDelay(delay);
      delay *= 2;
    }
  }
  const data = list.items?.[0]?.data;
  if (list.items === undefined || list.items.length === 0) {
    o.logger.info({ configmap: name }, `${name} not found; the Leases use Knative's defaults`);
    return DEFAULT_LEADER_ELECTION;
  }
  const read = readLeaderElectionConfig(data ?? {});
  if (!read.ok) {
    o.logger.error({ configmap: name, err: read.error }, `${name} is invalid; the Leases use Knative's defaults`);
    return DEFAULT_LEADER_ELECTION;
  }
  const problems = leaseTimingProblems(read.value);
  if (problems.length > 0) {
    o.logger.error({ configmap: name, err: problems.join("; ") }, `${name} has durations leader election cannot use; the Leases use Knative's defaults`);
    return DEFAULT_LEADER_ELECTION;
  }
  const c = read.value;
  o.logger.info({ configmap: name, leaseDurationMs: c.leaseDurationMs, renewDeadlineMs: c.renewDeadlineMs, retryPeriodMs: c.retryPeriodMs, buckets: c.buckets, leasePrefixes: Object.fromEntries(c.leasePrefixes) }, "leader election configured");
  return c;
}
