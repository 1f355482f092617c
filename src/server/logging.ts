import { pino, symbols, type Logger } from "pino";
import type { ZapLevel } from "../config/configmaps/logging.js";
import { encodeLevel, encodeTime, KNATIVE_ZAP_LOGGER_CONFIG, parseZapLoggerConfig, type ZapFormat } from "./zap-format.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Log lines are gathered up to this many bytes before one write (an admission line is ≈ 340 bytes), instead of
 * one asynchronous write per line through libuv's thread pool: at info level that was 2 extra `write` and 4
 * `futex` calls per request (bench/README.md). At saturation a turn's lines go in one write anyway (TurnBatch); at
 * 1,000 req/s a turn holds one request's ≈ 1.2 kB, and 4 KiB made a write through the thread pool every two or
 * three requests (`strace -c`, 5 s: ≈ 2,450 log writes and 7,090 `futex` calls for 5,000 requests; ≈ 500 and
 * 2,900 with 32 KiB). FLUSH_INTERVAL_MS bounds how long a line can wait on a quiet server; pino flushes
 * synchronously on exit, and shutdown flushes explicitly.
 */
const BUFFER_BYTES = 32 * 1024;
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

/** What TurnBatch needs of sonic-boom (pino.destination). */
type SonicBoom = Omit<ReturnType<typeof pino.destination>, "write"> & {
  /** With `contentMode: "buffer"` (sonic-boom's writeBuffer). */
  write(chunk: Buffer): boolean;
  readonly _len?: number;
  readonly destroyed?: boolean;
  flushSync(): void;
};

/**
 * The lines of one event-loop turn, handed to sonic-boom as one Buffer (its `contentMode: "buffer"`). Given strings,
 * sonic-boom's write measures the UTF-8 length of its whole pending chunk on every call (`Buffer.byteLength(bufs[bufs.length - 1])`,
 * which flattens a chunk that grows while a write is in flight: called per line, that was 17 % of the busy main
 * thread at saturation, bench/README.md), fs.write encodes the chunk, and its `release` encodes it once more
 * (`releaseWritingBuf`: `Buffer.from(writingBuf)`) to slice off what was written. Given Buffers it keeps a list and
 * their lengths, and concatenates them once per write: a turn's text is encoded once, here. The backlog limit is
 * kept here, per line, so a line is dropped whole and counted as one.
 */
class TurnBatch {
  #pending = "";
  // The turn's lines in UTF-16 units, not UTF-8 bytes: Buffer.byteLength flattened every line once more than writing
  // them does (bench/allocation.mjs, info: Buffer.byteLength's allocation 2.1–2.8 kB per request, 1.7 kB without). sonic-boom counts what it is handed in bytes (its
  // `_len`); the two agree for ASCII lines, and multi-byte text is undercounted by at most what one turn holds.
  #pendingLength = 0;
  #scheduled = false;
  readonly #boom: SonicBoom;
  readonly #maxBufferedBytes: number;

  constructor(boom: SonicBoom, maxBufferedBytes: number) {
    this.#boom = boom;
    this.#maxBufferedBytes = maxBufferedBytes;
    // pino flushes sonic-boom synchronously on exit (on-exit-leak-free); lines of the last turn go first.
    process.once("exit", () => {
      if (this.#pending === "" || this.destroyed) return;
      this.#handOver();
      try {
        this.#boom.flushSync();
      } catch {
        // Closed or not ready: nothing more can be written at exit.
      }
    });
  }

  get destroyed(): boolean {
    return this.#boom.destroyed === true;
  }

  /** Whether lines wait here or in sonic-boom (its `_len`: the bytes it holds). */
  waiting(): boolean {
    return this.#pending !== "" || this.#boom._len !== 0;
  }

  write(line: string): boolean {
    const length = line.length;
    if ((this.#boom._len ?? 0) + this.#pendingLength + length > this.#maxBufferedBytes) {
      dropped++;
      return false;
    }
    this.#pending += line;
    this.#pendingLength += length;
    if (this.#pendingLength >= HAND_OVER_LENGTH) this.#handOver();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#turnEnded);
    }
    return true;
  }

  readonly #turnEnded = (): void => {
    this.#scheduled = false;
    this.#handOver();
  };

  #handOver(): void {
    if (this.#pending === "" || this.destroyed) return;
    const text = this.#pending;
    this.#pending = "";
    this.#pendingLength = 0;
    this.#boom.write(Buffer.from(text, "utf8"));
  }

  flush(cb?: (err?: Error) => void): void {
    this.#handOver();
    this.#boom.flush(cb);
  }

  flushSync(): void {
    this.#handOver();
    this.#boom.flushSync();
  }

  destroy(): void {
    this.#pending = "";
    (this.#boom as unknown as { destroy(): void }).destroy();
  }

  end(): void {
    this.#handOver();
    this.#boom.end();
  }
}

/** A turn's lines go to sonic-boom before the turn ends once they reach this length (UTF-16 units). */
const HAND_OVER_LENGTH = 64 * 1024;

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

/** What exactJsonValue answers for a text whose JSON value would not be written back as the same text. */
const NOT_EXACT: unique symbol = Symbol("not exact");

/** JSON.parse(text) where JSON.stringify writes the value back as `text` exactly; NOT_EXACT otherwise. */
function exactJsonValue(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return JSON.stringify(value) === text ? value : NOT_EXACT;
  } catch {
    return NOT_EXACT;
  }
}

/**
 * Members held as JSON text (`,"k":v,…`: the initial fields, pino's chindings) as an object, where JSON.stringify
 * writes them back exactly (no repeated key, numbers as written); undefined otherwise.
 */
function exactMembers(text: string): Record<string, unknown> | undefined {
  if (text === "") return {};
  const v = exactJsonValue("{" + text.slice(1) + "}");
  return v === NOT_EXACT ? undefined : (v as Record<string, unknown>);
}

const CHINDINGS = new Map<string, Record<string, unknown> | undefined>();
/** A process has few loggers (the root, a worker's child): their chindings are parsed once, up to this many. */
const MAX_CHINDINGS = 64;

function chindingsMembers(chindings: string): Record<string, unknown> | undefined {
  if (CHINDINGS.has(chindings)) return CHINDINGS.get(chindings);
  const m = exactMembers(chindings);
  if (CHINDINGS.size < MAX_CHINDINGS) CHINDINGS.set(chindings, m);
  return m;
}

/**
 * Sets `line[key]` where JSON.stringify(line) then writes it in insertion order, as zap writes keys: not a key
 * already there (zap would write it twice), not an integer-like key (objects list those first), not `__proto__`.
 */
function put(line: Record<string, unknown>, key: string, value: unknown): boolean {
  const c = key.charCodeAt(0);
  if ((c >= 0x30 && c <= 0x39) || key === "__proto__" || Object.hasOwn(line, key)) return false;
  line[key] = value;
  return true;
}

/**
 * A JSON line's keys and values in zap's order (level, time, logger name, caller, message, initial fields, the
 * logger's bindings, the line's fields), for one JSON.stringify to write the whole line: one native pass instead of a
 * string per key, value and separator. Undefined where that would not write what the field-by-field path does
 * (knativeAsJson): a key twice, an integer-like key, `err` (zap.Error's `error`), Errors, non-finite numbers, bigints.
 */
function lineObject(f: ZapFormat, level: ZapLevel, time: unknown, name: string, caller: string, message: string, initial: Record<string, unknown>, bound: Record<string, unknown>, obj: Record<string | symbol, unknown>): Record<string, unknown> | undefined {
  const line: Record<string, unknown> = {};
  if (f.levelKey !== "" && !put(line, f.levelKey, encodeLevel(f, level))) return undefined;
  if (f.timeKey !== "" && !put(line, f.timeKey, time)) return undefined;
  if (f.nameKey !== "" && !put(line, f.nameKey, name)) return undefined;
  if (caller !== "" && f.callerKey !== "" && !put(line, f.callerKey, caller)) return undefined;
  if (f.messageKey !== "" && !put(line, f.messageKey, message)) return undefined;
  for (const key in initial) if (!put(line, key, initial[key])) return undefined;
  for (const key in bound) if (!put(line, key, bound[key])) return undefined;
  for (const key in obj) {
    if (key === "err") return undefined;
    const v = obj[key];
    switch (typeof v) {
      case "undefined":
      case "function":
      case "symbol":
        continue;
      case "number":
        if (!Number.isFinite(v)) return undefined;
        break;
      case "bigint":
        return undefined;
      case "object":
        if (v instanceof Error) return undefined;
        break;
      default:
    }
    if (!put(line, key, v)) return undefined;
  }
  return line;
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
  let lastTimeValue: unknown = NOT_EXACT;
  let parts = jsonParts(holder.current, name);
  return function (obj, msg, num) {
    const f = holder.current;
    const now = Date.now();
    if (f !== lastFormat) {
      lastFormat = f;
      parts = jsonParts(f, name);
      lastMs = -1;
    }
    if (now !== lastMs) {
      lastMs = now;
      lastTime = encodeTime(f, now);
      lastTimeValue = f.timeKey === "" || f.encoding === "console" ? NOT_EXACT : exactJsonValue(lastTime);
    }
    const level = zapLevelOfPino(this.levels.labels[num] ?? "info");
    const callerValue = obj[CALLER];
    const caller = f.disableCaller ? "" : typeof callerValue === "string" ? callerValue : DEFAULT_CALLER;
    const message = msg === undefined ? "" : String(msg);
    const chindings = (this as unknown as Record<symbol, string>)[symbols.chindingsSym] ?? "";
    if (f.encoding !== "console" && parts.initialMembers !== undefined && (f.timeKey === "" || lastTimeValue !== NOT_EXACT)) {
      const bound = chindingsMembers(chindings);
      const line = bound === undefined ? undefined : lineObject(f, level, lastTimeValue, name, caller, message, parts.initialMembers, bound, obj);
      if (line !== undefined) {
        try {
          return JSON.stringify(line) + f.lineEnding;
        } catch {
          // A value JSON cannot serialise: the field-by-field path below writes "<unserializable>" for it.
        }
      }
    }
    let fields = parts.initialFields + chindings;
    for (const key in obj) {
      const v = obj[key];
      if (v === undefined) continue;
      const j = fieldJson(v);
      if (j === undefined) continue;
      fields += "," + (key === "err" ? '"error"' : keyJson(key)) + ":" + j;
    }
    if (f.encoding === "console") {
      const out: string[] = [];
      if (f.timeKey !== "") out.push(lastTime.startsWith('"') ? (JSON.parse(lastTime) as string) : lastTime);
      if (f.levelKey !== "") out.push(encodeLevel(f, level));
      if (f.nameKey !== "") out.push(name);
      if (caller !== "" && f.callerKey !== "") out.push(caller);
      if (f.messageKey !== "") out.push(message);
      if (fields !== "") out.push("{" + fields.slice(1) + "}");
      return out.join(f.consoleSeparator) + f.lineEnding;
    }
    let line = parts.level[level] + (f.timeKey === "" ? "" : parts.time + lastTime + ",") + parts.name;
    if (caller !== "" && f.callerKey !== "") line += parts.caller + keyJson(caller) + ",";
    if (f.messageKey !== "") line += parts.message + JSON.stringify(message) + ",";
    line = (fields === "" ? line.slice(0, -1) : line + fields.slice(1)) + "}";
    if (line === "}") line = "{}";
    return line + f.lineEnding;
  };
}

/**
 * The constant pieces of a JSON line in format `f`, rendered once per format: `{"severity":"info",` per level, the
 * time key, the logger name, the caller and message keys, and the initial fields.
 */
function jsonParts(f: ZapFormat, name: string): { level: Record<ZapLevel, string>; time: string; name: string; caller: string; message: string; initialFields: string; initialMembers: Record<string, unknown> | undefined } {
  const level = {} as Record<ZapLevel, string>;
  for (const l of ["debug", "info", "warn", "error", "dpanic", "panic", "fatal"] as const) level[l] = "{" + (f.levelKey === "" ? "" : JSON.stringify(f.levelKey) + ":" + JSON.stringify(encodeLevel(f, l)) + ",");
  let initialFields = "";
  for (const [k, v] of f.initialFields) {
    const j = fieldJson(v);
    if (j !== undefined) initialFields += "," + JSON.stringify(k) + ":" + j;
  }
  return {
    level,
    time: JSON.stringify(f.timeKey) + ":",
    name: f.nameKey === "" ? "" : JSON.stringify(f.nameKey) + ":" + JSON.stringify(name) + ",",
    caller: JSON.stringify(f.callerKey) + ":",
    message: JSON.stringify(f.messageKey) + ":",
    initialFields,
    initialMembers: exactMembers(initialFields),
  };
}

const KEY_JSON = new Map<string, string>();
/** Field keys (and callers) are few and constant: their JSON text is kept once made, up to this many. */
const MAX_KEY_JSON = 1024;

/** JSON.stringify of a field key, cached. */
function keyJson(key: string): string {
  let j = KEY_JSON.get(key);
  if (j === undefined) {
    j = JSON.stringify(key);
    if (KEY_JSON.size < MAX_KEY_JSON) KEY_JSON.set(key, j);
  }
  return j;
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
    // sonic-boom's types declare only its string write; contentMode "buffer" puts its writeBuffer in its place.
    const boom = pino.destination({ fd, sync: false, minLength: BUFFER_BYTES, maxWrite: MAX_WRITE_BYTES, contentMode: "buffer" }) as unknown as SonicBoom;
    const batch = new TurnBatch(boom, maxBufferedBytes);
    let reported = 0;
    // A failed write (stdout closed, EBADF, ...) must not take the webhook down: say so once on stderr and go on.
    let failed = false;
    boom.on("error", (err: Error) => {
      if (failed) return;
      failed = true;
      process.stderr.write(`duckbill: writing logs failed (${err.message}); admission continues\n`);
    });
    setInterval(() => {
      // Only when lines wait (flush() of an empty buffer still makes a write call). flush() throws once the stream
      // is closed (at exit); nothing is left to write then.
      if (!batch.destroyed && batch.waiting()) batch.flush();
      if (dropped !== reported && !batch.destroyed) {
        // Said once the backlog allows it, through the same stream (stderr would interleave with the JSON lines).
        batch.write(droppedLine(dropped - reported));
        reported = dropped;
      }
    }, FLUSH_INTERVAL_MS).unref();
    dest = batch;
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
