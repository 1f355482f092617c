/**
 * `config-gc` (knative.dev/serving pkg/gc/config.go: NewConfigFromConfigMapFunc): durations and a revision cap that
 * may each be `disabled` (any case), a non-negative minimum, and min ≤ max unless max is disabled.
 */
import { parseDuration } from "../../go/time/duration.js";
import { parseUintBig } from "../../go/strconv/strconv.js";
import { asInt64, asString } from "../configmap-parse.js";
import { equalFoldAscii } from "../../go/strings/fold.js";
import { DEFAULT_PROFILE, type KnativeProfile } from "../profile.js";
import type { ConfigData } from "../types.js";

export const GC_CONFIG_NAME = "config-gc";

const MAX_INT64 = (1n << 63n) - 1n;
const DISABLED = -1n;

/** parseDisabledOrDuration: undefined when acceptable, else the error cause. */
function checkDisabledOrDuration(value: string): string | undefined {
  if (value === "" || equalFoldAscii(value, "disabled")) return undefined;
  const d = parseDuration(value);
  if (!d.ok) return d.error;
  return d.value.ns < 0n ? "must be non-negative" : undefined;
}

/** parseDisabledOrInt64: the configured cap (DISABLED for `disabled`), or the error cause. */
function parseDisabledOrInt64(value: string, fallback: bigint): { ok: true; value: bigint } | { ok: false; error: string } {
  if (value === "") return { ok: true, value: fallback };
  if (equalFoldAscii(value, "disabled")) return { ok: true, value: DISABLED };
  const u = parseUintBig(value, 10, 64);
  if (!u.ok) return u;
  // The int64 guard came with serving's gosec G115 fixes (autumn 2024); serving v0.42 still wrapped around.
  if (u.value > MAX_INT64) return { ok: false, error: `value should be lower than ${MAX_INT64}` };
  return u;
}

export function parseGcConfig(data: ConfigData, profile: KnativeProfile = DEFAULT_PROFILE): string | undefined {
  const rules = profile.configMapParse;
  const retainCreate = asString(data, "retain-since-create-time", "", rules);
  const retainActive = asString(data, "retain-since-last-active-time", "", rules);
  const min = asInt64(data, "min-non-active-revisions", 20n);
  if (!min.ok) return `failed to parse data: ${min.error}`;
  const maxRaw = asString(data, "max-non-active-revisions", "", rules);

  const createErr = checkDisabledOrDuration(retainCreate);
  if (createErr !== undefined) return `failed to parse retain-since-create-time: ${createErr}`;
  const activeErr = checkDisabledOrDuration(retainActive);
  if (activeErr !== undefined) return `failed to parse retain-since-last-active-time: ${activeErr}`;
  const max = parseDisabledOrInt64(maxRaw, 1000n);
  if (!max.ok) return `failed to parse max-non-active-revisions: ${max.error}`;
  if (min.value < 0n) return `min-non-active-revisions must be non-negative, was: ${min.value}`;
  if (max.value >= 0n && min.value > max.value) {
    return `min-non-active-revisions(${min.value}) must be <= max-non-active-revisions(${max.value})`;
  }
  return undefined;
}
