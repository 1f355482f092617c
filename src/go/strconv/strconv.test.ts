import { describe, expect, it } from "vitest";
import { goQuote } from "./quote.js";
import { atoi, formatFloatFixed, parseBool, parseFloat, parseInt, parseIntBig, parseUint, parseUintBig, underscoreOK } from "./strconv.js";

const SYNTAX = "invalid syntax";
const RANGE = "value out of range";

function err(fn: string, input: string, cause: string): string {
  return `strconv.${fn}: parsing ${goQuote(input)}: ${cause}`;
}

// Rows from Go's strconv/atoi_test.go: [input, value or error cause].
type IntRow = readonly [string, bigint | typeof SYNTAX | typeof RANGE];

const PARSE_UINT64: readonly IntRow[] = [
  ["", SYNTAX],
  ["0", 0n],
  ["1", 1n],
  ["12345", 12345n],
  ["012345", 12345n],
  ["12345x", SYNTAX],
  ["98765432100", 98765432100n],
  ["18446744073709551615", (1n << 64n) - 1n],
  ["18446744073709551616", RANGE],
  ["18446744073709551620", RANGE],
  ["-1", SYNTAX],
  ["+1", SYNTAX],
  ["1_000", SYNTAX],
];

const PARSE_UINT64_BASE0: readonly IntRow[] = [
  ["", SYNTAX],
  ["0", 0n],
  ["0x", SYNTAX],
  ["0X", SYNTAX],
  ["1", 1n],
  ["12345", 12345n],
  ["012345", 0o12345n],
  ["0x12345", 0x12345n],
  ["0X12345", 0x12345n],
  ["12345x", SYNTAX],
  ["0xabcdefg123", SYNTAX],
  ["123456789abc", SYNTAX],
  ["98765432100", 98765432100n],
  ["18446744073709551615", (1n << 64n) - 1n],
  ["18446744073709551616", RANGE],
  ["18446744073709551620", RANGE],
  ["0xFFFFFFFFFFFFFFFF", (1n << 64n) - 1n],
  ["0x10000000000000000", RANGE],
  ["01777777777777777777777", (1n << 64n) - 1n],
  ["01777777777777777777778", SYNTAX],
  ["02000000000000000000000", RANGE],
  ["0200000000000000000000", 1n << 61n],
  ["0b1010", 10n],
  ["0o17", 15n],
  ["1_000", 1000n],
  ["0x_1f", 0x1fn],
  ["_1", SYNTAX],
  ["1__0", SYNTAX],
  ["10_", SYNTAX],
];

const PARSE_INT64: readonly IntRow[] = [
  ["", SYNTAX],
  ["9223372036.5s", SYNTAX],
  ["9999999999999999999x", SYNTAX],
  ["99999999999999999999x", RANGE],
  ["0", 0n],
  ["-0", 0n],
  ["1", 1n],
  ["-1", -1n],
  ["12345", 12345n],
  ["-12345", -12345n],
  ["012345", 12345n],
  ["-012345", -12345n],
  ["98765432100", 98765432100n],
  ["-98765432100", -98765432100n],
  ["9223372036854775807", (1n << 63n) - 1n],
  ["-9223372036854775807", -((1n << 63n) - 1n)],
  ["9223372036854775808", RANGE],
  ["-9223372036854775808", -(1n << 63n)],
  ["9223372036854775809", RANGE],
  ["-9223372036854775809", RANGE],
  ["+", SYNTAX],
  ["-", SYNTAX],
  ["+5", 5n],
  ["30.5", SYNTAX],
  [" 1", SYNTAX],
  ["1 ", SYNTAX],
  ["0x10", SYNTAX],
  // Overflow is reported before a later bad character, as Go scans left to right.
  ["99999999999999999999x", RANGE],
];

const PARSE_INT64_BASES: ReadonlyArray<readonly [string, number, bigint | string]> = [
  ["g", 17, 16n],
  ["10", 25, 25n],
  ["holycow", 35, BigInt((((((17 * 35 + 24) * 35 + 21) * 35 + 34) * 35 + 12) * 35 + 24) * 35 + 32)],
  ["holycow", 36, BigInt((((((17 * 36 + 24) * 36 + 21) * 36 + 34) * 36 + 12) * 36 + 24) * 36 + 32)],
  ["0", 2, 0n],
  ["-1", 2, -1n],
  ["1010", 2, 10n],
  ["111111111111111111111111111111111111111111111111111111111111111", 2, (1n << 63n) - 1n],
  ["1000000000000000000000000000000000000000000000000000000000000000", 2, RANGE],
  ["-1000000000000000000000000000000000000000000000000000000000000000", 2, -(1n << 63n)],
  ["-1000000000000000000000000000000000000000000000000000000000000001", 2, RANGE],
  ["-10", 8, -8n],
  ["57635436545", 8, 0o57635436545n],
  ["10", 16, 16n],
  ["-123456789abcdef", 16, -0x123456789abcdefn],
  ["7fffffffffffffff", 16, (1n << 63n) - 1n],
  ["-0X12345", 0, -0x12345n],
  ["-012345", 0, -0o12345n],
];

const PARSE_INT32: readonly IntRow[] = [
  ["", SYNTAX],
  ["0", 0n],
  ["-0", 0n],
  ["12345x", SYNTAX],
  ["-12345x", SYNTAX],
  ["987654321", 987654321n],
  ["-987654321", -987654321n],
  ["2147483647", 2147483647n],
  ["-2147483647", -2147483647n],
  ["2147483648", RANGE],
  ["-2147483648", -2147483648n],
  ["2147483649", RANGE],
  ["-2147483649", RANGE],
  ["99999999999", RANGE],
  // A prefix that overflows is a range error even when a bad character follows (Go 1.26.8's answers).
  ["9223372036.5s", RANGE],
  ["-9223372036.5s", RANGE],
  ["4294967296x", RANGE],
  ["2147483648x", SYNTAX],
  ["429496729x", SYNTAX],
  ["12345678901234_", RANGE],
  ["99999999999999999999x", RANGE],
  ["1e400x", SYNTAX],
];

const PARSE_UINT32: readonly IntRow[] = [
  ["", SYNTAX],
  ["4294967295", 4294967295n],
  ["4294967296", RANGE],
  ["-3", SYNTAX],
  ["9223372036.5s", RANGE],
  ["-9223372036.5s", SYNTAX],
  ["4294967296x", RANGE],
  ["2147483648x", SYNTAX],
  ["9999999999999999999x", RANGE],
];

function expectInt(r: ReturnType<typeof parseIntBig>, fn: string, input: string, want: bigint | string): void {
  if (typeof want === "bigint") expect(r).toEqual({ ok: true, value: want });
  else expect(r).toEqual({ ok: false, error: err(fn, input, want) });
}

describe("ParseUint", () => {
  it.each(PARSE_UINT64)("ParseUint(%j, 10, 64)", (input, want) => expectInt(parseUintBig(input, 10, 64), "ParseUint", input, want));
  it.each(PARSE_UINT64_BASE0)("ParseUint(%j, 0, 64)", (input, want) => expectInt(parseUintBig(input, 0, 64), "ParseUint", input, want));
  it.each(PARSE_UINT32)("ParseUint(%j, 10, 32)", (input, want) => expectInt(parseUintBig(input, 10, 32), "ParseUint", input, want));

  it("returns numbers through the number-valued variant", () => {
    expect(parseUint("42")).toEqual({ ok: true, value: 42 });
    expect(parseUint("-3")).toEqual({ ok: false, error: 'strconv.ParseUint: parsing "-3": invalid syntax' });
  });
});

describe("ParseInt", () => {
  it.each(PARSE_INT64)("ParseInt(%j, 10, 64)", (input, want) => expectInt(parseIntBig(input, 10, 64), "ParseInt", input, want));
  it.each(PARSE_INT64_BASES)("ParseInt(%j, %i, 64)", (input, base, want) => expectInt(parseIntBig(input, base, 64), "ParseInt", input, want));
  it.each(PARSE_INT32)("ParseInt(%j, 10, 32)", (input, want) => expectInt(parseIntBig(input, 10, 32), "ParseInt", input, want));

  it("rounds values beyond 2^53 in the number-valued variant but keeps range errors exact", () => {
    expect(parseInt("9223372036854775807")).toEqual({ ok: true, value: Number(9223372036854775807n) });
    expect(parseInt("9223372036854775808").ok).toBe(false);
    expect(parseInt("300", 32)).toEqual({ ok: true, value: 300 });
  });

  it("quotes the input as Go's %q does", () => {
    expect(parseInt("a\"b\n")).toEqual({ ok: false, error: 'strconv.ParseInt: parsing "a\\"b\\n": invalid syntax' });
    expect(parseInt("\u00e9")).toEqual({ ok: false, error: 'strconv.ParseInt: parsing "\u00e9": invalid syntax' });
  });
});

describe("Atoi", () => {
  it.each(PARSE_INT64)("Atoi(%j)", (input, want) => {
    const r = atoi(input);
    if (typeof want === "bigint") expect(r).toEqual({ ok: true, value: Number(want) });
    else expect(r).toEqual({ ok: false, error: err("Atoi", input, want) });
  });

  it("names Atoi in the error, as knative's AsInt does", () => {
    expect(atoi("10s")).toEqual({ ok: false, error: 'strconv.Atoi: parsing "10s": invalid syntax' });
  });
});

describe("ParseBool", () => {
  it.each(["1", "t", "T", "TRUE", "true", "True"])("accepts %j as true", (s) => expect(parseBool(s)).toEqual({ ok: true, value: true }));
  it.each(["0", "f", "F", "FALSE", "false", "False"])("accepts %j as false", (s) => expect(parseBool(s)).toEqual({ ok: true, value: false }));
  it.each(["", "yes", "tRUE", "on", " true", "2"])("rejects %j", (s) => expect(parseBool(s)).toEqual({ ok: false, error: err("ParseBool", s, SYNTAX) }));
});

// Rows from Go's strconv/atof_test.go (atoftests): [input, Go's %v of the result, error cause].
const ATOF: ReadonlyArray<readonly [string, number, string?]> = [
  ["", 0, SYNTAX],
  ["1", 1],
  ["+1", 1],
  ["1x", 0, SYNTAX],
  ["1.1.", 0, SYNTAX],
  ["1e23", 1e23],
  ["1E23", 1e23],
  ["100000000000000000000000", 1e23],
  ["1e-100", 1e-100],
  ["123456700", 1.234567e8],
  ["99999999999999974834176", 9.999999999999997e22],
  ["100000000000000000000001", 1.0000000000000001e23],
  ["100000000000000008388608", 1.0000000000000001e23],
  ["100000000000000016777215", 1.0000000000000001e23],
  ["100000000000000016777216", 1.0000000000000003e23],
  ["-1", -1],
  ["-0.1", -0.1],
  ["-0", -0],
  ["1e-20", 1e-20],
  ["625e-3", 0.625],
  ["0x1p0", 1],
  ["0x1p1", 2],
  ["0x1p-1", 0.5],
  ["0x1ep-1", 15],
  ["-0x1ep-1", -15],
  ["-0x1_ep-1", -15],
  ["0x1p-200", 6.223015277861142e-61],
  ["0x1p200", 1.6069380442589903e60],
  ["0x1fFe2.p0", 131042],
  ["0x1fFe2.P0", 131042],
  ["-0x2p3", -16],
  ["0x0.fp4", 15],
  ["0x0.fp0", 0.9375],
  ["0x1e2", 0, SYNTAX],
  ["1p2", 0, SYNTAX],
  ["0", 0],
  ["0e0", 0],
  ["-0e0", -0],
  ["+0e0", 0],
  ["0e+01234567890123456789", 0],
  ["0.00e-01234567890123456789", 0],
  ["-0e+01234567890123456789", -0],
  ["0x0p+01234567890123456789", 0],
  ["-0x0.00p-01234567890123456789", -0],
  ["0e291", 0],
  ["0e348", 0],
  ["0x0p1026", 0],
  ["nan", NaN],
  ["NaN", NaN],
  ["NAN", NaN],
  ["inf", Infinity],
  ["-Inf", -Infinity],
  ["+INF", Infinity],
  ["-Infinity", -Infinity],
  ["+INFINITY", Infinity],
  ["Infinity", Infinity],
  ["infinit", 0, SYNTAX],
  ["infx", 0, SYNTAX],
  ["+nan", 0, SYNTAX],
  ["1.7976931348623157e308", 1.7976931348623157e308],
  ["-1.7976931348623157e308", -1.7976931348623157e308],
  ["0x1.fffffffffffffp1023", 1.7976931348623157e308],
  ["0x1fffffffffffffp+971", 1.7976931348623157e308],
  ["0x.1fffffffffffffp1027", 1.7976931348623157e308],
  ["1.7976931348623159e308", 0, RANGE],
  ["-1.7976931348623159e308", 0, RANGE],
  ["0x1p1024", 0, RANGE],
  ["0x2p1023", 0, RANGE],
  ["0x.1p1028", 0, RANGE],
  ["1.7976931348623158e308", 1.7976931348623157e308],
  ["0x1.fffffffffffff7fffp1023", 1.7976931348623157e308],
  ["1.797693134862315808e308", 0, RANGE],
  ["0x1.fffffffffffff8p1023", 0, RANGE],
  ["0x1fffffffffffff.8p+971", 0, RANGE],
  ["-0x1fffffffffffff8p+967", 0, RANGE],
  ["0x.1fffffffffffff8p1027", 0, RANGE],
  ["1e308", 1e308],
  ["2e308", 0, RANGE],
  ["1e309", 0, RANGE],
  ["1e400000", 0, RANGE],
  ["-1e400000", 0, RANGE],
  ["0x1p2000000000", 0, RANGE],
  ["1e-305", 1e-305],
  ["1e-322", 1e-322],
  ["5e-324", 5e-324],
  ["4e-324", 5e-324],
  ["3e-324", 5e-324],
  ["2e-324", 0],
  ["1e-400000", 0],
  ["0x2.00000000000000p-1010", 1.8227805048890994e-304],
  ["0x1.fffffffffffff0p-1010", 1.8227805048890992e-304],
  ["0x1.fffffffffffff7p-1010", 1.8227805048890992e-304],
  ["0x1.fffffffffffff8p-1010", 1.8227805048890994e-304],
  ["0x1.fffffffffffff9p-1010", 1.8227805048890994e-304],
  ["0x2.00000000000000p-1022", 4.450147717014403e-308],
  ["0x1.fffffffffffff7p-1022", 4.4501477170144023e-308],
  ["0x1.fffffffffffff8p-1022", 4.450147717014403e-308],
  ["0x1.00000000000000p-1022", 2.2250738585072014e-308],
  ["0x0.fffffffffffff0p-1022", 2.225073858507201e-308],
  ["0x0.ffffffffffffe7p-1022", 2.2250738585072004e-308],
  ["0x1.ffffffffffffe8p-1023", 2.225073858507201e-308],
  ["0x0.00000003fffff0p-1022", 2.072261e-317],
  ["0x0.00000003456788p-1022", 1.694649e-317],
  ["0x0.00000003456789p-1022", 1.6946496e-317],
  ["0x0.0000000345678800000000000000000000000001p-1022", 1.6946496e-317],
  ["0x0.00000000000058p-1022", 3e-323],
  ["0x0.00000000000057p-1022", 2.5e-323],
  ["0x0.00000000000010p-1022", 5e-324],
  ["0x0.000000000000081p-1022", 5e-324],
  ["0x0.00000000000008p-1022", 0],
  ["0x0.00000000000007fp-1022", 0],
  ["1e-4294967296", 0],
  ["1e+4294967296", 0, RANGE],
  ["1e-18446744073709551616", 0],
  ["1e+18446744073709551616", 0, RANGE],
  ["0x1p-4294967296", 0],
  ["0x1p+18446744073709551616", 0, RANGE],
  ["1e", 0, SYNTAX],
  ["1e-", 0, SYNTAX],
  [".e-1", 0, SYNTAX],
  ["1\x00.2", 0, SYNTAX],
  ["0x", 0, SYNTAX],
  ["0x.", 0, SYNTAX],
  ["0x1", 0, SYNTAX],
  ["0x.1", 0, SYNTAX],
  ["0x1p", 0, SYNTAX],
  ["0x1p+", 0, SYNTAX],
  ["0x1p+2", 4],
  ["0x.1p+2", 0.25],
  ["0x.1p-2", 0.015625],
  ["2.2250738585072012e-308", 2.2250738585072014e-308],
  ["2.2250738585072011e-308", 2.225073858507201e-308],
  ["4.630813248087435e+307", 4.630813248087435e307],
  ["22.222222222222222", 22.22222222222222],
  ["2." + "2".repeat(4000) + "e+1", 22.22222222222222],
  ["0x1.1111111111111p222", 7.18931911124017e66],
  ["0x2." + "2".repeat(4000) + "p221", 7.18931911124017e66],
  ["1.00000000000000011102230246251565404236316680908203125", 1],
  ["0x1.00000000000008p0", 1],
  ["1.00000000000000011102230246251565404236316680908203126", 1.0000000000000002],
  ["0x1.000000000000081p0", 1.0000000000000002],
  ["0x1.00000000000008" + "0".repeat(10000) + "1p0", 1.0000000000000002],
  ["1.00000000000000033306690738754696212708950042724609375", 1.0000000000000004],
  ["0x1.00000000000018p0", 1.0000000000000004],
  ["1_23.50_0_0e+1_2", 1.235e14],
  ["-_123.5e+12", 0, SYNTAX],
  ["_123.5e+12", 0, SYNTAX],
  ["1__23.5e+12", 0, SYNTAX],
  ["123_.5e+12", 0, SYNTAX],
  ["123._5e+12", 0, SYNTAX],
  ["123.5_e+12", 0, SYNTAX],
  ["123.5e_+12", 0, SYNTAX],
  ["123.5e+_12", 0, SYNTAX],
  ["123.5e+1__2", 0, SYNTAX],
  ["123.5e+12_", 0, SYNTAX],
  ["0x_1_2.3_4_5p+1_2", 74565],
  ["-_0x12.345p+12", 0, SYNTAX],
  ["0x__12.345p+12", 0, SYNTAX],
  ["0x12_.345p+12", 0, SYNTAX],
  ["0x12.345_p+12", 0, SYNTAX],
  ["0x12.345p+12_", 0, SYNTAX],
  ["half", 0, SYNTAX],
  ["lots", 0, SYNTAX],
  ["10.0", 10],
  [".5", 0.5],
  ["5.", 5],
  [" 1", 0, SYNTAX],
];

describe("ParseFloat", () => {
  it.each(ATOF.map(([input, want, cause]) => [input, want, cause] as const))("ParseFloat(%j, 64)", (input: string, want: number, cause: string | undefined) => {
    const r = parseFloat(input);
    if (cause === undefined) {
      expect(r.ok).toBe(true);
      if (r.ok) expect(Object.is(r.value, want) || (Number.isNaN(want) && Number.isNaN(r.value))).toBe(true);
    } else {
      expect(r).toEqual({ ok: false, error: err("ParseFloat", input, cause) });
    }
  });

  it("quotes control characters with Go escapes", () => {
    expect(parseFloat("1\x00.2")).toEqual({ ok: false, error: 'strconv.ParseFloat: parsing "1\\x00.2": invalid syntax' });
  });
});

describe("underscoreOK", () => {
  it.each([
    ["1_000", true],
    ["0x_1", true],
    ["_1", false],
    ["1_", false],
    ["1__0", false],
    ["-1_0", true],
  ] as const)("%j → %s", (s, ok) => expect(underscoreOK(s)).toBe(ok));
});

describe("formatFloatFixed (%f)", () => {
  it.each([
    [-2, "-2.000000"],
    [0, "0.000000"],
    [-0, "-0.000000"],
    [1.01, "1.010000"],
    [0.7, "0.700000"],
    [1 / 128, "0.007812"], // an exact tie rounds half to even, unlike toFixed
    [3 / 128, "0.023438"],
    [1e21, "1000000000000000000000.000000"],
    [123.4567895, "123.456789"],
    [5e-324, "0.000000"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
  ] as const)("%f of %d is %s", (v, want) => expect(formatFloatFixed(v)).toBe(want));

  it("honours the precision", () => {
    expect(formatFloatFixed(2.5, 0)).toBe("2");
    expect(formatFloatFixed(3.5, 0)).toBe("4");
    expect(formatFloatFixed(1.25, 1)).toBe("1.2");
  });
});
