/**
 * How Duckbill reaches the Kubernetes API: a KubeConfig found the way Knative's sharedmain finds one
 * (knative.dev/pkg environment.ClientConfig → client-go clientcmd), and a client-side request throttle,
 * since @kubernetes/client-node has none (client-go's QPS/burst).
 */
import { existsSync } from "node:fs";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import type { ClientRateLimits } from "./client-rate-limits.js";

/** Where kubelet mounts the pod's service-account credentials. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The environment client-go's loading rules read (the command line hands it down; nothing here reads process.env). */
export interface KubeEnvironment {
  /** A list of files, separated as PATH is. */
  readonly KUBECONFIG?: string | undefined;
  readonly KUBERNETES_SERVICE_HOST?: string | undefined;
  readonly KUBERNETES_SERVICE_PORT?: string | undefined;
}

export interface KubeConfigRequest {
  /** `--kubeconfig`: an explicit file wins over everything else. */
  readonly kubeconfig?: string | undefined;
  /** What client-go reads from the environment; `{}` for credentials from `kubeconfig` only. */
  readonly env: KubeEnvironment;
  /** Prefix for SERVICE_ACCOUNT_DIR (client-node's loadFromCluster pathPrefix); "" in a pod, a temp dir in tests. */
  readonly fsRoot?: string;
  /** Defaults to os.homedir(); tests point it at an empty directory. */
  readonly homeDir?: string;
}

export interface LoadedKubeConfig {
  readonly kubeConfig: KubeConfig;
  /** What was used, for the startup log: `--kubeconfig <file>`, `KUBECONFIG <file>`, `~/.kube/config`, `in-cluster`. */
  readonly origin: string;
  /** The API server URL of the current context. */
  readonly server: string;
}

function loadFile(file: string, origin: string): LoadedKubeConfig {
  if (!existsSync(file)) throw new Error(`${origin}: kubeconfig file "${file}" does not exist`);
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (e) {
    throw new Error(`${origin}: kubeconfig file "${file}" could not be read: ${(e as Error).message}`);
  }
  return withServer(kc, `${origin} ${file}`);
}

function withServer(kc: KubeConfig, origin: string): LoadedKubeConfig {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error(`${origin}: the kubeconfig has no current context with a cluster (set current-context)`);
  return { kubeConfig: kc, origin, server: cluster.server };
}

/**
 * Finds credentials in client-go's order: `--kubeconfig`, then $KUBECONFIG (first file; later ones are merged),
 * then ~/.kube/config, then the in-cluster service account. Unlike client-node's loadFromDefault, never falls
 * back to http://localhost:8080: a webhook that silently talks to nothing is worse than one that refuses to start.
 */
export function loadKubeConfig(req: KubeConfigRequest): LoadedKubeConfig {
  const env = req.env;
  if (req.kubeconfig !== undefined && req.kubeconfig !== "") return loadFile(req.kubeconfig, "--kubeconfig");
  const fromEnv = (env.KUBECONFIG ?? "").split(delimiter).filter((f) => f !== "");
  if (fromEnv.length > 0) {
    const [first, ...rest] = fromEnv as [string, ...string[]];
    const loaded = loadFile(first, "KUBECONFIG");
    for (const file of rest) {
      if (!existsSync(file)) continue; // client-go skips missing files in the list
      const more = new KubeConfig();
      more.loadFromFile(file);
      loaded.kubeConfig.mergeConfig(more);
    }
    return loaded;
  }
  const home = req.homeDir ?? homedir();
  const homeConfig = join(home, ".kube", "config");
  if (home !== "" && existsSync(homeConfig)) return loadFile(homeConfig, "~/.kube/config");
  const fsRoot = req.fsRoot ?? "";
  const token = `${fsRoot}${SERVICE_ACCOUNT_DIR}/token`;
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const port = env.KUBERNETES_SERVICE_PORT ?? "";
  if (host !== "" && port !== "" && existsSync(token)) return inCluster(host, port, `${fsRoot}${SERVICE_ACCOUNT_DIR}`);
  const why = host === "" || port === "" ? "KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set" : `${token} does not exist`;
  throw new Error(
    `no Kubernetes credentials: pass --kubeconfig or set KUBECONFIG, create ~/.kube/config, or run in a pod with a service account (${why}); ` +
      "use --config-dir for a standalone configuration without a cluster",
  );
}

/**
 * client-go's rest.InClusterConfig: always HTTPS, the service-account CA, and the token read from its file (which
 * client-node re-reads every minute, as client-go does, since projected tokens rotate). client-node's own
 * loadFromCluster reads the process environment itself and picks plain HTTP for some ports, hence this version.
 */
function inCluster(host: string, port: string, saDir: string): LoadedKubeConfig {
  const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "inCluster", server, caFile: join(saDir, "ca.crt"), skipTLSVerify: false }],
    users: [{ name: "inClusterUser", authProvider: { name: "tokenFile", config: { tokenFile: join(saDir, "token") } } }],
    contexts: [{ name: "inClusterContext", cluster: "inCluster", user: "inClusterUser" }],
    currentContext: "inClusterContext",
  });
  return { kubeConfig: kc, origin: "in-cluster service account", server };
}


/** A token bucket shared by everything that talks to the API server (client-go's flowcontrol rate limiter). */
export class RequestThrottle {
  private tokens: number;
  private last: number;
  private readonly perMs: number;

  constructor(
    private readonly limits: ClientRateLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = limits.burst;
    this.last = now();
    this.perMs = limits.qps / 1000;
  }

  /** Waits until a request may be sent; rejects with the signal's reason when aborted while waiting. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const t = this.now();
      this.tokens = Math.min(this.limits.burst, this.tokens + (t - this.last) * this.perMs);
      this.last = t;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await abortableDelay(Math.ceil((1 - this.tokens) / this.perMs), signal);
    }
  }
}

/** setTimeout as a promise that an AbortSignal cuts short (rejecting with the signal's reason). */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
