/**
 * `config-defaults` (serving v0.44.2 pkg/apis/config/defaults.go: NewDefaultsConfigFromMap): parse in Knative's
 * order, then the cross-key checks; the first error wins. The int64 keys are parsed and compared exactly
 * (configmap.AsInt64) and printed with all their digits, as Go's `%d` and `%v` print an int64. Container-name
 * templates are Go text/templates over the parent's ObjectMeta, checked by executing them against an empty
 * ObjectMeta.
 */
import { errOutOfBoundsValue, renderFieldError } from "../apis/field-error.js";
import { objectMetaValue } from "../apis/object-meta-template.js";
import { parseGoTemplate, type GoTemplate } from "../go/text/template/template.js";
import type { GoParse } from "../go/strconv/strconv.js";
import { asBool, asInt64, asQuantity, int64Value, lookup } from "./configmap-parse.js";
import { equalFoldAscii } from "../go/strings/fold.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "./profile.js";
import type { ConfigData } from "./types.js";
import type { DefaultsConfig } from "./types.js";

export const DEFAULTS_CONFIG_NAME = "config-defaults";

const TEMPLATE_NAME = "container-template";
const MAX_INT32 = 2147483647n;

export const DEFAULT_USER_CONTAINER_NAME = "user-container";
export const DEFAULT_INIT_CONTAINER_NAME = "init-container";

function constantName(name: string): (parentMeta: Readonly<Record<string, unknown>> | undefined) => string {
  return () => name;
}

/** ObjectMetaTemplate execution as Knative's containerNameFromTemplate does it: "" on an execution error. */
function templateNamer(t: GoTemplate): (parentMeta: Readonly<Record<string, unknown>> | undefined) => string {
  if (t.constant !== undefined) return constantName(t.constant);
  return (parentMeta) => {
    const r = t.execute(objectMetaValue(parentMeta));
    return r.ok ? r.value : "";
  };
}

export const DEFAULT_DEFAULTS: DefaultsConfig = Object.freeze({
  revisionTimeoutSeconds: 300,
  maxRevisionTimeoutSeconds: 600,
  revisionResponseStartTimeoutSeconds: 300,
  revisionIdleTimeoutSeconds: 0,
  containerConcurrency: 0,
  containerConcurrencyMaxLimit: 1000,
  allowContainerConcurrencyZero: true,
  enableServiceLinks: false,
  userContainerName: constantName(DEFAULT_USER_CONTAINER_NAME),
  initContainerName: constantName(DEFAULT_INIT_CONTAINER_NAME),
  revisionCpuRequest: undefined,
  revisionMemoryRequest: undefined,
  revisionEphemeralStorageRequest: undefined,
  revisionCpuLimit: undefined,
  revisionMemoryLimit: undefined,
  revisionEphemeralStorageLimit: undefined,
});

/** asTemplate: template.New("container-template").Parse(raw) with the release's Go; its error unwrapped. */
function asTemplate(data: ConfigData, key: string, fallback: string, profile: KnativeProfile): GoParse<GoTemplate> {
  const r = parseGoTemplate(TEMPLATE_NAME, lookup(data, key) ?? fallback, { maxStackDepth: profile.toolchain.templateMaxStackDepth });
  return r.ok ? { ok: true, value: r.template } : r;
}

/** asTriState: "true" / "false" (any case); any other value unsets the field. */
function asTriState(data: ConfigData, key: string, fallback: boolean | undefined): boolean | undefined {
  const raw = lookup(data, key);
  if (raw === undefined) return fallback;
  if (equalFoldAscii(raw, "true")) return true;
  if (equalFoldAscii(raw, "false")) return false;
  return undefined;
}

const QUANTITY_KEYS = [
  ["revision-cpu-request", "revisionCpuRequest"],
  ["revision-memory-request", "revisionMemoryRequest"],
  ["revision-ephemeral-storage-request", "revisionEphemeralStorageRequest"],
  ["revision-cpu-limit", "revisionCpuLimit"],
  ["revision-memory-limit", "revisionMemoryLimit"],
  ["revision-ephemeral-storage-limit", "revisionEphemeralStorageLimit"],
] as const;

type QuantityField = (typeof QUANTITY_KEYS)[number][1];

/**
 * NewDefaultsConfigFromMap. Quantities are kept as Go's `Quantity.String()` of the configured value (what the
 * webhook writes into the object).
 */
export function parseDefaultsConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): GoParse<DefaultsConfig> {
  const initTemplate = asTemplate(data, "init-container-name-template", DEFAULT_INIT_CONTAINER_NAME, profile);
  if (!initTemplate.ok) return initTemplate;
  const userTemplate = asTemplate(data, "container-name-template", DEFAULT_USER_CONTAINER_NAME, profile);
  if (!userTemplate.ok) return userTemplate;
  const allowZero = asBool(data, "allow-container-concurrency-zero", true, profile.configMapParse);
  if (!allowZero.ok) return allowZero;
  const enableServiceLinks = asTriState(data, "enable-service-links", false);
  const timeout = asInt64(data, "revision-timeout-seconds", 300n);
  if (!timeout.ok) return timeout;
  const maxTimeout = asInt64(data, "max-revision-timeout-seconds", 600n);
  if (!maxTimeout.ok) return maxTimeout;
  const idle = asInt64(data, "revision-idle-timeout-seconds", 0n);
  if (!idle.ok) return idle;
  const cc = asInt64(data, "container-concurrency", 0n);
  if (!cc.ok) return cc;
  const ccMax = asInt64(data, "container-concurrency-max-limit", 1000n);
  if (!ccMax.ok) return ccMax;
  const quantities: Partial<Record<QuantityField, string>> = {};
  for (const [key, field] of QUANTITY_KEYS) {
    const q = asQuantity(data, key);
    if (!q.ok) return q;
    if (q.value !== undefined) quantities[field] = q.value;
  }
  // The response-start timeout defaults to the (configured) revision timeout.
  const responseStart = asInt64(data, "revision-response-start-timeout-seconds", timeout.value);
  if (!responseStart.ok) return responseStart;

  const t = timeout.value;
  if (t > maxTimeout.value) return fail(`revision-timeout-seconds (${t}) cannot be greater than max-revision-timeout-seconds (${maxTimeout.value})`);
  if (responseStart.value > 0n && responseStart.value > t) {
    return fail(`revision-response-start-timeout-seconds (${responseStart.value}) cannot be greater than revision-timeout-seconds (${t})`);
  }
  if (idle.value > 0n && idle.value > t) return fail(`revision-idle-timeout-seconds (${idle.value}) cannot be greater than revision-timeout-seconds (${t})`);
  if (ccMax.value < 1n) return fail(renderFieldError(errOutOfBoundsValue(ccMax.value, 1n, MAX_INT32, "container-concurrency-max-limit")));
  if (cc.value < 0n || cc.value > ccMax.value) return fail(renderFieldError(errOutOfBoundsValue(cc.value, 0n, ccMax.value, "container-concurrency")));
  const empty = objectMetaValue(undefined);
  for (const tmpl of [userTemplate.value, initTemplate.value]) {
    const r = tmpl.execute(empty);
    if (!r.ok) return fail(`error executing template: ${r.error}`);
  }

  const value: DefaultsConfig = Object.freeze({
    revisionTimeoutSeconds: int64Value(t),
    maxRevisionTimeoutSeconds: int64Value(maxTimeout.value),
    revisionResponseStartTimeoutSeconds: int64Value(responseStart.value),
    revisionIdleTimeoutSeconds: int64Value(idle.value),
    containerConcurrency: int64Value(cc.value),
    containerConcurrencyMaxLimit: int64Value(ccMax.value),
    allowContainerConcurrencyZero: allowZero.value,
    enableServiceLinks,
    userContainerName: templateNamer(userTemplate.value),
    initContainerName: templateNamer(initTemplate.value),
    revisionCpuRequest: quantities.revisionCpuRequest,
    revisionMemoryRequest: quantities.revisionMemoryRequest,
    revisionEphemeralStorageRequest: quantities.revisionEphemeralStorageRequest,
    revisionCpuLimit: quantities.revisionCpuLimit,
    revisionMemoryLimit: quantities.revisionMemoryLimit,
    revisionEphemeralStorageLimit: quantities.revisionEphemeralStorageLimit,
  });
  return { ok: true, value };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
