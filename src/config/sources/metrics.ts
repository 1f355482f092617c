/**
 * Prometheus metrics of the configuration store, on a Registry the caller owns (never prom-client's global one,
 * so two stores in one process, e.g. in tests, do not collide). Under `--workers` every worker runs its own store
 * and the primary aggregates the series: counters are summed, the gauges report the worker furthest behind (the
 * oldest confirmation, the earliest last sync), which is what an alert on a stale configuration wants; a sum would
 * read twice the Unix time with two workers.
 */
import { Counter, Gauge, type Registry } from "prom-client";

export type WatchRestartReason = "closed" | "error" | "gone" | "stalled" | "undecodable";

export class ConfigMetrics {
  private readonly invalid: Counter<"configmap">;
  private readonly applied: Counter<"configmap">;
  private readonly restarts: Counter<"reason">;
  private readonly readFailures: Counter<"reason">;
  private readonly lastSync: Gauge;

  /** `confirmedAt` gives, per ConfigMap, when the source last proved the value in effect is current (ms epoch). */
  constructor(registry: Registry, confirmedAt: () => Iterable<readonly [string, number]>, now: () => number = Date.now) {
    new Gauge({
      name: "duckbill_config_age_seconds",
      help: "Seconds since the source last confirmed that the ConfigMap value in effect is current (an event, bookmark, list or directory read).",
      labelNames: ["configmap"],
      registers: [registry],
      aggregator: "max",
      collect() {
        const t = now();
        for (const [name, at] of confirmedAt()) this.set({ configmap: name }, (t - at) / 1000);
      },
    });
    this.lastSync = new Gauge({
      name: "duckbill_config_last_sync_timestamp_seconds",
      help: "Unix time of the last complete read of the configuration (a list from the API server or a directory read).",
      registers: [registry],
      aggregator: "min",
    });
    this.invalid = new Counter({
      name: "duckbill_config_invalid_updates_total",
      help: "ConfigMap versions rejected because they do not parse; the last good value stayed in effect.",
      labelNames: ["configmap"],
      registers: [registry],
    });
    this.applied = new Counter({
      name: "duckbill_config_updates_total",
      help: "ConfigMap versions that took effect.",
      labelNames: ["configmap"],
      registers: [registry],
    });
    this.restarts = new Counter({
      name: "duckbill_config_watch_restarts_total",
      help: "Watch streams restarted, by reason: closed (server ended it), error, gone (410: re-list), stalled (watchdog: re-list), undecodable (an event that does not decode: re-list).",
      labelNames: ["reason"],
      registers: [registry],
    });
    this.readFailures = new Counter({
      name: "duckbill_config_dir_read_failures_total",
      help: "Reads of --config-dir that failed, by reason: error (the directory could not be read) or timeout (given up after 10 s; the next read starts anew).",
      labelNames: ["reason"],
      registers: [registry],
    });
  }

  synced(atMs: number): void {
    this.lastSync.set(atMs / 1000);
  }

  rejected(name: string): void {
    this.invalid.inc({ configmap: name });
  }

  updated(name: string): void {
    this.applied.inc({ configmap: name });
  }

  watchRestarted(reason: WatchRestartReason): void {
    this.restarts.inc({ reason });
  }

  dirReadFailed(reason: "error" | "timeout"): void {
    this.readFailures.inc({ reason });
  }
}
