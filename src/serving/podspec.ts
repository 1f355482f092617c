/**
 * RevisionSpec and PodSpec (serving `v1/revision_validation.go`: RevisionSpec.Validate, validateTimeoutSeconds;
 * `metadata_validation.go`: ValidateContainerConcurrency; `k8s_validation.go`: ValidatePodSpec,
 * validateInitContainers, validateContainers, validateContainersPorts; `fieldmask.go`: PodSpecMask),
 * all in knative.dev/serving pkg/apis/serving, at Knative 1.17 (serving v0.44.2); the rules in
 * docs/knative-behavior.md#pod-specs, #containers and #init-containers.
 */
import { also, errGeneric, errInvalidValue, errMissingField, errOutOfBoundsValue, FieldError, viaField, viaFieldIndex, CURRENT_FIELD } from "../apis/field-error.js";
import { goQuote } from "../go/strconv/quote.js";
import { isDNS1123Subdomain } from "../go/apimachinery/validation.js";
import type { AdmissionConfig, DefaultsConfig, FeaturesConfig, Int64 } from "../config/types.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile } from "../config/profile.js";
import { validateInitContainer, validateSidecarContainer, validateUserContainer } from "./container.js";
import type { RequestContext } from "./context.js";
import {
  arrayField,
  asStruct,
  checkDisallowedFields,
  defineMask,
  isInt64,
  objectField,
  presentField,
  stringField,
  type FieldMask,
  type JsonObject,
} from "./field-mask.js";
import { validatePodSecurityContext, warnDefaultContainerSecurityContext } from "./security-context.js";
import { allMountedVolumes, validateVolumes, type VolumesByName } from "./volumes.js";

/**
 * RevisionSpec.Validate (knative.dev/serving pkg/apis/serving/v1/revision_validation.go): ValidatePodSpec, then the
 * timeoutSeconds and containerConcurrency bounds; paths relative to the spec object (the caller applies
 * viaField("spec") / viaField("spec.template.spec")). Includes warning-level diagnostics (security-context warnings).
 */
export function validateRevisionSpec(spec: Record<string, unknown>, ctx: RequestContext): FieldError | undefined {
  return validateRevisionSpecWith(spec, ctx.config.admission, ctx.config.profile);
}

/** The configuration RevisionSpec validation reads: config-features and config-defaults. */
export type RevisionSpecConfig = Pick<AdmissionConfig, "features" | "defaults">;

/** validateRevisionSpec against an explicit configuration, as the release `profile` answers. */
export function validateRevisionSpecWith(spec: JsonObject, config: RevisionSpecConfig, profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION]): FieldError | undefined {
  let errs = validatePodSpec(spec, config.features, profile);
  const timeoutSeconds = presentField(spec, "timeoutSeconds");
  if (isInt64(timeoutSeconds)) errs = also(errs, validateTimeoutSeconds(timeoutSeconds, config.defaults));
  const containerConcurrency = presentField(spec, "containerConcurrency");
  if (isInt64(containerConcurrency)) {
    errs = also(errs, viaField(validateContainerConcurrency(containerConcurrency, config.defaults), "containerConcurrency"));
  }
  return errs;
}

/** validateTimeoutSeconds: 0 means "the default"; otherwise within [0, max-revision-timeout-seconds]. */
function validateTimeoutSeconds(timeoutSeconds: Int64, defaults: DefaultsConfig): FieldError | undefined {
  if (timeoutSeconds === 0) return undefined;
  const max = defaults.maxRevisionTimeoutSeconds;
  if (timeoutSeconds > max || timeoutSeconds < 0) return errOutOfBoundsValue(timeoutSeconds, 0, max, "timeoutSeconds");
  return undefined;
}

/** serving.ValidateContainerConcurrency: within [0 or 1, container-concurrency-max-limit]. */
export function validateContainerConcurrency(containerConcurrency: Int64, defaults: DefaultsConfig): FieldError | undefined {
  const min = defaults.allowContainerConcurrencyZero ? 0 : 1;
  const max = defaults.containerConcurrencyMaxLimit;
  if (containerConcurrency < min || containerConcurrency > max) {
    return errOutOfBoundsValue(containerConcurrency, min, max, CURRENT_FIELD);
  }
  return undefined;
}

// PodSpecMask (knative.dev/serving pkg/apis/serving/fieldmask.go; docs/knative-behavior.md#pod-specs): always-allowed
// fields, then the ones behind a flag that is not Disabled.
const POD_SPEC_ALWAYS = ["serviceAccountName", "containers", "volumes", "imagePullSecrets", "enableServiceLinks"] as const;
const POD_SPEC_GATED: ReadonlyArray<readonly [field: string, enabled: (f: FeaturesConfig) => boolean]> = [
  ["affinity", (f) => f.podSpecAffinity !== "Disabled"],
  ["topologySpreadConstraints", (f) => f.podSpecTopologySpreadConstraints !== "Disabled"],
  ["hostAliases", (f) => f.podSpecHostAliases !== "Disabled"],
  ["nodeSelector", (f) => f.podSpecNodeSelector !== "Disabled"],
  ["runtimeClassName", (f) => f.podSpecRuntimeClassName !== "Disabled"],
  ["tolerations", (f) => f.podSpecTolerations !== "Disabled"],
  ["securityContext", (f) => f.podSpecSecurityContext !== "Disabled" || f.secureDefaults !== "Disabled"],
  ["priorityClassName", (f) => f.podSpecPriorityClassName !== "Disabled"],
  ["schedulerName", (f) => f.podSpecSchedulerName !== "Disabled"],
  ["initContainers", (f) => f.podSpecInitContainers !== "Disabled"],
  ["dnsPolicy", (f) => f.podSpecDNSPolicy !== "Disabled"],
  ["dnsConfig", (f) => f.podSpecDNSConfig !== "Disabled"],
  ["shareProcessNamespace", (f) => f.podSpecShareProcessNamespace !== "Disabled"],
  ["hostIPC", (f) => f.podSpecHostIPC !== "Disabled"],
  ["hostPID", (f) => f.podSpecHostPID !== "Disabled"],
  ["hostNetwork", (f) => f.podSpecHostNetwork !== "Disabled"],
];
const podSpecMasks = new WeakMap<FeaturesConfig, FieldMask>();

function podSpecMask(features: FeaturesConfig): FieldMask {
  let mask = podSpecMasks.get(features);
  if (mask === undefined) {
    const allowed: string[] = [...POD_SPEC_ALWAYS];
    for (const [field, enabled] of POD_SPEC_GATED) if (enabled(features)) allowed.push(field);
    // automountServiceAccountToken is copied only when false.
    mask = defineMask("core.PodSpec", allowed, { copiedIf: (field, value) => field === "automountServiceAccountToken" && value === false });
    podSpecMasks.set(features, mask);
  }
  return mask;
}

/**
 * The most containers (and, separately, init containers) a pod spec may list. Not a Knative rule: Knative has no
 * limit, but its duplicate-name quirk (validateContainers) re-prefixes every error found so far, so its answer
 * grows with the square of the containers and its time with the cube (1,000 unnamed containers: a 16 MB message
 * after many seconds, past the API server's webhook timeout). No real pod comes near this; over it, Duckbill
 * answers at once (SECURITY.md, "Bounded work").
 */
export const MAX_CONTAINERS = 256;

/**
 * Whether `podSpec` (raw JSON) lists more containers or init containers than MAX_CONTAINERS: such an object is
 * rejected by validation whatever else it holds, so defaulting leaves it alone (admission/defaulting.ts).
 */
export function exceedsContainerBound(podSpec: unknown): boolean {
  if (typeof podSpec !== "object" || podSpec === null) return false;
  const { containers, initContainers } = podSpec as { containers?: unknown; initContainers?: unknown };
  return (Array.isArray(containers) && containers.length > MAX_CONTAINERS) || (Array.isArray(initContainers) && initContainers.length > MAX_CONTAINERS);
}

function tooManyContainers(containers: readonly unknown[], initContainers: readonly unknown[]): FieldError | undefined {
  let errs: FieldError | undefined;
  for (const [field, list] of [["containers", containers], ["initContainers", initContainers]] as const) {
    if (list.length > MAX_CONTAINERS) errs = also(errs, errGeneric(`must have at most ${MAX_CONTAINERS} items, found ${list.length}`, field));
  }
  return errs;
}

/** ValidatePodSpec (knative.dev/serving pkg/apis/serving/k8s_validation.go: ValidatePodSpec). */
export function validatePodSpec(ps: JsonObject, features: FeaturesConfig, profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION]): FieldError | undefined {
  const containers = arrayField(ps, "containers");
  const initContainers = arrayField(ps, "initContainers");
  const tooMany = tooManyContainers(containers, initContainers);
  if (tooMany !== undefined) return tooMany;

  let errs = checkDisallowedFields(ps, podSpecMask(features));
  const psc = objectField(ps, "securityContext");
  errs = also(errs, viaField(validatePodSecurityContext(psc, features), "securityContext"));

  // No insecure-default warnings under the secure-pod-defaults values that default those fields (v0.47.1+).
  if (!profile.securePodDefaults.silenceInsecureDefaultWarnings.includes(features.secureDefaults)) {
    for (let i = 0; i < containers.length; i++) {
      const sc = objectField(asStruct(containers[i]), "securityContext");
      errs = also(errs, viaFieldIndex(viaField(warnDefaultContainerSecurityContext(psc, sc), "securityContext"), "containers", i));
    }
    for (let i = 0; i < initContainers.length; i++) {
      const sc = objectField(asStruct(initContainers[i]), "securityContext");
      errs = also(errs, viaFieldIndex(viaField(warnDefaultContainerSecurityContext(psc, sc), "securityContext"), "initContainers", i));
    }
  }

  const mounted = allMountedVolumes([initContainers, containers]);
  const { volumes, errs: volumeErrs } = validateVolumes(arrayField(ps, "volumes"), mounted, features, profile);
  errs = also(errs, viaField(volumeErrs, "volumes"));

  errs = also(errs, validateInitContainers(initContainers, containers, volumes, features));

  const { servingPortName, errs: portErrs } = validateContainersPorts(containers);
  errs = also(errs, viaField(portErrs, "containers[*]"));

  if (containers.length === 0) {
    errs = also(errs, errMissingField("containers"));
  } else if (containers.length === 1) {
    errs = also(errs, viaFieldIndex(validateUserContainer(asStruct(containers[0]), volumes, servingPortName, features, profile), "containers", 0));
  } else {
    errs = also(errs, validateContainers(containers, volumes, servingPortName, features, profile));
  }

  const serviceAccountName = stringField(ps, "serviceAccountName");
  if (serviceAccountName !== "") {
    for (const msg of isDNS1123Subdomain(serviceAccountName)) {
      errs = also(errs, errInvalidValue(serviceAccountName, "serviceAccountName", msg));
    }
  }
  return errs;
}

/**
 * validateInitContainers (knative.dev/serving pkg/apis/serving/k8s_validation.go;
 * docs/knative-behavior.md#init-containers). Quirks kept from Go: errors are reported under `containers[i]`, only
 * clashes with regular container names are found, and a clash re-prefixes everything accumulated so far.
 */
function validateInitContainers(
  containers: readonly unknown[],
  otherContainers: readonly unknown[],
  volumes: VolumesByName,
  features: FeaturesConfig,
): FieldError | undefined {
  if (containers.length === 0) return undefined;
  if (features.podSpecInitContainers !== "Enabled") {
    return errGeneric(`pod spec support for init-containers is off, but found ${containers.length} init containers`);
  }
  const allNames = new Set<string>();
  for (const c of otherContainers) allNames.add(stringField(asStruct(c), "name"));
  let errs: FieldError | undefined;
  for (let i = 0; i < containers.length; i++) {
    const container = asStruct(containers[i]);
    const name = stringField(container, "name");
    if (allNames.has(name)) errs = viaFieldIndex(also(errs, duplicateContainerName(name)), "containers", i);
    errs = also(errs, viaFieldIndex(validateInitContainer(container, volumes, features), "containers", i));
  }
  return errs;
}

/**
 * validateContainers, for more than one container (knative.dev/serving pkg/apis/serving/k8s_validation.go). Quirk
 * kept from Go: a duplicate name re-prefixes everything accumulated so far with `containers[i]`.
 */
function validateContainers(
  containers: readonly unknown[],
  volumes: VolumesByName,
  servingPortName: string,
  features: FeaturesConfig,
  profile: KnativeProfile,
): FieldError | undefined {
  if (features.multiContainer !== "Enabled") {
    return errGeneric(`multi-container is off, but found ${containers.length} containers`);
  }
  const allNames = new Set<string>();
  let errs: FieldError | undefined;
  for (let i = 0; i < containers.length; i++) {
    const container = asStruct(containers[i]);
    const name = stringField(container, "name");
    if (allNames.has(name)) errs = viaFieldIndex(also(errs, duplicateContainerName(name)), "containers", i);
    else allNames.add(name);
    // Probes are allowed on the serving container only (the one with the port), unless multi-container-probing.
    const err =
      arrayField(container, "ports").length === 0
        ? validateSidecarContainer(container, volumes, features, profile)
        : validateUserContainer(container, volumes, servingPortName, features, profile);
    errs = also(errs, viaFieldIndex(err, "containers", i));
  }
  return errs;
}

function duplicateContainerName(name: string): FieldError {
  return errGeneric(`duplicate container name ${goQuote(name)}`, "name");
}

/**
 * validateContainersPorts (knative.dev/serving pkg/apis/serving/k8s_validation.go): one port in the whole pod; paths
 * relative to `containers[*]`. The serving port is the first port of the last container with ports; its name defaults
 * to `http`.
 */
function validateContainersPorts(containers: readonly unknown[]): { servingPortName: string; errs: FieldError | undefined } {
  let count = 0;
  let port: JsonObject | undefined;
  for (const c of containers) {
    const ports = arrayField(asStruct(c), "ports");
    if (ports.length > 0) {
      count += ports.length;
      port = asStruct(ports[0]);
    }
  }
  const name = port === undefined ? "" : stringField(port, "name");
  const servingPortName = name === "" ? "http" : name;
  if (count === 0 && containers.length > 1) return { servingPortName, errs: errMissingField("ports") };
  if (count > 1) {
    return {
      servingPortName,
      errs: new FieldError({
        message: "more than one container port is set",
        paths: ["ports"],
        details: "Only a single port is allowed across all containers",
      }),
    };
  }
  return { servingPortName, errs: undefined };
}
