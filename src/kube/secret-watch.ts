/**
 * Keeps one Secret in view the way client-go's reflector does (list, then watch from the list's resourceVersion with
 * bookmarks; list again on 410 Gone or a silent stream; reconnect with backoff), and reports every version of it,
 * or its absence. Scoped to the one name with a field selector, so no other Secret ever reaches this process.
 */
import { CoreV1Api, type KubeConfig, type V1Secret } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { BackoffPolicy } from "./backoff.js";
import { withSignal } from "./api-request.js";
import type { RequestThrottle } from "./client.js";
import { logStreamEnd, Reflector } from "./reflector.js";

export interface SecretWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  /** Every observed version of the Secret, or undefined when it does not exist; called after each list too. */
  readonly onSecret: (secret: V1Secret | undefined) => void;
  /** Listing failed (the last reported state may be stale); cleared by the next onSecret. */
  readonly onTrouble?: (message: string) => void;
  readonly logger: Logger;
  readonly throttle?: RequestThrottle;
  readonly backoff?: BackoffPolicy;
  /** Silence (no event, no bookmark) after which the stream is dropped and the Secret listed again (default 2 min). */
  readonly watchdogMs?: number;
  /** Bound on one list request (default 30 s). */
  readonly listTimeoutMs?: number;
}

const DEFAULT_WATCHDOG_MS = 120_000;

export class SecretWatch {
  private readonly reflector: Reflector<V1Secret>;

  constructor(opts: SecretWatchOptions) {
    const { logger, namespace, name } = opts;
    const api = opts.kubeConfig.makeApiClient(CoreV1Api);
    const fieldSelector = `metadata.name=${name}`;
    const fields = { secret: `${namespace}/${name}` };
    this.reflector = new Reflector<V1Secret>({
      kubeConfig: opts.kubeConfig,
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`,
      fieldSelector,
      list: async (signal) => {
        const list = await api.listNamespacedSecret({ namespace, fieldSelector }, withSignal(signal));
        return { resourceVersion: list.metadata?.resourceVersion ?? "", items: list.items };
      },
      onList: (items) => opts.onSecret(items.find((s) => s.metadata?.name === name)),
      onEvent: (phase, secret) => {
        if (secret.metadata?.name !== name) return; // bookmarks
        if (phase === "ADDED" || phase === "MODIFIED") opts.onSecret(secret);
        else if (phase === "DELETED") opts.onSecret(undefined);
      },
      onListError: (message, retryInMs) => {
        opts.onTrouble?.(`reading Secret ${fields.secret} failed: ${message}`);
        logger.warn({ ...fields, err: message, retryInMs }, "reading the Secret failed; retrying");
      },
      onStreamEnd: logStreamEnd(logger, "Secret watch", fields),
      throttle: opts.throttle,
      backoff: opts.backoff,
      watchdogMs: opts.watchdogMs ?? DEFAULT_WATCHDOG_MS,
      listTimeoutMs: opts.listTimeoutMs,
    });
  }

  start(): void {
    this.reflector.start();
  }

  async close(): Promise<void> {
    await this.reflector.close();
  }
}
