/**
 * Where two releases' profiles differ, leaf by leaf (`probes.validateStartupProbes`, `unknownK8sFields.core.PodSpec`),
 * what each difference means in a sentence, and a profile that differs from another in one leaf only: what
 * `duckbill upgrade-check` uses to say which difference between two releases makes an answer change.
 */
import type { KnativeProfile } from "./profile.js";
import { isJsonObject } from "../go/encoding/json/json-value.js";

/** One leaf of the profiles whose value differs. */
export interface ProfileChange {
  /** The path of the leaf in the profile object. */
  readonly path: readonly string[];
  /** `path` joined with dots, as reports name it. */
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
  /** What the leaf can change: the answers about objects, about ConfigMaps, or neither (runtime). */
  readonly scope: ProfileFieldScope;
}

/** `runtime`: the HTTP envelope or the webhook's own workings (certificates, webhook configurations), never an answer's content. */
export type ProfileFieldScope = "objects and ConfigMaps" | "ConfigMaps" | "runtime";

/** The leaves that name the release rather than a behavior. */
const IDENTITY = new Set(["version", "servingModule"]);


function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The first segment of a field decides its scope; fields not listed reach the answers about objects and ConfigMaps. */
const SCOPES: Readonly<Record<string, ProfileFieldScope>> = {
  bodyTooLargeStatus: "runtime",
  "toolchain.cleanPathRedirectStatus": "runtime",
  "toolchain.go": "runtime",
  namespaceOwnerController: "runtime",
  unvalidatedConfigMaps: "ConfigMaps",
  observabilitySchema: "ConfigMaps",
  deploymentBoolKeys: "ConfigMaps",
};

function scopeOf(field: string): ProfileFieldScope {
  return SCOPES[field] ?? SCOPES[field.split(".")[0] ?? ""] ?? "objects and ConfigMaps";
}

function collect(a: unknown, b: unknown, path: string[], out: ProfileChange[]): void {
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) if (!(path.length === 0 && IDENTITY.has(k))) collect(a[k], b[k], [...path, k], out);
    return;
  }
  if (sameValue(a, b)) return;
  const field = path.join(".");
  out.push({ path, field, from: a, to: b, scope: scopeOf(field) });
}

/** Every leaf where `to` differs from `from` (arrays and scalars are leaves), in the order of the field names. */
export function profileChanges(from: KnativeProfile, to: KnativeProfile): ProfileChange[] {
  const out: ProfileChange[] = [];
  collect(from, to, [], out);
  return out;
}

/** `to` with the one leaf of `change` set back to its value in the other release: what `to` would be without it. */
export function withoutChange(to: KnativeProfile, change: ProfileChange): KnativeProfile {
  const copy = structuredClone(to) as unknown as Record<string, unknown>;
  let node = copy;
  for (const key of change.path.slice(0, -1)) {
    if (!isJsonObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = change.path[change.path.length - 1] as string;
  if (change.from === undefined) delete node[last];
  else node[last] = structuredClone(change.from);
  return copy as unknown as KnativeProfile;
}

function list(v: unknown): string {
  return Array.isArray(v) && v.length > 0 ? v.join(", ") : "none";
}

function minus(a: unknown, b: unknown): string[] {
  const bs = new Set(Array.isArray(b) ? (b as unknown[]) : []);
  return (Array.isArray(a) ? (a as unknown[]) : []).filter((x) => !bs.has(x)).map(String);
}

type Describe = (from: unknown, to: unknown) => string;

/** A sentence per field, in terms of the release upgraded to. */
const DESCRIPTIONS: Readonly<Record<string, Describe>> = {
  "securePodDefaults.values": (a, b) => `secure-pod-defaults takes ${list(b)} (was ${list(a)}); any other value means Disabled`,
  "securePodDefaults.keepContainerRunAsNonRoot": (_a, b) =>
    b === true ? "secure-pod-defaults Enabled keeps a container's own runAsNonRoot" : "secure-pod-defaults Enabled sets runAsNonRoot: true over a container's own false",
  "securePodDefaults.silenceInsecureDefaultWarnings": (_a, b) =>
    Array.isArray(b) && b.length > 0 ? `no insecure-default warnings under secure-pod-defaults ${list(b)}` : "insecure-default warnings whatever secure-pod-defaults says",
  "volumes.flags": (a, b) => describeSets("volume flags", minus(b, a), minus(a, b)),
  "volumes.writableSources": (a, b) => describeSets("volume sources that may be mounted writable", minus(b, a), minus(a, b)),
  templateNetworkingAnnotations: (_a, b) =>
    b === undefined ? "revision template annotations under networking.knative.dev are not checked" : "a revision template annotation under networking.knative.dev other than the known ones is rejected",
  "probes.terminationGracePeriodSeconds": (_a, b) => (b === true ? "probes may set terminationGracePeriodSeconds" : "probes may not set terminationGracePeriodSeconds"),
  "probes.validateStartupProbes": (_a, b) => (b === true ? "startup probes are validated (the serving container's: one handler, a named port must be the serving port; a sidecar's: only with multi-container-probing)" : "startup probes are not validated"),
  labelKeyWording: (_a, b) => (b === true ? 'label-key errors are worded "a valid label key", "63 bytes"' : 'label-key errors are worded "a qualified name", "63 characters"'),
  "toolchain.jsonEmbeddedFieldNames": (_a, b) => (b === true ? "decode errors name embedded Go structs in field paths" : "decode errors leave embedded Go structs out of field paths"),
  "configMapParse.trimStrings": (_a, b) => (b === true ? "ConfigMap string values are trimmed" : "ConfigMap string values are read as written"),
  "configMapParse.wrapBoolErrors": (_a, b) => (b === true ? 'ConfigMap bool errors name the key (failed to parse "<key>")' : "ConfigMap bool errors do not name the key"),
  "configMapParse.intParser": (_a, b) => `ConfigMap int errors come from strconv.${String(b)}`,
  observabilitySchema: (_a, b) => `config-observability is read in the ${String(b)} schema`,
  unvalidatedConfigMaps: (a, b) => describeSets("ConfigMaps the webhook does not validate", minus(b, a), minus(a, b)),
  deploymentBoolKeys: (a, b) => describeSets("config-deployment bool keys", minus(b, a), minus(a, b)),
  bodyTooLargeStatus: (_a, b) => `bodies over 3 MiB are answered HTTP ${String(b)}`,
  "toolchain.cleanPathRedirectStatus": (_a, b) => `an unclean path is redirected with HTTP ${String(b)}`,
  "toolchain.go": (_a, b) => `built with ${String(b)}`,
  "toolchain.urlStrictColons": (_a, b) => (b === true ? "an http(s) URL's port starts at the host's first colon (a:1:2 is refused)" : "an http(s) URL's port starts at the host's last colon"),
  "toolchain.urlIpLiterals": (_a, b) => (b === true ? "URLs whose host is in brackets must hold an IPv6 address (url.Parse: invalid host, invalid IP-literal)" : "URLs whose host is in brackets are taken as written"),
  podSpecDryRun: (_a, b) =>
    b === "request"
      ? "the PodSpec dry run runs for every request with dryRun: true (kubectl apply --dry-run=server); kubernetes.podspec-dryrun and its annotation are gone"
      : "the PodSpec dry run follows kubernetes.podspec-dryrun and the features.knative.dev/podspec-dryrun annotation",
  namespaceOwnerController: (_a, b) => `the webhook configurations' owner reference to the system namespace has controller: ${String(b)}`,
  controllerFlags: (a, b) => describeSets("config-features flags only controllers read", minus(b, a), minus(a, b)),
};

function describeSets(what: string, added: readonly string[], removed: readonly string[]): string {
  const parts: string[] = [];
  if (added.length > 0) parts.push(`gains ${added.join(", ")}`);
  if (removed.length > 0) parts.push(`loses ${removed.join(", ")}`);
  return `the set of ${what} ${parts.join(" and ")}`;
}

/** unknownK8sFields.<type>: the Kubernetes fields a release's k8s.io/api lacks (its webhook drops them). */
function describeUnknownFields(type: string, from: unknown, to: unknown): string {
  const known = minus(from, to);
  const forgotten = minus(to, from);
  const parts: string[] = [];
  if (known.length > 0) parts.push(`knows ${type}.${known.join(`, ${type}.`)} (dropped before, now checked by the field masks)`);
  if (forgotten.length > 0) parts.push(`no longer knows ${type}.${forgotten.join(`, ${type}.`)} (dropped by the decoding round trip)`);
  return `the webhook ${parts.join(" and ")}`;
}

/** What the change means, in a sentence about the release upgraded to. */
export function describeProfileChange(change: ProfileChange): string {
  if (change.path[0] === "unknownK8sFields" && change.path.length === 2) return describeUnknownFields(change.path[1] as string, change.from, change.to);
  const describe = DESCRIPTIONS[change.field];
  return describe !== undefined ? describe(change.from, change.to) : `${change.field} is ${JSON.stringify(change.to) ?? "unset"} (was ${JSON.stringify(change.from) ?? "unset"})`;
}
