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
import { rawLogWriter } from "../../server/logging.js";
import { listenMetrics } from "../../server/metrics-listener.js";
import { forwardLines } from "./log-forwarding.js";
import { usableCpus } from "./cpu-limit.js";
import type { ServeConfig } from "../settings/serve-settings.js";

/**
 * The number of serving processes `--workers` asks for: `auto` (or 0) is one per CPU the process may use (the cgroup
 * quota rounded up, at most the CPUs of its affinity mask: cpu-limit.ts), as Go sizes Knative's webhook.
 */
export function workerCount(setting: "auto" | number, cpus: () => number = usableCpus): number {
  return setting === "auto" ? cpus() : setting;
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

/**
 * Rebalancing: keep-alive clients keep their connections, so connections opened while one worker served (at start,
 * or after a crash until the replacement serves) would stay on it, and its crash would drop every one at once.
 * Whenever a worker starts serving, the primary runs rounds: it asks every serving worker for its open connections
 * and tells one that holds more than an even share to end that many (connection-shed.ts: gently, after an answer);
 * the clients reopen them and the primary's round robin hands them out in turn, so a round gets part of the way
 * and the next one continues, until the spread is even (within one) or the rounds run out.
 */
interface CountConnections {
  readonly type: "duckbill:count-connections";
  readonly round: number;
}
/** A worker's answer to CountConnections. */
interface OpenConnections {
  readonly type: "duckbill:open-connections";
  readonly round: number;
  readonly open: number;
}
/** Ends `count` connections after their next answer, within `forMs` (the round). */
interface ShedConnections {
  readonly type: "duckbill:shed-connections";
  readonly count: number;
  readonly forMs: number;
}
const REBALANCE_ROUND_MS = 1000;
const REBALANCE_ROUNDS = 15;

function messageOf<T extends { type: string }>(m: unknown, type: T["type"]): T | undefined {
  return typeof m === "object" && m !== null && (m as { type?: unknown }).type === type ? (m as T) : undefined;
}

/** What a worker holding `open` of `total` connections over `workers` serving ones should end (0 when within its share). */
export function connectionsOverShare(open: number, total: number, workers: number): number {
  return Math.max(0, open - Math.ceil(total / workers));
}

/** In a worker: answers the primary's rebalancing rounds with `server`'s connections. */
export function answerRebalancing(server: { connections(): Promise<number>; readonly connectionShed: { request(count: number, forMs: number): void } }): void {
  process.on("message", (m: unknown) => {
    const count = messageOf<CountConnections>(m, "duckbill:count-connections");
    if (count !== undefined) {
      void server.connections().then(
        (open) => process.send?.({ type: "duckbill:open-connections", round: count.round, open } satisfies OpenConnections),
        () => undefined,
      );
      return;
    }
    const shed = messageOf<ShedConnections>(m, "duckbill:shed-connections");
    if (shed !== undefined) server.connectionShed.request(shed.count, shed.forMs);
  });
}

const RESTART_DELAY_MS = 1000;
/**
 * Replacements of workers that had served, within a minute, after which `serve` gives up and exits non-zero: a
 * worker that keeps dying is not helped by another second of waiting, and a container restarted by the kubelet
 * (with its back-off, and an event that says so) is what an operator sees and alerts on.
 */
export const MAX_RESTARTS_PER_MINUTE = 5;
/** The last bytes of a worker's stderr kept for the primary's message when it dies. */
const STDERR_TAIL_BYTES = 2048;
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
 * Whether every worker of `workers` (cluster.workers) has exited. Node's cluster removes an exited worker from
 * cluster.workers only once its IPC channel has closed as well (lib/internal/cluster/primary.js, cluster.fork: the
 * child's 'exit' and 'disconnect' handlers), and the child's 'exit' may come first: counting cluster.workers in the
 * last worker's 'exit' event then still finds it, and nothing counts again.
 */
export function everyWorkerExited(workers: Readonly<Record<string, { isDead(): boolean } | undefined>>): boolean {
  return Object.values(workers).every((w) => w === undefined || w.isDead());
}

/**
 * Runs the primary: prepares what workers must share (generated certificates are written once, so every worker
 * serves the same one), forks, and resolves never; the process exits after SIGTERM once every worker drained.
 */
export async function runPrimary(s: ServeConfig, workers: number, logger: Logger): Promise<never> {
  const { tlsFor } = await import("./serve.js");
  if (s.tlsSource === "generated") await tlsFor(s, logger);
  const metricsPort = s["metrics-port"];
  const metricsServer = metricsPort === 0 ? undefined : await startAggregatedMetrics(metricsPort, s["metrics-host"], logger);
  const boundMetrics = metricsServer?.address();

  let stopping = false;
  let announced = false;
  const serving = new Map<number, number>();
  // Workers write their logs into pipes to the primary, which passes whole lines on: one writer on stdout.
  cluster.setupPrimary({ silent: true });
  const writeLines = rawLogWriter(logger);
  const forwarding = new Set<Promise<void>>();
  /** Each worker's last stderr bytes: why it died, when it says so (a port in use, a certificate that is refused). */
  const stderrTail = new Map<number, string>();
  const fork = (): Worker => {
    const w = cluster.fork();
    const out = w.process.stdout;
    if (out !== null) {
      const done = forwardLines(out, writeLines);
      forwarding.add(done);
      void done.then(() => forwarding.delete(done));
    }
    w.process.stderr?.pipe(process.stderr, { end: false });
    w.process.stderr?.on("data", (chunk: Buffer) => stderrTail.set(w.id, ((stderrTail.get(w.id) ?? "") + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES)));
    return w;
  };
  /** Workers that told the primary they serve; one that exits without having served ends `serve`. */
  const served = new Set<number>();
  const restarts: number[] = [];
  /** Ends `serve` with `code` once every worker is gone and their log lines are passed on. */
  let failed = false;
  const exitWith = (code: number): void => {
    if (stopping || failed) return;
    failed = true;
    clearTimeout(roundTimer);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
    metricsServer?.close();
    const passedOn = Promise.all(forwarding);
    const waited = new Promise((resolve) => setTimeout(resolve, LOG_FORWARD_WAIT_MS));
    void Promise.race([passedOn, waited]).then(() => {
      logger.flush();
      process.exit(code);
    });
  };
  // Rebalancing rounds (see ShedConnections), restarted whenever a worker starts serving.
  let round = 0;
  let roundsLeft = 0;
  let roundTimer: NodeJS.Timeout | undefined;
  const counts = new Map<number, number>();
  const nextRound = (): void => {
    roundTimer = undefined;
    if (stopping || roundsLeft <= 0 || serving.size < 2) return;
    roundsLeft--;
    round++;
    counts.clear();
    for (const id of serving.keys()) cluster.workers?.[id]?.send({ type: "duckbill:count-connections", round } satisfies CountConnections);
    roundTimer = setTimeout(nextRound, REBALANCE_ROUND_MS).unref();
  };
  const rebalance = (): void => {
    roundsLeft = REBALANCE_ROUNDS;
    if (roundTimer === undefined) nextRound();
  };
  const counted = (worker: Worker, reply: OpenConnections): void => {
    if (reply.round !== round || !serving.has(worker.id)) return;
    counts.set(worker.id, reply.open);
    if (counts.size < serving.size) return;
    const open = [...counts.values()];
    const total = open.reduce((a, b) => a + b, 0);
    if (Math.max(...open) - Math.min(...open) <= 1) {
      roundsLeft = 0;
      return;
    }
    for (const [id, n] of counts) {
      const count = connectionsOverShare(n, total, counts.size);
      if (count > 0) cluster.workers?.[id]?.send({ type: "duckbill:shed-connections", count, forMs: REBALANCE_ROUND_MS } satisfies ShedConnections);
    }
    logger.debug({ connections: Object.fromEntries(counts) }, "rebalancing connections over the workers");
  };
  cluster.on("message", (worker, msg: unknown) => {
    const reply = messageOf<OpenConnections>(msg, "duckbill:open-connections");
    if (reply !== undefined) return counted(worker, reply);
    if (!isServing(msg)) return;
    serving.set(worker.id, msg.port);
    served.add(worker.id);
    rebalance();
    if (!announced && serving.size >= workers) {
      announced = true;
      const port = msg.port;
      const mp = typeof boundMetrics === "object" && boundMetrics !== null ? boundMetrics.port : undefined;
      logger.info({ port, host: s.host, metricsPort: mp, workers, tlsMinVersion: s.text["tls-min-version"] }, "duckbill webhook serving");
      logger.flush();
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    serving.delete(worker.id);
    if (failed) return;
    if (stopping) {
      if (everyWorkerExited(cluster.workers ?? {})) {
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
    const reason = (stderrTail.get(worker.id) ?? "").trim().split("\n").at(-1) ?? "";
    stderrTail.delete(worker.id);
    if (!served.has(worker.id)) {
      // It could not start (a port in use, a certificate refused, a setting only a worker checks): every other one
      // would fail the same way, so serve fails now with the reason instead of restarting workers for ever.
      logger.error({ worker: worker.id, code, signal, reason }, `a worker exited before it served${reason === "" ? "" : ` (${reason})`}; serve stops`);
      exitWith(typeof code === "number" && code !== 0 ? code : 1);
      return;
    }
    served.delete(worker.id);
    const now = Date.now();
    restarts.push(now);
    while ((restarts[0] ?? now) < now - 60_000) restarts.shift();
    if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
      logger.error({ worker: worker.id, code, signal, reason, restarts: restarts.length }, `workers exited ${restarts.length} times within a minute; serve stops`);
      exitWith(1);
      return;
    }
    logger.error({ worker: worker.id, code, signal, reason }, "worker exited; starting another");
    setTimeout(fork, RESTART_DELAY_MS).unref();
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means "now", as for one process.
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGKILL");
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, workers: serving.size }, "draining every worker; a second signal stops them at once");
    if (everyWorkerExited(cluster.workers ?? {})) process.exit(0);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  for (let i = 0; i < workers; i++) fork();
  return new Promise<never>(() => undefined);
}
