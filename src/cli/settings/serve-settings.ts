/**
 * `duckbill serve`'s settings, parsed once: the table's text (./options.ts) into typed values, then what follows from
 * several of them (the TLS policy, where certificates and configuration come from). Everything the serve process
 * reads from its environment is here; it is handed down from main.ts, the one file that reads `process.env`.
 */
import { chooseConfigStoreMode, type ConfigStoreMode } from "../../config/store.js";
import type { KubeEnvironment } from "../../kube/client.js";
import { resolveClientRateLimits, type ClientRateLimits } from "../../kube/client-rate-limits.js";
import { deprecatedNames, parseOptions, resolveSettings, SERVE_OPTIONS, type Environment, type ParsedOptions, type ServeSettings } from "./options.js";
import { tlsPolicy, type TlsPolicySettings } from "./tls-settings.js";

export type TlsSource = "secret" | "dir" | "generated";

export type ServeOptions = ParsedOptions<typeof SERVE_OPTIONS>;

export interface ServeConfig extends ServeOptions {
  /** The text each option resolved to (for log lines that quote it). */
  readonly text: ServeSettings;
  readonly tls: TlsPolicySettings;
  readonly tlsSource: TlsSource;
  readonly reconcileWebhooks: boolean;
  readonly configMode: ConfigStoreMode;
  /** Whether cluster credentials are at hand: --kubeconfig / KUBECONFIG, or a pod's service account. */
  readonly inCluster: boolean;
  /** What the Kubernetes client reads from the environment (KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT). */
  readonly kubeEnvironment: KubeEnvironment;
  readonly clientRateLimits: ClientRateLimits;
  /** Settings given under a deprecated name: one warning each, logged at startup. */
  readonly deprecations: readonly string[];
}

/** Reads `serve`'s flags and environment once. */
export function readServeSettings(flags: Readonly<Record<string, string | boolean | undefined>>, env: Environment): ServeConfig {
  return parseServeSettings(resolveSettings(flags, env), env, deprecatedNames(SERVE_OPTIONS, flags, env));
}

/** Parses resolved text (tests build it from resolveSettings' defaults with overrides); `env` only for the Kubernetes client. */
export function parseServeSettings(text: ServeSettings, env: Environment = {}, deprecations: readonly string[] = []): ServeConfig {
  const o = parseOptions(SERVE_OPTIONS, text);
  const kubeEnvironment: KubeEnvironment = { KUBECONFIG: env.KUBECONFIG, KUBERNETES_SERVICE_HOST: env.KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT: env.KUBERNETES_SERVICE_PORT };
  const inCluster = o.kubeconfig !== "" || (env.KUBERNETES_SERVICE_HOST ?? "") !== "";
  const tlsSource = chooseTlsSource(o, inCluster);
  return {
    ...o,
    text,
    tls: tlsPolicy(o),
    tlsSource,
    reconcileWebhooks: o["reconcile-webhooks"] === "auto" ? tlsSource === "secret" : o["reconcile-webhooks"],
    configMode: chooseConfigStoreMode({ source: o["config-source"], dir: o["config-dir"], credentials: inCluster }),
    inCluster,
    kubeEnvironment,
    clientRateLimits: resolveClientRateLimits(o["kube-api-qps"], o["kube-api-burst"]),
    deprecations,
  };
}

function chooseTlsSource(o: ServeOptions, inCluster: boolean): TlsSource {
  const v = o["tls-source"];
  if (v === "dir" && o["cert-dir"] === "") throw new Error("--tls-source dir needs --cert-dir (DUCKBILL_CERT_DIR)");
  if (v !== "auto") return v;
  if (o["cert-dir"] !== "") return "dir";
  return inCluster ? "secret" : "generated";
}
