/**
 * RevisionSpec and ConfigurationSpec defaulting (docs/knative-behavior.md#revisionspec-defaults; serving v0.44.2
 * `revision_defaults.go`, `configuration_defaults.go`). Objects are Go-round-tripped JSON trees, changed
 * in place; what is written is what `json.Marshal` of the defaulted Go struct would hold.
 */
import { canonicalQuantityString } from "../go/apimachinery/quantity.js";
import type { DefaultsConfig, Flag, Int64 } from "../config/types.js";
import type { RequestContext } from "./context.js";
import { isInt64 } from "./field-mask.js";
import { applyDefaultContainerNames, collectContainerNames, hasUnnamedContainer } from "./container-names.js";
import { isJsonObject, type JsonObject } from "../go/encoding/json/json-value.js";


const NO_ITEMS: readonly unknown[] = [];

/**
 * RevisionSpec.SetDefaults. `parentMeta` is the Service/Configuration metadata the container-name
 * templates see (Knative's `apis.ParentMeta`); undefined for a standalone Revision.
 */
export function defaultRevisionSpec(spec: JsonObject, ctx: RequestContext, parentMeta: JsonObject | undefined): void {
  const { defaults, features } = ctx.config.admission;

  const timeout = spec["timeoutSeconds"];
  if (!isInt64(timeout) || timeout === 0) spec["timeoutSeconds"] = defaults.revisionTimeoutSeconds;
  const timeoutSeconds = spec["timeoutSeconds"] as Int64;
  // Idle and response-start defaults only when non-zero and below the revision timeout (a zero or
  // absent value means "no timer" to the queue proxy).
  if (isNil(spec["idleTimeoutSeconds"])) {
    const idle = defaults.revisionIdleTimeoutSeconds;
    if (idle < timeoutSeconds && idle !== 0) spec["idleTimeoutSeconds"] = idle;
  }
  if (isNil(spec["responseStartTimeoutSeconds"])) {
    const responseStart = defaults.revisionResponseStartTimeoutSeconds;
    if (responseStart < timeoutSeconds && responseStart !== 0) spec["responseStartTimeoutSeconds"] = responseStart;
  }
  if (isNil(spec["containerConcurrency"])) spec["containerConcurrency"] = defaults.containerConcurrency;

  const containers = arrayOf(spec["containers"]);
  const initContainers = arrayOf(spec["initContainers"]);
  if (containers.length === 0 && initContainers.length === 0) return;

  // Templates are rendered only when some container needs a name.
  const nameRegular = hasUnnamedContainer(containers);
  const nameInit = hasUnnamedContainer(initContainers);
  if (nameRegular || nameInit) {
    const taken = collectContainerNames(containers, initContainers);
    if (nameRegular) applyDefaultContainerNames(containers, taken, defaults.userContainerName(parentMeta));
    if (nameInit) applyDefaultContainerNames(initContainers, taken, defaults.initContainerName(parentMeta));
  }

  const podSecurityContext = objectOf(spec["securityContext"]);
  const flag = features.secureDefaults;
  const secure = flag === "Enabled" || flag === "AllowRootBounded";
  const keepRunAsNonRoot = ctx.config.profile.securePodDefaults.keepContainerRunAsNonRoot;
  const writable = writableVolumeNames(spec["volumes"], ctx.config.profile.volumes.writableSources);
  for (const c of containers) {
    if (!isJsonObject(c)) continue;
    defaultUserContainer(spec, c, containers.length, writable, ctx, defaults);
    if (secure) defaultSecurityContext(podSecurityContext, c, flag, keepRunAsNonRoot);
  }
  if (secure) {
    for (const c of initContainers) if (isJsonObject(c)) defaultSecurityContext(podSecurityContext, c, flag, keepRunAsNonRoot);
  }
}

/**
 * ConfigurationSpec.SetDefaults (also the ConfigurationSpec part of a Service). `previousSpec` is the
 * baseline's spec on UPDATE: when the template keeps its user-chosen name, nothing is defaulted, so
 * that defaulting never produces a template change that the BYO-name rule would reject
 * (knative.dev/serving pkg/apis/serving/v1/configuration_defaults.go: (*ConfigurationSpec).SetDefaults).
 */
export function defaultConfigurationSpec(
  spec: JsonObject,
  ctx: RequestContext,
  parentMeta: JsonObject | undefined,
  previousSpec: JsonObject | undefined,
): void {
  const template = ensureObject(spec, "template");
  if (previousSpec !== undefined) {
    const newName = templateName(template);
    if (newName !== "" && newName === templateName(objectOf(previousSpec["template"]))) return;
  }
  defaultRevisionSpec(ensureObject(template, "spec"), ctx, parentMeta);
}

function templateName(template: JsonObject | undefined): string {
  const name = objectOf(template?.["metadata"])?.["name"];
  return typeof name === "string" ? name : "";
}

/** applyDefault: resources, probes, enableServiceLinks and read-only mounts of one regular container. */
function defaultUserContainer(
  spec: JsonObject,
  container: JsonObject,
  containerCount: number,
  writableVolumes: ReadonlySet<string>,
  ctx: RequestContext,
  defaults: DefaultsConfig,
): void {
  defaultResources(container, defaults);

  // With several containers only the serving one (the one declaring a port) gets a readiness probe.
  if (containerCount === 1 || arrayOf(container["ports"]).length !== 0) defaultReadinessProbeHandler(container);
  defaultReadinessProbeThresholds(objectOf(container["readinessProbe"]));
  defaultGrpcService(objectOf(container["readinessProbe"]));
  defaultGrpcService(objectOf(container["livenessProbe"]));
  defaultGrpcService(objectOf(container["startupProbe"]));

  // Inside the per-container loop in Go, hence only with at least one container; CREATE only.
  if (isNil(spec["enableServiceLinks"]) && ctx.operation === "CREATE" && defaults.enableServiceLinks !== undefined) {
    spec["enableServiceLinks"] = defaults.enableServiceLinks;
  }

  for (const mount of arrayOf(container["volumeMounts"])) {
    if (!isJsonObject(mount)) continue;
    const name = typeof mount["name"] === "string" ? mount["name"] : "";
    if (!writableVolumes.has(name)) mount["readOnly"] = true;
  }
}

/**
 * Names of the volumes a container may mount writable (applyDefault): of the release's writable sources, emptyDir and
 * persistentVolumeClaim, and ephemeral from v0.50.0 (knative.dev/serving pkg/apis/serving/v1/revision_defaults.go).
 */
function writableVolumeNames(volumes: unknown, writableSources: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const v of arrayOf(volumes)) {
    if (!isJsonObject(v)) continue;
    if (writableSources.some((s) => !isNil(v[s]))) names.add(typeof v["name"] === "string" ? v["name"] : "");
  }
  return names;
}

/** `[resource name, request default, limit default]` in Go's order. */
const RESOURCE_DEFAULTS: ReadonlyArray<
  readonly [string, (d: DefaultsConfig) => string | undefined, (d: DefaultsConfig) => string | undefined]
> = [
  ["cpu", (d) => d.revisionCpuRequest, (d) => d.revisionCpuLimit],
  ["memory", (d) => d.revisionMemoryRequest, (d) => d.revisionMemoryLimit],
  ["ephemeral-storage", (d) => d.revisionEphemeralStorageRequest, (d) => d.revisionEphemeralStorageLimit],
];

function defaultResources(container: JsonObject, defaults: DefaultsConfig): void {
  for (const [name, request, limit] of RESOURCE_DEFAULTS) {
    const req = request(defaults);
    if (req !== undefined) setResourceIfAbsent(container, "requests", name, req);
    const lim = limit(defaults);
    if (lim !== undefined) setResourceIfAbsent(container, "limits", name, lim);
  }
}

function setResourceIfAbsent(container: JsonObject, list: "requests" | "limits", name: string, configured: string): void {
  const resources = ensureObject(container, "resources");
  const values = ensureObject(resources, list);
  if (!Object.hasOwn(values, name)) values[name] = marshalledQuantity(configured);
}

/** Configured quantity text → what Go's Quantity marshals to (e.g. `0.1` → `100m`); few distinct values. */
const quantityText = new Map<string, string>();

function marshalledQuantity(configured: string): string {
  let text = quantityText.get(configured);
  if (text === undefined) {
    const canonical = canonicalQuantityString(configured);
    text = canonical.ok ? canonical.value : configured;
    if (quantityText.size < 64) quantityText.set(configured, text);
  }
  return text;
}

/** applyUserContainerDefaultReadinessProbe: a probe without a handler probes TCP on the serving port. */
function defaultReadinessProbeHandler(container: JsonObject): void {
  const probe = ensureObject(container, "readinessProbe");
  if (isNil(probe["tcpSocket"]) && isNil(probe["httpGet"]) && isNil(probe["exec"]) && isNil(probe["grpc"])) {
    probe["tcpSocket"] = { port: 0 };
  }
}

/**
 * applyReadinessProbeDefaults (revision_defaults.go); Kubernetes' own thresholds only once a period is set
 * (docs/knative-behavior.md#revisionspec-defaults).
 */
function defaultReadinessProbeThresholds(probe: JsonObject | undefined): void {
  if (probe === undefined) return;
  if (isZero(probe["successThreshold"])) probe["successThreshold"] = 1;
  if (!isZero(probe["periodSeconds"])) {
    if (isZero(probe["failureThreshold"])) probe["failureThreshold"] = 3;
    if (isZero(probe["timeoutSeconds"])) probe["timeoutSeconds"] = 1;
  }
}

function defaultGrpcService(probe: JsonObject | undefined): void {
  const grpc = objectOf(probe?.["grpc"]);
  if (grpc !== undefined && isNil(grpc["service"])) grpc["service"] = "";
}

/**
 * secure-pod-defaults Enabled or AllowRootBounded (knative.dev/serving pkg/apis/serving/v1/revision_defaults.go:
 * (*RevisionSpec).defaultSecurityContext at v0.50.0; v0.44.2 knew only Enabled, and set `runAsNonRoot: true` whenever
 * the pod did not set it, overwriting a container's explicit `false`): allowPrivilegeEscalation, seccompProfile and
 * capabilities for both, runAsNonRoot for Enabled only. The pod securityContext is read, never written.
 */
function defaultSecurityContext(pod: JsonObject | undefined, container: JsonObject, flag: Flag, keepContainerRunAsNonRoot: boolean): void {
  const sc = ensureObject(container, "securityContext");
  if (isNil(sc["allowPrivilegeEscalation"])) sc["allowPrivilegeEscalation"] = false;

  const podSeccomp = objectOf(pod?.["seccompProfile"]);
  if (podSeccomp === undefined || isEmptyString(podSeccomp["type"])) {
    const seccomp = ensureObject(sc, "seccompProfile");
    if (isEmptyString(seccomp["type"])) seccomp["type"] = "RuntimeDefault";
  }

  if (isNil(sc["capabilities"])) {
    const capabilities: JsonObject = { drop: ["ALL"] };
    // NET_BIND_SERVICE lets the container bind a port below 1024 (a missing containerPort is 0).
    if (arrayOf(container["ports"]).some(isLowPort)) capabilities["add"] = ["NET_BIND_SERVICE"];
    sc["capabilities"] = capabilities;
  }

  // Enabled only; whether a container's own value stays is the release's (profile.securePodDefaults).
  if (flag === "Enabled" && isNil(pod?.["runAsNonRoot"]) && (!keepContainerRunAsNonRoot || isNil(sc["runAsNonRoot"]))) sc["runAsNonRoot"] = true;
}

function isLowPort(port: unknown): boolean {
  const n = isJsonObject(port) ? port["containerPort"] : undefined;
  return (typeof n === "number" ? n : 0) < 1024;
}

// ---------------------------------------------------------------------------------------------
// Reading Go-marshalled JSON: absent means the Go zero value.

function isNil(v: unknown): boolean {
  return v === undefined || v === null;
}

function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === 0;
}

function isEmptyString(v: unknown): boolean {
  return v === undefined || v === null || v === "";
}


function objectOf(v: unknown): JsonObject | undefined {
  return isJsonObject(v) ? v : undefined;
}

function arrayOf(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : NO_ITEMS;
}

/** The object at `parent[key]`, created when absent (a Go struct or map Go would allocate). */
function ensureObject(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isJsonObject(v)) return v;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}
