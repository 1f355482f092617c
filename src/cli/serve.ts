import { createServer as createHttpServer, type Server } from "node:http";
import type { Logger } from "pino";
import type { AdmissionDeps } from "../admission/deps.js";
import { loadConfigDir } from "../config/dir.js";
import { defaultSnapshot, type ConfigSnapshot } from "../config/snapshot.js";
import { generateTlsMaterial, loadTlsMaterial, writeTlsMaterial, type TlsMaterial } from "../kube/certificates.js";
import { createWebhookServer, type WebhookServer } from "../server/app.js";
import { createLogger, LOG_LEVELS, type LogLevel } from "../server/logging.js";
import { WebhookMetrics } from "../server/metrics.js";
import { parseBool, parseDurationMs, parsePort, parseTlsMinVersion, type ServeSettings } from "./options.js";

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

/** Validates settings up front so a bad flag fails at startup with a clear message, not at the first request. */
export function checkSettings(s: ServeSettings): void {
  parsePort(s.port, "--port (WEBHOOK_PORT)", true);
  parsePort(s["metrics-port"], "--metrics-port (METRICS_PORT)", true);
  parseTlsMinVersion(s["tls-min-version"]);
  parseBool(s.http2, "--http2 (WEBHOOK_ENABLE_HTTP2)");
  parseDurationMs(s["drain-timeout"], "--drain-timeout (DRAIN_TIMEOUT)");
  parseDurationMs(s["request-timeout"], "--request-timeout (REQUEST_TIMEOUT)");
  if (!(LOG_LEVELS as readonly string[]).includes(s["log-level"])) throw new Error(`--log-level (LOG_LEVEL) must be one of ${LOG_LEVELS.join(", ")}, got "${s["log-level"]}"`);
}

async function tlsFor(s: ServeSettings, logger: Logger): Promise<TlsMaterial> {
  if (s["cert-dir"] !== "") {
    const m = await loadTlsMaterial(s["cert-dir"]);
    logger.info({ certDir: s["cert-dir"], notAfter: m.notAfter.toISOString() }, "loaded TLS certificate");
    return m;
  }
  const m = await generateTlsMaterial({ serviceName: s["service-name"], namespace: s.namespace });
  await writeTlsMaterial(s["generated-cert-dir"], m);
  logger.info({ dir: s["generated-cert-dir"], notAfter: m.notAfter.toISOString() }, "generated a CA and serving certificate; clients trust ca.crt");
  return m;
}

function startMetrics(metrics: WebhookMetrics, port: number, host: string, logger: Logger): Promise<Server> {
  const server = createHttpServer((req, res) => {
    if (req.method === "GET" && (req.url === "/metrics" || req.url?.startsWith("/metrics?") === true)) {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { "Content-Type": metrics.registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          logger.error({ err }, "metrics collection failed");
          res.writeHead(500).end();
        },
      );
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found: metrics are at GET /metrics\n");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Starts the HTTPS webhook and the metrics listener as configured. */
export async function startWebhook(s: ServeSettings, deps: AdmissionDeps, opts: { logger?: Logger } = {}): Promise<RunningWebhook> {
  checkSettings(s);
  const logger = opts.logger ?? createLogger(s["log-level"] as LogLevel);
  const tls = await tlsFor(s, logger);
  const config: ConfigSnapshot = s["config-dir"] !== "" ? await loadConfigDir(s["config-dir"]) : defaultSnapshot();
  logger.info({ source: config.source, configMaps: [...config.data.keys()] }, "configuration loaded");
  const metricsPortWanted = parsePort(s["metrics-port"], "--metrics-port", true);
  const metrics = new WebhookMetrics();
  const server = createWebhookServer({
    tls: { key: tls.key, cert: tls.cert, minVersion: parseTlsMinVersion(s["tls-min-version"]) },
    deps,
    config: () => config,
    logger,
    metrics,
    http2: parseBool(s.http2, "--http2"),
    drainQuietPeriodMs: parseDurationMs(s["drain-timeout"], "--drain-timeout"),
    requestTimeoutMs: parseDurationMs(s["request-timeout"], "--request-timeout"),
  });
  const { port } = await server.listen(parsePort(s.port, "--port", true), s.host);
  let metricsServer: Server | undefined;
  let metricsPort: number | undefined;
  if (metricsPortWanted !== 0) {
    metricsServer = await startMetrics(metrics, metricsPortWanted, s["metrics-host"], logger);
    const addr = metricsServer.address();
    metricsPort = typeof addr === "object" && addr !== null ? addr.port : metricsPortWanted;
  }
  logger.info({ port, host: s.host, metricsPort, tlsMinVersion: s["tls-min-version"] }, "duckbill webhook serving");
  const closeMetrics = (): Promise<void> => new Promise((r) => (metricsServer === undefined ? r() : metricsServer.close(() => r())));
  return {
    server,
    port,
    metricsPort,
    tls,
    async shutdown() {
      logger.info({ drainTimeout: s["drain-timeout"] }, "draining: probes fail from now on; closing once no request arrives for the drain period");
      await server.drainAndClose();
      await closeMetrics();
      logger.info("stopped");
      logger.flush();
    },
    async close() {
      await server.close();
      await closeMetrics();
    },
  };
}
