/**
 * Pod and container security contexts (serving `k8s_validation.go`: ValidatePodSecurityContext,
 * validateSecurityContext, validateCapabilities, warnDefaultContainerSecurityContext; `fieldmask.go`:
 * PodSecurityContextMask, SecurityContextMask, CapabilitiesMask), rules in
 * docs/knative-behavior.md#security-contexts.
 */
import { also, errInvalidValue, errOutOfBoundsValue, viaField, FieldError } from "../apis/field-error.js";
import type { FeaturesConfig } from "../config/types.js";
import {
  arrayField,
  checkDisallowedFields,
  defineMask,
  isInt64,
  isJsonObject,
  objectField,
  isNilField,
  presentField,
  stringField,
  type FieldMask,
  type JsonObject,
} from "./field-mask.js";

const MIN_USER_ID = 0;
const MAX_USER_ID = 2147483647; // math.MaxInt32
const MIN_GROUP_ID = 0;
const MAX_GROUP_ID = 2147483647;

// PodSecurityContextMask (knative.dev/serving pkg/apis/serving/fieldmask.go). With kubernetes.podspec-securitycontext
// not Disabled:
const POD_SECURITY_CONTEXT_MASK = defineMask("core.PodSecurityContext", [
  "runAsUser",
  "runAsGroup",
  "runAsNonRoot",
  "fsGroup",
  "supplementalGroups",
  "seccompProfile",
]);
// Flag Disabled, secure-pod-defaults Enabled or AllowRootBounded: only the seccomp profiles the secure defaults may set.
const POD_SECURITY_CONTEXT_SECURE_DEFAULTS_MASK = defineMask("core.PodSecurityContext", [], {
  copiedIf: (field, value) => field === "seccompProfile" && isSecureDefaultsSeccompProfile(value),
});
const POD_SECURITY_CONTEXT_NOTHING_MASK = defineMask("core.PodSecurityContext", []);

// SecurityContextMask: `privileged` is copied only when false.
const SECURITY_CONTEXT_MASK = defineMask(
  "core.SecurityContext",
  ["capabilities", "readOnlyRootFilesystem", "runAsUser", "runAsGroup", "runAsNonRoot", "allowPrivilegeEscalation", "seccompProfile"],
  { copiedIf: (field, value) => field === "privileged" && value === false },
);

// CapabilitiesMask: `add` only with kubernetes.containerspec-addcapabilities Enabled, or exactly
// ["NET_BIND_SERVICE"] under secure-pod-defaults Enabled or AllowRootBounded.
const CAPABILITIES_MASK = defineMask("core.Capabilities", ["drop"]);
const CAPABILITIES_WITH_ADD_MASK = defineMask("core.Capabilities", ["drop", "add"]);

const INSECURE_DEFAULT_MESSAGE = "Kubernetes default value is insecure, Knative may default this to secure in a future release";

/** `{type: RuntimeDefault}` or `{type: Unconfined}` and nothing else (the mask copies only `type`). */
function isSecureDefaultsSeccompProfile(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const type = stringField(value, "type");
  return (type === "RuntimeDefault" || type === "Unconfined") && stringField(value, "localhostProfile") === "";
}

function podSecurityContextMask(features: FeaturesConfig): FieldMask {
  if (features.podSpecSecurityContext !== "Disabled") return POD_SECURITY_CONTEXT_MASK;
  return securePodDefaultsOn(features) ? POD_SECURITY_CONTEXT_SECURE_DEFAULTS_MASK : POD_SECURITY_CONTEXT_NOTHING_MASK;
}

/**
 * secure-pod-defaults Enabled or AllowRootBounded, the values that default the container securityContext and so
 * let through what the defaults may set (knative.dev/serving pkg/apis/serving/fieldmask.go: PodSecurityContextMask,
 * CapabilitiesMask at v0.50.0; v0.44.2 tested Enabled, the only such value it parsed).
 */
function securePodDefaultsOn(features: FeaturesConfig): boolean {
  return features.secureDefaults === "Enabled" || features.secureDefaults === "AllowRootBounded";
}

/**
 * ValidatePodSecurityContext (knative.dev/serving pkg/apis/serving/k8s_validation.go): mask, then id bounds
 * regardless of the mask.
 */
export function validatePodSecurityContext(sc: JsonObject | undefined, features: FeaturesConfig): FieldError | undefined {
  if (sc === undefined) return undefined;
  let errs = checkDisallowedFields(sc, podSecurityContextMask(features));
  errs = also(errs, checkIdBounds(sc, "runAsUser", MIN_USER_ID, MAX_USER_ID));
  errs = also(errs, checkIdBounds(sc, "runAsGroup", MIN_GROUP_ID, MAX_GROUP_ID));
  errs = also(errs, checkIdBounds(sc, "fsGroup", MIN_GROUP_ID, MAX_GROUP_ID));
  const groups = arrayField(sc, "supplementalGroups");
  for (let i = 0; i < groups.length; i++) {
    const gid = groups[i];
    if (isInt64(gid) && (gid < MIN_GROUP_ID || gid > MAX_GROUP_ID)) {
      errs = also(errs, errOutOfBoundsValue(gid, MIN_GROUP_ID, MAX_GROUP_ID, "").viaFieldIndex("supplementalGroups", i));
    }
  }
  return errs;
}

/** validateSecurityContext of a container (knative.dev/serving pkg/apis/serving/k8s_validation.go). */
export function validateSecurityContext(sc: JsonObject | undefined, features: FeaturesConfig): FieldError | undefined {
  if (sc === undefined) return undefined;
  let errs = checkDisallowedFields(sc, SECURITY_CONTEXT_MASK);
  errs = also(errs, viaField(validateCapabilities(objectField(sc, "capabilities"), features), "capabilities"));
  errs = also(errs, checkIdBounds(sc, "runAsUser", MIN_USER_ID, MAX_USER_ID));
  errs = also(errs, checkIdBounds(sc, "runAsGroup", MIN_GROUP_ID, MAX_GROUP_ID));
  return errs;
}

function validateCapabilities(cap: JsonObject | undefined, features: FeaturesConfig): FieldError | undefined {
  if (cap === undefined) return undefined;
  return checkDisallowedFields(cap, addCapabilitiesAllowed(cap, features) ? CAPABILITIES_WITH_ADD_MASK : CAPABILITIES_MASK);
}

function addCapabilitiesAllowed(cap: JsonObject, features: FeaturesConfig): boolean {
  if (features.containerSpecAddCapabilities === "Enabled") return true;
  if (!securePodDefaultsOn(features)) return false;
  const add = arrayField(cap, "add");
  return add.length === 1 && add[0] === "NET_BIND_SERVICE";
}

function checkIdBounds(sc: JsonObject, field: string, min: number, max: number): FieldError | undefined {
  const id = presentField(sc, field);
  if (!isInt64(id) || (id >= min && id <= max)) return undefined;
  return errOutOfBoundsValue(id, min, max, field);
}

/**
 * warnDefaultContainerSecurityContext (knative.dev/serving pkg/apis/serving/k8s_validation.go): warnings for insecure
 * Kubernetes defaults left in place, the container's settings considered alongside the pod's. Whether they are given
 * at all is ValidatePodSpec's (src/serving/podspec.ts): v0.44.2 whatever secure-pod-defaults is, v0.47.1 and later
 * not under Enabled or AllowRootBounded (the profile's securePodDefaults.silenceInsecureDefaultWarnings).
 */
export function warnDefaultContainerSecurityContext(
  psc: JsonObject | undefined,
  sc: JsonObject | undefined,
): FieldError | undefined {
  const pod = psc ?? NIL_CONTEXT;
  const container = sc ?? NIL_CONTEXT;
  let errs: FieldError | undefined;
  if (presentField(pod, "runAsNonRoot") === undefined && presentField(container, "runAsNonRoot") === undefined) {
    errs = also(errs, insecureDefault("runAsNonRoot"));
  }
  if (presentField(container, "allowPrivilegeEscalation") === undefined) {
    errs = also(errs, insecureDefault("allowPrivilegeEscalation"));
  }
  const containerSeccomp = objectField(container, "seccompProfile");
  const podSeccomp = objectField(pod, "seccompProfile");
  if (containerSeccomp === undefined && podSeccomp === undefined) {
    errs = also(errs, insecureDefault("seccompProfile"));
  } else {
    const podIsDefault = podSeccomp === undefined || stringField(podSeccomp, "type") === "";
    const containerIsDefault = containerSeccomp === undefined || stringField(containerSeccomp, "type") === "";
    if (podIsDefault && containerIsDefault) errs = also(errs, insecureDefault("seccompProfile.type"));
  }
  const capabilities = objectField(container, "capabilities");
  if (capabilities === undefined) {
    errs = also(errs, insecureDefault("capabilities"));
  } else {
    const drop = presentField(capabilities, "drop");
    if (isNilField(capabilities, "drop")) {
      errs = also(errs, insecureDefault("capabilities.drop"));
    } else if (Array.isArray(drop) && drop.length > 0 && drop[0] === "all") {
      // People sometimes spell "ALL" as "all", which drops nothing.
      errs = also(errs, errInvalidValue("all", "capabilities.drop", "Must be spelled as 'ALL'").at("Warning"));
    }
  }
  return errs;
}

const NIL_CONTEXT: JsonObject = Object.freeze({});

/** Go's `apis.ErrGeneric(msg, fieldPath).At(apis.WarningLevel)`: one leaf, made at the warning level. */
function insecureDefault(fieldPath: string): FieldError {
  return new FieldError({ message: INSECURE_DEFAULT_MESSAGE, paths: [fieldPath], level: "Warning" });
}
