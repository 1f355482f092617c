/**
 * The value types of the settings table (./options.ts): each parser checks one flag's or variable's text and says
 * which flag and variable it came from when the text is wrong.
 */
/** Go's time.ParseDuration for the simple forms people write (`45s`, `1m30s`, `500ms`, `0`), in ms. */
export function parseDurationMs(s: string, what: string): number {
  if (s === "0") return 0;
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * (unit[m[2] ?? "s"] ?? 0);
    matched = re.lastIndex;
  }
  if (matched !== s.length || s.length === 0) throw new Error(`${what} must be a duration such as 45s or 1m30s, got "${s}"`);
  return total;
}

export function parsePort(s: string, what: string, allowZero = false): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65535 || (!allowZero && n === 0)) throw new Error(`${what} must be a port number from ${allowZero ? 0 : 1} to 65535, got "${s}"`);
  return n;
}

export function parseCount(s: string, what: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(n)) throw new Error(`${what} must be a whole number (0 or more), got "${s}"`);
  return n;
}

const BYTE_SUFFIXES: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A byte count: digits with an optional binary suffix (`65536`, `64Ki`, `64Mi`, `1Gi`). */
export function parseBytes(s: string, what: string): number {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(s);
  const n = m === null ? NaN : Number(m[1]) * (BYTE_SUFFIXES[m[2] ?? ""] as number);
  if (!Number.isSafeInteger(n)) throw new Error(`${what} must be a byte count such as 67108864 or 64Mi, got "${s}"`);
  return n;
}

export function parseBool(s: string, what: string): boolean {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(s)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(s)) return false;
  throw new Error(`${what} must be true or false, got "${s}"`);
}

/** One of `values` exactly. */
export function parseOneOf<const T extends string>(values: readonly T[]): (v: string, what: string) => T {
  return (v, what) => {
    if ((values as readonly string[]).includes(v)) return v as T;
    throw new Error(`${what} must be ${orList(values)}, got "${v}"`);
  };
}

/** `auto`, or Go's strconv.ParseBool. */
export function parseAutoOrBool(v: string, what: string): "auto" | boolean {
  if (v === "auto") return "auto";
  if (["1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"].includes(v)) return parseBool(v, what);
  throw new Error(`${what} must be auto, true or false, got "${v}"`);
}

/** "a, b or c". */
function orList(values: readonly string[]): string {
  return values.length < 2 ? (values[0] ?? "") : `${values.slice(0, -1).join(", ")} or ${values[values.length - 1] as string}`;
}
