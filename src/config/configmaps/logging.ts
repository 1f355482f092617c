/**
 * `config-logging` (knative.dev/pkg logging/config.go: NewConfigFromMap): every non-empty `loglevel.<component>`
 * must be a zap level. `zap-logger-config` is not checked here.
 */
import { lookup } from "../configmap-parse.js";
import type { ConfigData } from "../types.js";
import { goLowerEquals } from "../../go/strings/lower.js";

export const LOGGING_CONFIG_NAME = "config-logging";

const PREFIX = "loglevel.";
const LEVELS = ["debug", "info", "warn", "error", "dpanic", "panic", "fatal"] as const;

export type ZapLevel = (typeof LEVELS)[number];

/** zapcore.Level.UnmarshalText: the exact lower or upper spelling, or its lower-cased form. */
function zapLevel(text: string): ZapLevel | undefined {
  for (const level of LEVELS) {
    if (text === level || text === level.toUpperCase() || goLowerEquals(text, level)) return level;
  }
  return undefined;
}

function isZapLevel(text: string): boolean {
  return zapLevel(text) !== undefined;
}

/**
 * The level `loglevel.<component>` gives a component (knative/pkg logging: an empty or absent value leaves the
 * zap configuration's level), or Knative's error for a value that is not a level.
 */
export function componentLogLevel(data: ConfigData, component: string): { ok: true; level: ZapLevel | undefined } | { ok: false; error: string } {
  const value = lookup(data, PREFIX + component);
  if (value === undefined || value.length === 0) return { ok: true, level: undefined };
  const level = zapLevel(value);
  return level === undefined ? { ok: false, error: `invalid logging level: ${value}` } : { ok: true, level };
}

export function parseLoggingConfig(data: ConfigData): string | undefined {
  for (const key of Object.keys(data)) {
    if (!key.startsWith(PREFIX) || key.length === PREFIX.length) continue;
    const value = data[key];
    if (value === undefined || value.length === 0) continue;
    if (!isZapLevel(value)) return `invalid logging level: ${value}`;
  }
  return undefined;
}
