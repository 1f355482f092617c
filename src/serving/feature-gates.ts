/**
 * Which `config-features` flag gates which part of a pod spec (knative.dev/serving pkg/apis/config/features.go,
 * pkg/apis/serving/fieldmask.go and k8s_validation.go; docs/knative-behavior.md#config-features; Knative 1.17's
 * keys and the later volume flags, per release through featureGatesOf), and which gated fields a given pod spec uses. Pure data and pure functions: `duckbill features` explains
 * flags with it, `duckbill features impact` and the server's impact warnings find the objects a flag
 * change would affect with `gatedFieldsUsed`.
 */
import { releaseHasFlag } from "../config/features.js";
import type { KnativeProfile } from "../config/profile.js";
import type { FeaturesConfig } from "../config/types.js";
import { arrayField, isGoZero, isJsonObject, objectField, structType, type JsonObject } from "./field-mask.js";

/** Knative's two kinds of flag: a feature stages a change to the portable API, an extension goes beyond it. */
export type GateType = "feature" | "extension";

/**
 * How the webhook reads the flag (docs/knative-behavior.md#config-features): `mask` = the field is allowed unless
 * Disabled (Allowed acts as Enabled); `enabled` = only Enabled permits it (Allowed acts as Disabled); `mask+enabled`
 * = both checks, so Allowed still denies with the flag's own message; `defaults` = changes defaulting, never denies
 * on its own; `dry-run` = a validation callback against the cluster; `controller` = read by controllers only, the
 * webhook ignores it.
 */
export type GateCheck = "mask" | "enabled" | "mask+enabled" | "defaults" | "dry-run" | "controller";

export interface FeatureGate {
  /** The `config-features` key. */
  readonly key: string;
  /** The matching field of FeaturesConfig. */
  readonly field: keyof FeaturesConfig;
  readonly type: GateType;
  readonly check: GateCheck;
  /** What the flag gates, in a few words. */
  readonly gates: string;
  /** Gated fields relative to a pod spec (`[*]` = every index); empty when the flag gates no field. */
  readonly fields: readonly string[];
  /** The webhook's message when a gated use is not permitted (`<…>` marks the variable parts). */
  readonly denial?: string;
  /** The flag gates the field itself (e.g. how many containers), not what lies inside it. */
  readonly wholeFieldOnly?: boolean;
  /**
   * The knative.dev/serving release that added the flag, for flags Knative 1.17 does not have; such a flag exists
   * only in the releases whose profile lists it (`volumes.flags`, featureGatesOf).
   */
  readonly since?: string;
}

const MASK_DENIAL = "must not set the field(s): <path>";

/**
 * Every flag of Knative 1.17's `config-features` (the keys of config/features.ts), in the order Knative's
 * documentation lists them, and the flags later releases added (`since`: the volume flags, a controller flag). Types follow knative.dev "Feature and extension flags"; flags the page does not
 * list are typed by the same rule it applies (a `kubernetes.*` pass-through is an extension).
 */
export const FEATURE_GATES: readonly FeatureGate[] = [
  {
    key: "multi-container",
    field: "multiContainer",
    type: "feature",
    check: "enabled",
    gates: "more than one container in a pod spec",
    fields: ["containers"],
    denial: "multi-container is off, but found <n> containers",
    wholeFieldOnly: true,
  },
  {
    key: "multi-container-probing",
    field: "multiContainerProbing",
    type: "feature",
    check: "enabled",
    gates: "probes on sidecar containers (the containers without ports)",
    fields: ["containers[*].livenessProbe", "containers[*].readinessProbe", "containers[*].startupProbe"],
    denial: MASK_DENIAL,
  },
  { key: "kubernetes.podspec-volumes-emptydir", field: "podSpecVolumesEmptyDir", type: "extension", check: "mask+enabled", gates: "emptyDir volumes", fields: ["volumes[*].emptyDir"], denial: "EmptyDir volume support is disabled, but found EmptyDir volume <name>" },
  { key: "kubernetes.podspec-persistent-volume-claim", field: "podSpecPersistentVolumeClaim", type: "extension", check: "mask+enabled", gates: "persistentVolumeClaim volumes", fields: ["volumes[*].persistentVolumeClaim"], denial: "Persistent volume claim support is disabled, but found persistent volume claim <claimName>" },
  {
    key: "kubernetes.podspec-persistent-volume-write",
    field: "podSpecPersistentVolumeWrite",
    type: "extension",
    check: "enabled",
    gates: "persistentVolumeClaim volumes that are not readOnly",
    fields: ["volumes[*].persistentVolumeClaim.readOnly"],
    denial: "Persistent volume write support is disabled, but found persistent volume claim <claimName> that is not read-only",
  },
  { key: "kubernetes.podspec-volumes-hostpath", field: "podSpecVolumesHostPath", type: "extension", check: "mask+enabled", gates: "hostPath volumes", fields: ["volumes[*].hostPath"], denial: "HostPath volume support is disabled, but found HostPath volume <name>" },
  // Volume flags added after v0.44.2 (knative.dev/serving pkg/apis/config/features.go; checked in
  // pkg/apis/serving/k8s_validation.go validateVolume and validateVolumeMounts, masked in fieldmask.go).
  { key: "kubernetes.podspec-volumes-csi", field: "podSpecVolumesCSI", type: "extension", check: "mask+enabled", gates: "csi volumes", fields: ["volumes[*].csi"], denial: "CSI volume support is disabled, but found CSI volume <name>", since: "v0.45.0" },
  {
    key: "kubernetes.podspec-volumes-mount-propagation",
    field: "podSpecVolumesMountPropagation",
    type: "extension",
    check: "mask+enabled",
    gates: "mountPropagation of volume mounts (None or HostToContainer)",
    fields: ["containers[*].volumeMounts[*].mountPropagation", "initContainers[*].volumeMounts[*].mountPropagation"],
    denial: "Volume Mount Propagation support is disabled, but found volume mount <name> with mount propagation",
    since: "v0.45.0",
  },
  { key: "kubernetes.podspec-volumes-image", field: "podSpecVolumesImage", type: "extension", check: "mask+enabled", gates: "image volumes", fields: ["volumes[*].image"], denial: "Image volume support is disabled, but found Image volume <name>", since: "v0.46.0" },
  { key: "kubernetes.podspec-volumes-ephemeral", field: "podSpecVolumesEphemeral", type: "extension", check: "mask+enabled", gates: "generic ephemeral volumes", fields: ["volumes[*].ephemeral"], denial: "Ephemeral volume support is disabled, but found Ephemeral volume <name>", since: "v0.50.0" },
  { key: "kubernetes.podspec-affinity", field: "podSpecAffinity", type: "extension", check: "mask", gates: "node and pod affinity", fields: ["affinity"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-hostaliases", field: "podSpecHostAliases", type: "extension", check: "mask", gates: "/etc/hosts entries (hostAliases)", fields: ["hostAliases"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-nodeselector", field: "podSpecNodeSelector", type: "extension", check: "mask", gates: "node selectors", fields: ["nodeSelector"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-tolerations", field: "podSpecTolerations", type: "extension", check: "mask", gates: "tolerations", fields: ["tolerations"], denial: MASK_DENIAL },
  {
    key: "kubernetes.podspec-fieldref",
    field: "podSpecFieldRef",
    type: "extension",
    check: "mask",
    gates: "the downward API in environment variables (fieldRef, resourceFieldRef)",
    fields: [
      "containers[*].env[*].valueFrom.fieldRef",
      "containers[*].env[*].valueFrom.resourceFieldRef",
      "initContainers[*].env[*].valueFrom.fieldRef",
      "initContainers[*].env[*].valueFrom.resourceFieldRef",
    ],
    denial: MASK_DENIAL,
  },
  { key: "kubernetes.podspec-priorityclassname", field: "podSpecPriorityClassName", type: "extension", check: "mask", gates: "pod priority classes", fields: ["priorityClassName"], denial: MASK_DENIAL },
  {
    key: "kubernetes.podspec-dryrun",
    field: "podSpecDryRun",
    type: "extension",
    check: "dry-run",
    gates: "a dry-run create of the derived pod against the API server (Allowed: per Service with the annotation features.knative.dev/podspec-dryrun)",
    fields: [],
  },
  { key: "kubernetes.podspec-runtimeclassname", field: "podSpecRuntimeClassName", type: "extension", check: "mask", gates: "runtime classes", fields: ["runtimeClassName"], denial: MASK_DENIAL },
  {
    key: "kubernetes.podspec-securitycontext",
    field: "podSpecSecurityContext",
    type: "extension",
    check: "mask",
    gates: "the pod securityContext (runAsUser, runAsGroup, runAsNonRoot, fsGroup, supplementalGroups, seccompProfile); secure-pod-defaults also permits it",
    fields: ["securityContext"],
    denial: MASK_DENIAL,
  },
  {
    key: "kubernetes.containerspec-addcapabilities",
    field: "containerSpecAddCapabilities",
    type: "extension",
    check: "enabled",
    gates: "adding Linux capabilities to containers",
    fields: ["containers[*].securityContext.capabilities.add", "initContainers[*].securityContext.capabilities.add"],
    denial: MASK_DENIAL,
  },
  {
    key: "domainmapping-direct-route-traffic",
    field: "domainMappingDirectRouteTraffic",
    type: "extension",
    check: "controller",
    gates: "DomainMappings routing straight to the Route's traffic (domainmapping reconciler)",
    fields: [],
    since: "v0.51.0",
  },
  { key: "tag-header-based-routing", field: "tagHeaderBasedRouting", type: "extension", check: "controller", gates: "routing by the Knative-Serving-Tag header (ingress reconciler)", fields: [] },
  {
    key: "kubernetes.podspec-init-containers",
    field: "podSpecInitContainers",
    type: "extension",
    check: "mask+enabled",
    gates: "init containers",
    fields: ["initContainers"],
    denial: "pod spec support for init-containers is off, but found <n> init containers",
  },
  { key: "queueproxy.mount-podinfo", field: "queueProxyMountPodInfo", type: "extension", check: "controller", gates: "pod info mounted into queue-proxy (Allowed: per Revision with the annotation features.knative.dev/queueproxy-podinfo)", fields: [] },
  { key: "kubernetes.podspec-topologyspreadconstraints", field: "podSpecTopologySpreadConstraints", type: "extension", check: "mask", gates: "topology spread constraints", fields: ["topologySpreadConstraints"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-dnspolicy", field: "podSpecDNSPolicy", type: "extension", check: "mask", gates: "the pod DNS policy", fields: ["dnsPolicy"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-schedulername", field: "podSpecSchedulerName", type: "extension", check: "mask", gates: "custom schedulers", fields: ["schedulerName"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-dnsconfig", field: "podSpecDNSConfig", type: "extension", check: "mask", gates: "the pod DNS config", fields: ["dnsConfig"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-shareprocessnamespace", field: "podSpecShareProcessNamespace", type: "extension", check: "mask", gates: "a process namespace shared by the pod's containers", fields: ["shareProcessNamespace"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-hostipc", field: "podSpecHostIPC", type: "extension", check: "mask", gates: "the host's IPC namespace", fields: ["hostIPC"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-hostpid", field: "podSpecHostPID", type: "extension", check: "mask", gates: "the host's PID namespace", fields: ["hostPID"], denial: MASK_DENIAL },
  { key: "kubernetes.podspec-hostnetwork", field: "podSpecHostNetwork", type: "extension", check: "mask", gates: "the host's network namespace", fields: ["hostNetwork"], denial: MASK_DENIAL },
  {
    key: "secure-pod-defaults",
    field: "secureDefaults",
    type: "feature",
    check: "defaults",
    gates: "secure container securityContext defaults (allowPrivilegeEscalation, seccompProfile, capabilities, runAsNonRoot); also permits the pod securityContext and capabilities.add [NET_BIND_SERVICE]; silences the insecure-default warnings",
    fields: [],
  },
  { key: "autodetect-http2", field: "autoDetectHTTP2", type: "feature", check: "controller", gates: "HTTP/2 auto-detection by queue-proxy", fields: [] },
  { key: "queueproxy.resource-defaults", field: "queueProxyResourceDefaults", type: "extension", check: "controller", gates: "default resource requests and limits for queue-proxy", fields: [] },
];

const BY_KEY = new Map(FEATURE_GATES.map((g) => [g.key, g]));

/** The gates of a release: the flags its config-features has (releaseHasFlag). */
export function featureGatesOf(profile: KnativeProfile): readonly FeatureGate[] {
  return FEATURE_GATES.filter((g) => releaseHasFlag(g.key, profile));
}

/**
 * The gate for a `config-features` key (exact, lower-case as Knative spells it); with a profile, only a flag of that
 * release.
 */
export function featureGate(key: string, profile?: KnativeProfile): FeatureGate | undefined {
  const gate = BY_KEY.get(key);
  return gate === undefined || profile === undefined || featureGatesOf(profile).includes(gate) ? gate : undefined;
}

/** One gated field a pod spec uses: the flag and the field's concrete path. */
export interface GatedFieldUse {
  readonly key: string;
  readonly path: string;
}

const POD_SPEC = structType("core.PodSpec");

/** Top-level pod spec fields gated by a mask flag, with the flag's key. */
const POD_FIELD_KEYS: ReadonlyArray<readonly [string, string]> = FEATURE_GATES.flatMap((g) =>
  g.check === "mask" && g.fields.length === 1 && /^[A-Za-z]+$/.test(g.fields[0] ?? "") ? [[g.fields[0] as string, g.key] as const] : [],
);

function isSetPodField(ps: JsonObject, field: string): boolean {
  const type = POD_SPEC.exact.get(field)?.type;
  return type !== undefined && Object.hasOwn(ps, field) && !isGoZero(ps[field], type);
}

/**
 * The gated fields a pod spec uses, in pod-spec order, each with the flag that gates it; `prefix` is prepended
 * to every path (e.g. `spec.template.spec.`). The pod spec should be in its Go round-tripped form (as the
 * webhook sees it after defaulting), where empty lists and maps are already gone. Which of the uses are
 * denied depends on the flag values; this lists them all.
 */
export function gatedFieldsUsed(podSpec: unknown, prefix = ""): GatedFieldUse[] {
  const out: GatedFieldUse[] = [];
  if (!isJsonObject(podSpec)) return out;
  for (const [field, key] of POD_FIELD_KEYS) {
    if (isSetPodField(podSpec, field)) out.push({ key, path: prefix + field });
  }
  const containers = arrayField(podSpec, "containers");
  if (containers.length > 1) {
    out.push({ key: "multi-container", path: `${prefix}containers` });
    for (let i = 0; i < containers.length; i++) {
      const c = containers[i];
      // A container without ports is a sidecar; its probes need multi-container-probing.
      if (!isJsonObject(c) || arrayField(c, "ports").length > 0) continue;
      for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
        if (objectField(c, probe) !== undefined) out.push({ key: "multi-container-probing", path: `${prefix}containers[${i}].${probe}` });
      }
    }
  }
  const initContainers = arrayField(podSpec, "initContainers");
  if (initContainers.length > 0) out.push({ key: "kubernetes.podspec-init-containers", path: `${prefix}initContainers` });
  containerUses(containers, `${prefix}containers`, out);
  containerUses(initContainers, `${prefix}initContainers`, out);
  const volumes = arrayField(podSpec, "volumes");
  for (let i = 0; i < volumes.length; i++) {
    const v = volumes[i];
    if (!isJsonObject(v)) continue;
    const at = `${prefix}volumes[${i}]`;
    if (objectField(v, "emptyDir") !== undefined) out.push({ key: "kubernetes.podspec-volumes-emptydir", path: `${at}.emptyDir` });
    if (objectField(v, "hostPath") !== undefined) out.push({ key: "kubernetes.podspec-volumes-hostpath", path: `${at}.hostPath` });
    const pvc = objectField(v, "persistentVolumeClaim");
    if (pvc !== undefined) {
      out.push({ key: "kubernetes.podspec-persistent-volume-claim", path: `${at}.persistentVolumeClaim` });
      if (pvc.readOnly !== true) out.push({ key: "kubernetes.podspec-persistent-volume-write", path: `${at}.persistentVolumeClaim.readOnly` });
    }
    if (objectField(v, "csi") !== undefined) out.push({ key: "kubernetes.podspec-volumes-csi", path: `${at}.csi` });
    if (objectField(v, "ephemeral") !== undefined) out.push({ key: "kubernetes.podspec-volumes-ephemeral", path: `${at}.ephemeral` });
    if (objectField(v, "image") !== undefined) out.push({ key: "kubernetes.podspec-volumes-image", path: `${at}.image` });
  }
  return out;
}

function containerUses(containers: readonly unknown[], at: string, out: GatedFieldUse[]): void {
  for (let i = 0; i < containers.length; i++) {
    const c = containers[i];
    if (!isJsonObject(c)) continue;
    const env = arrayField(c, "env");
    for (let j = 0; j < env.length; j++) {
      const e = env[j];
      const valueFrom = isJsonObject(e) ? objectField(e, "valueFrom") : undefined;
      if (valueFrom === undefined) continue;
      for (const ref of ["fieldRef", "resourceFieldRef"]) {
        if (objectField(valueFrom, ref) !== undefined) out.push({ key: "kubernetes.podspec-fieldref", path: `${at}[${i}].env[${j}].valueFrom.${ref}` });
      }
    }
    const mounts = arrayField(c, "volumeMounts");
    for (let j = 0; j < mounts.length; j++) {
      const m = mounts[j];
      if (isJsonObject(m) && typeof m.mountPropagation === "string") {
        out.push({ key: "kubernetes.podspec-volumes-mount-propagation", path: `${at}[${i}].volumeMounts[${j}].mountPropagation` });
      }
    }
    const capabilities = objectField(objectField(c, "securityContext") ?? {}, "capabilities");
    if (capabilities !== undefined && arrayField(capabilities, "add").length > 0) {
      out.push({ key: "kubernetes.containerspec-addcapabilities", path: `${at}[${i}].securityContext.capabilities.add` });
    }
  }
}

/**
 * The flags that gate a field path, for `features explain`. The path may be absolute
 * (`spec.template.spec.containers[0].env[1].valueFrom.fieldRef`) or relative to a pod spec, with or without
 * indices; a path inside a gated field (`affinity.nodeAffinity`) and a path above one (`volumes`) both match.
 */
export function gatesForFieldPath(path: string): FeatureGate[] {
  const wanted = normalizeFieldPath(path);
  if (wanted === "") return [];
  return FEATURE_GATES.filter((g) =>
    g.fields.some((f) => {
      const gated = normalizeFieldPath(f);
      return g.wholeFieldOnly === true ? gated === wanted : pathsOverlap(gated, wanted);
    }),
  );
}

const POD_SPEC_PREFIXES = ["spec.template.spec.", "template.spec.", "spec."];

/** Drops indices and the path to the pod spec: `spec.template.spec.containers[0].env` → `containers.env`. */
export function normalizeFieldPath(path: string): string {
  let p = path.trim().replace(/\[[^\]]*\]/g, "").replace(/^\.+|\.+$/g, "");
  for (const prefix of POD_SPEC_PREFIXES) {
    if (p.startsWith(prefix)) {
      p = p.slice(prefix.length);
      break;
    }
  }
  return p;
}

function pathsOverlap(gated: string, wanted: string): boolean {
  return gated === wanted || wanted.startsWith(gated + ".") || gated.startsWith(wanted + ".");
}
