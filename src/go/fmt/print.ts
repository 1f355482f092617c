// fmt.Sprint (golang/go src/fmt/print.go) for the values Knative's validation code prints.
import { goFormatFloat } from "../strconv/ftoa.js";
import { compareByteOrder } from "../strings/compare.js";

/** A value that prints itself like its Go counterpart does under `%v` (e.g. a `time.Duration`). */
export interface GoStringer {
  goString(): string;
}

/**
 * Go's `fmt.Sprint(v)` for the values validation code passes: strings as-is; safe integers as Go
 * ints; other numbers as float64 `%v` (see `goFormatFloat`); booleans; null/undefined as `<nil>`;
 * arrays as `[a b c]`; `GoStringer`s via `goString()`; Maps and plain objects as Go maps
 * (`map[k:v …]`, keys sorted).
 */
export function goSprint(v: unknown): string {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
      return Number.isSafeInteger(v) ? String(v) : goFormatFloat(v);
    case "bigint":
      return v.toString();
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
      return "<nil>";
    case "object":
      return v === null ? "<nil>" : sprintObject(v);
    default:
      return String(v);
  }
}

function sprintObject(v: object): string {
  if (isGoStringer(v)) return v.goString();
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) out += (i > 0 ? " " : "") + goSprint(v[i]);
    return out + "]";
  }
  if (v instanceof Error) return v.message;
  const entries: Array<[unknown, unknown]> = v instanceof Map ? [...v.entries()] : Object.entries(v);
  const numeric = entries.every(([k]) => typeof k === "number");
  const keyed = entries.map(([k, val]) => ({ k, key: goSprint(k), val }));
  keyed.sort((a, b) => (numeric ? (a.k as number) - (b.k as number) : compareByteOrder(a.key, b.key)));
  return "map[" + keyed.map((e) => e.key + ":" + goSprint(e.val)).join(" ") + "]";
}

function isGoStringer(v: object): v is GoStringer {
  return typeof (v as { goString?: unknown }).goString === "function";
}

/** Wraps a number so `goSprint` prints it as a Go float64 even when it is integral (`1e+06`). */
export function goFloat64(v: number): GoStringer {
  return { goString: () => goFormatFloat(v) };
}
