/**
 * Volumes and volume mounts (serving `k8s_validation.go`: ValidateVolumes, validateVolume and its source
 * helpers, validateVolumeMounts; `fieldmask.go`: VolumeSourceMask, VolumeProjectionMask, … VolumeMountMask),
 * rules in docs/knative-behavior.md#volumes.
 */
import { cleanPath } from "../go/path/clean.js";
import { also, errGeneric, errInvalidValue, errMissingField, errMissingOneOf, errMultipleOneOf, viaField, viaFieldIndex, viaIndex, type FieldError, isFull, withUncheckedEntries } from "../apis/field-error.js";
import { goQuote } from "../go/strconv/quote.js";
import { isDNS1123Label } from "../go/apimachinery/validation.js";
import { parseQuantity, quantitySign } from "../go/apimachinery/quantity.js";
import type { FeaturesConfig, Flag } from "../config/types.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile, type VolumeFlagKey } from "../config/profile.js";
import {
  arrayField,
  asStruct,
  boolField,
  checkDisallowedFields,
  defineMask,
  objectField,
  stringField,
  type FieldMask,
  type JsonObject,
} from "./field-mask.js";

/**
 * Declared volumes by name (the last one wins, as Go's map assignment does), with how validateVolumeMounts treats
 * mounts of them under the request's flags and release (unset: Knative 1.17's rules).
 */
export interface VolumesByName extends ReadonlyMap<string, JsonObject> {
  readonly mountRules?: VolumeMountRules;
}

/** What validateVolumeMounts reads from config-features and the release. */
export interface VolumeMountRules {
  /** VolumeMountMask of the flags. */
  readonly mask: FieldMask;
  /** `kubernetes.podspec-volumes-mount-propagation`; undefined in a release without the flag (before v0.45.0). */
  readonly mountPropagation: Flag | undefined;
  /** Volume sources whose mounts may be writable (VolumeRules.writableSources). */
  readonly writableSources: readonly string[];
}

/**
 * The volume sources gated by a flag added after v0.44.2, in the order validateVolume (knative.dev/serving
 * pkg/apis/serving/k8s_validation.go, v0.50.0) reports their "support is disabled" errors. A release without the
 * flag (VolumeRules.flags) does not know the source: never copied by VolumeSourceMask, never one of the one-of.
 */
const GATED_SOURCES: ReadonlyArray<{ readonly source: string; readonly kind: string; readonly key: VolumeFlagKey; readonly flag: (f: FeaturesConfig) => Flag }> = [
  { source: "image", kind: "Image", key: "kubernetes.podspec-volumes-image", flag: (f) => f.podSpecVolumesImage },
  { source: "csi", kind: "CSI", key: "kubernetes.podspec-volumes-csi", flag: (f) => f.podSpecVolumesCSI },
  { source: "ephemeral", kind: "Ephemeral", key: "kubernetes.podspec-volumes-ephemeral", flag: (f) => f.podSpecVolumesEphemeral },
];
/** The same sources in the order validateVolume lists them as specified (and as one-of candidates). */
const GATED_SOURCE_ORDER = ["csi", "ephemeral", "image"] as const;

function gatedSources(profile: KnativeProfile): typeof GATED_SOURCES {
  return GATED_SOURCES.filter((g) => profile.volumes.flags.includes(g.key));
}

function gatedSource(profile: KnativeProfile, source: string): (typeof GATED_SOURCES)[number] | undefined {
  return GATED_SOURCES.find((g) => g.source === source && profile.volumes.flags.includes(g.key));
}

// VolumeSourceMask (knative.dev/serving pkg/apis/serving/fieldmask.go): secret, configMap, projected always;
// emptyDir, persistentVolumeClaim, hostPath, and from their flags' releases csi, ephemeral, image, unless their flag
// is Disabled.
const VOLUME_SOURCE_ALWAYS = ["secret", "configMap", "projected"] as const;
const volumeSourceMasks = new WeakMap<FeaturesConfig, Map<KnativeProfile, FieldMask>>();

function volumeSourceMask(features: FeaturesConfig, profile: KnativeProfile): FieldMask {
  let byProfile = volumeSourceMasks.get(features);
  if (byProfile === undefined) volumeSourceMasks.set(features, (byProfile = new Map()));
  let mask = byProfile.get(profile);
  if (mask === undefined) {
    const allowed: string[] = [...VOLUME_SOURCE_ALWAYS];
    if (features.podSpecVolumesEmptyDir !== "Disabled") allowed.push("emptyDir");
    if (features.podSpecPersistentVolumeClaim !== "Disabled") allowed.push("persistentVolumeClaim");
    if (features.podSpecVolumesHostPath !== "Disabled") allowed.push("hostPath");
    for (const g of gatedSources(profile)) if (g.flag(features) !== "Disabled") allowed.push(g.source);
    mask = defineMask("core.Volume", ["name", ...allowed]);
    byProfile.set(profile, mask);
  }
  return mask;
}

const VOLUME_PROJECTION_MASK = defineMask("core.VolumeProjection", ["secret", "configMap", "serviceAccountToken", "downwardAPI"]);
const CONFIG_MAP_PROJECTION_MASK = defineMask("core.ConfigMapProjection", ["name", "items", "optional"]);
const SECRET_PROJECTION_MASK = defineMask("core.SecretProjection", ["name", "items", "optional"]);
const SERVICE_ACCOUNT_TOKEN_PROJECTION_MASK = defineMask("core.ServiceAccountTokenProjection", ["audience", "expirationSeconds", "path"]);
// `out.Items = append(out.Items, in.Items...)`: `items: []` comes out nil, so it is "set" and not copied.
const DOWNWARD_API_PROJECTION_MASK = defineMask("core.DownwardAPIProjection", ["items"], { appended: ["items"] });
const DOWNWARD_API_VOLUME_FILE_MASK = defineMask("core.DownwardAPIVolumeFile", ["path", "fieldRef", "resourceFieldRef", "mode"]);
const KEY_TO_PATH_MASK = defineMask("core.KeyToPath", ["key", "path", "mode"]);
// VolumeMountMask: mountPropagation is copied only in a release with its flag and the flag not Disabled (v0.45.0;
// before, never); recursiveReadOnly and subPathExpr never.
const VOLUME_MOUNT_MASK = defineMask("core.VolumeMount", ["name", "readOnly", "mountPath", "subPath"]);
const VOLUME_MOUNT_WITH_PROPAGATION_MASK = defineMask("core.VolumeMount", ["name", "readOnly", "mountPath", "subPath", "mountPropagation"]);
const MOUNT_PROPAGATION_KEY: VolumeFlagKey = "kubernetes.podspec-volumes-mount-propagation";

/** The mount rules of a release under config-features. */
export function volumeMountRules(features: FeaturesConfig, profile: KnativeProfile): VolumeMountRules {
  const mountPropagation = profile.volumes.flags.includes(MOUNT_PROPAGATION_KEY) ? features.podSpecVolumesMountPropagation : undefined;
  return {
    mask: mountPropagation === undefined || mountPropagation === "Disabled" ? VOLUME_MOUNT_MASK : VOLUME_MOUNT_WITH_PROPAGATION_MASK,
    mountPropagation,
    writableSources: profile.volumes.writableSources,
  };
}

const DEFAULT_PROFILE = PROFILES[DEFAULT_KNATIVE_VERSION];
/** Mount rules of volumes without any (built outside validateVolumes, e.g. in tests): the default release's, flags off. */
const DEFAULT_MOUNT_RULES: VolumeMountRules = { mask: VOLUME_MOUNT_MASK, mountPropagation: DEFAULT_PROFILE.volumes.flags.includes(MOUNT_PROPAGATION_KEY) ? "Disabled" : undefined, writableSources: DEFAULT_PROFILE.volumes.writableSources };

const RESERVED_PATHS: ReadonlySet<string> = new Set(["/", "/dev", "/dev/log"]);

/** AllMountedVolumes: names mounted by any of the containers. */
export function allMountedVolumes(containerLists: readonly (readonly unknown[])[]): Set<string> {
  const names = new Set<string>();
  for (const containers of containerLists) {
    for (const c of containers) {
      for (const vm of arrayField(asStruct(c), "volumeMounts")) names.add(stringField(asStruct(vm), "name"));
    }
  }
  return names;
}

/** ValidateVolumes (knative.dev/serving pkg/apis/serving/k8s_validation.go): paths relative to `volumes`. */
export function validateVolumes(
  vs: readonly unknown[],
  mountedVolumes: ReadonlySet<string>,
  features: FeaturesConfig,
  profile: KnativeProfile = DEFAULT_PROFILE,
): { volumes: VolumesByName; errs: FieldError | undefined } {
  const volumes: Map<string, JsonObject> & { mountRules: VolumeMountRules } = Object.assign(new Map<string, JsonObject>(), {
    mountRules: volumeMountRules(features, profile),
  });
  let errs: FieldError | undefined;
  let unchecked = 0;
  for (let i = 0; i < vs.length; i++) {
    const volume = asStruct(vs[i]);
    const name = stringField(volume, "name");
    // Past the bound, what the entry would add is dropped anyway; the volumes are still all recorded.
    if (isFull(errs)) unchecked++;
    else {
      if (volumes.has(name)) {
        errs = also(errs, errGeneric(`duplicate volume name ${goQuote(name)}`, "name").viaIndex(i));
      }
      if (!mountedVolumes.has(name)) {
        errs = also(errs, errGeneric(`volume with name ${goQuote(name)} not mounted`, "name").viaIndex(i));
      }
      errs = also(errs, viaIndex(validateVolume(volume, features, profile), i));
    }
    volumes.set(name, volume);
  }
  return { volumes, errs: withUncheckedEntries(errs, unchecked) };
}

function validatePersistentVolumeClaims(volume: JsonObject, features: FeaturesConfig): FieldError | undefined {
  const pvc = objectField(volume, "persistentVolumeClaim");
  if (pvc === undefined) return undefined;
  let errs: FieldError | undefined;
  const claimName = stringField(pvc, "claimName");
  if (features.podSpecPersistentVolumeClaim !== "Enabled") {
    errs = also(errs, errGeneric(`Persistent volume claim support is disabled, but found persistent volume claim ${claimName}`));
  }
  if (!boolField(pvc, "readOnly") && features.podSpecPersistentVolumeWrite !== "Enabled") {
    errs = also(
      errs,
      errGeneric(`Persistent volume write support is disabled, but found persistent volume claim ${claimName} that is not read-only`),
    );
  }
  return errs;
}

/**
 * validateVolume (knative.dev/serving pkg/apis/serving/k8s_validation.go). Quirk kept from Go: a missing or invalid
 * name replaces every error found before it (the feature-flag errors), it is not added to them.
 */
function validateVolume(volume: JsonObject, features: FeaturesConfig, profile: KnativeProfile): FieldError | undefined {
  const name = stringField(volume, "name");
  let errs = validatePersistentVolumeClaims(volume, features);
  const image = gatedSource(profile, "image");
  if (image !== undefined) errs = also(errs, gatedSourceDisabled(volume, name, features, image));
  if (objectField(volume, "emptyDir") !== undefined && features.podSpecVolumesEmptyDir !== "Enabled") {
    errs = also(errs, errGeneric(`EmptyDir volume support is disabled, but found EmptyDir volume ${name}`));
  }
  if (objectField(volume, "hostPath") !== undefined && features.podSpecVolumesHostPath !== "Enabled") {
    errs = also(errs, errGeneric(`HostPath volume support is disabled, but found HostPath volume ${name}`));
  }
  for (const g of gatedSources(profile)) if (g.source !== "image") errs = also(errs, gatedSourceDisabled(volume, name, features, g));
  // VolumeMask copies the name and the whole VolumeSource: it never reports anything.
  if (name === "") errs = errMissingField("name");
  else if (isDNS1123Label(name).length !== 0) errs = errInvalidValue(name, "name");

  errs = also(errs, checkDisallowedFields(volume, volumeSourceMask(features, profile)));
  let specified: string[] | undefined;
  const secret = objectField(volume, "secret");
  if (secret !== undefined) {
    (specified ??= []).push("secret");
    errs = also(errs, validateItems(secret));
  }
  const configMap = objectField(volume, "configMap");
  if (configMap !== undefined) {
    (specified ??= []).push("configMap");
    errs = also(errs, validateItems(configMap));
  }
  const projected = objectField(volume, "projected");
  if (projected !== undefined) {
    (specified ??= []).push("projected");
    const sources = arrayField(projected, "sources");
    for (let i = 0; i < sources.length; i++) {
      errs = also(errs, viaFieldIndex(validateProjectedVolumeSource(asStruct(sources[i])), "projected", i));
    }
  }
  const emptyDir = objectField(volume, "emptyDir");
  if (emptyDir !== undefined) {
    (specified ??= []).push("emptyDir");
    errs = also(errs, viaField(validateEmptyDirFields(emptyDir), "emptyDir"));
  }
  if (objectField(volume, "persistentVolumeClaim") !== undefined) (specified ??= []).push("persistentVolumeClaim");
  if (objectField(volume, "hostPath") !== undefined) (specified ??= []).push("hostPath");
  for (const source of GATED_SOURCE_ORDER) {
    const src = objectField(volume, source);
    if (src === undefined || gatedSource(profile, source) === undefined) continue;
    (specified ??= []).push(source);
    if (source === "image") errs = also(errs, viaField(validateImageVolumeSource(src), "image"));
  }

  if (specified === undefined) {
    const fieldPaths = ["secret", "configMap", "projected"];
    if (features.podSpecVolumesEmptyDir === "Enabled") fieldPaths.push("emptyDir");
    if (features.podSpecPersistentVolumeClaim === "Enabled") fieldPaths.push("persistentVolumeClaim");
    if (features.podSpecVolumesHostPath === "Enabled") fieldPaths.push("hostPath");
    for (const source of GATED_SOURCE_ORDER) if (gatedSource(profile, source)?.flag(features) === "Enabled") fieldPaths.push(source);
    errs = also(errs, errMissingOneOf(...fieldPaths));
  } else if (specified.length > 1) {
    errs = also(errs, errMultipleOneOf(...specified));
  }
  return errs;
}

/** `<Kind> volume support is disabled, but found <Kind> volume <name>` unless the source's flag is Enabled. */
function gatedSourceDisabled(volume: JsonObject, name: string, features: FeaturesConfig, g: (typeof GATED_SOURCES)[number]): FieldError | undefined {
  if (objectField(volume, g.source) === undefined || g.flag(features) === "Enabled") return undefined;
  return errGeneric(`${g.kind} volume support is disabled, but found ${g.kind} volume ${name}`);
}

/**
 * validateImageVolumeSource (knative.dev/serving pkg/apis/serving/k8s_validation.go, v0.46.0+). ImageVolumeSourceMask
 * copies `reference` and `pullPolicy`, all the fields ImageVolumeSource has: it never reports anything.
 */
function validateImageVolumeSource(iv: JsonObject): FieldError | undefined {
  let errs: FieldError | undefined;
  if (stringField(iv, "reference") === "") errs = errMissingField("reference");
  const pullPolicy = stringField(iv, "pullPolicy");
  if (pullPolicy !== "" && pullPolicy !== "IfNotPresent" && pullPolicy !== "Always" && pullPolicy !== "Never") {
    errs = also(errs, errInvalidValue(pullPolicy, "pullPolicy"));
  }
  return errs;
}

/** `items` of a secret or configMap volume; the paths carry no `secret.`/`configMap.` segment (as in Go). */
function validateItems(source: JsonObject): FieldError | undefined {
  let errs: FieldError | undefined;
  const items = arrayField(source, "items");
  for (let i = 0; i < items.length; i++) errs = also(errs, viaFieldIndex(validateKeyToPath(asStruct(items[i])), "items", i));
  return errs;
}

function validateProjectedVolumeSource(vp: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(vp, VOLUME_PROJECTION_MASK);
  let specified: string[] | undefined;
  const secret = objectField(vp, "secret");
  if (secret !== undefined) {
    (specified ??= []).push("secret");
    errs = also(errs, viaField(validateSecretProjection(secret), "secret"));
  }
  const configMap = objectField(vp, "configMap");
  if (configMap !== undefined) {
    (specified ??= []).push("configMap");
    errs = also(errs, viaField(validateConfigMapProjection(configMap), "configMap"));
  }
  const serviceAccountToken = objectField(vp, "serviceAccountToken");
  if (serviceAccountToken !== undefined) {
    (specified ??= []).push("serviceAccountToken");
    errs = also(errs, viaField(validateServiceAccountTokenProjection(serviceAccountToken), "serviceAccountToken"));
  }
  const downwardAPI = objectField(vp, "downwardAPI");
  if (downwardAPI !== undefined) {
    (specified ??= []).push("downwardAPI");
    errs = also(errs, viaField(validateDownwardAPIProjection(downwardAPI), "downwardAPI"));
  }
  if (specified === undefined) errs = also(errs, errMissingOneOf("secret", "configMap", "serviceAccountToken", "downwardAPI"));
  else if (specified.length > 1) errs = also(errs, errMultipleOneOf(...specified));
  return errs;
}

// The LocalObjectReferenceMask checks of the two projections below copy `name`, the only field: omitted.
function validateConfigMapProjection(cmp: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(cmp, CONFIG_MAP_PROJECTION_MASK);
  if (stringField(cmp, "name") === "") errs = also(errs, errMissingField("name"));
  return also(errs, validateItems(cmp));
}

function validateSecretProjection(sp: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(sp, SECRET_PROJECTION_MASK);
  if (stringField(sp, "name") === "") errs = also(errs, errMissingField("name"));
  return also(errs, validateItems(sp));
}

function validateServiceAccountTokenProjection(sp: JsonObject): FieldError | undefined {
  const errs = checkDisallowedFields(sp, SERVICE_ACCOUNT_TOKEN_PROJECTION_MASK);
  // audience and expirationSeconds are optional.
  return stringField(sp, "path") === "" ? also(errs, errMissingField("path")) : errs;
}

function validateDownwardAPIProjection(dapi: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(dapi, DOWNWARD_API_PROJECTION_MASK);
  const items = arrayField(dapi, "items");
  for (let i = 0; i < items.length; i++) {
    errs = also(errs, viaFieldIndex(validateDownwardAPIVolumeFile(asStruct(items[i])), "items", i));
  }
  return errs;
}

function validateDownwardAPIVolumeFile(vf: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(vf, DOWNWARD_API_VOLUME_FILE_MASK);
  const fieldRef = objectField(vf, "fieldRef");
  const resourceFieldRef = objectField(vf, "resourceFieldRef");
  if (fieldRef === undefined && resourceFieldRef === undefined) errs = also(errs, errMissingOneOf("fieldRef", "resourceFieldRef"));
  if (fieldRef !== undefined && resourceFieldRef !== undefined) {
    errs = also(errs, errGeneric("Within a single item, cannot set both", "resourceFieldRef", "fieldRef"));
  }
  if (stringField(vf, "path") === "") errs = also(errs, errMissingField("path"));
  return errs;
}

function validateKeyToPath(k2p: JsonObject): FieldError | undefined {
  let errs = checkDisallowedFields(k2p, KEY_TO_PATH_MASK);
  if (stringField(k2p, "key") === "") errs = also(errs, errMissingField("key"));
  if (stringField(k2p, "path") === "") errs = also(errs, errMissingField("path"));
  return errs;
}

function validateEmptyDirFields(dir: JsonObject): FieldError | undefined {
  let errs: FieldError | undefined;
  const medium = stringField(dir, "medium");
  if (medium !== "" && medium !== "Memory") errs = also(errs, errInvalidValue(medium, "medium"));
  // `SizeLimit.Value() < 0`: Value() rounds away from zero, so any negative quantity is below zero.
  const sizeLimit = dir["sizeLimit"];
  if (typeof sizeLimit === "string") {
    const q = parseQuantity(sizeLimit);
    if (q.ok && quantitySign(q.quantity) < 0) errs = also(errs, errInvalidValue(sizeLimit, "sizeLimit"));
  }
  return errs;
}

/**
 * validateVolumeMounts of one container (knative.dev/serving pkg/apis/serving/k8s_validation.go): paths relative to
 * `volumeMounts`.
 */
export function validateVolumeMounts(mounts: readonly unknown[], volumes: VolumesByName): FieldError | undefined {
  const rules = volumes.mountRules ?? DEFAULT_MOUNT_RULES;
  let errs: FieldError | undefined;
  const seenMountPath = new Set<string>();
  for (let i = 0; i < mounts.length; i++) {
    // Past the bound, what the rest would add is dropped anyway (seenMountPath only feeds errors).
    if (isFull(errs)) return withUncheckedEntries(errs, mounts.length - i);
    const vm = asStruct(mounts[i]);
    errs = also(errs, viaIndex(checkDisallowedFields(vm, rules.mask), i));
    const name = stringField(vm, "name");
    const volume = volumes.get(name);
    // This also catches an empty name: a declared volume cannot have one.
    if (volume === undefined) errs = also(errs, errGeneric("volumeMount has no matching volume", "name").viaIndex(i));

    const mountPath = stringField(vm, "mountPath");
    const cleaned = cleanPath(mountPath);
    if (mountPath === "") {
      errs = also(errs, errMissingField("mountPath").viaIndex(i));
    } else if (RESERVED_PATHS.has(cleaned)) {
      errs = also(errs, errGeneric(`mountPath ${goQuote(cleaned)} is a reserved path`, "mountPath").viaIndex(i));
    } else if (!mountPath.startsWith("/")) {
      errs = also(errs, errInvalidValue(mountPath, "mountPath").viaIndex(i));
    } else if (seenMountPath.has(cleaned)) {
      errs = also(errs, errInvalidValue(`${goQuote(mountPath)} must be unique`, "mountPath").viaIndex(i));
    }
    seenMountPath.add(cleaned);

    // Only volumes of the writable sources may be mounted writable (a missing volume is of none).
    const readOnly = boolField(vm, "readOnly");
    const pvc = volume === undefined ? undefined : objectField(volume, "persistentVolumeClaim");
    const shouldCheckReadOnlyVolume = volume === undefined || !rules.writableSources.some((s) => objectField(volume, s) !== undefined);
    if (shouldCheckReadOnlyVolume && !readOnly) {
      errs = also(errs, errGeneric("volume mount should be readOnly for this type of volume", "readOnly").viaIndex(i));
    }
    if (pvc !== undefined && boolField(pvc, "readOnly") && !readOnly) {
      errs = also(errs, errGeneric("volume is readOnly but volume mount is not", "readOnly").viaIndex(i));
    }
    // v0.45.0+: a *MountPropagationMode, so any string (even "") is set.
    const propagation = vm["mountPropagation"];
    if (rules.mountPropagation !== undefined && typeof propagation === "string") {
      if (rules.mountPropagation !== "Enabled") {
        errs = also(errs, errGeneric(`Volume Mount Propagation support is disabled, but found volume mount ${name} with mount propagation`).viaIndex(i));
      }
      if (propagation !== "None" && propagation !== "HostToContainer") {
        errs = also(errs, errGeneric("mount propagation should be set to None or HostToContainer", "mountPropagation").viaIndex(i));
      }
    }
  }
  return errs;
}

export { cleanPath };
