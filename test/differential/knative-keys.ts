/**
 * The ConfigMap keys and annotation keys Knative's webhook reads, from Knative's source rather than from the vectors:
 * a generator that draws keys only from the vectors never sets the keys no vector shows (in 1.24, 13 of
 * config-network's 25 keys, 19 of config-deployment's 28), and never puts an annotation's value grammar edges on
 * an object. The differential's ConfigMap and annotation families draw from these tables as well.
 *
 * Keys are listed as each release's parser reads them (`cm.As*`, `configmap.As`, `asFlag` calls and the
 * `*AnnotationKey` constants with their `kmap.KeyPriority` alternatives):
 * knative.dev/serving pkg/autoscaler/config/config.go, pkg/gc/config.go, pkg/deployment/config.go,
 * pkg/apis/config/features.go and defaults.go, pkg/observability/config.go (1.23 on) or knative.dev/pkg
 * metrics/config_observability.go and tracing/config (1.17), pkg/reconciler/certificate/config/cert_manager.go;
 * knative.dev/networking pkg/config/config.go; knative.dev/pkg logging/config.go, leaderelection/config.go;
 * pkg/apis/autoscaling/register.go and pkg/apis/serving/register.go for the annotations.
 */

type Release = "1.17" | "1.23" | "1.24";

const COMMON_CONFIGMAP_KEYS: Readonly<Record<string, readonly string[]>> = {
  "config-autoscaler": [
    "activator-capacity", "allow-zero-initial-scale", "container-concurrency-target-default", "container-concurrency-target-percentage", "enable-scale-to-zero",
    "initial-scale", "max-scale", "max-scale-down-rate", "max-scale-limit", "max-scale-up-rate", "min-scale", "panic-threshold-percentage", "panic-window-percentage",
    "pod-autoscaler-class", "requests-per-second-target-default", "scale-down-delay", "scale-to-zero-grace-period", "scale-to-zero-pod-retention-period", "stable-window",
    "target-burst-capacity",
  ],
  "config-gc": ["max-non-active-revisions", "min-non-active-revisions", "retain-since-create-time", "retain-since-last-active-time"],
  "config-network": [
    "auto-tls", "autoTLS", "autocreate-cluster-domain-claims", "autocreateClusterDomainClaims", "certificate-class", "certificate.class", "cluster-local-domain-tls",
    "default-external-scheme", "defaultExternalScheme", "domain-template", "domainTemplate", "enable-mesh-pod-addressability", "external-domain-tls", "http-protocol",
    "httpProtocol", "ingress-class", "ingress.class", "internal-encryption", "mesh-compatibility-mode", "namespace-wildcard-cert-selector", "rollout-duration",
    "rolloutDuration", "system-internal-tls", "tag-template", "tagTemplate",
  ],
  "config-deployment": [
    "digest-resolution-timeout", "digestResolutionTimeout", "progress-deadline", "progressDeadline", "queue-sidecar-cpu-limit", "queue-sidecar-cpu-request",
    "queue-sidecar-ephemeral-storage-limit", "queue-sidecar-ephemeral-storage-request", "queue-sidecar-image", "queue-sidecar-memory-limit", "queue-sidecar-memory-request",
    "queue-sidecar-rootca", "queue-sidecar-token-audiences", "queueSidecarCPULimit", "queueSidecarCPURequest", "queueSidecarEphemeralStorageLimit",
    "queueSidecarEphemeralStorageRequest", "queueSidecarImage", "queueSidecarMemoryLimit", "queueSidecarMemoryRequest", "registries-skipping-tag-resolving",
    "registriesSkippingTagResolving", "runtime-class-name",
  ],
  "config-features": [
    "autodetect-http2", "kubernetes.containerspec-addcapabilities", "kubernetes.podspec-affinity", "kubernetes.podspec-dnsconfig", "kubernetes.podspec-dnspolicy",
    "kubernetes.podspec-fieldref", "kubernetes.podspec-hostaliases", "kubernetes.podspec-hostipc", "kubernetes.podspec-hostnetwork", "kubernetes.podspec-hostpid",
    "kubernetes.podspec-init-containers", "kubernetes.podspec-nodeselector", "kubernetes.podspec-persistent-volume-claim", "kubernetes.podspec-persistent-volume-write",
    "kubernetes.podspec-priorityclassname", "kubernetes.podspec-runtimeclassname", "kubernetes.podspec-schedulername", "kubernetes.podspec-securitycontext",
    "kubernetes.podspec-shareprocessnamespace", "kubernetes.podspec-tolerations", "kubernetes.podspec-topologyspreadconstraints", "kubernetes.podspec-volumes-emptydir",
    "kubernetes.podspec-volumes-hostpath", "multi-container", "multi-container-probing", "queueproxy.mount-podinfo", "queueproxy.resource-defaults",
    "secure-pod-defaults", "tag-header-based-routing",
  ],
  "config-observability": ["logging.enable-probe-request-log", "logging.enable-request-log", "logging.enable-var-log-collection", "logging.request-log-template", "logging.revision-url-template"],
  "config-logging": ["zap-logger-config", "loglevel.webhook", "loglevel.controller", "loglevel.autoscaler"],
  "config-leader-election": ["buckets", "lease-duration", "leaseDuration", "renew-deadline", "renewDeadline", "retry-period", "retryPeriod"],
  "config-defaults": [
    "allow-container-concurrency-zero", "container-concurrency", "container-concurrency-max-limit", "container-name-template", "enable-service-links",
    "init-container-name-template", "max-revision-timeout-seconds", "revision-cpu-limit", "revision-cpu-request", "revision-ephemeral-storage-limit",
    "revision-ephemeral-storage-request", "revision-idle-timeout-seconds", "revision-memory-limit", "revision-memory-request",
    "revision-response-start-timeout-seconds", "revision-timeout-seconds",
  ],
  "config-certmanager": ["clusterLocalIssuerRef", "issuerRef", "systemInternalIssuerRef"],
  "config-domain": ["example.com", "svc.cluster.local"],
};

/** What one release reads beyond the keys all three read. */
const RELEASE_CONFIGMAP_KEYS: Readonly<Record<Release, Readonly<Record<string, readonly string[]>>>> = {
  "1.17": {
    "config-features": ["kubernetes.podspec-dryrun"],
    "config-observability": ["metrics.backend-destination", "metrics.opencensus-address", "metrics.request-metrics-backend-destination", "metrics.request-metrics-reporting-period-seconds", "profiling.enable"],
    // knative.dev/pkg tracing/config/tracing.go: NewTracingConfigFromConfigMap, which 1.17's webhook still validates.
    "config-tracing": ["backend", "zipkin-endpoint", "debug", "sample-rate"],
  },
  "1.23": {
    "config-deployment": ["pod-is-always-schedulable", "queue-sidecar-tls-cipher-suites", "queue-sidecar-tls-curve-preferences", "queue-sidecar-tls-max-version", "queue-sidecar-tls-min-version"],
    "config-features": ["kubernetes.podspec-volumes-csi", "kubernetes.podspec-volumes-ephemeral", "kubernetes.podspec-volumes-image", "kubernetes.podspec-volumes-mount-propagation"],
    "config-observability": ["metrics-endpoint", "metrics-export-interval", "metrics-protocol", "request-metrics-endpoint", "request-metrics-export-interval", "request-metrics-protocol", "runtime-export-interval", "runtime-profiling", "tracing-endpoint", "tracing-protocol", "tracing-sampling-rate"],
  },
  "1.24": {
    "config-deployment": ["pod-is-always-schedulable", "queue-sidecar-tls-cipher-suites", "queue-sidecar-tls-curve-preferences", "queue-sidecar-tls-max-version", "queue-sidecar-tls-min-version"],
    "config-features": ["domainmapping-direct-route-traffic", "kubernetes.podspec-volumes-csi", "kubernetes.podspec-volumes-ephemeral", "kubernetes.podspec-volumes-image", "kubernetes.podspec-volumes-mount-propagation"],
    "config-observability": ["metrics-endpoint", "metrics-export-interval", "metrics-protocol", "request-metrics-endpoint", "request-metrics-export-interval", "request-metrics-protocol", "runtime-export-interval", "runtime-profiling", "tracing-endpoint", "tracing-protocol", "tracing-sampling-rate"],
  },
};

/** ConfigMap name → the keys the release's parser for it reads. */
export function knativeConfigMapKeys(release: string): ReadonlyMap<string, readonly string[]> {
  const extra = RELEASE_CONFIGMAP_KEYS[release as Release] ?? {};
  const out = new Map<string, readonly string[]>();
  for (const name of new Set([...Object.keys(COMMON_CONFIGMAP_KEYS), ...Object.keys(extra)])) out.set(name, [...(COMMON_CONFIGMAP_KEYS[name] ?? []), ...(extra[name] ?? [])]);
  return out;
}

const A = "autoscaling.knative.dev/";
const S = "serving.knative.dev/";
const Q = "queue.sidecar.serving.knative.dev/";

/**
 * Annotation keys Knative's validation or defaulting reads (each with its kmap.KeyPriority alternatives), and a few
 * it does not read under the same prefixes (`foo`), where a prefix alone may matter.
 */
export const KNATIVE_ANNOTATION_KEYS: readonly string[] = [
  ...["class", "min-scale", "minScale", "max-scale", "maxScale", "initial-scale", "initialScale", "scale-down-delay", "scaleDownDelay", "metric", "target",
    "scale-to-zero-pod-retention-period", "scaleToZeroPodRetentionPeriod", "metric-aggregation-algorithm", "metricAggregationAlgorithm", "window",
    "target-utilization-percentage", "targetUtilizationPercentage", "target-burst-capacity", "targetBurstCapacity", "panic-window-percentage",
    "panicWindowPercentage", "panic-threshold-percentage", "panicThresholdPercentage", "activation-scale", "foo"].map((k) => A + k),
  ...["rollout-duration", "rolloutDuration", "progress-deadline", "creator", "lastModifier", "routes", "lastPinned", "no-gc", "foo"].map((k) => S + k),
  ...["resource-percentage", "resourcePercentage", "cpu-resource-request", "cpu-resource-limit", "memory-resource-request", "memory-resource-limit",
    "ephemeral-storage-resource-request", "ephemeral-storage-resource-limit"].map((k) => Q + k),
  "features.knative.dev/queueproxy-podinfo", "features.knative.dev/http-full-duplex", "networking.knative.dev/visibility", "networking.knative.dev/disable-auto-tls",
  "networking.knative.dev/certificate-class", "networking.knative.dev/http-option", "networking.knative.dev/foo",
];

/** Values that sit on the int64 edges of Go's time.Duration, where Round saturates and Truncate does not. */
export const DURATION_EDGE_VALUES: readonly string[] = [
  "9223372036854775807ns", "9223372036854775806ns", "-9223372036854775808ns", "-9223372036854775807ns", "2562047h47m16.854775807s", "2562047h47m16.5s",
  "9223372036.5s", "-2562047h47m16.854775808s", "999999999ns", "1000000001ns", "-0.5s", "59.9999999999s",
];
