/**
 * `--workers N`: several processes serve the one HTTPS port (node:cluster shares the listening socket). Each worker
 * is a whole `startWebhook`: it follows the configuration and the certificate itself (directory or cluster watches,
 * the Secret), so updates reach every worker without the primary relaying them, and leader election treats workers
 * like replicas. The primary only forks, restarts crashed workers, serves the summed metrics, passes the workers'
 * log lines on (log-forwarding.ts), and turns SIGTERM into a drain of every worker. Numbers behind the default:
 * bench/README.md.
 */
import cluster, { type Worker } from "node:cluster";
import type { Server } from "node:http";
import type { Logger } from "pino";
// A static import: the bundle (scripts/bundle.mjs) keeps CommonJS packages' named exports only for those.
import { AggregatorRegistry, type Registry } from "prom-client";
import { rawLogWriter } from "../server/logging.js";
import { listenMetrics } from "../server/metrics-listener.js";
import { forwardLines } from "./log-forwarding.js";
import { usableCpus } from "./cpu-limit.js";
import { parsePort, type ServeSettings } from "./options.js";

/**
 * The number of serving processes `--workers` asks for: `auto` (or 0) is one per CPU the process may use (the cgroup
 * quota rounded up, at most the CPUs of its affinity mask: cpu-limit.ts), as Go sizes Knative's webhook.
 */
export function parseWorkers(s: string, cpus: () => number = usableCpus): number {
  if (s === "auto") return cpus();
  if (!/^\d+$/.test(s) || Number(s) > 256) throw new Error(`--workers (WEBHOOK_WORKERS) must be auto or a whole number from 0 to 256, got "${s}"`);
  const n = Number(s);
  return n === 0 ? cpus() : n;
}

/** What a worker tells the primary once it listens. */
export interface WorkerServing {
  readonly type: "duckbill:serving";
  readonly port: number;
}

function isServing(m: unknown): m is WorkerServing {
  return typeof m === "object" && m !== null && (m as { type?: unknown }).type === "duckbill:serving";
}

/** Tells the primary this worker serves (no-op outside a worker). */
export function reportServing(port: number): void {
  const msg: WorkerServing = { type: "duckbill:serving", port };
  process.send?.(msg);
}

const RESTART_DELAY_MS = 1000;
/** How long the primary waits, once every worker has exited, for the rest of their log lines. */
const LOG_FORWARD_WAIT_MS = 2000;

/**
 * How the primary aggregates the process gauges of prom-client's collectDefaultMetrics that a sum misreads. The
 * rest are summed (prom-client's default): the workers' memory, heap, handles and open descriptors add up to what
 * the serving processes hold; prom-client itself sets the event-loop lag's min/max/average and nodejs_version_info's
 * `first`. Duckbill's own gauges carry their aggregator where they are defined (config/sources/metrics.ts,
 * kube/cert-controller.ts); Knative's series are counters and histograms, summed.
 */
export const PROCESS_GAUGE_AGGREGATORS: Readonly<Record<string, "min" | "max">> = {
  // A per-process limit: the same in every worker, two of them do not double it.
  process_max_fds: "min",
  // prom-client omits it; the latest start is when the summed counters last lost a replaced worker's counts, which
  // is what Prometheus reads a process's start time for.
  process_start_time_seconds: "max",
};

/** In a worker: answers the primary's metrics requests with `registry` (the listener comes with the constructor). */
export function serveWorkerMetrics(registry: Registry): void {
  for (const [name, aggregator] of Object.entries(PROCESS_GAUGE_AGGREGATORS)) {
    const metric = registry.getSingleMetric(name) as { aggregator?: string } | undefined;
    if (metric !== undefined) metric.aggregator = aggregator;
  }
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

async function startAggregatedMetrics(port: number, host: string, logger: Logger): Promise<Server> {
  const aggregator = new AggregatorRegistry();
  return listenMetrics({ contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() }, port, host, logger);
}

/**
 * Runs the primary: prepares what workers must share (generated certificates are written once, so every worker
 * serves the same one), forks, and resolves never; the process exits after SIGTERM once every worker drained.
 */
export async function runPrimary(s: ServeSettings, workers: number, logger: Logger): Promise<never> {
  const { checkSettings, chooseTlsSource, tlsFor } = await import("./serve.js");
  checkSettings(s);
  if (chooseTlsSource(s) === "generated") await tlsFor(s, logger);
  const metricsPort = parsePort(s["metrics-port"], "--metrics-port", true);
  const metricsServer = metricsPort === 0 ? undefined : await startAggregatedMetrics(metricsPort, s["metrics-host"], logger);
  const boundMetrics = metricsServer?.address();

  let stopping = false;
  let announced = false;
  const serving = new Map<number, number>();
  // Workers write their logs into pipes to the primary, which passes whole lines on: one writer on stdout.
  cluster.setupPrimary({ silent: true });
  const writeLines = rawLogWriter(logger);
  const forwarding = new Set<Promise<void>>();
  const fork = (): Worker => {
    const w = cluster.fork();
    const out = w.process.stdout;
    if (out !== null) {
      const done = forwardLines(out, writeLines);
      forwarding.add(done);
      void done.then(() => forwarding.delete(done));
    }
    w.process.stderr?.pipe(process.stderr, { end: false });
    return w;
  };
  cluster.on("message", (worker, msg: unknown) => {
    if (!isServing(msg)) return;
    serving.set(worker.id, msg.port);
    if (!announced && serving.size >= workers) {
      announced = true;
      const port = msg.port;
      const mp = typeof boundMetrics === "object" && boundMetrics !== null ? boundMetrics.port : undefined;
      logger.info({ port, host: s.host, metricsPort: mp, workers, tlsMinVersion: s["tls-min-version"] }, "duckbill webhook serving");
      logger.flush();
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    serving.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        metricsServer?.close();
        const passedOn = Promise.all(forwarding);
        const waited = new Promise((resolve) => setTimeout(resolve, LOG_FORWARD_WAIT_MS));
        void Promise.race([passedOn, waited]).then(() => {
          logger.info("stopped");
          logger.flush();
          process.exit(0);
        });
      }
      return;
    }
    logger.error({ worker: worker.id, code, signal }, "worker exited; starting another");
    setTimeout(fork, RESTART_DELAY_MS).unref();
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means "now", as for one process.
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, workers: serving.size }, "draining every worker");
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  for (let i = 0; i < workers; i++) fork();
  return new Promise<never>(() => undefined);
}
