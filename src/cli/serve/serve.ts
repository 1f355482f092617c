import type { Server } from "node:http";
import type { Logger } from "pino";
import type { AdmissionDeps } from "../../admission/deps.js";
import { exportsPrometheusMetrics } from "../../config/metrics-export.js";
import { knativeProfile, type KnativeProfile } from "../../config/profile.js";
import type { ConfigData } from "../../config/types.js";
import { createConfigStore, type ConfigStore } from "../../config/store.js";
import type { ClusterConfigSourceOptions } from "../../kube/config-source.js";
import { resolveClusterDomain } from "../../kube/cluster-domain.js";
import { CertDirWatch } from "../../certs/cert-dir-watch.js";
import { generateTlsMaterial } from "../../certs/certificate-issuer.js";
import { describeCertificate } from "../../certs/certificate-parse.js";
import { loadTlsMaterial, writeTlsMaterial } from "../../certs/tls-files.js";
import type { TlsMaterial } from "../../certs/tls-material.js";
import { generationalKeys } from "../../admission/generation.js";
import type { WebhookServer } from "../../server/app.js";
import { followLogLevel } from "../../server/log-level.js";
import { createLogger, type LogStyle } from "../../server/logging.js";
import { buildCommit } from "../version.js";
import { listenMetrics } from "../../server/metrics-listener.js";
import type { ServeConfig } from "../settings/serve-settings.js";

export interface RunningWebhook {
  readonly server: WebhookServer;
  readonly port: number;
  readonly metricsPort: number | undefined;
  readonly tls: TlsMaterial;
  /** SIGTERM semantics: fail probes, drain, close everything. */
  shutdown(): Promise<void>;
  /** Immediate close (tests, second signal). */
  close(): Promise<void>;
}

/**
 * `--log-format`, and Knative's logger name and fields: `commit` (knative.dev/pkg changeset.Get: the build's
 * revision, 7 characters; none when unknown) and `knative.dev/pod` (POD_NAME, as sharedmain's SetupLoggerOrDie).
 */
export function logStyle(s: ServeConfig): LogStyle {
  const commit = buildCommit();
  return { format: s["log-format"], name: "webhook", commit: commit === "unknown" ? undefined : commit.slice(0, 7), pod: s["pod-name"] };
}

/** The serve process's logger, as the settings say. */
export function serveLogger(s: ServeConfig): Logger {
  return createLogger(s["log-level"], undefined, {}, logStyle(s));
}

/**
 * `--knative-metrics auto`: Knative's series are shown while config-observability has the release answered as export
 * to Prometheus (src/config/metrics-export.ts), re-decided when the ConfigMap or the release changes; a ConfigMap
 * Knative would reject keeps the decision in effect.
 */
function followKnativeMetrics(metrics: import("../../server/metrics.js").WebhookMetrics, initial: KnativeProfile, defaultBackend: string, logger: Logger): { observe(data: ConfigData): void; release(p: KnativeProfile): void } {
  let data: ConfigData | undefined;
  let profile = initial;
  const decide = (): void => {
    const exposed = exportsPrometheusMetrics(data, profile, defaultBackend);
    if (exposed === undefined) {
      logger.warn({ knativeVersion: profile.version }, "config-observability: not a metrics exporter Knative accepts; Knative's series stay as they are");
      return;
    }
    if (metrics.knative?.isExposed !== exposed) logger.info({ knativeVersion: profile.version, exposed }, exposed ? "Knative's metrics series shown: config-observability exports to Prometheus" : "Knative's metrics series hidden: config-observability does not export to Prometheus");
    metrics.setKnativeExposed(exposed);
  };
  decide();
  return {
    observe(d) {
      data = d;
      decide();
    },
    release(p) {
      profile = p;
      decide();
    },
  };
}

/**
 * The live configuration (knative.dev/serving pkg/apis/config/store.go; docs/knative-behavior.md#live-configuration):
 * a directory or the cluster's ConfigMaps, watched, or Knative's defaults.
 * Cluster credentials are loaded up front so that bad ones fail the start with a clear message.
 */
interface ClusterAccess {
  readonly kubeConfig: import("@kubernetes/client-node").KubeConfig;
  readonly rateLimits: import("../../kube/client-rate-limits.js").ClientRateLimits;
}

/** Loads cluster credentials once, when anything needs them; bad ones fail the start with a clear message. */
async function clusterAccess(s: ServeConfig, logger: Logger, needed: boolean): Promise<ClusterAccess | undefined> {
  if (!needed) return undefined;
  const client = await import("../../kube/client.js");
  const loaded = client.loadKubeConfig({ kubeconfig: s.kubeconfig === "" ? undefined : s.kubeconfig, env: s.kubeEnvironment });
  logger.info({ credentials: loaded.origin, server: loaded.server }, "using Kubernetes credentials");
  return { kubeConfig: loaded.kubeConfig, rateLimits: s.clientRateLimits };
}

/**
 * The Knative release to answer as. `--knative-version auto` in a cluster reads the release from the cluster and
 * follows it (kube/knative-release.ts); offline, and with an explicit release, the profile is fixed.
 */
async function knativeRelease(s: ServeConfig, logger: Logger, cluster: ClusterAccess | undefined): Promise<{ profile: KnativeProfile; follow?: (onProfile: (p: KnativeProfile) => void) => { close(): Promise<void> } }> {
  const setting = s["knative-version"];
  if (setting !== "auto") {
    logger.info({ knativeVersion: setting }, `answering as Knative ${setting} (--knative-version)`);
    return { profile: knativeProfile(setting) };
  }
  if (cluster === undefined) {
    const profile = knativeProfile("auto");
    logger.info({ knativeVersion: profile.version, source: "default" }, `no cluster to read the Knative release from; answering as Knative ${profile.version} (pin one with --knative-version)`);
    return { profile };
  }
  const [{ createKubeApi }, release] = await Promise.all([import("../../kube/json-api.js"), import("../../kube/knative-release.js")]);
  const api = createKubeApi(cluster.kubeConfig);
  const detected = await release.detectKnativeRelease(api, s["system-namespace"], AbortSignal.timeout(30_000));
  release.logDetectedRelease(logger, detected);
  return {
    profile: detected.profile,
    follow: (onProfile) => {
      const watch = new release.KnativeReleaseWatch({ kubeConfig: cluster.kubeConfig, api, initial: detected.profile, onProfile: (d) => onProfile(d.profile), logger, watchdogMs: s["config-watchdog"] });
      watch.start();
      return {
        async close() {
          await watch.close();
          api.close();
        },
      };
    },
  };
}

async function openConfigStore(s: ServeConfig, logger: Logger, registry: import("prom-client").Registry, cluster: ClusterAccess | undefined, profile: KnativeProfile, observers: ReadonlyMap<string, (data: ConfigData) => void>): Promise<ConfigStore> {
  const mode = s.configMode;
  if (mode === "cluster" && cluster === undefined) throw new Error("the cluster configuration source needs Kubernetes credentials");
  const observing = new Map([[s["config-logging-name"], followLogLevel(logger, s["log-level"])], ...observers]);
  const clusterSource: ClusterConfigSourceOptions | undefined = cluster === undefined ? undefined : { kubeConfig: cluster.kubeConfig, clientRateLimits: cluster.rateLimits, observers: observing };
  const store = createConfigStore({
    mode,
    profile,
    namespace: s["system-namespace"],
    dir: s["config-dir"] === "" ? undefined : s["config-dir"],
    ...(mode === "dir" ? { observers: observing } : {}),
    logger,
    registry,
    watchdogMs: s["config-watchdog"],
    // Loaded on demand: @kubernetes/client-node takes about a second to import, and only cluster mode needs it.
    ...(clusterSource !== undefined && mode === "cluster" ? { cluster: async (ctx) => (await import("../../kube/config-source.js")).openClusterConfigSource(clusterSource, ctx) } : {}),
  });
  // The cluster may take a while (retries with backoff); readiness says so meanwhile. Other sources are immediate.
  if (mode === "cluster") {
    store.start().catch((err: unknown) => logger.error({ err }, "configuration store stopped"));
  } else {
    await store.start();
  }
  return store;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Certificates generated by an earlier standalone run are reused while they cover the same names and stay
 * valid for more than a day, so clients that trust `ca.crt` keep working across restarts.
 */
async function reusableGenerated(dir: string, wantedNames: readonly string[]): Promise<TlsMaterial | undefined> {
  try {
    const m = await loadTlsMaterial(dir);
    if (m.ca === "" || m.notAfter.getTime() - Date.now() < DAY_MS) return undefined;
    const names = new Set(describeCertificate(m.cert).dnsNames);
    return wantedNames.every((n) => names.has(n)) ? m : undefined;
  } catch {
    return undefined;
  }
}

/** The serving certificate to start with; generated ones are written for reuse (and for --workers to share). */
export async function tlsFor(s: ServeConfig, logger: Logger): Promise<TlsMaterial> {
  const namespace = s["system-namespace"];
  if (s.tlsSource === "secret") {
    // A throwaway certificate lets the server answer probes (not ready, with the reason) until the Secret's arrives.
    return generateTlsMaterial({ serviceName: s["service-name"], namespace });
  }
  if (s["cert-dir"] !== "") {
    const m = await loadTlsMaterial(s["cert-dir"]);
    logger.info({ certDir: s["cert-dir"], notAfter: m.notAfter.toISOString() }, "loaded TLS certificate");
    return m;
  }
  const svc = s["service-name"];
  const wanted = ["localhost", svc, `${svc}.${namespace}`, `${svc}.${namespace}.svc`];
  const existing = await reusableGenerated(s["generated-cert-dir"], wanted);
  if (existing !== undefined) {
    logger.info({ dir: s["generated-cert-dir"], notAfter: existing.notAfter.toISOString() }, "reusing the generated certificate; clients trust ca.crt");
    return existing;
  }
  const m = await generateTlsMaterial({ serviceName: svc, namespace });
  await writeTlsMaterial(s["generated-cert-dir"], m);
  logger.info({ dir: s["generated-cert-dir"], notAfter: m.notAfter.toISOString() }, "generated a CA and serving certificate; clients trust ca.crt");
  return m;
}

/** Follows `dir` (tlsFor loaded the certificate from it): replaced files go to new handshakes. */
function startCertDirWatch(dir: string, served: TlsMaterial, server: WebhookServer, logger: Logger): CertDirWatch {
  const watch = new CertDirWatch({ dir, served, onTls: (m) => server.setTls(m), logger });
  watch.start();
  return watch;
}

/** Starts the HTTPS webhook and the metrics listener as configured. */
export interface StartOptions {
  logger?: Logger;
  /** Called with the metrics registry (a --workers worker hands it to the primary's aggregation). */
  onRegistry?: (registry: import("prom-client").Registry) => void;
  /** The ready line's message (a worker says "worker serving"; the primary says the usual line once all are). */
  servingMessage?: string;
}

export async function startWebhook(s: ServeConfig, deps: AdmissionDeps, opts: StartOptions = {}): Promise<RunningWebhook> {
  const logger = opts.logger ?? serveLogger(s);
  // Load the transport while certificates are made (key generation runs off the main thread).
  const [tls, { createWebhookServer }, { WebhookMetrics }] = await Promise.all([tlsFor(s, logger), import("../../server/app.js"), import("../../server/metrics.js")]);
  const metricsPortWanted = s["metrics-port"];
  const knativeMetrics = s["knative-metrics"];
  const metrics = new WebhookMetrics({ knative: knativeMetrics === false ? false : undefined });
  opts.onRegistry?.(metrics.registry);
  const tlsSource = s.tlsSource;
  const reconcile = s.reconcileWebhooks;
  const access = await clusterAccess(s, logger, tlsSource === "secret" || reconcile || s.configMode === "cluster" || s.inCluster);
  const release = await knativeRelease(s, logger, access);
  metrics.setRelease(release.profile);
  const metricsExport = knativeMetrics === "auto" ? followKnativeMetrics(metrics, release.profile, s["default-metrics-backend"], logger) : undefined;
  const observability = new Map(metricsExport === undefined ? [] : [[s["config-observability-name"], metricsExport.observe] as const]);
  const store = await openConfigStore(s, logger, metrics.registry, access, release.profile, observability);
  const onRelease: { changed?: () => void } = {};
  const releaseWatch = release.follow?.((p) => {
    store.setProfile(p);
    metrics.setRelease(p);
    metricsExport?.release(p);
    onRelease.changed?.();
  });
  logger.info({ source: store.current().source, tls: tlsSource, reconcileWebhooks: reconcile }, "configuration and certificate sources");
  const generational = s.generational;

  const impactWarnings = s["impact-warnings"];
  if (impactWarnings && access === undefined) logger.warn("--impact-warnings needs a cluster (--kubeconfig or in-cluster credentials); no impact warnings");

  // In a cluster: the Secret's certificate (followed by every replica), the reconcilers, the dry-run client.
  const live: { server?: WebhookServer } = {};
  let latestTls: { key: string; cert: string } | undefined;
  const cluster =
    access === undefined
      ? undefined
      : await (await import("./cluster.js")).startClusterParts({
          ...access,
          namespace: s["system-namespace"],
          clusterDomain: resolveClusterDomain(s["cluster-domain"]),
          namespaceOwnership: !s["disable-namespace-ownership"],
          serviceName: s["service-name"],
          secretName: s["secret-name"],
          certificates: tlsSource === "secret",
          reconcileWebhooks: reconcile,
          webhookUrl: s["webhook-url"],
          leaderElection: !s["disable-ha"],
          leaderElectionConfigName: s["config-leader-election-name"],
          dryRunTimeoutMs: s["dry-run-timeout"],
          knativeProfile: () => store.current().profile,
          kinds: deps.kinds.all(),
          generational,
          impactWarnings,
          ...(s["feature-scopes"] ? { featureScopes: { config: () => store.current() } } : {}),
          logger,
          registry: metrics.registry,
          onTlsMaterial: (m) => {
            latestTls = m;
            live.server?.setTls(m);
            logger.info({ notAfter: new Date(m.notAfter).toISOString() }, "serving the certificate from the Secret");
          },
        });
  if (cluster !== undefined) onRelease.changed = () => cluster.releaseChanged();
  const admissionDeps: AdmissionDeps = {
    ...deps,
    ...(generational.length > 0 ? { generational: generationalKeys(generational) } : {}),
    ...(cluster !== undefined ? { podDryRun: cluster.podDryRun } : {}),
  };
  const server = createWebhookServer({
    tls: {
      key: latestTls?.key ?? tls.key,
      cert: latestTls?.cert ?? tls.cert,
      ...s.tls,
      ...(s["client-ca"] === undefined ? {} : { clientCa: s["client-ca"] }),
    },
    deps: admissionDeps,
    config: () => store.current(),
    ...(cluster?.gatedUsage !== undefined ? { gatedUsage: cluster.gatedUsage } : {}),
    ...(cluster?.namespaces !== undefined ? { namespaces: cluster.namespaces } : {}),
    notReadyReason: () => store.notReadyReason() ?? cluster?.notReadyReason(),
    logger,
    metrics,
    http2: s.http2,
    drainQuietPeriodMs: s["drain-timeout"],
    requestTimeoutMs: s["request-timeout"],
    headersTimeoutMs: s["headers-timeout"],
    keepAliveTimeoutMs: s["keep-alive-timeout"],
    maxConnections: s["max-connections"],
    maxBufferedBytes: s["max-buffered-bytes"],
  });
  live.server = server;
  const { port } = await server.listen(s.port, s.host);
  // A certificate replaced in --cert-dir (a renewed Secret volume, cert-manager) is served without a restart;
  // under --workers every worker runs this function and so follows the directory itself.
  const certDirWatch = tlsSource !== "secret" && s["cert-dir"] !== "" ? startCertDirWatch(s["cert-dir"], tls, server, logger) : undefined;
  let metricsServer: Server | undefined;
  let metricsPort: number | undefined;
  if (metricsPortWanted !== 0) {
    metricsServer = await listenMetrics({ contentType: metrics.registry.contentType, metrics: () => metrics.registry.metrics() }, metricsPortWanted, s["metrics-host"], logger);
    const addr = metricsServer.address();
    metricsPort = typeof addr === "object" && addr !== null ? addr.port : metricsPortWanted;
  }
  logger.info({ port, host: s.host, metricsPort, tlsMinVersion: s.text["tls-min-version"] }, opts.servingMessage ?? "duckbill webhook serving");
  // Lines are buffered (server/logging.ts): whoever waits for the ready line sees it now.
  logger.flush();
  const closeMetrics = (): Promise<void> => new Promise((r) => (metricsServer === undefined ? r() : metricsServer.close(() => r())));
  return {
    server,
    port,
    metricsPort,
    tls,
    async shutdown() {
      logger.info({ drainTimeout: s.text["drain-timeout"] }, "draining: probes fail from now on; closing once no request arrives for the drain period (a second signal exits at once)");
      await server.drainAndClose(); // the directory is still followed meanwhile: the drain can last a while
      await certDirWatch?.close();
      await releaseWatch?.close();
      await cluster?.close();
      await store.close();
      await closeMetrics();
      logger.info("stopped");
      logger.flush();
    },
    async close() {
      await certDirWatch?.close();
      await server.close();
      await releaseWatch?.close();
      await cluster?.close();
      await store.close();
      await closeMetrics();
    },
  };
}
