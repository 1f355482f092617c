/**
 * `config-deployment` as serving v0.44.2 parsed it (knative.dev/serving pkg/deployment/config.go: NewConfigFromMap;
 * unlike later releases: no queue-sidecar-tls-* keys, no pod-is-always-schedulable). Legacy camelCase
 * keys are parsed before the current ones; then the image, the two durations, the affinity type and the
 * runtime-class-name YAML are checked.
 */
import { Duration } from "../../go/time/duration.js";
import { goQuote } from "../../go/strconv/quote.js";
import { goStringList, isDNS1123Subdomain } from "../../go/apimachinery/validation.js";
import { asBool, asDuration, asQuantity, asString, lookup } from "../configmap-parse.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../profile.js";
import type { ConfigData } from "../types.js";
import { validatedSelectorFromSetError } from "../../go/apimachinery/label-selector.js";
import { STRING_MAP_TARGET, yamlUnmarshalInto, type Decoded, type JsonTarget } from "../../go/yaml/yaml-to-json.js";

export const DEPLOYMENT_CONFIG_NAME = "config-deployment";

const RUNTIME_CLASS_NAME_KEY = "runtime-class-name";
const QUANTITY_SUFFIXES = ["CPURequest", "MemoryRequest", "EphemeralStorageRequest", "CPULimit", "MemoryLimit", "EphemeralStorageLimit"] as const;
const QUANTITY_KEYS = [
  "queue-sidecar-cpu-request",
  "queue-sidecar-memory-request",
  "queue-sidecar-ephemeral-storage-request",
  "queue-sidecar-cpu-limit",
  "queue-sidecar-memory-limit",
  "queue-sidecar-ephemeral-storage-limit",
] as const;

/** map[string]deployment.RuntimeClassNameLabelSelector as encoding/json sees it. */
const RUNTIME_CLASS_NAMES: JsonTarget = {
  kind: "map",
  type: "map[string]deployment.RuntimeClassNameLabelSelector",
  elem: {
    kind: "struct",
    type: "deployment.RuntimeClassNameLabelSelector",
    name: "RuntimeClassNameLabelSelector",
    fields: [{ json: "selector", target: STRING_MAP_TARGET }],
  },
};

type Step = (data: ConfigData) => string | undefined;

function durationStep(key: string): Step {
  return (data) => {
    const r = asDuration(data, key, new Duration(0n));
    return r.ok ? undefined : r.error;
  };
}

function quantityStep(key: string): Step {
  return (data) => {
    const r = asQuantity(data, key);
    return r.ok ? undefined : r.error;
  };
}

/** The fallible parse steps in cm.Parse order (strings and string sets cannot fail). */
const PARSE_STEPS: readonly Step[] = [
  durationStep("progressDeadline"),
  durationStep("digestResolutionTimeout"),
  ...QUANTITY_SUFFIXES.map((s) => quantityStep(`queueSidecar${s}`)),
  durationStep("progress-deadline"),
  durationStep("digest-resolution-timeout"),
  ...QUANTITY_KEYS.map(quantityStep),
];

/** The duration a legacy/current key pair leaves (the current key wins); both already parsed cleanly. */
function effectiveDuration(data: ConfigData, legacy: string, current: string, fallback: Duration): Duration {
  for (const key of [current, legacy]) {
    const r = asDuration(data, key, fallback);
    if (r.ok && lookup(data, key) !== undefined) return r.value;
  }
  return fallback;
}

function checkRuntimeClassNames(raw: string): string | undefined {
  const parsed = yamlUnmarshalInto(raw, RUNTIME_CLASS_NAMES);
  if (!parsed.ok) return `${RUNTIME_CLASS_NAME_KEY} cannot be parsed, please check the format: ${parsed.error}`;
  const classes = parsed.value as ReadonlyMap<string, { readonly selector: Decoded }> | null;
  if (classes === null) return undefined;
  for (const [name, rcn] of classes) {
    const warns = isDNS1123Subdomain(name);
    if (warns.length > 0) return `${RUNTIME_CLASS_NAME_KEY} ${name} selector not valid DNSSubdomain: ${goStringList(warns)}`;
    const selector = rcn.selector as ReadonlyMap<string, string> | null;
    if (selector !== null && selector.size > 0) {
      const err = validatedSelectorFromSetError(selector);
      if (err !== undefined) return `${RUNTIME_CLASS_NAME_KEY} ${name} selector invalid: ${err}`;
    }
  }
  return undefined;
}

export function parseDeploymentConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): string | undefined {
  const rules = profile.configMapParse;
  for (const step of PARSE_STEPS) {
    const err = step(data);
    if (err !== undefined) return err;
  }
  for (const key of profile.deploymentBoolKeys) {
    const r = asBool(data, key, false, rules);
    if (!r.ok) return r.error;
  }
  const image = asString(data, "queue-sidecar-image", asString(data, "queueSidecarImage", "", rules), rules);
  if (image === "") return "queue-sidecar-image cannot be empty or unset";
  const progress = effectiveDuration(data, "progressDeadline", "progress-deadline", Duration.fromSeconds(600));
  if (progress.ns <= 0n) return `progress-deadline cannot be a non-positive duration, was ${progress}`;
  // deployment/config.go: `nc.ProgressDeadline.Truncate(time.Second) != nc.ProgressDeadline`.
  if (!progress.truncatesToWholeSeconds()) return `progress-deadline must be rounded to a whole second, was: ${progress}`;
  const digest = effectiveDuration(data, "digestResolutionTimeout", "digest-resolution-timeout", Duration.fromSeconds(10));
  if (digest.ns <= 0n) return `digest-resolution-timeout cannot be a non-positive duration, was ${digest}`;
  const affinity = lookup(data, "default-affinity-type");
  if (affinity !== undefined && affinity !== "none" && affinity !== "prefer-spread-revision-over-nodes") {
    return `unsupported default-affinity-type value: ${goQuote(affinity)}`;
  }
  return checkRuntimeClassNames(asString(data, RUNTIME_CLASS_NAME_KEY, "", rules));
}
