/**
 * The Knative releases Duckbill answers as, and where their webhooks differ: one rule set, with each point of
 * difference a field here that the rules read from the request's snapshot (`snapshot.profile`). Adding a release
 * is adding its vectors and a profile with its deltas (docs/adr/0011-knative-profiles.md).
 */
import type { Flag } from "./types.js";
import { absentFields } from "../apis/go-types.generated.js";
import { urlRulesOf, type UrlRules } from "../go/net/url/url.js";

export const KNATIVE_VERSIONS = ["1.24", "1.23", "1.17"] as const;
export type KnativeVersion = (typeof KNATIVE_VERSIONS)[number];

export interface KnativeProfile {
  readonly version: KnativeVersion;
  /** The knative.dev/serving module of the release. */
  readonly servingModule: string;
  /**
   * A body over 3 MiB: 1.17 had no limit (Duckbill answers 413); from 1.23 (v0.48.3, v0.49.1, v0.50.0)
   * knative.dev/pkg's webhook reads it through http.MaxBytesReader and answers 400 with the decode error.
   */
  readonly bodyTooLargeStatus: 400 | 413;
  /**
   * ConfigMaps of 1.17's /config-validation that the release no longer validates (admitted whatever they hold):
   * `config-tracing` left the webhook's constructors in v0.47.0 (knative.dev/serving cmd/webhook/main.go).
   */
  readonly unvalidatedConfigMaps: readonly string[];
  /** Where the volume rules of the release differ (VolumeRules). */
  readonly volumes: VolumeRules;
  /** `config-features` `secure-pod-defaults`: the values it takes and what they change. */
  readonly securePodDefaults: SecurePodDefaultsRules;
  /** How knative.dev/pkg's ConfigMap helpers (`configmap.AsString`, `AsBool`, `AsInt`, …) read a value. */
  readonly configMapParse: ConfigMapParseRules;
  /**
   * The schema config-observability is validated against: knative.dev/pkg's OpenCensus-era
   * `metrics.NewObservabilityConfigFromConfigMap` (serving v0.44.2), or from serving v0.46.0 the OpenTelemetry one:
   * knative.dev/serving pkg/observability/config.go: NewFromMap over knative.dev/pkg observability/{tracing,metrics,
   * runtime}/config.go: NewFromMap (src/config/configmaps/observability-otel.ts).
   */
  readonly observabilitySchema: "opencensus" | "opentelemetry";
  /**
   * config-deployment keys parsed with configmap.AsBool after the others (knative.dev/serving
   * pkg/deployment/config.go: NewConfigFromMap): `pod-is-always-schedulable` from serving v0.48.0.
   */
  readonly deploymentBoolKeys: readonly string[];
  /**
   * The networking.knative.dev annotations a revision template may carry; any other key that starts with
   * `networking.knative.dev` is `invalid key name` (knative.dev/networking pkg/apis/networking/metadata_validation.go:
   * ValidateAnnotations, called by RevisionTemplateSpec.Validate from serving v0.48.0). Undefined: not checked (1.17).
   */
  readonly templateNetworkingAnnotations?: readonly string[];
  /**
   * Probes (knative.dev/serving pkg/apis/serving/fieldmask.go: ProbeMask; k8s_validation.go: validateProbe):
   * `terminationGracePeriodSeconds` copied by the mask (v0.48.0), startup probes validated (v0.50.0).
   */
  readonly probes: ProbeRules;
  /**
   * Label keys (traffic revision/configuration names, an object reference's apiVersion) are checked with
   * k8s.io/apimachinery v0.35's content.IsLabelKey (serving v0.49.0) instead of validation.IsQualifiedName.
   */
  readonly labelKeyWording: boolean;
  /**
   * Fields of the Go types (src/apis/go-types.generated.ts, the union of the k8s.io/api, k8s.io/apimachinery and
   * Knative modules the releases build with) that the release's do not have: its webhook's round trip drops
   * them (a `remove` in the patch), its field masks never see them and its decoder does not type-check them (the
   * AdmissionReview's `response.status.metadata.shardInfo`, apimachinery v0.36). Keyed by type expression, JSON names.
   */
  readonly unknownK8sFields: Readonly<Record<string, readonly string[]>>;
  /**
   * When the PodSpec dry run runs (knative.dev/serving pkg/webhook/validate_unstructured.go: validateRevisionTemplate).
   * "flag" (v0.44.2): config-features `kubernetes.podspec-dryrun` (Enabled, or Allowed with the Service's
   * `features.knative.dev/podspec-dryrun: enabled|strict` annotation), not for an UPDATE that leaves the template
   * unchanged. "request" (v0.47.0 on): for every request with `dryRun: true` (`kubectl apply --dry-run=server`),
   * changed or not; the flag and the annotation are gone, and an API server that cannot dry-run is always let through.
   */
  readonly podSpecDryRun: "flag" | "request";
  /**
   * The `controller` value of the owner reference to the system Namespace that the webhook-configuration
   * reconcilers write (knative.dev/pkg webhook/resourcesemantics/{defaulting,validation} and webhook/configmaps): true
   * (metav1.NewControllerRef) in the knative.dev/pkg of serving v0.44.2, false from the one of serving v0.47.0.
   */
  readonly namespaceOwnerController: boolean;
  /**
   * config-features flags added after 1.17 that only Knative's controllers read (the webhook parses them with the
   * rest, knative.dev/serving pkg/apis/config/features.go: NewFeaturesConfigFromMap): `domainmapping-direct-route-traffic`
   * from v0.51.0.
   */
  readonly controllerFlags: readonly string[];
  /**
   * The family of the webhook's own Prometheus series (src/server/knative-metrics.ts). "opencensus": knative.dev/pkg
   * webhook/stats_reporter.go of serving v0.44.2, `webhook_request_count` and `webhook_request_latencies` (ms).
   * "opentelemetry": knative.dev/pkg webhook/metrics.go (the pkg of serving v0.50.0 and v0.51.0),
   * `kn.webhook.handler.duration` (s).
   */
  readonly webhookMetrics: "opencensus" | "opentelemetry";
  /**
   * How defaulting's roundTripPatch reads the object as sent (knative.dev/pkg webhook/resourcesemantics/defaulting/
   * defaulting.go: mutate): gomodules.xyz/jsonpatch/v2 v2.4.0 (serving v0.44.2) with json.Unmarshal, numbers as
   * float64, so a number beyond float64's range anywhere in the object fails (`invalid JSON Document`); v2.5.0
   * (serving v0.50.0 on) with a Decoder that uses json.Number, which does not.
   */
  readonly roundTripNumbers: "float64" | "json.Number";
  /** The Go toolchain the release's webhook was built with, where it shows in answers. */
  readonly toolchain: Toolchain;
}

/**
 * What of the Go toolchain shows in answers: Go 1.24's encoding/json names embedded structs in decode-error field
 * paths (`spec.ConfigurationSpec.template.spec.PodSpec.containers`; golang/go src/encoding/json/decode.go
 * `(*decodeState).object`), which 1.17's Go 1.23 did not.
 */
export interface Toolchain {
  readonly go: string;
  readonly jsonEmbeddedFieldNames: boolean;
  /**
   * The status of ServeMux's redirect of an unclean path (`//defaulting` → `/defaulting`): 301 until Go 1.26,
   * 307 from it (golang/go src/net/http/server.go: ServeMux.Handler).
   */
  readonly cleanPathRedirectStatus: 301 | 307;
  /**
   * text/template's bound on nested parenthesized pipelines (golang/go src/text/template/parse/parse.go:
   * maxStackDepth, checked in (*Tree).term): 10000 in Go 1.26, none in Go 1.23, whose parser recurses on a
   * goroutine stack that grows, so every name template a ConfigMap can hold parses.
   */
  readonly templateMaxStackDepth: number | undefined;
  /**
   * url.Parse checks what a host's brackets hold (golang/go src/net/url/url.go parseHost: netip.ParseAddr, "invalid
   * IP-literal") from Go 1.26; Go 1.23 took `[]` or `[x]` as they came (src/go/net/url/url.ts UrlRules).
   */
  readonly urlIpLiterals: boolean;
  /**
   * url.Parse takes an http(s) host's port from its first colon (Go 1.26's urlstrictcolons GODEBUG setting, on by
   * default for a main module whose go.mod says go 1.26: serving v0.51.0, Knative 1.24; v0.50.0 says go 1.25.0).
   */
  readonly urlStrictColons: boolean;
}

/** How the release's url.Parse reads a URL (its toolchain's urlIpLiterals and urlStrictColons). */
export function urlRulesOfToolchain(t: Toolchain): UrlRules {
  return urlRulesOf(t.urlIpLiterals, t.urlStrictColons);
}

export interface ProbeRules {
  readonly terminationGracePeriodSeconds: boolean;
  readonly validateStartupProbes: boolean;
}

/**
 * knative.dev/pkg's ConfigMap value parsers. The knative.dev/pkg of serving v0.44.2 (Knative 1.17) had one function
 * per type in configmap/parse.go; from the one of serving v0.46.0 (Knative 1.19) they go through the generic
 * configmap/parser/parse.go (`As[T]`, `AsFunc`, `parse[T]`), which trims strings, wraps every error in
 * `failed to parse "<key>": …` and parses ints with strconv.ParseInt.
 */
export interface ConfigMapParseRules {
  /** `AsString` stores `strings.TrimSpace(raw)` (1.19+) instead of the raw value (1.17). */
  readonly trimStrings: boolean;
  /** `AsBool` wraps strconv.ParseBool's error in `failed to parse "<key>": …` (1.19+); 1.17 returned it bare. */
  readonly wrapBoolErrors: boolean;
  /** The strconv function `AsInt` parses with, as its errors name it: Atoi (1.17) or ParseInt (1.19+). */
  readonly intParser: "Atoi" | "ParseInt";
}

const CONFIGMAP_PARSE_1_17: ConfigMapParseRules = Object.freeze({ trimStrings: false, wrapBoolErrors: false, intParser: "Atoi" });
const CONFIGMAP_PARSE_1_19: ConfigMapParseRules = Object.freeze({ trimStrings: true, wrapBoolErrors: true, intParser: "ParseInt" });

/**
 * secure-pod-defaults across releases (knative.dev/serving pkg/apis/config/features.go, pkg/apis/serving/v1/
 * revision_defaults.go, pkg/apis/serving/k8s_validation.go). What `AllowRootBounded` does (the defaults of Enabled
 * without runAsNonRoot; the pod securityContext and capabilities.add [NET_BIND_SERVICE] let through like Enabled) is
 * one rule for every release: a release that does not parse the value never sees it.
 */
export interface SecurePodDefaultsRules {
  /**
   * The values the key takes, compared case-insensitively; anything else keeps Disabled. v0.44.2 read it with
   * asFlag (Enabled, Allowed, Disabled); from v0.47.0 asSecurePodDefaultsFlag accepts Disabled, AllowRootBounded,
   * Enabled, so `Allowed` is Disabled (and no longer lets the pod securityContext through PodSpecMask).
   */
  readonly values: readonly Flag[];
  /**
   * Whether Enabled leaves a container's own `runAsNonRoot` alone ((*RevisionSpec).defaultSecurityContext): v0.44.2
   * set `runAsNonRoot: true` whenever the pod did not set it, overwriting a container's `false`; from v0.47.0 only
   * when neither the pod nor the container sets it.
   */
  readonly keepContainerRunAsNonRoot: boolean;
  /**
   * The values under which ValidatePodSpec skips warnDefaultContainerSecurityContext (the insecure-default
   * warnings). v0.44.2 warned whatever the flag; v0.47.1 and later skip them under Enabled and AllowRootBounded
   * (v0.47.0 tested kubernetes.podspec-securitycontext instead, by mistake).
   */
  readonly silenceInsecureDefaultWarnings: readonly Flag[];
}

const SECURE_POD_DEFAULTS_1_17: SecurePodDefaultsRules = Object.freeze({
  values: Object.freeze<Flag[]>(["Enabled", "Allowed", "Disabled"]),
  keepContainerRunAsNonRoot: false,
  silenceInsecureDefaultWarnings: Object.freeze<Flag[]>([]),
});
const SECURE_POD_DEFAULTS_1_20: SecurePodDefaultsRules = Object.freeze({
  values: Object.freeze<Flag[]>(["Disabled", "AllowRootBounded", "Enabled"]),
  keepContainerRunAsNonRoot: true,
  silenceInsecureDefaultWarnings: Object.freeze<Flag[]>(["Enabled", "AllowRootBounded"]),
});

/** A config-features key of a volume flag added after Knative 1.17. */
export type VolumeFlagKey =
  | "kubernetes.podspec-volumes-csi"
  | "kubernetes.podspec-volumes-mount-propagation"
  | "kubernetes.podspec-volumes-image"
  | "kubernetes.podspec-volumes-ephemeral";

/**
 * The volume rules that changed after Knative 1.17: knative.dev/serving pkg/apis/serving/k8s_validation.go
 * (validateVolume, validateVolumeMounts), pkg/apis/serving/fieldmask.go (VolumeSourceMask, VolumeMountMask) and
 * pkg/apis/serving/v1/revision_defaults.go (applyDefault).
 */
export interface VolumeRules {
  /**
   * The volume flags of the release's config-features (pkg/apis/config/features.go): `kubernetes.podspec-volumes-csi`
   * and `-mount-propagation` from v0.45.0, `-image` from v0.46.0, `-ephemeral` from v0.50.0. Without its flag a csi,
   * image or ephemeral volume source is not one validateVolume knows (VolumeSourceMask never copies it, it is not a
   * source of the one-of), and VolumeMountMask always drops `mountPropagation`.
   */
  readonly flags: readonly VolumeFlagKey[];
  /**
   * The volume sources a container may mount writable: applyDefault leaves their mounts' `readOnly` alone and
   * validateVolumeMounts does not require it. emptyDir and persistentVolumeClaim; ephemeral too from v0.50.0.
   */
  readonly writableSources: readonly string[];
}

const VOLUMES_1_17: VolumeRules = Object.freeze({ flags: Object.freeze([]), writableSources: Object.freeze(["emptyDir", "persistentVolumeClaim"]) });
const VOLUMES_1_23: VolumeRules = Object.freeze({
  flags: Object.freeze([
    "kubernetes.podspec-volumes-csi",
    "kubernetes.podspec-volumes-mount-propagation",
    "kubernetes.podspec-volumes-image",
    "kubernetes.podspec-volumes-ephemeral",
  ] as const),
  writableSources: Object.freeze(["emptyDir", "persistentVolumeClaim", "ephemeral"]),
});

/**
 * knative.dev/networking pkg/apis/networking/metadata_validation.go: allowedAnnotations, the annotations
 * ValidateAnnotations lets through (the same in the networking of serving v0.44.2, v0.50.0 and v0.51.0): checked on
 * ServerlessServices in every release, on revision templates from serving v0.48.0 (templateNetworkingAnnotations).
 */
export const NETWORKING_ANNOTATIONS: readonly string[] = Object.freeze([
  "networking.knative.dev/ingress.class",
  "networking.knative.dev/ingress-class",
  "networking.knative.dev/certificate.class",
  "networking.knative.dev/certificate-class",
  "networking.knative.dev/disableAutoTLS",
  "networking.knative.dev/disable-auto-tls",
  "networking.knative.dev/disable-external-domain-tls",
  "networking.knative.dev/httpOption",
  "networking.knative.dev/http-protocol",
]);

const PROBES_1_17: ProbeRules = Object.freeze({ terminationGracePeriodSeconds: false, validateStartupProbes: false });
const PROBES_1_23: ProbeRules = Object.freeze({ terminationGracePeriodSeconds: true, validateStartupProbes: true });

/**
 * The fields of the generated Go type model (src/apis/go-types.generated.ts, the union of the releases) each
 * release's k8s.io/api, k8s.io/apimachinery and Knative modules lack: derived from the reflected types, never
 * written by hand (npm run types:generate).
 */
const UNKNOWN_K8S_FIELDS_1_17 = absentFields["1.17"];
const UNKNOWN_K8S_FIELDS_1_23 = absentFields["1.23"];
const UNKNOWN_K8S_FIELDS_1_24 = absentFields["1.24"];

const GO_1_23: Toolchain = Object.freeze({ go: "go1.23", jsonEmbeddedFieldNames: false, cleanPathRedirectStatus: 301, templateMaxStackDepth: undefined, urlIpLiterals: false, urlStrictColons: false });
const GO_1_26: Toolchain = Object.freeze({ go: "go1.26", jsonEmbeddedFieldNames: true, cleanPathRedirectStatus: 307, templateMaxStackDepth: 10000, urlIpLiterals: true, urlStrictColons: false });
/** Go 1.26 building a main module whose go.mod says go 1.26: its GODEBUG defaults are Go 1.26's. */
const GO_1_26_MODULE_1_26: Toolchain = Object.freeze({ ...GO_1_26, urlStrictColons: true });

export const PROFILES: Readonly<Record<KnativeVersion, KnativeProfile>> = Object.freeze({
  "1.17": Object.freeze({ version: "1.17", servingModule: "knative.dev/serving v0.44.2", bodyTooLargeStatus: 413, unvalidatedConfigMaps: [], volumes: VOLUMES_1_17, securePodDefaults: SECURE_POD_DEFAULTS_1_17, configMapParse: CONFIGMAP_PARSE_1_17, observabilitySchema: "opencensus", deploymentBoolKeys: [], probes: PROBES_1_17, labelKeyWording: false, unknownK8sFields: UNKNOWN_K8S_FIELDS_1_17, podSpecDryRun: "flag", namespaceOwnerController: true, webhookMetrics: "opencensus", controllerFlags: [], roundTripNumbers: "float64", toolchain: GO_1_23 }),
  "1.23": Object.freeze({ version: "1.23", servingModule: "knative.dev/serving v0.50.0", bodyTooLargeStatus: 400, unvalidatedConfigMaps: ["config-tracing"], volumes: VOLUMES_1_23, securePodDefaults: SECURE_POD_DEFAULTS_1_20, configMapParse: CONFIGMAP_PARSE_1_19, observabilitySchema: "opentelemetry", deploymentBoolKeys: ["pod-is-always-schedulable"], templateNetworkingAnnotations: NETWORKING_ANNOTATIONS, probes: PROBES_1_23, labelKeyWording: true, unknownK8sFields: UNKNOWN_K8S_FIELDS_1_23, podSpecDryRun: "request", namespaceOwnerController: false, webhookMetrics: "opentelemetry", controllerFlags: [], roundTripNumbers: "json.Number", toolchain: GO_1_26 }),
  "1.24": Object.freeze({ version: "1.24", servingModule: "knative.dev/serving v0.51.0", bodyTooLargeStatus: 400, unvalidatedConfigMaps: ["config-tracing"], volumes: VOLUMES_1_23, securePodDefaults: SECURE_POD_DEFAULTS_1_20, configMapParse: CONFIGMAP_PARSE_1_19, observabilitySchema: "opentelemetry", deploymentBoolKeys: ["pod-is-always-schedulable"], templateNetworkingAnnotations: NETWORKING_ANNOTATIONS, probes: PROBES_1_23, labelKeyWording: true, unknownK8sFields: UNKNOWN_K8S_FIELDS_1_24, podSpecDryRun: "request", namespaceOwnerController: false, webhookMetrics: "opentelemetry", controllerFlags: ["domainmapping-direct-route-traffic"], roundTripNumbers: "json.Number", toolchain: GO_1_26_MODULE_1_26 }),
});

/**
 * The release answered as when nothing names one: `--knative-version auto` without a cluster to ask (standalone,
 * `admit`, `check` without --kubeconfig), and parsers called without a profile. The newest supported release.
 */
export const DEFAULT_KNATIVE_VERSION: KnativeVersion = "1.24";

/** PROFILES[DEFAULT_KNATIVE_VERSION]: what a parser called without a profile answers as. */
export const DEFAULT_PROFILE: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION];

/** What `--knative-version` takes: a release, or `auto` (the cluster's release; DEFAULT_KNATIVE_VERSION offline). */
export type KnativeVersionSetting = KnativeVersion | "auto";

export function isKnativeVersion(v: string): v is KnativeVersion {
  return (KNATIVE_VERSIONS as readonly string[]).includes(v);
}

/** `--knative-version` as resolved (flag, else DUCKBILL_KNATIVE_VERSION; "" is `auto`), checked: an error names the accepted values. */
export function knativeVersionSetting(setting: string): KnativeVersionSetting {
  if (setting === "" || setting === "auto") return "auto";
  if (!isKnativeVersion(setting)) throw new Error(`--knative-version (DUCKBILL_KNATIVE_VERSION) must be auto or one of ${KNATIVE_VERSIONS.join(", ")}, got "${setting}"`);
  return setting;
}

/** The profile a command that has no cluster to ask runs with: `auto` offline is DEFAULT_KNATIVE_VERSION. */
export function knativeProfile(setting: string): KnativeProfile {
  const v = knativeVersionSetting(setting);
  return PROFILES[v === "auto" ? DEFAULT_KNATIVE_VERSION : v];
}

/** The profile chosen for a cluster's Knative release label, and how well it fits. */
export interface ReleaseMatch {
  readonly profile: KnativeProfile;
  /** The release as the label gives it (`1.23.2`). */
  readonly release: string;
  /** Whether the release's minor version has a profile of its own. */
  readonly exact: boolean;
}

/**
 * The profile for a Knative release as its manifests label objects (`app.kubernetes.io/version: "1.23.2"`, also
 * `v1.23.2`, `1.23`): the release's own, or for a release without one the nearest (by minor version; between two
 * equally near, the newer, since most of what changed after 1.17 came before 1.21). Undefined for a label that is
 * not a Knative 1.x version (e.g. `devel`).
 */
export function profileForRelease(label: string): ReleaseMatch | undefined {
  const m = /^v?1\.(\d{1,4})(?:\.\d{1,6})?(?:[-+][0-9A-Za-z.-]*)?$/.exec(label.trim());
  if (m === null) return undefined;
  const minor = Number(m[1]);
  const release = label.trim().replace(/^v/, "");
  let best: KnativeVersion = KNATIVE_VERSIONS[0];
  let bestDistance = Infinity;
  for (const v of KNATIVE_VERSIONS) {
    const distance = Math.abs(Number(v.slice(2)) - minor);
    // KNATIVE_VERSIONS runs newest first: a tie keeps the newer.
    if (distance < bestDistance) [best, bestDistance] = [v, distance];
  }
  return { profile: PROFILES[best], release, exact: bestDistance === 0 };
}
