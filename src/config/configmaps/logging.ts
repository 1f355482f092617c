/**
 * `config-logging` (knative/pkg logging NewConfigFromMap, spec §5.9): every non-empty `loglevel.<component>`
 * must be a zap level. `zap-logger-config` is not checked here.
 */
import type { ConfigData } from "../snapshot.js";
import { goLowerEquals } from "./go-case.js";

export const LOGGING_CONFIG_NAME = "config-logging";

const PREFIX = "loglevel.";
const LEVELS = ["debug", "info", "warn", "error", "dpanic", "panic", "fatal"] as const;

/** zapcore.Level.UnmarshalText: the exact lower or upper spelling, or its lower-cased form. */
function isZapLevel(text: string): boolean {
  for (const level of LEVELS) {
    if (text === level || text === level.toUpperCase() || goLowerEquals(text, level)) return true;
  }
  return false;
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
