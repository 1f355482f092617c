/**
 * Knative's log line format: zap's, as `config-logging`'s `zap-logger-config` configures it (knative.dev/pkg
 * logging/config.go: NewLogger, zapConfigFromJSON, stackdriverConfig) and as go.uber.org/zap's encoders write it
 * (zapcore/json_encoder.go: EncodeEntry; console_encoder.go: EncodeEntry; encoder.go: the level and time
 * encoders). docs/adr/0017-knative-log-format.md.
 */
import type { ZapLevel } from "../config/configmaps/logging.js";

export type LevelEncoder = "lowercase" | "capital" | "color" | "capitalColor" | "stackdriver";
export type TimeEncoder = "iso8601" | "rfc3339" | "rfc3339nano" | "millis" | "nanos" | "epoch";

export interface ZapFormat {
  readonly encoding: "json" | "console";
  readonly levelKey: string;
  readonly timeKey: string;
  readonly nameKey: string;
  readonly callerKey: string;
  readonly messageKey: string;
  readonly stacktraceKey: string;
  readonly levelEncoder: LevelEncoder;
  readonly timeEncoder: TimeEncoder;
  readonly lineEnding: string;
  readonly consoleSeparator: string;
  /** zap.Config's `disableCaller`. */
  readonly disableCaller: boolean;
  /** zap-logger-config's `level`. */
  readonly level: ZapLevel;
  /** zap.Config's `initialFields`, sorted by key (zap.Config.buildOptions). */
  readonly initialFields: readonly (readonly [string, unknown])[];
}

/**
 * Without zap-logger-config: knative.dev/pkg's stackdriverConfig, zapdriver.NewProductionConfig (zapdriver
 * encoder.go: encoderConfig; EncodeLevel's Stackdriver severities; RFC3339Nano times).
 */
export const STACKDRIVER_FORMAT: ZapFormat = Object.freeze({
  encoding: "json",
  levelKey: "severity",
  timeKey: "timestamp",
  nameKey: "logger",
  callerKey: "caller",
  messageKey: "message",
  stacktraceKey: "stacktrace",
  levelEncoder: "stackdriver",
  timeEncoder: "rfc3339nano",
  lineEnding: "\n",
  consoleSeparator: "\t",
  disableCaller: false,
  level: "info",
  initialFields: [],
});

/**
 * The zap-logger-config Knative Serving installs (config/core/configmaps/logging.yaml), which Duckbill uses when no
 * config-logging is read (offline, or a --config-dir without it): the same keys, lowercase levels, ISO 8601 times.
 * reference/harness/harness.go: zapConfig holds the same upstream text for the reference webhook.
 */
export const KNATIVE_ZAP_LOGGER_CONFIG = `{
  "level": "info",
  "development": false,
  "outputPaths": ["stdout"],
  "errorOutputPaths": ["stderr"],
  "encoding": "json",
  "encoderConfig": {
    "timeKey": "timestamp",
    "levelKey": "severity",
    "nameKey": "logger",
    "callerKey": "caller",
    "messageKey": "message",
    "stacktraceKey": "stacktrace",
    "lineEnding": "",
    "levelEncoder": "",
    "timeEncoder": "iso8601",
    "durationEncoder": "",
    "callerEncoder": ""
  }
}`;

const LEVELS: readonly ZapLevel[] = ["debug", "info", "warn", "error", "dpanic", "panic", "fatal"];

/** Go's encoding/json matches object keys to struct fields case-insensitively. */
function field(o: Record<string, unknown>, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function str(o: Record<string, unknown>, name: string, dflt: string, what: string): string {
  const v = field(o, name);
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "string") throw new Error(`json: cannot unmarshal ${typeof v} into Go struct field ${what}.${name} of type string`);
  return v;
}

/** zapcore.LevelEncoder.UnmarshalText. */
function levelEncoderOf(text: string): LevelEncoder {
  return text === "capital" ? "capital" : text === "capitalColor" ? "capitalColor" : text === "color" ? "color" : "lowercase";
}

/** zapcore.TimeEncoder.UnmarshalText. */
function timeEncoderOf(text: string): TimeEncoder {
  switch (text) {
    case "rfc3339nano":
    case "RFC3339Nano":
      return "rfc3339nano";
    case "rfc3339":
    case "RFC3339":
      return "rfc3339";
    case "iso8601":
    case "ISO8601":
      return "iso8601";
    case "millis":
      return "millis";
    case "nanos":
      return "nanos";
    default:
      return "epoch";
  }
}

/** zapcore.Level.UnmarshalText. */
function zapLevelOf(text: string): ZapLevel | undefined {
  if (text === "") return "info";
  return LEVELS.find((l) => text === l || text === l.toUpperCase() || text.toLowerCase() === l);
}

/**
 * zap-logger-config over stackdriverConfig (knative.dev/pkg logging/config.go: zapConfigFromJSON), then what
 * zap.Config.Build refuses (an encoding other than json and console). An empty or absent value is the
 * stackdriver configuration.
 */
export function parseZapLoggerConfig(json: string | undefined): { ok: true; format: ZapFormat } | { ok: false; error: string } {
  if (json === undefined || json === "") return { ok: true, format: STACKDRIVER_FORMAT };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  if (raw === null) return { ok: true, format: STACKDRIVER_FORMAT };
  if (typeof raw !== "object" || Array.isArray(raw)) return { ok: false, error: "json: cannot unmarshal into Go value of type zap.Config" };
  try {
    const c = raw as Record<string, unknown>;
    const d = STACKDRIVER_FORMAT;
    const levelText = str(c, "level", d.level, "Config");
    const level = zapLevelOf(levelText);
    if (level === undefined) return { ok: false, error: `unrecognized level: "${levelText}"` };
    const encoding = str(c, "encoding", d.encoding, "Config");
    if (encoding !== "json" && encoding !== "console") return { ok: false, error: `no encoder registered for name "${encoding}"` };
    const ecRaw = field(c, "encoderConfig");
    const ec = typeof ecRaw === "object" && ecRaw !== null ? (ecRaw as Record<string, unknown>) : {};
    const levelEnc = field(ec, "levelEncoder");
    const timeEnc = field(ec, "timeEncoder");
    const lineEnding = str(ec, "lineEnding", "", "EncoderConfig");
    const fieldsRaw = field(c, "initialFields");
    const initialFields = typeof fieldsRaw === "object" && fieldsRaw !== null ? Object.entries(fieldsRaw).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
    return {
      ok: true,
      format: {
        encoding,
        levelKey: str(ec, "levelKey", d.levelKey, "EncoderConfig"),
        timeKey: str(ec, "timeKey", d.timeKey, "EncoderConfig"),
        nameKey: str(ec, "nameKey", d.nameKey, "EncoderConfig"),
        callerKey: str(ec, "callerKey", d.callerKey, "EncoderConfig"),
        messageKey: str(ec, "messageKey", d.messageKey, "EncoderConfig"),
        stacktraceKey: str(ec, "stacktraceKey", d.stacktraceKey, "EncoderConfig"),
        levelEncoder: typeof levelEnc === "string" ? levelEncoderOf(levelEnc) : d.levelEncoder,
        timeEncoder: typeof timeEnc === "string" ? timeEncoderOf(timeEnc) : d.timeEncoder,
        // zapcore.EncoderConfig: an empty lineEnding is DefaultLineEnding; skipLineEnding drops it.
        lineEnding: field(ec, "skipLineEnding") === true ? "" : lineEnding === "" ? "\n" : lineEnding,
        consoleSeparator: str(ec, "consoleSeparator", "", "EncoderConfig") || "\t",
        disableCaller: field(c, "disableCaller") === true,
        level,
        initialFields,
      },
    };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** Stackdriver's severities (zapdriver encoder.go: logLevelSeverity). */
const STACKDRIVER: Readonly<Record<ZapLevel, string>> = { debug: "DEBUG", info: "INFO", warn: "WARNING", error: "ERROR", dpanic: "CRITICAL", panic: "ALERT", fatal: "EMERGENCY" };
/** zapcore/level.go: levelToColor. */
const COLOR: Readonly<Record<ZapLevel, number>> = { debug: 35, info: 34, warn: 33, error: 31, dpanic: 31, panic: 31, fatal: 31 };

/** The level as the format's level encoder writes it (zapcore/encoder.go). */
export function encodeLevel(f: ZapFormat, level: ZapLevel): string {
  switch (f.levelEncoder) {
    case "lowercase":
      return level;
    case "capital":
      return level.toUpperCase();
    case "color":
      return `\x1b[${COLOR[level]}m${level}\x1b[0m`;
    case "capitalColor":
      return `\x1b[${COLOR[level]}m${level.toUpperCase()}\x1b[0m`;
    case "stackdriver":
      return STACKDRIVER[level];
  }
}

const pad2 = (n: number): string => (n < 10 ? "0" : "") + n;
const pad3 = (n: number): string => (n < 10 ? "00" : n < 100 ? "0" : "") + n;

/** Go's `Z07:00` (colon) or `Z0700` for the local zone at `d`. */
function zone(d: Date, colon: boolean): string {
  const off = -d.getTimezoneOffset();
  if (off === 0) return "Z";
  const a = Math.abs(off);
  return (off < 0 ? "-" : "+") + pad2(Math.floor(a / 60)) + (colon ? ":" : "") + pad2(a % 60);
}

/**
 * The time as the format's time encoder writes it, a JSON value (a string or a number), in the local zone as Go's
 * time.Now() is. Node's clock has millisecond precision: RFC3339Nano shows at most three fractional digits.
 */
export function encodeTime(f: ZapFormat, ms: number): string {
  switch (f.timeEncoder) {
    case "millis":
      return String(ms);
    case "nanos":
      return `${ms}000000`;
    case "epoch":
      return String(ms / 1000);
    default: {
      const d = new Date(ms);
      const base = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}T${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
      const frac = d.getMilliseconds();
      if (f.timeEncoder === "iso8601") return `"${base}.${pad3(frac)}${zone(d, false)}"`;
      if (f.timeEncoder === "rfc3339") return `"${base}${zone(d, true)}"`;
      return `"${base}${frac === 0 ? "" : "." + pad3(frac).replace(/0+$/, "")}${zone(d, true)}"`;
    }
  }
}
