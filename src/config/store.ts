/**
 * The live configuration store (knative.dev/serving pkg/apis/config/store.go over knative.dev/pkg configmap/store.go:
 * UntypedStore; docs/knative-behavior.md#live-configuration): one immutable ConfigSnapshot of config-defaults,
 * config-features and config-autoscaler, replaced as a whole when a source reports a change that parses. Requests
 * read it with `current()` (a field read). Rules, as in Knative's config store:
 * - a version that does not parse never takes effect: it is logged with the parser's error and counted, and the
 *   last good value stays;
 * - a deleted ConfigMap keeps its last value; one missing at startup uses Knative's defaults (and the log says so);
 * - one that is invalid at startup, with no earlier good value, also falls back to the defaults, but the store
 *   reports not ready until it is fixed: Knative refuses to start then, and a pod that would decide differently
 *   from its ready peers should not receive traffic.
 * Sources: a directory (reload, ./sources/directory.ts), the built-in defaults, or the cluster: a watch the caller
 * hands in as `cluster` (src/kube/config-source.ts), so this module never reaches the cluster itself.
 */
import { statSync } from "node:fs";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { stackOverflowError } from "./configmap-parse.js";
import type { KnativeProfile } from "./profile.js";
import type { DirectoryConfigMapSource } from "./sources/directory.js";
import { ConfigMetrics } from "./sources/metrics.js";
import type { ConfigMapSink, ObservedConfigMap } from "./sources/sink.js";
import { ADMISSION_CONFIGMAPS, snapshotFrom, type ConfigData, type ConfigSnapshot } from "./snapshot.js";

export type ConfigStoreMode = "cluster" | "dir" | "defaults";

export interface ConfigStoreOptions {
  readonly mode: ConfigStoreMode;
  /** SYSTEM_NAMESPACE (cluster mode); default knative-serving. */
  readonly namespace?: string;
  /** Cluster mode: opens the watch of the store's ConfigMaps (src/kube/config-source.ts: clusterConfigSource). */
  readonly cluster?: (ctx: ClusterSourceContext) => Promise<ConfigSource>;
  /** The configuration directory (dir mode). */
  readonly dir?: string;
  readonly logger: Logger;
  /** Where the store's metrics are registered (not prom-client's global registry). */
  readonly registry: Registry;
  /** Cluster mode: re-list when the watch brought no event or bookmark for this long (default 2 min). */
  readonly watchdogMs?: number;
  /** Dir mode: safety-net poll period (default 30 s). */
  readonly pollMs?: number;
  /** Dir mode: quiet time after a file event before reading (default 50 ms). */
  readonly debounceMs?: number;
  /** Dir mode: use fs.watch (default true). */
  readonly fsWatch?: boolean;
  /** The ConfigMaps to track (default ADMISSION_CONFIGMAPS). */
  readonly names?: readonly string[];
  /**
   * Dir mode: ConfigMaps outside `names` whose every version read is handed over (config-logging's level and format,
   * config-observability's exporter), as the cluster source hands them (kube/configmap-source.ts). A file that
   * cannot be read as a ConfigMap is not handed over.
   */
  readonly observers?: ReadonlyMap<string, (data: ConfigData) => void>;
  /** Clock, for tests. */
  readonly now?: () => number;
  /** The Knative release answered as (`--knative-version`; default DEFAULT_KNATIVE_VERSION's). */
  readonly profile?: KnativeProfile;
}

/** What the store gives a cluster source: where to report, and what to watch. */
export interface ClusterSourceContext {
  readonly namespace: string;
  readonly names: readonly string[];
  readonly sink: ConfigMapSink;
  readonly logger: Logger;
  readonly metrics: ConfigMetrics;
  /** Re-list when the watch brought no event or bookmark for this long. */
  readonly watchdogMs: number;
}

/** A running source of ConfigMap versions. */
export interface ConfigSource {
  start(): void;
  close(): Promise<void>;
}

export interface ConfigStore {
  /**
   * Starts the source. Resolves after the first complete read: at once for defaults, after the first directory
   * read, or after the first successful list from the API server (retried with backoff until then; meanwhile
   * `notReadyReason()` says why). Rejects only if the directory cannot be read at all.
   */
  start(): Promise<void>;
  /** The snapshot in effect: read once per request. O(1), allocation-free. */
  current(): ConfigSnapshot;
  /** Undefined when ready; otherwise why not (for readiness probes). */
  notReadyReason(): string | undefined;
  /** When the source was last read completely (a list or a directory read); undefined before the first. */
  lastSyncTime(): Date | undefined;
  /**
   * Answers as another Knative release from now on (`--knative-version auto` following the cluster's): the
   * snapshot is rebuilt from the ConfigMaps in effect, parsed as that release parses them.
   */
  setProfile(profile: KnativeProfile): void;
  /** Stops watches, timers and retries. Idempotent. */
  close(): Promise<void>;
}

/**
 * The mode for `duckbill serve`'s settings: an explicit `source` (cluster, dir, defaults) wins; "auto" or empty
 * means a directory when one is given, the cluster when there are credentials (a kubeconfig pointed at, or a pod's
 * service account), Knative's defaults otherwise.
 */
export function chooseConfigStoreMode(settings: { readonly source?: string; readonly dir?: string; readonly credentials: boolean }): ConfigStoreMode {
  const source = settings.source ?? "";
  if (source === "cluster" || source === "dir" || source === "defaults") return source;
  if (source !== "" && source !== "auto") throw new Error(`the configuration source must be auto, cluster, dir or defaults, got "${source}"`);
  if ((settings.dir ?? "") !== "") return "dir";
  return settings.credentials ? "cluster" : "defaults";
}

export const DEFAULT_NAMESPACE = "knative-serving";
export const DEFAULT_WATCHDOG_MS = 120_000;
export const DEFAULT_POLL_MS = 30_000;

/** The version recorded for a ConfigMap that does not exist. */
const MISSING = "\0missing";

/** Applies what sources observe to the snapshot, by the rules in the file comment. */
class LiveConfig implements ConfigMapSink {
  /** Knative's defaults until a source reports otherwise, labelled with the source. */
  snapshot: ConfigSnapshot;
  /** ConfigMap name → the data in effect (absent: Knative's defaults). */
  private readonly good = new Map<string, ConfigData>();
  /** ConfigMap name → the last version observed (good or not), to tell changes from repeats. */
  private readonly seen = new Map<string, string>();
  /** ConfigMap name → parse error, for ConfigMaps invalid at startup with no good value yet. */
  private readonly invalidAtStartup = new Map<string, string>();
  private readonly missingAtStartup: string[] = [];
  private syncedAt: number | undefined;
  private problem: string | undefined;
  private resolveFirstSync!: () => void;
  readonly firstSync = new Promise<void>((resolve) => (this.resolveFirstSync = resolve));

  constructor(
    private readonly source: string,
    private readonly names: readonly string[],
    private readonly logger: Logger,
    private readonly metrics: ConfigMetrics,
    /** ConfigMap name → when the source last confirmed the value in effect is current (ms epoch). */
    private readonly confirmedAt: Map<string, number>,
    private readonly now: () => number,
    private profile: KnativeProfile | undefined,
  ) {
    this.snapshot = snapshotFrom({}, source, profile);
  }

  observe(name: string, observed: ObservedConfigMap): void {
    this.confirmedAt.set(name, this.now());
    if (this.seen.get(name) === observed.version) return;
    this.seen.set(name, observed.version);
    const fields = { configmap: name, source: this.source, version: observed.version };
    let error = observed.error;
    let candidate: ConfigSnapshot | undefined;
    if (observed.data !== undefined) {
      try {
        candidate = this.build(name, observed.data);
        error = candidate.configErrors.get(name);
      } catch (e) {
        error = e instanceof RangeError ? stackOverflowError(name, e) : (e as Error).message;
      }
    }
    if (error !== undefined || candidate === undefined) {
      const text = error ?? "unreadable";
      this.metrics.rejected(name);
      if (this.good.has(name)) {
        this.logger.error({ ...fields, error: text }, `rejected an invalid ${name}; its last good value stays in effect`);
      } else if (this.syncedAt === undefined || this.invalidAtStartup.has(name)) {
        this.invalidAtStartup.set(name, text);
        this.logger.error({ ...fields, error: text }, `${name} is invalid at startup and no earlier value is known; using Knative's defaults for it and reporting not ready until it is fixed`);
      } else {
        this.logger.error({ ...fields, error: text }, `rejected an invalid ${name}; Knative's defaults stay in effect for it`);
      }
      return;
    }
    this.good.set(name, observed.data as ConfigData);
    this.invalidAtStartup.delete(name);
    this.snapshot = candidate;
    this.metrics.updated(name);
    if (this.syncedAt !== undefined) this.logger.info(fields, `${name} changed; the new value is in effect`);
  }

  observeMissing(name: string): void {
    this.confirmedAt.set(name, this.now());
    if (this.seen.get(name) === MISSING) return;
    const existed = this.seen.has(name);
    this.seen.set(name, MISSING);
    // Deleting an invalid ConfigMap leaves the defaults in effect, which is then what the admin asked for.
    this.invalidAtStartup.delete(name);
    const fields = { configmap: name, source: this.source };
    if (this.syncedAt === undefined) this.missingAtStartup.push(name);
    else if (this.good.has(name)) this.logger.warn(fields, `${name} was deleted; its last value stays in effect`);
    else if (existed) this.logger.info(fields, `${name} was deleted; Knative's defaults stay in effect for it`);
  }

  synced(): void {
    const t = this.now();
    for (const name of this.names) this.confirmedAt.set(name, t);
    this.metrics.synced(t);
    const first = this.syncedAt === undefined;
    this.syncedAt = t;
    this.problem = undefined;
    if (!first) return;
    for (const name of this.missingAtStartup) {
      this.logger.info({ configmap: name, source: this.source }, `${name} not found in ${this.source}; using Knative's defaults for it`);
    }
    this.logger.info(
      { source: this.source, configMaps: [...this.good.keys()], defaults: this.names.filter((n) => !this.good.has(n)), invalid: [...this.invalidAtStartup.keys()] },
      "configuration loaded",
    );
    this.resolveFirstSync();
  }

  alive(): void {
    const t = this.now();
    for (const name of this.names) this.confirmedAt.set(name, t);
  }

  trouble(message: string): void {
    this.problem = message;
  }

  lastSync(): Date | undefined {
    return this.syncedAt === undefined ? undefined : new Date(this.syncedAt);
  }

  notReadyReason(): string | undefined {
    if (this.syncedAt === undefined) {
      return `waiting for the first read of the configuration from ${this.source}${this.problem === undefined ? "" : `: ${this.problem}`}`;
    }
    if (this.invalidAtStartup.size === 0) return undefined;
    return [...this.invalidAtStartup].map(([name, err]) => `${name} in ${this.source} is invalid and no earlier value is known: ${err}`).join("; ");
  }

  /**
   * Parses the ConfigMaps in effect as `profile`'s release does. One that this release rejects falls back to
   * Knative's defaults (snapshotFrom's configErrors) and is logged; it is kept as the last good value, so a later
   * switch back restores it.
   */
  setProfile(profile: KnativeProfile): void {
    if (profile === this.profile) return;
    this.profile = profile;
    const configs: Record<string, ConfigData> = Object.create(null) as Record<string, ConfigData>;
    for (const [n, d] of this.good) configs[n] = d;
    this.snapshot = snapshotFrom(configs, this.source, profile);
    for (const [name, error] of this.snapshot.configErrors) {
      this.metrics.rejected(name);
      this.logger.error({ configmap: name, source: this.source, knativeVersion: profile.version, error }, `${name} is invalid for Knative ${profile.version}; using Knative's defaults for it`);
    }
  }

  /** The snapshot with `name` replaced by `data` (the others as in effect). */
  private build(name: string, data: ConfigData): ConfigSnapshot {
    const configs: Record<string, ConfigData> = Object.create(null) as Record<string, ConfigData>;
    for (const [n, d] of this.good) configs[n] = d;
    configs[name] = data;
    return snapshotFrom(configs, this.source, this.profile);
  }
}

interface Source {
  start(): Promise<void>;
  close(): Promise<void>;
}

class Store implements ConfigStore {
  private closed = false;
  private started: Promise<void> | undefined;

  constructor(
    private readonly live: LiveConfig,
    private readonly source: Source | undefined,
  ) {}

  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.started ??= this.source === undefined ? Promise.resolve(this.live.synced()) : this.source.start();
    return this.started;
  }

  current(): ConfigSnapshot {
    return this.live.snapshot;
  }

  notReadyReason(): string | undefined {
    return this.live.notReadyReason();
  }

  lastSyncTime(): Date | undefined {
    return this.live.lastSync();
  }

  setProfile(profile: KnativeProfile): void {
    this.live.setProfile(profile);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.source?.close();
  }
}

function positive(value: number | undefined, fallback: number, what: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${what} must be a positive number of milliseconds, got ${String(value)}`);
  return v;
}

/**
 * Builds a store; checks its options (directory, periods) at once so a misconfiguration fails at startup with
 * a clear message. Nothing runs until `start()`; in cluster mode `start()` opens the `cluster` source.
 */
export function createConfigStore(opts: ConfigStoreOptions): ConfigStore {
  const names = opts.names ?? ADMISSION_CONFIGMAPS;
  const now = opts.now ?? Date.now;
  const logger = opts.logger.child({ subsystem: "config-store" });
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const confirmedAt = new Map<string, number>();
  const metrics = new ConfigMetrics(opts.registry, () => confirmedAt, now);
  const liveConfig = (source: string): LiveConfig => new LiveConfig(source, names, logger, metrics, confirmedAt, now, opts.profile);
  switch (opts.mode) {
    case "defaults":
      return new Store(liveConfig("defaults"), undefined);
    case "dir": {
      const dir = opts.dir ?? "";
      if (dir === "") throw new Error("the configuration store in dir mode needs a directory (--config-dir)");
      if (!isDirectory(dir)) throw new Error(`config dir "${dir}" must be an existing directory`);
      const live = liveConfig(`dir:${dir}`);
      const pollMs = positive(opts.pollMs, DEFAULT_POLL_MS, "the config dir poll period");
      let source: DirectoryConfigMapSource | undefined;
      let dirClosed = false;
      return new Store(live, {
        async start() {
          // Loaded on demand, with the YAML parser it needs (30–50 ms of startup otherwise).
          const { DirectoryConfigMapSource } = await import("./sources/directory.js");
          if (dirClosed) return;
          source = new DirectoryConfigMapSource({
            dir,
            names: [...names, ...[...(opts.observers?.keys() ?? [])].filter((n) => !names.includes(n))],
            sink: observing(live, opts.observers),
            logger,
            pollMs,
            debounceMs: opts.debounceMs,
            fsWatch: opts.fsWatch,
            onReadFailure: (reason) => metrics.dirReadFailed(reason),
          });
          await source.start();
        },
        async close() {
          dirClosed = true;
          await source?.close();
        },
      });
    }
    case "cluster": {
      const watchdogMs = positive(opts.watchdogMs, DEFAULT_WATCHDOG_MS, "the watch watchdog period");
      const open = opts.cluster;
      if (open === undefined) throw new Error("the configuration store in cluster mode needs a cluster source");
      const live = liveConfig(`cluster:${namespace}`);
      let source: ConfigSource | undefined;
      let isClosed = false;
      let closed!: () => void;
      const whenClosed = new Promise<void>((resolve) => (closed = resolve));
      return new Store(live, {
        async start() {
          const opened = await open({ watchdogMs, namespace, names, sink: live, logger, metrics });
          if (isClosed) return void (await opened.close());
          source = opened;
          opened.start();
          // The first list may take retries; close() ends the wait too.
          await Promise.race([live.firstSync, whenClosed]);
        },
        async close() {
          isClosed = true;
          closed();
          await source?.close();
        },
      });
    }
    default:
      throw new Error(`unknown configuration store mode "${String(opts.mode)}": use cluster, dir or defaults`);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `sink`, with the versions of the ConfigMaps that `observers` name handed to them instead (each new version once,
 * deletions not: the observer keeps what it has, as Knative's watchers do).
 */
function observing(sink: ConfigMapSink, observers: ReadonlyMap<string, (data: ConfigData) => void> | undefined): ConfigMapSink {
  if (observers === undefined || observers.size === 0) return sink;
  const seen = new Map<string, string>();
  return {
    observe(name, observed) {
      const observer = observers.get(name);
      if (observer === undefined) return sink.observe(name, observed);
      if (observed.data === undefined || seen.get(name) === observed.version) return;
      seen.set(name, observed.version);
      observer(observed.data);
    },
    observeMissing(name) {
      if (!observers.has(name)) sink.observeMissing(name);
    },
    synced: () => sink.synced(),
    alive: () => sink.alive(),
    trouble: (message) => sink.trouble(message),
  };
}
