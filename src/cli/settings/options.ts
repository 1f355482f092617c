/**
 * Every setting a user can give `duckbill serve` (and `duckbill upgrade-check`): its flag, environment variable,
 * default, type and check (`parse`) and help text. `serve` resolves them once (flag, else variable, else default) and
 * parses them once into typed settings (./serve-settings.ts); the README's tables, docs/cli.md's and the help texts
 * are generated from these lists, and tests keep them in step.
 *
 * Variable names: Knative's own where Knative reads one (knative.dev/pkg webhook/env.go, network/tls/config.go,
 * network/domain.go, logging/config.go, ...; KUBECONFIG as client-go reads it), else `DUCKBILL_` and the flag in
 * capitals. Older names are still read, with a warning (`deprecatedEnv`, `deprecatedFlag`).
 */
import { KNATIVE_VERSIONS, knativeVersionSetting } from "../../config/profile.js";
import { parseGenerationalKinds } from "../../admission/generation.js";
import { MAX_BODY_BYTES } from "../../admission/http.js";
import { parseWebhookUrl } from "../../kube/webhook-url.js";
import { LOG_FORMATS, LOG_LEVELS } from "../../server/logging.js";
import { parseCipherSuites, parseCurvePreferences, parseTlsMaxVersion, parseTlsMinVersion } from "./tls-settings.js";
import { readClientCa } from "./client-ca.js";
import { parseAutoOrBool, parseBool, parseBytes, parseCount, parseDurationMs, parseOneOf, parsePort } from "./values.js";

/** The process environment, as main.ts hands it down: the one place that reads `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

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
  /** Earlier names of the variable, still read (after `env`) with a warning. */
  readonly deprecatedEnv?: readonly string[];
  /** An earlier name of the flag, still accepted with a warning. */
  readonly deprecatedFlag?: string;
  /** The value's type and check: the resolved text in, the typed value out; `what` names the flag and variable. */
  readonly parse?: (value: string, what: string) => unknown;
}

export const SERVE_OPTIONS = [
  { flag: "port", env: "WEBHOOK_PORT", default: "8443", description: "HTTPS port for the admission webhook", parse: (v: string, what: string) => parsePort(v, what, true) },
  { flag: "host", env: "DUCKBILL_HOST", deprecatedEnv: ["WEBHOOK_HOST"], default: "0.0.0.0", description: "address to listen on" },
  { flag: "cert-dir", env: "DUCKBILL_CERT_DIR", deprecatedEnv: ["CERT_DIR"], default: "", description: "directory with tls.crt, tls.key, ca.crt (or a mounted webhook-certs Secret: server-cert.pem, server-key.pem, ca-cert.pem), followed while serving: files replaced there (a renewed Secret volume, cert-manager) are served to new connections within 3 s, unless they fail the startup checks (the certificate in use then stays, with a warning); when empty, certificates are generated" },
  { flag: "generated-cert-dir", env: "DUCKBILL_GENERATED_CERT_DIR", deprecatedEnv: ["GENERATED_CERT_DIR"], default: "certs", description: "where generated certificates are written (ca.crt for clients to trust)" },
  { flag: "tls-source", env: "DUCKBILL_TLS_SOURCE", deprecatedEnv: ["TLS_SOURCE"], default: "auto", description: "where the serving certificate comes from: secret (the webhook-certs Secret, kept current and rotated by the leader), dir (--cert-dir), generated, or auto (dir when --cert-dir is set, else secret in a cluster, else generated)", parse: parseOneOf(["auto", "secret", "dir", "generated"]) },
  { flag: "secret-name", env: "WEBHOOK_SECRET_NAME", default: "webhook-certs", description: "the certificate Secret in --system-namespace" },
  { flag: "reconcile-webhooks", env: "DUCKBILL_RECONCILE_WEBHOOKS", deprecatedEnv: ["RECONCILE_WEBHOOKS"], default: "auto", description: "keep the three webhook configurations' rules, caBundle and service path current: true, false, or auto (true when the TLS source is the Secret)", parse: parseAutoOrBool },
  { flag: "webhook-url", env: "DUCKBILL_WEBHOOK_URL", deprecatedEnv: ["WEBHOOK_URL"], default: "", description: "reconcile clientConfig.url = <url><path> instead of the webhook Service (running outside the cluster)", parse: (v: string) => (v === "" ? "" : parseWebhookUrl(v)) },
  { flag: "disable-ha", env: "DUCKBILL_DISABLE_HA", deprecatedEnv: ["DISABLE_HA"], default: "false", description: "no leader election: this process writes the Secret and webhook configurations", boolean: true, parse: parseBool },
  { flag: "impact-warnings", env: "DUCKBILL_IMPACT_WARNINGS", default: "false", description: "in a cluster: list and watch Services and Configurations in every namespace and warn, on a config-features change, which of them the change would deny on their next update (needs the RBAC of manifests/components/impact-warnings, which also sets this: docs/install.md#impact-warnings)", boolean: true, parse: parseBool },
  { flag: "feature-scopes", env: "DUCKBILL_FEATURE_SCOPES", default: "false", description: "in a cluster: list and watch Namespaces so the selectors of config-features-scopes (flags narrowed to namespaces) match their labels; without it a scope matches namespaces by name only (needs the RBAC of manifests/components/feature-scopes, which also sets this: docs/feature-scopes.md)", boolean: true, parse: parseBool },
  { flag: "dry-run-timeout", env: "DUCKBILL_DRY_RUN_TIMEOUT", deprecatedEnv: ["PODSPEC_DRYRUN_TIMEOUT"], default: "8s", description: "deadline of the PodSpec dry-run Pod creation (kubernetes.podspec-dryrun), below the webhook's 10 s timeout", parse: parseDurationMs },
  { flag: "client-ca", env: "DUCKBILL_CLIENT_CA", deprecatedEnv: ["WEBHOOK_CLIENT_CA"], default: "", description: "PEM file of the CAs whose client certificates the HTTPS port requires (the API server's, from its admission configuration); requests without one get 403, probes excepted. Empty: no client certificate asked", parse: (v: string): string | undefined => (v === "" ? undefined : readClientCa(v)) },
  { flag: "tls-min-version", env: "WEBHOOK_TLS_MIN_VERSION", default: "1.3", description: "minimum TLS version: 1.2 or 1.3", parse: (v: string) => parseTlsMinVersion(v) },
  { flag: "tls-max-version", env: "WEBHOOK_TLS_MAX_VERSION", default: "", description: "maximum TLS version: 1.2 or 1.3 (empty: 1.3); not below --tls-min-version", parse: (v: string) => (v === "" ? undefined : parseTlsMaxVersion(v)) },
  { flag: "tls-cipher-suites", env: "WEBHOOK_TLS_CIPHER_SUITES", default: "", description: "the TLS 1.2 cipher suites offered, as a comma list of Go's names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...; the secure ones crypto/tls.CipherSuites lists); TLS 1.3 suites are accepted but, as in Go, not configurable; a list without TLS 1.2 suites leaves TLS 1.3 only (empty: Go's defaults, the ECDHE suites with AES-GCM, ChaCha20-Poly1305 or AES-CBC-SHA)", parse: (v: string) => (v === "" ? undefined : parseCipherSuites(v)) },
  { flag: "tls-curve-preferences", env: "WEBHOOK_TLS_CURVE_PREFERENCES", default: "", description: "key-exchange curves, as a comma list of Go's names: X25519, X25519MLKEM768, CurveP256 (P-256), CurveP384 (P-384), CurveP521 (P-521); a curve this Node's OpenSSL lacks (X25519MLKEM768 before OpenSSL 3.5) stops the start (empty: Node's defaults)", parse: (v: string) => (v === "" ? undefined : parseCurvePreferences(v)) },
  { flag: "http2", env: "DUCKBILL_HTTP2", deprecatedEnv: ["WEBHOOK_ENABLE_HTTP2"], default: "false", description: "serve HTTP/2 (with HTTP/1.1 fallback)", boolean: true, parse: parseBool },
  { flag: "drain-timeout", env: "DUCKBILL_DRAIN_TIMEOUT", deprecatedEnv: ["DRAIN_TIMEOUT"], default: "45s", description: "after SIGTERM: close once no request arrived for this long (Go duration)", parse: parseDurationMs },
  { flag: "request-timeout", env: "DUCKBILL_REQUEST_TIMEOUT", deprecatedEnv: ["REQUEST_TIMEOUT"], default: "30s", description: "bound on receiving one request (headers and body)", parse: parseDurationMs },
  { flag: "headers-timeout", env: "DUCKBILL_HEADERS_TIMEOUT", deprecatedEnv: ["HEADERS_TIMEOUT"], default: "10s", description: "bound on the TLS handshake and on receiving a request's headers (at most --request-timeout); slower clients are disconnected", parse: parseDurationMs },
  { flag: "keep-alive-timeout", env: "DUCKBILL_KEEP_ALIVE_TIMEOUT", deprecatedEnv: ["KEEP_ALIVE_TIMEOUT"], default: "75s", description: "how long an idle keep-alive connection stays open", parse: parseDurationMs },
  { flag: "max-connections", env: "DUCKBILL_MAX_CONNECTIONS", deprecatedEnv: ["WEBHOOK_MAX_CONNECTIONS"], default: "0", description: "open connections accepted per serving process; past it the longest-idle keep-alive connection is closed to make room, and a new one is refused only when all have a request in flight (0: no limit)", parse: parseCount },
  { flag: "max-buffered-bytes", env: "DUCKBILL_MAX_BUFFERED_BYTES", deprecatedEnv: ["WEBHOOK_MAX_BUFFERED_BYTES"], default: "64Mi", description: "request-body bytes held at once per serving process (bytes, or with a Ki/Mi/Gi suffix; at least 3Mi, one maximal body); past it the bodies arriving longest are answered 429 with Retry-After (0: no bound)", parse: parseMaxBufferedBytes },
  { flag: "metrics-port", env: "DUCKBILL_METRICS_PORT", deprecatedEnv: ["METRICS_PORT"], default: "9090", description: "plain-HTTP port for GET /metrics (0 disables)", parse: (v: string, what: string) => parsePort(v, what, true) },
  { flag: "metrics-host", env: "DUCKBILL_METRICS_HOST", deprecatedEnv: ["METRICS_HOST"], default: "0.0.0.0", description: "address for the metrics listener" },
  { flag: "knative-metrics", env: "DUCKBILL_KNATIVE_METRICS", default: "auto", description: "also expose the series Knative's own webhook exposes, named as the release answered as names them (1.17: webhook_request_count, webhook_request_latencies; 1.23, 1.24: kn_webhook_handler_duration_seconds): auto (when config-observability has Knative export to Prometheus, followed live in a cluster: 1.17's metrics.backend-destination, default prometheus; 1.23 and 1.24's metrics-protocol, default none), true (always) or false (never)", parse: parseKnativeMetrics },
  { flag: "system-namespace", deprecatedFlag: "namespace", env: "SYSTEM_NAMESPACE", default: "knative-serving", description: "namespace of the webhook (certificate SANs; Secret, ConfigMaps and Leases in a cluster)" },
  { flag: "service-name", env: "WEBHOOK_NAME", default: "webhook", description: "name of the webhook's Service (certificate SANs)" },
  { flag: "config-source", env: "DUCKBILL_CONFIG_SOURCE", deprecatedEnv: ["CONFIG_SOURCE"], default: "auto", description: "where config-features, config-defaults and config-autoscaler come from: cluster, dir, defaults, or auto (dir when --config-dir is set, else cluster when a kubeconfig or in-cluster credentials exist, else Knative's defaults)", parse: parseOneOf(["auto", "cluster", "dir", "defaults"]) },
  { flag: "config-dir", env: "DUCKBILL_CONFIG_DIR", deprecatedEnv: ["CONFIG_DIR"], default: "", description: "configuration directory: one file (ConfigMap manifest or key/value map) or kubelet-mounted directory per ConfigMap; reloaded on change" },
  { flag: "kubeconfig", env: "KUBECONFIG", default: "", description: "kubeconfig for the cluster source (else ~/.kube/config, else the in-cluster service account)" },
  { flag: "config-watchdog", env: "DUCKBILL_CONFIG_WATCHDOG", deprecatedEnv: ["CONFIG_WATCHDOG"], default: "2m", description: "re-list the ConfigMaps when the watch brought no event or bookmark for this long", parse: parseDurationMs },
  { flag: "config-observability-name", env: "CONFIG_OBSERVABILITY_NAME", default: "config-observability", description: "in a cluster: the ConfigMap whose metrics exporter setting decides, with --knative-metrics auto, whether Knative's series are shown, live (Knative's variable)" },
  { flag: "config-logging-name", env: "CONFIG_LOGGING_NAME", default: "config-logging", description: "in a cluster: the ConfigMap whose loglevel.webhook sets the log level, live (Knative's variable)" },
  { flag: "config-leader-election-name", env: "CONFIG_LEADERELECTION_NAME", default: "config-leader-election", description: "in a cluster: the ConfigMap with the Leases' durations, buckets and name prefixes, read at startup (Knative's variable)" },
  { flag: "kube-api-qps", env: "KUBE_API_QPS", default: "0", description: "client requests per second to the API server (0: Knative's 20)" },
  { flag: "kube-api-burst", env: "KUBE_API_BURST", default: "0", description: "client request burst (0: Knative's 40)" },
  { flag: "generational", env: "DUCKBILL_GENERATIONAL", default: "", description: "kinds whose /defaulting maintains spec.generation, as group/version/Kind[,...] (any kind, not only Knative's)", parse: (v: string) => parseGenerationalKinds(v) },
  { flag: "workers", env: "DUCKBILL_WORKERS", deprecatedEnv: ["WEBHOOK_WORKERS"], default: "auto", description: "processes serving the HTTPS port (node:cluster; each follows the configuration and certificate itself, the primary serves the metrics aggregated over them): auto (or 0) is one per CPU the process may use, the cgroup CPU limit rounded up (at most the CPUs it may run on), as Go sizes Knative's webhook; 1 is one process", parse: parseWorkers },
  { flag: "knative-version", env: "DUCKBILL_KNATIVE_VERSION", deprecatedEnv: ["KNATIVE_VERSION"], default: "auto", description: "the Knative release to answer as: auto (the release the cluster's Serving CRDs are labelled with, followed live; 1.24 without a cluster), 1.24, 1.23 or 1.17", parse: (v: string) => knativeVersionSetting(v) },
  { flag: "cluster-domain", env: "CLUSTER_DOMAIN", default: "", description: "the cluster's DNS domain in the certificate's and the webhook configurations' names when /etc/resolv.conf has no `search svc.<domain>` entry (empty: cluster.local; knative.dev/pkg network/domain.go)" },
  { flag: "disable-namespace-ownership", env: "WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP", default: "false", boolean: true, description: "leave the webhook configurations' ownerReferences alone instead of making the system Namespace their owner (Knative's variable)", parse: parseNamespaceOwnership },
  { flag: "pod-name", env: "POD_NAME", default: "", description: "the pod's name, logged as knative.dev/pod (the Deployment sets it from the downward API, as Knative's does)" },
  { flag: "default-metrics-backend", env: "DEFAULT_METRICS_BACKEND", default: "", description: "Knative 1.17: the metrics backend when config-observability names none (empty: prometheus; knative.dev/pkg metrics/config.go)" },
  { flag: "log-level", env: "DUCKBILL_LOG_LEVEL", deprecatedEnv: ["LOG_LEVEL"], default: "info", description: "fatal, error, warn, info, debug, trace or silent; in a cluster `loglevel.webhook` in config-logging overrides it while set", parse: parseOneOf(LOG_LEVELS) },
  { flag: "log-format", env: "DUCKBILL_LOG_FORMAT", default: "knative", description: "knative: Knative's zap lines as config-logging's zap-logger-config sets them (severity, timestamp, logger, caller, message, knative.dev/* per request); pino: Duckbill's earlier pino lines (level, time, msg, one admission line per request)", parse: parseOneOf(LOG_FORMATS) },
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

/** `--max-buffered-bytes`: 0 (no bound) or room for at least one maximal body. */
function parseMaxBufferedBytes(v: string, what: string): number {
  const n = parseBytes(v, what);
  if (n !== 0 && n < MAX_BODY_BYTES) throw new Error(`${what} must be 0 or at least 3Mi (one request body of the maximum size), got "${v}"`);
  return n;
}

/** `--knative-metrics`: auto (config-observability decides), or always / never. */
function parseKnativeMetrics(v: string, what: string): "auto" | boolean {
  if (v === "auto") return "auto";
  if (v === "true" || v === "false") return v === "true";
  throw new Error(`${what} must be auto, true or false, got "${v}"`);
}

/** `--workers`: `auto` (or 0), one per usable CPU (./serve/workers.ts), or a count up to 256. */
function parseWorkers(v: string, what: string): "auto" | number {
  if (v === "auto") return "auto";
  if (!/^\d+$/.test(v) || Number(v) > 256) throw new Error(`${what} must be auto or a whole number from 0 to 256, got "${v}"`);
  return Number(v) === 0 ? "auto" : Number(v);
}

/** knative.dev/pkg webhook/env.go: DisableNamespaceOwnershipFromEnv, with strconv.ParseBool's error. */
function parseNamespaceOwnership(v: string): boolean {
  if (v === "") return false;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  throw new Error(`WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP: strconv.ParseBool: parsing "${v}": invalid syntax`);
}

export type ServeOptionName = (typeof SERVE_OPTIONS)[number]["flag"];
/** The settings as resolved text: flag, else variable, else default. */
export type ServeSettings = Record<ServeOptionName, string>;

/** The typed value of each option: what its `parse` returns, the text itself for options without one. */
export type ParsedOptions<O extends readonly OptionSpec[]> = {
  readonly [S in O[number] as S["flag"]]: S extends { readonly parse: (v: string, what: string) => infer T } ? T : string;
};

/** How errors name an option: `--port (WEBHOOK_PORT)`. */
export function optionName(o: OptionSpec): string {
  return o.env === "" ? `--${o.flag}` : `--${o.flag} (${o.env})`;
}

/** Flag (or its deprecated name) beats the variable (or a deprecated one) beats default; an empty value counts as unset. */
function resolveOne(o: OptionSpec, values: Readonly<Record<string, unknown>>, env: Environment): string {
  for (const v of [values[o.flag], o.deprecatedFlag === undefined ? undefined : values[o.deprecatedFlag]]) {
    if ((typeof v === "string" || typeof v === "boolean") && String(v) !== "") return String(v);
  }
  for (const name of o.env === "" ? [] : [o.env, ...(o.deprecatedEnv ?? [])]) {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
  }
  return o.default;
}

/** Flag beats environment beats default. */
export function resolveSettings(flags: Readonly<Record<string, string | boolean | undefined>>, env: Environment): ServeSettings {
  const out = {} as ServeSettings;
  for (const o of SERVE_OPTIONS) out[o.flag] = resolveOne(o, flags, env);
  return out;
}

/** Parses resolved text with each option's `parse`, in the table's order: the first bad value stops it. */
export function parseOptions<const O extends readonly OptionSpec[]>(options: O, text: Readonly<Record<string, string>>): ParsedOptions<O> {
  const out: Record<string, unknown> = {};
  for (const o of options) {
    const v = text[o.flag] ?? o.default;
    out[o.flag] = o.parse === undefined ? v : o.parse(v, optionName(o));
  }
  return out as ParsedOptions<O>;
}

/** What was given under a deprecated name, and the name to use instead (one warning each). */
export function deprecatedNames(options: readonly OptionSpec[], values: Readonly<Record<string, unknown>>, env: Environment): string[] {
  const out: string[] = [];
  for (const o of options) {
    const given = (v: unknown): boolean => (typeof v === "string" || typeof v === "boolean") && String(v) !== "";
    if (o.deprecatedFlag !== undefined && given(values[o.deprecatedFlag])) out.push(`--${o.deprecatedFlag} is deprecated: use --${o.flag}`);
    for (const name of o.deprecatedEnv ?? []) {
      if ((env[name] ?? "") !== "") out.push(`the environment variable ${name} is deprecated: use ${o.env}${(env[o.env] ?? "") !== "" ? ` (which is set too, and wins)` : ""}`);
    }
  }
  return out;
}

/**
 * The settings as a Markdown table (README.md's and docs/cli.md's, rewritten by ./options-docs.ts; `--help` renders
 * the same lists as text, ../help.ts): `duckbill serve`'s unless others are given. Deprecated names are shown too.
 */
export function optionsTable(options: readonly OptionSpec[] = SERVE_OPTIONS): string {
  const rows = options.map((o) => {
    const was = (names: readonly string[]): string => (names.length === 0 ? "" : ` (was ${names.map((n) => `\`${n}\``).join(", ")})`);
    const flag = (o.short === undefined ? `\`--${o.flag}\`` : `\`-${o.short}\`, \`--${o.flag}\``) + was(o.deprecatedFlag === undefined ? [] : [`--${o.deprecatedFlag}`]);
    const env = o.env === "" ? "—" : `\`${o.env}\`${was(o.deprecatedEnv ?? [])}`;
    return `| ${flag} | ${env} | ${o.default === "" ? "(none)" : `\`${o.default}\``} | ${o.description} |`;
  });
  return ["| flag | environment | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

/** node:util parseArgs options for `options` (deprecated flag names included). */
export function parseArgsOptions(options: readonly OptionSpec[]): Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> {
  return Object.fromEntries(
    options.flatMap((o) => {
      const spec = { type: o.boolean === true ? ("boolean" as const) : ("string" as const), ...(o.multiple === true ? { multiple: true } : {}) };
      return [[o.flag, { ...spec, ...(o.short === undefined ? {} : { short: o.short }) }], ...(o.deprecatedFlag === undefined ? [] : [[o.deprecatedFlag, spec]])];
    }),
  );
}

/** A setting of `options` as resolveSettings resolves those of `serve`. */
export function settingOf(options: readonly OptionSpec[], flag: string, values: Readonly<Record<string, unknown>>, env: Environment): string {
  const o = options.find((x) => x.flag === flag);
  if (o === undefined) throw new Error(`no option --${flag}`);
  return resolveOne(o, values, env);
}

