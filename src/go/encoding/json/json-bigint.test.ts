import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exactNumbers, hasLongIntegerLiteral, MAX_EXACT_DIGITS, parseJsonExact, parseJsonText, stringifyJson } from "./json-bigint.js";

const I64_MAX = "9223372036854775807";
const I64_MIN = "-9223372036854775808";
const P53_PLUS_1 = "9007199254740993"; // 2^53 + 1: JSON.parse rounds it to 9007199254740992

describe("hasLongIntegerLiteral", () => {
  it.each([
    [`{"a":${I64_MAX}}`, true],
    [`[${I64_MIN}]`, true],
    [P53_PLUS_1, true],
    [" 1234567890123456 ", true], // 16 digits: may be beyond 2^53, so it is read exactly (a number when safe)
    ["123456789012345", false], // 15 digits are always exact
    [`{"a":"${I64_MAX}"}`, false], // in a string
    [`{"${I64_MAX}":1}`, false], // in a key
    [`{"a":"x\\"${I64_MAX}"}`, false], // after an escaped quote, still in the string
    [`{"a":"x\\\\","b":${I64_MAX}}`, true], // after an escaped backslash the string has ended
    ["12345678901234567.5", false], // a fraction: JSON.parse's float64 is Go's ParseFloat
    ["1.12345678901234567", false], // digits of a fraction are not an integer literal
    ["12345678901234567e0", false],
    ["1e12345678901234567", false],
    ["1".repeat(MAX_EXACT_DIGITS), true],
    ["1".repeat(MAX_EXACT_DIGITS + 1), false], // kept as JSON.parse's value (json-bigint.ts MAX_EXACT_DIGITS)
  ])("%s → %s", (text, want) => {
    expect(hasLongIntegerLiteral(text)).toBe(want);
  });
});

describe("parseJsonExact", () => {
  it("reads integer literals beyond ±(2^53 − 1) as bigints and everything else as JSON.parse does", () => {
    const text = `{"max":${I64_MAX},"min":${I64_MIN},"p53":${P53_PLUS_1},"safe":9007199254740991,"neg16":-1234567890123456,"f":1.5e300,"z":-0,"s":"${I64_MAX}","l":[true,false,null,{}],"e":[]}`;
    const value = parseJsonExact(text) as Record<string, unknown>;
    expect(value).toEqual({
      max: 9223372036854775807n,
      min: -9223372036854775808n,
      p53: 9007199254740993n,
      safe: 9007199254740991,
      neg16: -1234567890123456,
      f: 1.5e300,
      z: -0,
      s: I64_MAX,
      l: [true, false, null, {}],
      e: [],
    });
    expect(Object.is(value.z, -0)).toBe(true);
  });

  it("builds objects as JSON.parse does: `__proto__` is an own member, a repeated key keeps its first place", () => {
    const value = parseJsonExact(`{"__proto__":{"polluted":${I64_MAX}},"b":1,"a":2,"b":3}`) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "b", "a"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: 9223372036854775807n });
    expect(value.b).toBe(3);
  });

  it("decodes strings with escapes as JSON.parse does", () => {
    const text = ` { "k\\u00e9" : [ "a\\"b\\\\" , "\\ud83d\\ude00\\n" , ${I64_MAX} ] } `;
    expect(parseJsonExact(text)).toEqual({ "k\u00e9": ['a"b\\', "\u{1F600}\n", 9223372036854775807n] });
  });

  it("reads nesting far deeper than the stack allows recursion", () => {
    const depth = 200_000;
    const value = parseJsonExact("[".repeat(depth) + I64_MAX + "]".repeat(depth));
    let v: unknown = value;
    for (let i = 0; i < depth; i++) v = (v as unknown[])[0];
    expect(v).toBe(9223372036854775807n);
  });

  it("equals JSON.parse on any JSON text whose integers are safe", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("", " ", "\n\t"), (value, space) => {
        const text = space + JSON.stringify(value, null, space === "" ? undefined : 1) + space;
        const expected: unknown = JSON.parse(text);
        if (hasLongIntegerLiteral(text)) return; // compared against bigints below
        expect(parseJsonExact(text)).toEqual(expected);
        expect(exactNumbers(text, expected)).toBe(expected);
      }),
    );
  });

  it("parseJsonText: JSON.parse's SyntaxError for invalid text", () => {
    expect(() => parseJsonText(`{"a":${I64_MAX}`)).toThrow(SyntaxError);
    expect(parseJsonText(`[${I64_MAX}]`)).toEqual([9223372036854775807n]);
  });
});

describe("stringifyJson", () => {
  it("writes bigints with all their digits", () => {
    const tree = { a: 9223372036854775807n, b: [-9223372036854775809n, 1, "x", null, true], c: { d: 18446744073709551615n } };
    expect(stringifyJson(tree)).toBe(`{"a":9223372036854775807,"b":[-9223372036854775809,1,"x",null,true],"c":{"d":18446744073709551615}}`);
    expect(stringifyJson(9007199254740993n)).toBe(P53_PLUS_1);
  });

  it("leaves out what JSON.stringify leaves out, and writes null where it does", () => {
    const tree = { big: 1n, u: undefined, f: () => 1, arr: [undefined, NaN, Infinity, 2n], "\u2028": "\ud800" };
    expect(stringifyJson(tree)).toBe('{"big":1,"arr":[null,null,null,2],"\u2028":"\\ud800"}');
  });

  it("equals JSON.stringify without bigints, and parseJsonExact reads its bigints back", () => {
    const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.jsonValue(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (value, big) => {
        expect(stringifyJson(value)).toBe(JSON.stringify(value));
        const exact = big > maxSafe || big < -maxSafe ? big : Number(big);
        expect((parseJsonExact(stringifyJson({ value, exact })) as { exact: unknown }).exact).toEqual(exact);
      }),
    );
  });

  it("writes nesting deeper than JSON.stringify reaches, with or without bigints", () => {
    let plain: unknown = 1;
    for (let i = 0; i < 10_000; i++) plain = { a: plain };
    expect(stringifyJson(plain)).toBe('{"a":'.repeat(10_000) + "1" + "}".repeat(10_000));
    const depth = 200_000;
    let tree: unknown = 1n;
    for (let i = 0; i < depth; i++) tree = [tree];
    expect(stringifyJson(tree)).toBe("[".repeat(depth) + "1" + "]".repeat(depth));
  });
});
