/**
 * The API call of the PodSpec dry run (knative.dev/serving v0.44.2 pkg/webhook/podspec_dryrun.go: validatePodSpec;
 * docs/knative-behavior.md#podspec-dry-run): `POST /api/v1/namespaces/<ns>/pods?dryRun=All` with the webhook's own
 * credentials. The rule side (when to run, which Pod, Knative's message) is src/serving/podspec-dryrun.ts; this
 * module only makes the call, bounded by a deadline, and reports the error text client-go would have given Knative
 * (`err.Error()`).
 */
import type { Logger } from "pino";
import type { RequestContext } from "../serving/context.js";
import { KubeApiError, type KubeApi } from "./json-api.js";

export type PodDryRun = NonNullable<RequestContext["podDryRun"]>;

/**
 * Knative bounded the call only by the API server's webhook timeout (10 s), so a slow dry run turned into a
 * timeout of the whole admission request. 8 s leaves the webhook time to answer with Knative's message instead.
 */
export const DEFAULT_DRY_RUN_TIMEOUT_MS = 8_000;

export interface PodDryRunOptions {
  readonly api: KubeApi;
  /** Deadline of one dry run; past it the call fails with `context deadline exceeded`. */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

const OK = Object.freeze({ ok: true as const });

export function createPodDryRun(opts: PodDryRunOptions): PodDryRun {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_DRY_RUN_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`the dry-run timeout must be positive, got ${timeoutMs} ms`);
  return async (pod, namespace) => {
    // client-go's Pods("") would post to the cluster-wide collection, which the API server refuses.
    const path = namespace === "" ? "/api/v1/pods" : `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
    const started = Date.now();
    try {
      await opts.api.request({ method: "POST", path, query: { dryRun: "All" }, body: pod, signal: AbortSignal.timeout(timeoutMs) });
      opts.logger?.debug({ namespace, latencyMs: Date.now() - started }, "PodSpec dry run passed");
      return OK;
    } catch (err) {
      const error = err instanceof KubeApiError ? err.message : err instanceof Error ? err.message : String(err);
      opts.logger?.info({ namespace, latencyMs: Date.now() - started, status: err instanceof KubeApiError ? err.status : undefined, err: error }, "PodSpec dry run failed");
      return { ok: false, error };
    }
  };
}
