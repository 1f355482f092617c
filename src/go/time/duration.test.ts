import { describe, expect, it } from "vitest";
import { Duration, HOUR, MICROSECOND, MILLISECOND, MINUTE, NANOSECOND, SECOND, formatDuration, parseDuration } from "./duration.js";
import { goSprint } from "../fmt/print.js";

const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);

// Go's time_test.go parseDurationTests.
const PARSE: ReadonlyArray<readonly [string, bigint]> = [
  ["0", 0n],
  ["5s", 5n * SECOND],
  ["30s", 30n * SECOND],
  ["1478s", 1478n * SECOND],
  ["-5s", -5n * SECOND],
  ["+5s", 5n * SECOND],
  ["-0", 0n],
  ["+0", 0n],
  ["5.0s", 5n * SECOND],
  ["5.6s", 5n * SECOND + 600n * MILLISECOND],
  ["5.s", 5n * SECOND],
  [".5s", 500n * MILLISECOND],
  ["1.0s", SECOND],
  ["1.00s", SECOND],
  ["1.004s", SECOND + 4n * MILLISECOND],
  ["1.0040s", SECOND + 4n * MILLISECOND],
  ["100.00100s", 100n * SECOND + MILLISECOND],
  ["10ns", 10n * NANOSECOND],
  ["11us", 11n * MICROSECOND],
  ["12\u00b5s", 12n * MICROSECOND],
  ["12\u03bcs", 12n * MICROSECOND],
  ["13ms", 13n * MILLISECOND],
  ["14s", 14n * SECOND],
  ["15m", 15n * MINUTE],
  ["16h", 16n * HOUR],
  ["3h30m", 3n * HOUR + 30n * MINUTE],
  ["10.5s4m", 4n * MINUTE + 10n * SECOND + 500n * MILLISECOND],
  ["-2m3.4s", -(2n * MINUTE + 3n * SECOND + 400n * MILLISECOND)],
  ["1h2m3s4ms5us6ns", HOUR + 2n * MINUTE + 3n * SECOND + 4n * MILLISECOND + 5n * MICROSECOND + 6n],
  ["39h9m14.425s", 39n * HOUR + 9n * MINUTE + 14n * SECOND + 425n * MILLISECOND],
  ["52763797000ns", 52763797000n],
  ["0.3333333333333333333h", 20n * MINUTE],
  ["9007199254740993ns", (1n << 53n) + 1n],
  ["9223372036854775807ns", MAX],
  ["9223372036854775.807us", MAX],
  ["9223372036s854ms775us807ns", MAX],
  ["-9223372036854775808ns", MIN],
  ["-9223372036854775.808us", MIN],
  ["-9223372036s854ms775us808ns", MIN],
  ["-2562047h47m16.854775808s", MIN],
  ["0.100000000000000000000h", 6n * MINUTE],
  ["0.830103483285477580700h", 49n * MINUTE + 48n * SECOND + 372539827n],
  ["1h1s", HOUR + SECOND],
  ["15m", 15n * MINUTE],
];

// Go's parseDurationErrorTests, plus the missing-unit and unknown-unit texts.
const PARSE_ERRORS: ReadonlyArray<readonly [string, string]> = [
  ["", 'time: invalid duration ""'],
  ["3", 'time: missing unit in duration "3"'],
  ["-", 'time: invalid duration "-"'],
  ["s", 'time: invalid duration "s"'],
  [".", 'time: invalid duration "."'],
  ["-.", 'time: invalid duration "-."'],
  [".s", 'time: invalid duration ".s"'],
  ["+.s", 'time: invalid duration "+.s"'],
  ["1d", 'time: unknown unit "d" in duration "1d"'],
  ["\uFFFD", 'time: invalid duration "\\xef\\xbf\\xbd"'],
  ["\uFFFD hello \uFFFD world", 'time: invalid duration "\\xef\\xbf\\xbd hello \\xef\\xbf\\xbd world"'],
  ["9223372036854775810ns", 'time: invalid duration "9223372036854775810ns"'],
  ["9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'],
  ["-9223372036854775809ns", 'time: invalid duration "-9223372036854775809ns"'],
  ["9223372036854776us", 'time: invalid duration "9223372036854776us"'],
  ["3000000h", 'time: invalid duration "3000000h"'],
  ["9223372036854775.808us", 'time: invalid duration "9223372036854775.808us"'],
  ["9223372036854ms775us808ns", 'time: invalid duration "9223372036854ms775us808ns"'],
  ["abc", 'time: invalid duration "abc"'],
  ["fifteen", 'time: invalid duration "fifteen"'],
  ["10", 'time: missing unit in duration "10"'],
  ["1.5", 'time: missing unit in duration "1.5"'],
  ["1\u00b5x", 'time: unknown unit "\\xc2\\xb5x" in duration "1\\xc2\\xb5x"'],
  ["1S", 'time: unknown unit "S" in duration "1S"'],
  ["1 s", 'time: unknown unit " s" in duration "1 s"'],
  ['1"', 'time: unknown unit "\\"" in duration "1\\""'],
  ["00", 'time: missing unit in duration "00"'],
];

// Go's time_test.go durationTests.
const FORMAT: ReadonlyArray<readonly [string, bigint]> = [
  ["0s", 0n],
  ["1ns", 1n],
  ["1.1\u00b5s", 1100n],
  ["2.2ms", 2200n * MICROSECOND],
  ["3.3s", 3300n * MILLISECOND],
  ["4m5s", 4n * MINUTE + 5n * SECOND],
  ["4m5.001s", 4n * MINUTE + 5001n * MILLISECOND],
  ["5h6m7.001s", 5n * HOUR + 6n * MINUTE + 7001n * MILLISECOND],
  ["8m0.000000001s", 8n * MINUTE + 1n],
  ["2562047h47m16.854775807s", MAX],
  ["-2562047h47m16.854775808s", MIN],
  ["1h0m0s", HOUR],
  ["1m0s", MINUTE],
  ["1.5s", 1500n * MILLISECOND],
  ["500ms", 500n * MILLISECOND],
  ["-42s", -42n * SECOND],
  ["6s", 6n * SECOND],
  ["1h0m1s", HOUR + SECOND],
  ["30.5s", 30500n * MILLISECOND],
];

describe("parseDuration", () => {
  it.each(PARSE)("parses %j", (input, ns) => {
    const r = parseDuration(input);
    expect(r.ok && r.value.ns).toBe(ns);
  });

  it.each(PARSE_ERRORS)("rejects %j with Go's text", (input, error) => {
    expect(parseDuration(input)).toEqual({ ok: false, error });
  });
});

describe("Duration.String", () => {
  it.each(FORMAT)("prints %s", (text, ns) => {
    expect(formatDuration(ns)).toBe(text);
    expect(new Duration(ns).toString()).toBe(text);
  });

  it("prints through goSprint as Go's %v does", () => {
    expect(goSprint(new Duration(6n * SECOND))).toBe("6s");
    expect(`${new Duration(-SECOND)}`).toBe("-1s");
  });

  it("round-trips what it prints", () => {
    for (const [, ns] of FORMAT) {
      const r = parseDuration(formatDuration(ns));
      expect(r.ok && r.value.ns).toBe(ns);
    }
  });
});

describe("Duration helpers", () => {
  it("tells whole seconds apart from sub-second precision", () => {
    expect(new Duration(30n * SECOND).isWholeSeconds()).toBe(true);
    expect(new Duration(30500n * MILLISECOND).isWholeSeconds()).toBe(false);
    expect(new Duration(-2n * SECOND).isWholeSeconds()).toBe(true);
  });

  it("rounds and truncates as Go does at the int64 edges", () => {
    const max = (1n << 63n) - 1n;
    const min = -(1n << 63n);
    // Round saturates: the largest and smallest durations round to themselves, their neighbours to them.
    expect(new Duration(max).round(SECOND).ns).toBe(max);
    expect(new Duration(max - 1n).round(SECOND).ns).toBe(max);
    expect(new Duration(min).round(SECOND).ns).toBe(min);
    expect(new Duration(max).isWholeSeconds()).toBe(true);
    expect(new Duration(max - 1n).isWholeSeconds()).toBe(false);
    expect(new Duration(min).isWholeSeconds()).toBe(true);
    // Truncate goes toward zero and never saturates.
    expect(new Duration(max).truncate(SECOND).ns).toBe(9223372036n * SECOND);
    expect(new Duration(-1500n * MILLISECOND).truncate(SECOND).ns).toBe(-SECOND);
    expect(new Duration(max).truncatesToWholeSeconds()).toBe(false);
    expect(new Duration(-3n * SECOND).truncatesToWholeSeconds()).toBe(true);
    expect(new Duration(7n).truncate(0n).ns).toBe(7n);
  });

  it("converts to float seconds", () => {
    expect(new Duration(1500n * MILLISECOND).seconds()).toBe(1.5);
    expect(Duration.fromSeconds(60).ns).toBe(60n * SECOND);
  });
});
