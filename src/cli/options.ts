/**
 * Every setting a user can give `duckbill serve` (and `duckbill upgrade-check`), with its flag, environment variable
 * and default. The README's tables and the help texts are generated from these lists, and a test keeps them in step.
 */
import { KNATIVE_VERSIONS } from "../config/profile.js";

export interface OptionSpec {
  readonly flag: string;
  /** The environment variable, or "" for a flag without one. */
  readonly env: string;
  readonly default: string;
  readonly description: string;
  readonly boolean?: boolean;
  /** A one-letter alias (`-f`). */
  readonly short?: string;
  /** The flag may be given more than once. */
  readonly multiple?: boolean;
  /** What `--help` calls the value (`FILE`, `NS`); else one is read from the flag and its default (./help.ts). */
  readonly metavar?: string;
}

export const SERVE_OPTIONS = [
  { flag: "port", env: "WEBHOOK_PORT", default: "8443", description: "HTTPS port for the admission webhook" },
  { flag: "host", env: "WEBHOOK_HOST", default: "0.0.0.0", description: "address to listen on" },
  { flag: "cert-dir", env: "CERT_DIR", default: "", description: "directory with tls.crt, tls.key, ca.crt (or a mounted webhook-certs Secret: server-cert.pem, server-key.pem, ca-cert.pem), followed while serving: files replaced there (a renewed Secret volume, cert-manager) are served to new connections within 3 s, unless they fail the startup checks (the certificate in use then stays, with a warning); when empty, certificates are generated" },
  { flag: "generated-cert-dir", env: "GENERATED_CERT_DIR", default: "certs", description: "where generated certificates are written (ca.crt for clients to trust)" },
  { flag: "tls-source", env: "TLS_SOURCE", default: "auto", description: "where the serving certificate comes from: secret (the webhook-certs Secret, kept current and rotated by the leader), dir (--cert-dir), generated, or auto (dir when --cert-dir is set, else secret in a cluster, else generated)" },
  { flag: "secret-name", env: "WEBHOOK_SECRET_NAME", default: "webhook-certs", description: "the certificate Secret in --namespace" },
  { flag: "reconcile-webhooks", env: "RECONCILE_WEBHOOKS", default: "auto", description: "keep the three webhook configurations' rules, caBundle and service path current: true, false, or auto (true when the TLS source is the Secret)" },
  { flag: "webhook-url", env: "WEBHOOK_URL", default: "", description: "reconcile clientConfig.url = <url><path> instead of the webhook Service (running outside the cluster)" },
  { flag: "disable-ha", env: "DISABLE_HA", default: "false", description: "no leader election: this process writes the Secret and webhook configurations", boolean: true },
  { flag: "impact-warnings", env: "DUCKBILL_IMPACT_WARNINGS", default: "false", description: "in a cluster: list and watch Services and Configurations in every namespace and warn, on a config-features change, which of them the change would deny on their next update (needs the RBAC of manifests/components/impact-warnings, which also sets this: docs/install.md#impact-warnings)", boolean: true },
  { flag: "feature-scopes", env: "DUCKBILL_FEATURE_SCOPES", default: "false", description: "in a cluster: list and watch Namespaces so the selectors of config-features-scopes (flags narrowed to namespaces) match their labels; without it a scope matches namespaces by name only (needs the RBAC of manifests/components/feature-scopes, which also sets this: docs/feature-scopes.md)", boolean: true },
  { flag: "dry-run-timeout", env: "PODSPEC_DRYRUN_TIMEOUT", default: "8s", description: "deadline of the PodSpec dry-run Pod creation (kubernetes.podspec-dryrun), below the webhook's 10 s timeout" },
  { flag: "client-ca", env: "WEBHOOK_CLIENT_CA", default: "", description: "PEM file of the CAs whose client certificates the HTTPS port requires (the API server's, from its admission configuration); requests without one get 403, probes excepted. Empty: no client certificate asked" },
  { flag: "tls-min-version", env: "WEBHOOK_TLS_MIN_VERSION", default: "1.3", description: "minimum TLS version: 1.2 or 1.3" },
  { flag: "tls-max-version", env: "WEBHOOK_TLS_MAX_VERSION", default: "", description: "maximum TLS version: 1.2 or 1.3 (empty: 1.3); not below --tls-min-version" },
  { flag: "tls-cipher-suites", env: "WEBHOOK_TLS_CIPHER_SUITES", default: "", description: "the TLS 1.2 cipher suites offered, as a comma list of Go's names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...; the secure ones crypto/tls.CipherSuites lists); TLS 1.3 suites are accepted but, as in Go, not configurable; a list without TLS 1.2 suites leaves TLS 1.3 only (empty: Go's defaults, the ECDHE suites with AES-GCM, ChaCha20-Poly1305 or AES-CBC-SHA)" },
  { flag: "tls-curve-preferences", env: "WEBHOOK_TLS_CURVE_PREFERENCES", default: "", description: "key-exchange curves, as a comma list of Go's names: X25519, X25519MLKEM768, CurveP256 (P-256), CurveP384 (P-384), CurveP521 (P-521); a curve this Node's OpenSSL lacks (X25519MLKEM768 before OpenSSL 3.5) stops the start (empty: Node's defaults)" },
  { flag: "http2", env: "WEBHOOK_ENABLE_HTTP2", default: "false", description: "serve HTTP/2 (with HTTP/1.1 fallback)", boolean: true },
  { flag: "drain-timeout", env: "DRAIN_TIMEOUT", default: "45s", description: "after SIGTERM: close once no request arrived for this long (Go duration)" },
  { flag: "request-timeout", env: "REQUEST_TIMEOUT", default: "30s", description: "bound on receiving one request (headers and body)" },
  { flag: "headers-timeout", env: "HEADERS_TIMEOUT", default: "10s", description: "bound on the TLS handshake and on receiving a request's headers (at most --request-timeout); slower clients are disconnected" },
  { flag: "keep-alive-timeout", env: "KEEP_ALIVE_TIMEOUT", default: "75s", description: "how long an idle keep-alive connection stays open" },
  { flag: "max-connections", env: "WEBHOOK_MAX_CONNECTIONS", default: "0", description: "open connections accepted per serving process; past it the longest-idle keep-alive connection is closed to make room, and a new one is refused only when all have a request in flight (0: no limit)" },
  { flag: "max-buffered-bytes", env: "WEBHOOK_MAX_BUFFERED_BYTES", default: "64Mi", description: "request-body bytes held at once per serving process (bytes, or with a Ki/Mi/Gi suffix; at least 3Mi, one maximal body); past it the bodies arriving longest are answered 429 with Retry-After (0: no bound)" },
  { flag: "metrics-port", env: "METRICS_PORT", default: "9090", description: "plain-HTTP port for GET /metrics (0 disables)" },
  { flag: "metrics-host", env: "METRICS_HOST", default: "0.0.0.0", description: "address for the metrics listener" },
  { flag: "knative-metrics", env: "DUCKBILL_KNATIVE_METRICS", default: "auto", description: "also expose the series Knative's own webhook exposes, named as the release answered as names them (1.17: webhook_request_count, webhook_request_latencies; 1.23, 1.24: kn_webhook_handler_duration_seconds): auto (when config-observability has Knative export to Prometheus, followed live in a cluster: 1.17's metrics.backend-destination, default prometheus; 1.23 and 1.24's metrics-protocol, default none), true (always) or false (never)" },
  { flag: "namespace", env: "SYSTEM_NAMESPACE", default: "knative-serving", description: "namespace of the webhook (certificate SANs; Secret, ConfigMaps and Leases in a cluster)" },
  { flag: "service-name", env: "WEBHOOK_NAME", default: "webhook", description: "name of the webhook's Service (certificate SANs)" },
  { flag: "config-source", env: "CONFIG_SOURCE", default: "auto", description: "where config-features, config-defaults and config-autoscaler come from: cluster, dir, defaults, or auto (dir when --config-dir is set, else cluster when a kubeconfig or in-cluster credentials exist, else Knative's defaults)" },
  { flag: "config-dir", env: "CONFIG_DIR", default: "", description: "configuration directory: one file (ConfigMap manifest or key/value map) or kubelet-mounted directory per ConfigMap; reloaded on change" },
  { flag: "kubeconfig", env: "KUBECONFIG", default: "", description: "kubeconfig for the cluster source (else ~/.kube/config, else the in-cluster service account)" },
  { flag: "config-watchdog", env: "CONFIG_WATCHDOG", default: "2m", description: "re-list the ConfigMaps when the watch brought no event or bookmark for this long" },
  { flag: "config-observability-name", env: "CONFIG_OBSERVABILITY_NAME", default: "config-observability", description: "in a cluster: the ConfigMap whose metrics exporter setting decides, with --knative-metrics auto, whether Knative's series are shown, live (Knative's variable)" },
  { flag: "config-logging-name", env: "CONFIG_LOGGING_NAME", default: "config-logging", description: "in a cluster: the ConfigMap whose loglevel.webhook sets the log level, live (Knative's variable)" },
  { flag: "config-leader-election-name", env: "CONFIG_LEADERELECTION_NAME", default: "config-leader-election", description: "in a cluster: the ConfigMap with the Leases' durations, buckets and name prefixes, read at startup (Knative's variable)" },
  { flag: "kube-api-qps", env: "KUBE_API_QPS", default: "0", description: "client requests per second to the API server (0: Knative's 20)" },
  { flag: "kube-api-burst", env: "KUBE_API_BURST", default: "0", description: "client request burst (0: Knative's 40)" },
  { flag: "generational", env: "DUCKBILL_GENERATIONAL", default: "", description: "kinds whose /defaulting maintains spec.generation, as group/version/Kind[,...] (any kind, not only Knative's)" },
  { flag: "workers", env: "WEBHOOK_WORKERS", default: "auto", description: "processes serving the HTTPS port (node:cluster; each follows the configuration and certificate itself, the primary serves the metrics aggregated over them): auto (or 0) is one per CPU the process may use, the cgroup CPU limit rounded up (at most the CPUs it may run on), as Go sizes Knative's webhook; 1 is one process" },
  { flag: "knative-version", env: "KNATIVE_VERSION", default: "auto", description: "the Knative release to answer as: auto (the release the cluster's Serving CRDs are labelled with, followed live; 1.24 without a cluster), 1.24, 1.23 or 1.17" },
  { flag: "log-level", env: "LOG_LEVEL", default: "info", description: "fatal, error, warn, info, debug, trace or silent; in a cluster `loglevel.webhook` in config-logging overrides it while set" },
  { flag: "log-format", env: "DUCKBILL_LOG_FORMAT", default: "knative", description: "knative: Knative's zap lines as config-logging's zap-logger-config sets them (severity, timestamp, logger, caller, message, knative.dev/* per request); pino: Duckbill's earlier pino lines (level, time, msg, one admission line per request)" },
] as const satisfies readonly OptionSpec[];

const RELEASES = KNATIVE_VERSIONS.join(", ");

/** `duckbill upgrade-check`'s settings: its `--help` and the README's table are generated from this list. */
export const UPGRADE_CHECK_OPTIONS = [
  { flag: "to", env: "DUCKBILL_UPGRADE_TO", default: KNATIVE_VERSIONS[0], description: `the Knative release to upgrade to: ${RELEASES}` },
  { flag: "from", env: "DUCKBILL_UPGRADE_FROM", default: "auto", description: `the Knative release running now: ${RELEASES}, or auto (the release the cluster runs; needs --kubeconfig)` },
  { flag: "filename", short: "f", multiple: true, env: "", default: "", description: "manifests to check instead of the cluster's objects: a file, a directory (its .yaml/.yml/.json files) or - for stdin; repeatable" },
  { flag: "recursive", short: "R", boolean: true, env: "", default: "false", description: "descend into subdirectories of directories given with -f" },
  { flag: "kubeconfig", env: "", default: "", description: "read the cluster: its Knative ConfigMaps, the release it runs (--from auto) and, without -f, its Services, Configurations, Routes and DomainMappings (credentials from this file only)" },
  { flag: "namespace", short: "n", env: "", default: "", description: 'manifests: the namespace of objects without one ("default" when empty); cluster: check only the objects of this namespace (all when empty)' },
  { flag: "system-namespace", env: "SYSTEM_NAMESPACE", default: "knative-serving", description: "the namespace of Knative's ConfigMaps in the cluster" },
  { flag: "config-dir", env: "", default: "", description: "without --kubeconfig: Knative's ConfigMaps (config-features, config-defaults, config-observability, ...) as for duckbill serve; without it, Knative's defaults" },
  { flag: "user", env: "", default: "duckbill-check", description: "the requesting user (userInfo.username)" },
  { flag: "output", short: "o", env: "", default: "text", description: "text (grouped per object, with a summary line) or json" },
] as const satisfies readonly OptionSpec[];

export type ServeOptionName = (typeof SERVE_OPTIONS)[number]["flag"];
export type ServeSettings = Record<ServeOptionName, string>;

/** Flag beats environment (when the option has a variable) beats default; an empty value counts as unset. */
function resolveOne(o: OptionSpec, flag: unknown, env: NodeJS.ProcessEnv): string {
  const v = typeof flag === "string" || typeof flag === "boolean" ? String(flag) : o.env === "" ? undefined : env[o.env];
  return v !== undefined && v !== "" ? v : o.default;
}

/** Flag beats environment beats default. */
export function resolveSettings(flags: Readonly<Record<string, string | boolean | undefined>>, env: NodeJS.ProcessEnv): ServeSettings {
  const out = {} as ServeSettings;
  for (const o of SERVE_OPTIONS) out[o.flag] = resolveOne(o, flags[o.flag], env);
  return out;
}

/** The settings as a Markdown table (the README's; `--help` renders the same lists as text, ./help.ts): `duckbill serve`'s unless others are given. */
export function optionsTable(options: readonly OptionSpec[] = SERVE_OPTIONS): string {
  const rows = options.map((o) => {
    const flag = o.short === undefined ? `\`--${o.flag}\`` : `\`-${o.short}\`, \`--${o.flag}\``;
    return `| ${flag} | ${o.env === "" ? "—" : `\`${o.env}\``} | ${o.default === "" ? "(none)" : `\`${o.default}\``} | ${o.description} |`;
  });
  return ["| flag | environment | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

/** node:util parseArgs options for `options`. */
export function parseArgsOptions(options: readonly OptionSpec[]): Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> {
  return Object.fromEntries(
    options.map((o) => [o.flag, { type: o.boolean === true ? ("boolean" as const) : ("string" as const), ...(o.short === undefined ? {} : { short: o.short }), ...(o.multiple === true ? { multiple: true } : {}) }]),
  );
}

/** A setting of `options` as resolveSettings resolves those of `serve`. */
export function settingOf(options: readonly OptionSpec[], flag: string, values: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): string {
  const o = options.find((x) => x.flag === flag);
  if (o === undefined) throw new Error(`no option --${flag}`);
  return resolveOne(o, values[flag], env);
}

/** Go's time.ParseDuration for the simple forms people write (`45s`, `1m30s`, `500ms`, `0`), in ms. */
export function parseDurationMs(s: string, what: string): number {
  if (s === "0") return 0;
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * (unit[m[2] ?? "s"] ?? 0);
    matched = re.lastIndex;
  }
  if (matched !== s.length || s.length === 0) throw new Error(`${what} must be a duration such as 45s or 1m30s, got "${s}"`);
  return total;
}

export function parsePort(s: string, what: string, allowZero = false): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65535 || (!allowZero && n === 0)) throw new Error(`${what} must be a port number from ${allowZero ? 0 : 1} to 65535, got "${s}"`);
  return n;
}

export function parseCount(s: string, what: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n)) throw new Error(`${what} must be a whole number (0 or more), got "${s}"`);
  return n;
}

const BYTE_SUFFIXES: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A byte count: digits with an optional binary suffix (`65536`, `64Ki`, `64Mi`, `1Gi`). */
export function parseBytes(s: string, what: string): number {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(s);
  const n = m === null ? NaN : Number(m[1]) * (BYTE_SUFFIXES[m[2] ?? ""] as number);
  if (!Number.isSafeInteger(n)) throw new Error(`${what} must be a byte count such as 67108864 or 64Mi, got "${s}"`);
  return n;
}

export function parseBool(s: string, what: string): boolean {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  throw new Error(`${what} must be true or false, got "${s}"`);
}
