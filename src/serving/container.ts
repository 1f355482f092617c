/**
 * Container rules (serving `k8s_validation.go`: ValidateContainer (ValidateUserContainer at HEAD),
 * validateSidecarContainer, validateInitContainer, validate and its env / envFrom / ports / resources helpers;
 * `fieldmask.go`: ContainerMask, EnvVarMask, EnvVarSourceMask, EnvFromSourceMask, ContainerPortMask,
 * ResourceRequirementsMask), rules in docs/knative-behavior.md#containers and #probes.
 */
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile } from "../config/profile.js";
import { also, CURRENT_FIELD, errGeneric, errInvalidValue, errMissingField, errMissingOneOf, errMultipleOneOf, errOutOfBoundsValue, FieldError, viaField, viaIndex, heldPaths, isFull, MAX_RENDERED_ERROR_PATH_CHARS, withUncheckedEntries } from "../apis/field-error.js";
import { goQuote } from "../go/strconv/quote.js";
import { parseImageReference } from "../go/containerregistry/reference.js";
import type { FeaturesConfig } from "../config/types.js";
import {
  arrayField,
  asStruct,
  checkDisallowedFields,
  defineMask,
  isGoZero,
  numberField,
  objectField,
  stringField,
  structType,
  type JsonObject,
} from "./field-mask.js";
import { checkSidecarProbeDisallowed, validateProbe, validateReadinessProbe } from "./probes.js";
import { validateSecurityContext } from "./security-context.js";
import { validateVolumeMounts, type VolumesByName } from "./volumes.js";

/** Which of Go's context markers is set: WithinUserContainer, WithinSidecarContainer, WithinInitContainer. */
export type ContainerKind = "user" | "sidecar" | "init";

const CONTAINER_TYPE = structType("core.Container");

const CONTAINER_MASK = defineMask("core.Container", [
  "name",
  "args",
  "command",
  "env",
  "workingDir",
  "envFrom",
  "image",
  "imagePullPolicy",
  "livenessProbe",
  "ports",
  "readinessProbe",
  "resources",
  "securityContext",
  "startupProbe",
  "terminationMessagePath",
  "terminationMessagePolicy",
  "volumeMounts",
]);
const ENV_VAR_MASK = defineMask("core.EnvVar", ["name", "value", "valueFrom"]);
const ENV_VAR_SOURCE_MASK = defineMask("core.EnvVarSource", ["configMapKeyRef", "secretKeyRef"]);
const ENV_VAR_SOURCE_WITH_FIELD_REF_MASK = defineMask("core.EnvVarSource", [
  "configMapKeyRef",
  "secretKeyRef",
  "fieldRef",
  "resourceFieldRef",
]);
const ENV_FROM_SOURCE_MASK = defineMask("core.EnvFromSource", ["prefix", "configMapRef", "secretRef"]);
const CONFIG_MAP_ENV_SOURCE_MASK = defineMask("core.ConfigMapEnvSource", ["name", "optional"]);
const SECRET_ENV_SOURCE_MASK = defineMask("core.SecretEnvSource", ["name", "optional"]);
const CONTAINER_PORT_MASK = defineMask("core.ContainerPort", ["containerPort", "name", "protocol"]);
const RESOURCE_REQUIREMENTS_MASK = defineMask("core.ResourceRequirements", ["limits", "requests"]);

const RESERVED_CONTAINER_NAMES: ReadonlySet<string> = new Set(["queue-proxy"]);
const RESERVED_ENV_VARS: ReadonlySet<string> = new Set(["PORT", "K_SERVICE", "K_CONFIGURATION", "K_REVISION"]);
const RESERVED_SIDECAR_ENV_VARS: ReadonlySet<string> = new Set(["K_SERVICE", "K_CONFIGURATION", "K_REVISION"]);
// networking.BackendHTTPPort, BackendHTTP2Port, QueueAdminPort, AutoscalingQueueMetricsPort,
// UserQueueMetricsPort, profiling.ProfilingPort.
const RESERVED_PORTS: ReadonlySet<number> = new Set([8012, 8013, 8022, 9090, 9091, 8008]);
// The port name is reserved for protocol negotiation.
const VALID_PORT_NAMES: ReadonlySet<string> = new Set(["h2c", "http1", ""]);

/**
 * ValidateContainer of the serving container (knative.dev/serving pkg/apis/serving/k8s_validation.go): liveness and
 * readiness probes against the serving port's name, then the common rules. [v0.44.2] Startup probes are not
 * validated.
 */
export function validateUserContainer(
  container: JsonObject,
  volumes: VolumesByName,
  servingPortName: string,
  features: FeaturesConfig,
  profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION],
): FieldError | undefined {
  const rules = profile.probes;
  let errs = viaField(validateProbe(objectField(container, "livenessProbe"), servingPortName, rules), "livenessProbe");
  errs = also(errs, viaField(validateReadinessProbe(objectField(container, "readinessProbe"), servingPortName, rules), "readinessProbe"));
  // From v0.50.0 the startup probe is validated like the liveness probe (validateProbe(p, &port, true)).
  if (rules.validateStartupProbes) errs = also(errs, viaField(validateProbe(objectField(container, "startupProbe"), servingPortName, rules), "startupProbe"));
  return also(errs, validate(container, volumes, "user", features));
}

/**
 * validateSidecarContainer (knative.dev/serving pkg/apis/serving/k8s_validation.go): with multi-container-probing
 * Enabled the probes follow the user rules except that ports must be given rather than match; otherwise any liveness
 * or readiness probe field is disallowed. [v0.44.2] Startup probes are not looked at.
 */
export function validateSidecarContainer(
  container: JsonObject,
  volumes: VolumesByName,
  features: FeaturesConfig,
  profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION],
): FieldError | undefined {
  const rules = profile.probes;
  let errs: FieldError | undefined;
  const liveness = objectField(container, "livenessProbe");
  const readiness = objectField(container, "readinessProbe");
  // From v0.50.0 the startup probe follows the liveness probe's rules.
  const startup = rules.validateStartupProbes ? objectField(container, "startupProbe") : undefined;
  if (features.multiContainerProbing !== "Enabled") {
    errs = also(errs, viaField(checkSidecarProbeDisallowed(liveness), "livenessProbe"));
    errs = also(errs, viaField(checkSidecarProbeDisallowed(readiness), "readinessProbe"));
    errs = also(errs, viaField(checkSidecarProbeDisallowed(startup), "startupProbe"));
  } else {
    errs = also(errs, viaField(validateProbe(liveness, undefined, rules), "livenessProbe"));
    errs = also(errs, viaField(validateReadinessProbe(readiness, undefined, rules), "readinessProbe"));
    errs = also(errs, viaField(validateProbe(startup, undefined, rules), "startupProbe"));
  }
  return also(errs, validate(container, volumes, "sidecar", features));
}

/**
 * validateInitContainer (knative.dev/serving pkg/apis/serving/k8s_validation.go): Kubernetes refuses probes and
 * lifecycle on init containers.
 */
export function validateInitContainer(
  container: JsonObject,
  volumes: VolumesByName,
  features: FeaturesConfig,
): FieldError | undefined {
  let errs: FieldError | undefined;
  for (const field of INIT_FORBIDDEN_FIELDS) {
    if (objectField(container, field) !== undefined) errs = also(errs, errGeneric("field not allowed in an init container", field));
  }
  return also(errs, validate(container, volumes, "init", features));
}

const INIT_FORBIDDEN_FIELDS = ["livenessProbe", "readinessProbe", "startupProbe", "lifecycle"] as const;

/**
 * Go's `validate` (knative.dev/serving pkg/apis/serving/k8s_validation.go): the rules every container kind shares.
 */
function validate(container: JsonObject, volumes: VolumesByName, kind: ContainerKind, features: FeaturesConfig): FieldError | undefined {
  // equality.Semantic.DeepEqual(container, corev1.Container{})
  if (isGoZero(container, CONTAINER_TYPE, true)) return errMissingField(CURRENT_FIELD);

  let errs = checkDisallowedFields(container, CONTAINER_MASK);
  const name = stringField(container, "name");
  if (RESERVED_CONTAINER_NAMES.has(name)) {
    errs = also(errs, errGeneric(`${goQuote(name)} is a reserved container name`, "name"));
  }
  errs = also(errs, viaField(validateEnv(arrayField(container, "env"), kind, features), "env"));
  errs = also(errs, viaField(validateEnvFrom(arrayField(container, "envFrom")), "envFrom"));

  const image = stringField(container, "image");
  if (image === "") {
    errs = also(errs, errMissingField("image"));
  } else {
    const parseError = parseImageReference(image);
    if (parseError !== undefined) {
      errs = also(
        errs,
        new FieldError({
          message: "Failed to parse image reference",
          paths: ["image"],
          details: `image: ${goQuote(image)}, error: ${parseError}`,
        }),
      );
    }
  }

  const ports = arrayField(container, "ports");
  errs = also(errs, viaField(kind === "init" ? validateInitContainerPorts(ports) : validateContainerPorts(ports), "ports"));
  errs = also(errs, viaField(validateResources(objectField(container, "resources")), "resources"));
  errs = also(errs, viaField(validateSecurityContext(objectField(container, "securityContext"), features), "securityContext"));

  const policy = stringField(container, "terminationMessagePolicy");
  if (policy !== "" && policy !== "File" && policy !== "FallbackToLogsOnError") {
    errs = also(errs, errInvalidValue(policy, "terminationMessagePolicy"));
  }
  return also(errs, viaField(validateVolumeMounts(arrayField(container, "volumeMounts"), volumes), "volumeMounts"));
}

function validateEnv(envVars: readonly unknown[], kind: ContainerKind, features: FeaturesConfig): FieldError | undefined {
  let errs: FieldError | undefined;
  for (let i = 0; i < envVars.length; i++) {
    // Past the bound, what the rest would add is dropped anyway.
    if (isFull(errs)) return withUncheckedEntries(errs, envVars.length - i);
    errs = also(errs, viaIndex(validateEnvVar(asStruct(envVars[i]), kind, features), i));
  }
  return errs;
}

function validateEnvVar(env: JsonObject, kind: ContainerKind, features: FeaturesConfig): FieldError | undefined {
  let errs = checkDisallowedFields(env, ENV_VAR_MASK);
  const name = stringField(env, "name");
  // getReservedEnvVarsPerContainerType: sidecars and init containers may use PORT.
  const reserved = kind === "user" ? RESERVED_ENV_VARS : RESERVED_SIDECAR_ENV_VARS;
  if (name === "") errs = also(errs, errMissingField("name"));
  else if (reserved.has(name)) errs = also(errs, errGeneric(`${goQuote(name)} is a reserved environment variable`, "name"));
  return also(errs, viaField(validateEnvValueFrom(objectField(env, "valueFrom"), features), "valueFrom"));
}

function validateEnvValueFrom(source: JsonObject | undefined, features: FeaturesConfig): FieldError | undefined {
  if (source === undefined) return undefined;
  return checkDisallowedFields(source, features.podSpecFieldRef !== "Disabled" ? ENV_VAR_SOURCE_WITH_FIELD_REF_MASK : ENV_VAR_SOURCE_MASK);
}

/**
 * validateEnvFrom. Quirks kept from Go: the one-of errors carry no `[i]`, and a `secretRef`/`configMapRef`
 * entry re-prefixes everything accumulated so far with `[i].secretRef` / `[i].configMapRef`.
 */
/**
 * Re-prefixed paths validateEnvFrom accumulates before it stops checking entries: each adds at least `[i]`
 * and a field name (about a dozen characters) to a rendered path, so past this many the message is longer
 * than MAX_RENDERED_ERROR_PATH_CHARS and cut anyway.
 */
const MAX_REPREFIXED_PATHS = MAX_RENDERED_ERROR_PATH_CHARS / 8;

function validateEnvFrom(envFromList: readonly unknown[]): FieldError | undefined {
  let errs: FieldError | undefined;
  // Paths re-prefixed so far: Go rewrites every path held at each re-prefix, so entries with errors make paths
  // (and the message) grow with the square of the list. Past MAX_REPREFIXED_PATHS the message is over
  // MAX_RENDERED_ERROR_PATH_CHARS anyway: the rest of the list is not checked.
  let reprefixed = 0;
  for (let i = 0; i < envFromList.length; i++) {
    if (isFull(errs) || reprefixed > MAX_REPREFIXED_PATHS) return withUncheckedEntries(errs, envFromList.length - i);
    const envFrom = asStruct(envFromList[i]);
    errs = also(errs, viaIndex(checkDisallowedFields(envFrom, ENV_FROM_SOURCE_MASK), i));
    const cm = objectField(envFrom, "configMapRef");
    const sm = objectField(envFrom, "secretRef");
    if (sm !== undefined) {
      errs = also(errs, viaIndex(checkDisallowedFields(sm, SECRET_ENV_SOURCE_MASK), i));
      // Go: errs.Also(CheckDisallowedFields(LocalObjectReference…)).ViaIndex(i).ViaField("secretRef"); the
      // LocalObjectReference mask copies its only field, so only the re-prefixing remains.
      reprefixed += heldPaths(errs);
      errs = viaField(viaIndex(errs, i), "secretRef");
    }
    if (cm !== undefined) {
      errs = also(errs, viaIndex(checkDisallowedFields(cm, CONFIG_MAP_ENV_SOURCE_MASK), i));
      reprefixed += heldPaths(errs);
      errs = viaField(viaIndex(errs, i), "configMapRef");
    }
    if (cm !== undefined && sm !== undefined) errs = also(errs, errMultipleOneOf("configMapRef", "secretRef"));
    else if (cm === undefined && sm === undefined) errs = also(errs, errMissingOneOf("configMapRef", "secretRef"));
  }
  return errs;
}

/** validateContainerPorts (user containers and sidecars): only the first port is looked at, without index. */
function validateContainerPorts(ports: readonly unknown[]): FieldError | undefined {
  if (ports.length === 0) return undefined;
  const userPort = asStruct(ports[0]);
  let errs = validateContainerPortBasic(userPort);
  const protocol = stringField(userPort, "protocol");
  if (protocol !== "" && protocol !== "TCP") errs = also(errs, errInvalidValue(protocol, "protocol"));
  const name = stringField(userPort, "name");
  if (!VALID_PORT_NAMES.has(name)) {
    errs = also(
      errs,
      new FieldError({
        message: `Port name ${name} is not allowed`,
        paths: [CURRENT_FIELD],
        details: "Name must be empty, or one of: 'h2c', 'http1'",
      }),
    );
  }
  return errs;
}

function validateInitContainerPorts(ports: readonly unknown[]): FieldError | undefined {
  let errs: FieldError | undefined;
  for (const p of ports) errs = also(errs, validateContainerPortBasic(asStruct(p)));
  return errs;
}

function validateContainerPortBasic(port: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(port, CONTAINER_PORT_MASK);
  const containerPort = numberField(port, "containerPort");
  if (RESERVED_PORTS.has(containerPort)) {
    errs = also(
      errs,
      errInvalidValue(`${containerPort} is a reserved port`, "containerPort", `${containerPort} is a reserved port, please use a different value`),
    );
  }
  if (containerPort < 0 || containerPort > 65535) errs = also(errs, errOutOfBoundsValue(containerPort, 0, 65535, "containerPort"));
  return errs;
}

function validateResources(resources: JsonObject | undefined): FieldError | undefined {
  return checkDisallowedFields(resources, RESOURCE_REQUIREMENTS_MASK);
}
