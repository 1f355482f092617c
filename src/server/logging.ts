import { pino, symbols, type Logger } from "pino";
import type { ZapLevel } from "../config/configmaps/logging.js";
import { encodeLevel, encodeTime, KNATIVE_ZAP_LOGGER_CONFIG, parseZapLoggerConfig, type ZapFormat } from "./zap-format.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Log lines are gathered up to this many bytes before one write (an admission line is ≈ 340 bytes), instead of
 * one asynchronous write per line through libuv's thread pool: at info level that was 2 extra `write` and 4
 * `futex` calls per request (bench/README.md). FLUSH_INTERVAL_MS bounds how long a line can wait on a quiet
 * server; pino flushes synchronously on exit, and shutdown flushes explicitly.
 */
const BUFFER_BYTES = 4096;
const FLUSH_INTERVAL_MS = 250;

/**
 * The most one write may carry. sonic-boom's default (16 KiB) let the backlog grow at saturation: one event-loop
 * turn answers dozens of requests (more than 16 KiB of lines) but completes one write, so old space grew by
 * ≈ 1 MB/s (bench/README.md, 2026-11-25). A write now takes everything waiting.
 */
const MAX_WRITE_BYTES = 1024 * 1024;

/**
 * Lines waiting for stdout beyond this are dropped (and counted) rather than held: a stalled log consumer must
 * not grow the webhook's memory without bound.
 */
export const MAX_BUFFERED_LOG_BYTES = 16 * 1024 * 1024;

let dropped = 0;

/** Log lines dropped so far because stdout did not keep up (see MAX_BUFFERED_LOG_BYTES). */
export function droppedLogLines(): number {
  return dropped;
}

let lastMs = -1;
let lastTime = "";

/**
 * pino's `stdTimeFunctions.isoTime` (`,"time":"<ISO 8601>"`), formatted once per millisecond: a busy server
 * writes many lines within the same millisecond, and `toISOString` was 1.5 % of the profile at saturation.
 */
function isoTimeCached(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = ',"time":"' + new Date(now).toISOString() + '"';
  }
  return lastTime;
}

/** Where createLogger writes when no destination stream is given (tests use other values). */
export interface LogFdOptions {
  /** The file descriptor (default 1, stdout). */
  readonly fd?: number;
  /** Bytes waiting for the descriptor beyond which lines are dropped (default MAX_BUFFERED_LOG_BYTES). */
  readonly maxBufferedBytes?: number;
}

/** `--log-format`: Knative's zap lines (config-logging's format) or Duckbill's earlier pino lines. */
export const LOG_FORMATS = ["knative", "pino"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** How the lines look: the format, and Knative's logger name, `commit` and `knative.dev/pod`. */
export interface LogStyle {
  /** Default "knative". */
  readonly format?: LogFormat;
  /** zap's logger name: the component (sharedmain's NewLoggerFromConfig(config, "webhook")). Default "webhook". */
  readonly name?: string;
  /** The `commit` field (knative.dev/pkg changeset.Get: the build's revision); absent: no field. */
  readonly commit?: string;
  /** The `knative.dev/pod` field (sharedmain SetupLoggerOrDie: system.PodName(), POD_NAME); absent or "": none. */
  readonly pod?: string;
}

/**
 * The field key (a symbol: pino's own lines never see it) that sets a line's `caller` in the Knative format: the
 * Knative source file and function the line mirrors. Lines without it say "duckbill".
 */
export const CALLER: unique symbol = Symbol("caller");
const DEFAULT_CALLER = "duckbill";

/** The logger's Knative format in effect (undefined for a pino-format logger). */
const formats = new WeakMap<object, { current: ZapFormat }>();

/** The zap format a Knative-format logger writes now; undefined for a pino-format logger. */
export function zapFormatOf(logger: Logger): ZapFormat | undefined {
  return rootOf(logger)?.current;
}

/** Changes the zap format of a Knative-format logger (and its children) from the next line on. */
export function setZapFormat(logger: Logger, format: ZapFormat): void {
  const holder = rootOf(logger);
  if (holder !== undefined) holder.current = format;
}

function rootOf(logger: Logger): { current: ZapFormat } | undefined {
  for (let o: object | null = logger; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const h = formats.get(o);
    if (h !== undefined) return h;
  }
  return undefined;
}

/** zap's level for a pino one: zap has no trace. */
function zapLevelOfPino(label: string): ZapLevel {
  return label === "trace" ? "debug" : (label as ZapLevel);
}

/** Knative's format when config-logging gives none (the zap-logger-config Knative Serving installs). */
export const DEFAULT_ZAP_FORMAT: ZapFormat = (() => {
  const r = parseZapLoggerConfig(KNATIVE_ZAP_LOGGER_CONFIG);
  if (!r.ok) throw new Error(r.error);
  return r.format;
})();

/** A field value as zap's JSON encoder writes it: an error as its message (zap.Error). */
function fieldJson(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : `"${String(value)}"`;
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return String(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    default:
      if (value instanceof Error) return JSON.stringify(value.message);
      try {
        return JSON.stringify(value);
      } catch {
        return '"<unserializable>"';
      }
  }
}

interface PinoInternals {
  readonly levels: { readonly labels: Readonly<Record<number, string>> };
}

/**
 * pino's line serializer replaced by zap's encoders (zapcore/json_encoder.go and console_encoder.go: EncodeEntry):
 * level, time, logger name, caller, message, the fields added before (initialFields, commit, knative.dev/pod, a
 * child's bindings), the line's own fields in the order given, the line ending. pino's `err` is zap.Error's `error`.
 */
function knativeAsJson(holder: { current: ZapFormat }, name: string): (this: PinoInternals, obj: Record<string | symbol, unknown>, msg: unknown, num: number) => string {
  let lastMs = -1;
  let lastFormat: ZapFormat | undefined;
  let lastTime = "";
  return function (obj, msg, num) {
    const f = holder.current;
    const now = Date.now();
    if (now !== lastMs || f !== lastFormat) {
      lastMs = now;
      lastFormat = f;
      lastTime = encodeTime(f, now);
    }
    const level = zapLevelOfPino(this.levels.labels[num] ?? "info");
    const caller = f.disableCaller ? "" : typeof obj[CALLER] === "string" ? obj[CALLER] : DEFAULT_CALLER;
    const message = msg === undefined ? "" : String(msg);
    let fields = "";
    for (const [k, v] of f.initialFields) {
      const j = fieldJson(v);
      if (j !== undefined) fields += "," + JSON.stringify(k) + ":" + j;
    }
    fields += (this as unknown as Record<symbol, string>)[symbols.chindingsSym] ?? "";
    for (const key in obj) {
      const v = obj[key];
      if (v === undefined) continue;
      const j = fieldJson(v);
      if (j === undefined) continue;
      fields += "," + (key === "err" ? '"error"' : JSON.stringify(key)) + ":" + j;
    }
    if (f.encoding === "console") {
      const parts: string[] = [];
      if (f.timeKey !== "") parts.push(lastTime.startsWith('"') ? (JSON.parse(lastTime) as string) : lastTime);
      if (f.levelKey !== "") parts.push(encodeLevel(f, level));
      if (f.nameKey !== "") parts.push(name);
      if (caller !== "" && f.callerKey !== "") parts.push(caller);
      if (f.messageKey !== "") parts.push(message);
      if (fields !== "") parts.push("{" + fields.slice(1) + "}");
      return parts.join(f.consoleSeparator) + f.lineEnding;
    }
    let line = "{";
    if (f.levelKey !== "") line += JSON.stringify(f.levelKey) + ":" + JSON.stringify(encodeLevel(f, level)) + ",";
    if (f.timeKey !== "") line += JSON.stringify(f.timeKey) + ":" + lastTime + ",";
    if (f.nameKey !== "") line += JSON.stringify(f.nameKey) + ":" + JSON.stringify(name) + ",";
    if (caller !== "" && f.callerKey !== "") line += JSON.stringify(f.callerKey) + ":" + JSON.stringify(caller) + ",";
    if (f.messageKey !== "") line += JSON.stringify(f.messageKey) + ":" + JSON.stringify(message) + ",";
    line = (fields === "" ? line.slice(0, -1) : line + fields.slice(1)) + "}";
    if (line === "}") line = "{}";
    return line + f.lineEnding;
  };
}

/**
 * Logs on stdout (or `destination`), in Knative's format unless `style.format` is "pino" (pino's JSON with
 * `level`, `time`, `component`, `msg`).
 */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream, fdOptions: LogFdOptions = {}, style: LogStyle = {}): Logger {
  const made: { logger?: Logger } = {};
  // Written past the logger (the backlog is what is full), in the logger's format.
  const droppedLine = (n: number): string => {
    const l = made.logger;
    if (l === undefined || zapFormatOf(l) === undefined) return `{"level":"warn","time":"${new Date().toISOString()}","component":"duckbill","dropped":${n},"msg":"log lines dropped: stdout did not keep up"}\n`;
    const asJson = (l as unknown as Record<symbol, (o: object, m: string, n: number, t: string) => string>)[symbols.asJsonSym];
    return asJson?.call(l, { dropped: n }, "log lines dropped: stdout did not keep up", l.levels.values.warn ?? 40, "") ?? "";
  };
  let dest: pino.DestinationStream | undefined = destination;
  if (dest === undefined) {
    const { fd = 1, maxBufferedBytes = MAX_BUFFERED_LOG_BYTES } = fdOptions;
    const boom = pino.destination({ fd, sync: false, minLength: BUFFER_BYTES, maxWrite: MAX_WRITE_BYTES, maxLength: maxBufferedBytes });
    let reported = 0;
    boom.on("drop", () => void dropped++);
    // A failed write (stdout closed, EBADF, ...) must not take the webhook down: say so once on stderr and go on.
    let failed = false;
    boom.on("error", (err: Error) => {
      if (failed) return;
      failed = true;
      process.stderr.write(`duckbill: writing logs failed (${err.message}); admission continues\n`);
    });
    setInterval(() => {
      // Only when lines wait (`_len`: the buffered length; flush() of an empty buffer still makes a write call).
      // flush() throws once the stream is closed (at exit); nothing is left to write then.
      const state = boom as unknown as { destroyed?: boolean; _len?: number };
      if (state.destroyed !== true && state._len !== 0) boom.flush();
      if (dropped !== reported && state.destroyed !== true) {
        // Said once the backlog allows it, through the same stream (stderr would interleave with the JSON lines).
        boom.write(droppedLine(dropped - reported));
        reported = dropped;
      }
    }, FLUSH_INTERVAL_MS).unref();
    dest = boom;
  }
  if (style.format === "pino") {
    made.logger = pino({ level, base: { component: "duckbill" }, timestamp: isoTimeCached, formatters: { level: (label) => ({ level: label }) } }, dest);
    return made.logger;
  }
  const base: Record<string, string> = {};
  if (style.commit !== undefined) base.commit = style.commit;
  if (style.pod !== undefined && style.pod !== "") base["knative.dev/pod"] = style.pod;
  const logger = pino({ level, base, timestamp: false }, dest);
  const holder = { current: DEFAULT_ZAP_FORMAT };
  formats.set(logger, holder);
  (logger as unknown as Record<symbol, unknown>)[symbols.asJsonSym] = knativeAsJson(holder, style.name ?? "webhook");
  made.logger = logger;
  return logger;
}

/**
 * Writes text, already formatted as log lines, into `logger`'s destination (the primary passing on its workers'
 * lines). The workers gathered those lines already: they are flushed on the next turn, not held again.
 */
export function rawLogWriter(logger: Logger): (text: string) => void {
  const stream = (logger as unknown as Record<symbol, { write(text: string): unknown; flush?: () => void; destroyed?: boolean } | undefined>)[symbols.streamSym];
  if (stream === undefined) throw new Error("the logger has no destination stream");
  let flushing = false;
  const flush = (): void => {
    flushing = false;
    try {
      if (stream.destroyed !== true) stream.flush?.();
    } catch {
      // Closed at exit: nothing is left to write.
    }
  };
  return (text) => {
    stream.write(text);
    if (flushing || stream.flush === undefined) return;
    flushing = true;
    setImmediate(flush);
  };
}
