import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeFirstJsonValue } from "./stream.js";

/** A body built from text (UTF-8) and raw bytes, for inputs that are not valid UTF-8. */
function bytes(...parts: (string | number[])[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
}

interface Row {
  name: string;
  body: Buffer | string;
  /** Go's error text, or the value Go's Decode stores into an interface{}. */
  error?: string;
  value?: unknown;
  /** Where the expectation comes from in golang/go src/encoding/json or the conformance vectors. */
  from: string;
}

const valueRows: Row[] = [
  // The envelope vectors' bodies (../shared/conformance/vectors/envelope.jsonl): the type errors
  // are the caller's; decoding the first value succeeds.
  { name: "JSON string literal body", body: '"not json at all"', value: "not json at all", from: "envelope/body-string" },
  { name: "array body", body: "[1, 2]", value: [1, 2], from: "envelope/body-array" },
  { name: "number body", body: "7", value: 7, from: "envelope/body-number" },
  { name: "true body", body: "true", value: true, from: "envelope/body-true" },
  {
    name: "AdmissionReview object",
    body: bytes('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","object":{"a":[1,{"b":null}]}}}'),
    value: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u-1", object: { a: [1, { b: null }] } } },
    from: "decode.go (object into interface{})",
  },
  { name: "null", body: "null", value: null, from: "decode_test.go unmarshalTests `null`" },
  { name: "surrounding whitespace", body: "\n\t\r {\"a\":1} \n", value: { a: 1 }, from: "decode_test.go unmarshalTests raw values with whitespace" },

  // Only the first value is read (stream.go readValue breaks at scanEnd / the closing bracket).
  { name: "garbage after an object", body: '{"a":1} xyz', value: { a: 1 }, from: "stream.go readValue scanEndObject" },
  { name: "second value after an object", body: '{"a":1}{"b":2}', value: { a: 1 }, from: "stream.go readValue scanEndObject" },
  { name: "extra closing bracket", body: "[1,2]]", value: [1, 2], from: "stream.go readValue scanEndArray" },
  { name: "syntax error after the first value", body: '{"a":1} {"b":', value: { a: 1 }, from: "stream.go readValue" },
  { name: "letters right after a number", body: "123abc", value: 123, from: "scanner.go stateEndTop (error recorded, scanEnd returned)" },
  { name: "second number after a space", body: "7 8", value: 7, from: "scanner.go stateEndTop" },
  { name: "garbage right after a string", body: '"abc"def', value: "abc", from: "scanner.go stateEndTop" },
  { name: "garbage right after true", body: "truex", value: true, from: "scanner.go stateEndTop" },
  { name: "comma after null", body: "null,", value: null, from: "scanner.go stateEndTop" },
  { name: "leading zero ends the number", body: "0123", value: 0, from: "scanner.go state0 → stateEndValue" },
  { name: "second decimal point ends the number", body: "1.5.3", value: 1.5, from: "scanner.go stateDot0 → stateEndValue" },
  { name: "exponent number before a brace", body: "-0.5e+3}", value: -500, from: "scanner.go stateE0 → stateEndValue" },
  { name: "minus sign after a number", body: "12-", value: 12, from: "scanner.go state1 → state0 → stateEndValue" },
  { name: "number at end of input", body: "  42", value: 42, from: "stream.go readValue: step(' ') == scanEnd at io.EOF" },
  { name: "string at end of input", body: '"x"', value: "x", from: "stream.go readValue: step(' ') == scanEnd at io.EOF" },
  { name: "top-level value followed by a control byte", body: bytes(" 42 ", [0x01]), value: 42, from: "decode_test.go unmarshalTests ` 42 \\x01` (an error for Unmarshal only)" },

  // Strings as Go's unquote decodes them (decode_test.go unmarshalTests).
  { name: "unicode escape", body: '"a\\u1234"', value: "a\u1234", from: "decode_test.go unmarshalTests" },
  { name: "escaped slash", body: '"http:\\/\\/"', value: "http://", from: "decode_test.go unmarshalTests" },
  { name: "surrogate pair escape", body: '"g-clef: \\uD834\\uDD1E"', value: "g-clef: \u{1D11E}", from: "decode_test.go unmarshalTests" },
  { name: "split surrogate escapes", body: '"invalid: \\uD834x\\uDD1E"', value: "invalid: \uFFFDx\uFFFD", from: "decode_test.go unmarshalTests" },
  { name: "lone high surrogate escape", body: '"hello\\ud800world"', value: "hello\uFFFDworld", from: "decode_test.go unmarshalTests" },
  { name: "two high surrogate escapes", body: '"hello\\ud800\\ud800world"', value: "hello\uFFFD\uFFFDworld", from: "decode_test.go unmarshalTests" },
  { name: "lone surrogate then a pair", body: '"\\ud800\\ud834\\udd1e"', value: "\uFFFD\u{1D11E}", from: "decode.go unquote (pair check on the next escape)" },
  { name: "high surrogate then a non-surrogate escape", body: '"\\ud834\\u0041"', value: "\uFFFDA", from: "decode.go unquote" },
  { name: "escaped backslash before u", body: '"\\\\ud800"', value: "\\ud800", from: "decode.go unquote" },
  { name: "invalid byte in a string", body: bytes('"hello', [0xff], 'world"'), value: "hello\uFFFDworld", from: "decode_test.go unmarshalTests" },
  { name: "repeated lead byte", body: bytes('"hello', [0xc2, 0xc2], 'world"'), value: "hello\uFFFD\uFFFDworld", from: "decode_test.go unmarshalTests" },
  { name: "lead byte then invalid byte", body: bytes('"hello', [0xc2, 0xff], 'world"'), value: "hello\uFFFD\uFFFDworld", from: "decode_test.go unmarshalTests" },
  {
    name: "UTF-8 encoded surrogates",
    body: bytes('"hello', [0xed, 0xa0, 0x80, 0xed, 0xb0, 0x80], 'world"'),
    value: "hello\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFDworld",
    from: "decode_test.go unmarshalTests",
  },
  // utf8.DecodeRune rejects a truncated sequence one byte at a time (WHATWG would merge them).
  { name: "truncated three-byte sequence", body: bytes('"', [0xe2, 0x82], 'a"'), value: "\uFFFD\uFFFDa", from: "unicode/utf8 DecodeRune (RuneError, 1)" },
  { name: "valid multi-byte text", body: '"日本語 ✓ 𝄞"', value: "日本語 ✓ 𝄞", from: "decode.go unquote" },
  { name: "invalid byte in a string followed by garbage", body: bytes('"a', [0xff], 'b" x'), value: "a\uFFFDb", from: "decode.go unquote + stream.go readValue" },
  { name: "lone surrogate in a string body", body: '"\ud800"', value: "\uFFFD", from: "a string body stands for its UTF-8 encoding" },

  // Object keys: Go fills a map in document order, so the last duplicate wins.
  { name: "duplicate keys", body: '{"a":1,"a":2}', value: { a: 2 }, from: "decode.go object (map assignment)" },
  { name: "duplicate keys with trailing data", body: '{"a":1,"a":2} x', value: { a: 2 }, from: "decode.go object (map assignment)" },
  { name: "keys equal after surrogate replacement, replaced last", body: '{"\\ufffd":2,"\\ud800":1}', value: { "\uFFFD": 1 }, from: "decode.go object + unquote" },
  { name: "keys equal after surrogate replacement, replaced first", body: '{"\\ud800":1,"\\ufffd":2}', value: { "\uFFFD": 2 }, from: "decode.go object + unquote" },
];

const errorRows: Row[] = [
  // io.EOF / io.ErrUnexpectedEOF (stream.go readValue).
  { name: "empty body", body: "", error: "EOF", from: "envelope/body-empty" },
  { name: "empty buffer", body: Buffer.alloc(0), error: "EOF", from: "envelope/body-empty" },
  { name: "whitespace only", body: " \n\t\r ", error: "EOF", from: "stream.go readValue: nonSpace(buf) is false" },
  ...["{", '{"a"', '{"a":', '{"a":1', '{"a":1,', "[", "[1,", "[1", '"abc', '"ab\\', '"\\u12', "tr", "tru", "fals", "nul", "-", "1.", "1e", "1e+", " [ ", '{"a":[1,{"b":2}'].map(
    (body): Row => ({ name: `truncated ${JSON.stringify(body)}`, body, error: "unexpected EOF", from: "stream.go readValue: io.ErrUnexpectedEOF" }),
  ),

  // Syntax errors with Go's texts.
  { name: "object key without value", body: '{"X": "foo", "Y"}', error: "invalid character '}' after object key", from: "decode_test.go unmarshalTests" },
  { name: "plus after array element", body: "[1, 2, 3+]", error: "invalid character '+' after array element", from: "decode_test.go unmarshalTests" },
  { name: "letter after a member value", body: '{"X":12x}', error: "invalid character 'x' after object key:value pair", from: "decode_test.go unmarshalTests" },
  { name: "control byte before a value", body: bytes([0x01], " 42"), error: "invalid character '\\x01' looking for beginning of value", from: "decode_test.go unmarshalTests" },
  { name: "missing comma between members", body: '{"X": "foo" "Y": "bar"}', error: "invalid character '\"' after object key:value pair", from: "scanner_test.go TestIndentErrors" },
  { name: "missing colon", body: '{"a" 1}', error: "invalid character '1' after object key", from: "scanner.go stateEndValue parseObjectKey" },
  { name: "comma instead of a key", body: "{,}", error: "invalid character ',' looking for beginning of object key string", from: "scanner.go stateBeginString" },
  { name: "trailing comma in an object", body: '{"a":1,}', error: "invalid character '}' looking for beginning of object key string", from: "scanner.go stateBeginString" },
  { name: "unquoted key", body: "{a:1}", error: "invalid character 'a' looking for beginning of object key string", from: "scanner.go stateBeginStringOrEmpty" },
  { name: "single-quoted key", body: "{'a':1}", error: "invalid character '\\'' looking for beginning of object key string", from: "scanner.go quoteChar" },
  { name: "trailing comma in an array", body: "[1,]", error: "invalid character ']' looking for beginning of value", from: "scanner.go stateBeginValue" },
  { name: "mismatched array close", body: "[1}", error: "invalid character '}' after array element", from: "scanner.go stateEndValue parseArrayValue" },
  { name: "mismatched object close", body: '{"a":1]', error: "invalid character ']' after object key:value pair", from: "scanner.go stateEndValue parseObjectValue" },
  { name: "leading zero inside an array", body: "[01]", error: "invalid character '1' after array element", from: "scanner.go state0 → stateEndValue" },
  { name: "bare word", body: "xyz", error: "invalid character 'x' looking for beginning of value", from: "scanner.go stateBeginValue" },
  { name: "single-quoted string", body: "'a'", error: "invalid character '\\'' looking for beginning of value", from: "scanner.go quoteChar special case" },
  { name: "closing brace first", body: "}", error: "invalid character '}' looking for beginning of value", from: "scanner.go stateBeginValue" },
  { name: "backslash first", body: "\\", error: "invalid character '\\\\' looking for beginning of value", from: "strconv.Quote of a backslash" },
  { name: "capitalised literal", body: "True", error: "invalid character 'T' looking for beginning of value", from: "scanner.go stateBeginValue" },
  { name: "NaN", body: "NaN", error: "invalid character 'N' looking for beginning of value", from: "scanner.go stateBeginValue" },
  { name: "plus sign", body: "+1", error: "invalid character '+' looking for beginning of value", from: "scanner.go stateBeginValue" },
  { name: "byte order mark", body: bytes([0xef, 0xbb, 0xbf], "{}"), error: "invalid character 'ï' looking for beginning of value", from: "scanner.go quoteChar (byte as rune U+00EF)" },
  { name: "raw UTF-8 outside a string", body: bytes('{"a":', [0xc3, 0xa9], "}"), error: "invalid character 'Ã' looking for beginning of value", from: "scanner.go quoteChar (byte as rune U+00C3)" },
  { name: "error inside the first value before EOF", body: "[1,2 x", error: "invalid character 'x' after array element", from: "stream.go readValue scanError" },

  // Strings.
  { name: "control byte in a string", body: bytes('"a', [0x01], '"'), error: "invalid character '\\x01' in string literal", from: "scanner.go stateInString + decode_test.go quoting of \\x01" },
  { name: "raw newline in a string", body: '"a\nb"', error: "invalid character '\\n' in string literal", from: "scanner.go stateInString" },
  { name: "raw tab in a string", body: '"\t"', error: "invalid character '\\t' in string literal", from: "scanner.go stateInString" },
  { name: "raw carriage return in a string", body: '"\r"', error: "invalid character '\\r' in string literal", from: "scanner.go stateInString" },
  { name: "NUL in a string", body: bytes('"', [0x00], '"'), error: "invalid character '\\x00' in string literal", from: "strconv.Quote \\x escape" },
  { name: "bell in a string", body: bytes('"', [0x07], '"'), error: "invalid character '\\a' in string literal", from: "strconv.Quote \\a" },
  { name: "backspace in a string", body: bytes('"', [0x08], '"'), error: "invalid character '\\b' in string literal", from: "strconv.Quote \\b" },
  { name: "vertical tab in a string", body: bytes('"', [0x0b], '"'), error: "invalid character '\\v' in string literal", from: "strconv.Quote \\v" },
  { name: "form feed in a string", body: bytes('"', [0x0c], '"'), error: "invalid character '\\f' in string literal", from: "strconv.Quote \\f" },
  { name: "escape byte in a string", body: bytes('"', [0x1b], '"'), error: "invalid character '\\x1b' in string literal", from: "strconv.Quote \\x escape" },
  { name: "unknown escape", body: '"\\x"', error: "invalid character 'x' in string escape code", from: "scanner.go stateInStringEsc" },
  { name: "escaped single quote", body: "\"\\'\"", error: "invalid character '\\'' in string escape code", from: "scanner.go stateInStringEsc + quoteChar" },
  { name: "bad first hex digit", body: '"\\ug000"', error: "invalid character 'g' in \\u hexadecimal character escape", from: "scanner.go stateInStringEscU" },
  { name: "bad fourth hex digit", body: '"\\u123"', error: "invalid character '\"' in \\u hexadecimal character escape", from: "scanner.go stateInStringEscU123" },

  // Numbers.
  { name: "minus then letter", body: "-a", error: "invalid character 'a' in numeric literal", from: "scanner.go stateNeg" },
  { name: "double minus", body: "--1", error: "invalid character '-' in numeric literal", from: "scanner.go stateNeg" },
  { name: "letter after the decimal point", body: "1.x", error: "invalid character 'x' after decimal point in numeric literal", from: "scanner.go stateDot" },
  { name: "exponent right after the decimal point", body: "1.e5", error: "invalid character 'e' after decimal point in numeric literal", from: "scanner.go stateDot" },
  { name: "letter after the exponent sign", body: "1e+x", error: "invalid character 'x' in exponent of numeric literal", from: "scanner.go stateESign" },
  { name: "letter after the exponent", body: "1ex", error: "invalid character 'x' in exponent of numeric literal", from: "scanner.go stateE → stateESign" },
  { name: "negative number in an object", body: '{"F3": -}', error: "invalid character '}' in numeric literal", from: "scanner.go stateNeg" },

  // Literals.
  { name: "true, second letter", body: "tx", error: "invalid character 'x' in literal true (expecting 'r')", from: "scanner.go stateT" },
  { name: "true, third letter", body: "trx", error: "invalid character 'x' in literal true (expecting 'u')", from: "scanner.go stateTr" },
  { name: "true, fourth letter", body: "trux", error: "invalid character 'x' in literal true (expecting 'e')", from: "scanner.go stateTru" },
  { name: "false, second letter", body: "fx", error: "invalid character 'x' in literal false (expecting 'a')", from: "scanner.go stateF" },
  { name: "false, third letter", body: "fax", error: "invalid character 'x' in literal false (expecting 'l')", from: "scanner.go stateFa" },
  { name: "false, fourth letter", body: "falx", error: "invalid character 'x' in literal false (expecting 's')", from: "scanner.go stateFal" },
  { name: "false, fifth letter", body: "falsx", error: "invalid character 'x' in literal false (expecting 'e')", from: "scanner.go stateFals" },
  { name: "null, second letter", body: "nx", error: "invalid character 'x' in literal null (expecting 'u')", from: "scanner.go stateN" },
  { name: "null, third letter", body: "nux", error: "invalid character 'x' in literal null (expecting 'l')", from: "scanner.go stateNu" },
  { name: "null, fourth letter", body: "nulx", error: "invalid character 'x' in literal null (expecting 'l')", from: "scanner.go stateNul" },
  { name: "space inside a literal", body: "tr ue", error: "invalid character ' ' in literal true (expecting 'u')", from: "scanner.go stateTr" },

  // quoteChar of bytes >= 0x7f: the byte is the rune with that code point (strconv.IsPrint, isprint.go).
  { name: "DEL", body: bytes([0x7f]), error: "invalid character '\\x7f' looking for beginning of value", from: "strconv.Quote (r == 0x7f → \\x)" },
  { name: "C1 control byte", body: bytes([0x80]), error: "invalid character '\\u0080' looking for beginning of value", from: "strconv.Quote (not printable → \\u)" },
  { name: "last C1 control byte", body: bytes([0x9f]), error: "invalid character '\\u009f' looking for beginning of value", from: "strconv.Quote" },
  { name: "no-break space byte", body: bytes([0xa0]), error: "invalid character '\\u00a0' looking for beginning of value", from: "isprint.go isPrint16 starts at 0x00a1" },
  { name: "first printable Latin-1 byte", body: bytes([0xa1]), error: "invalid character '¡' looking for beginning of value", from: "isprint.go isPrint16" },
  { name: "soft hyphen byte", body: bytes([0xad]), error: "invalid character '\\u00ad' looking for beginning of value", from: "isprint.go isNotPrint16" },
  { name: "byte 0xff", body: bytes([0xff]), error: "invalid character 'ÿ' looking for beginning of value", from: "isprint.go isPrint16" },
  { name: "continuation byte after a key", body: bytes('{"a"', [0xbf]), error: "invalid character '¿' after object key", from: "scanner.go quoteChar" },
];

describe("decodeFirstJsonValue: Go's Decoder.Decode on the first value", () => {
  it.each(valueRows)("$name decodes the first value ($from)", (row) => {
    expect(decodeFirstJsonValue(row.body)).toEqual({ ok: true, value: row.value });
  });

  it.each(errorRows)("$name is reported as Go does ($from)", (row) => {
    expect(decodeFirstJsonValue(row.body)).toEqual({ ok: false, error: row.error });
  });

  it("decodes a Buffer and the same text as a string alike", () => {
    for (const row of [...valueRows, ...errorRows]) {
      if (typeof row.body !== "string") continue;
      expect(decodeFirstJsonValue(Buffer.from(row.body, "utf8")), row.name).toEqual(decodeFirstJsonValue(row.body));
    }
  });
});

describe("decodeFirstJsonValue: nesting depth (scanner.go maxNestingDepth = 10000)", () => {
  const nested = (depth: number, open: string, close: string): string => open.repeat(depth) + close.repeat(depth);

  it("accepts 10000 nested arrays", () => {
    const result = decodeFirstJsonValue(nested(10000, "[", "]"));
    expect(result.ok).toBe(true);
  });

  it("accepts 10000 nested arrays followed by garbage", () => {
    expect(decodeFirstJsonValue(`${nested(10000, "[", "]")}x`).ok).toBe(true);
  });

  it.each([
    { name: "10001 nested arrays", body: nested(10001, "[", "]"), error: "invalid character '[' exceeded max depth" },
    { name: "10001 nested objects", body: '{"a":'.repeat(10001) + "1" + "}".repeat(10001), error: "invalid character '{' exceeded max depth" },
    { name: "10001 unclosed arrays", body: "[".repeat(10001), error: "invalid character '[' exceeded max depth" },
    { name: "a million unclosed arrays", body: "[".repeat(1_000_000), error: "invalid character '[' exceeded max depth" },
    { name: "a million nested arrays", body: nested(1_000_000, "[", "]"), error: "invalid character '[' exceeded max depth" },
  ])("rejects $name without overflowing the stack", ({ body, error }) => {
    expect(decodeFirstJsonValue(body)).toEqual({ ok: false, error });
  });

  it("does not count brackets inside strings", () => {
    const body = `["${"[{".repeat(20000)}"]`;
    expect(decodeFirstJsonValue(body)).toEqual({ ok: true, value: ["[{".repeat(20000)] });
  });

  it("reports 10000 unclosed arrays (within the limit) as unexpected EOF", () => {
    expect(decodeFirstJsonValue("[".repeat(10000))).toEqual({ ok: false, error: "unexpected EOF" });
  });
});

describe("decodeFirstJsonValue: __proto__ keys stay data", () => {
  it.each([
    { name: "whole body", body: '{"__proto__":{"polluted":true},"a":1}' },
    { name: "with trailing data", body: '{"__proto__":{"polluted":true},"a":1} trailing' },
  ])("keeps __proto__ as an own property ($name)", ({ body }) => {
    const result = decodeFirstJsonValue(body);
    if (!result.ok) throw new Error(result.error);
    const value = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

/**
 * JSON.parse's value with the integer literals it rounds read exactly (bigints), as decodeFirstJsonValue reads them:
 * JSON.stringify writes an integral number below 1e21 as an integer literal.
 */
function withExactIntegers(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) && !Number.isSafeInteger(v) && /^-?\d+$/.test(String(v)) ? BigInt(String(v)) : v;
  if (Array.isArray(v)) return v.map(withExactIntegers);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) Object.defineProperty(out, key, { value: withExactIntegers((v as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

describe("decodeFirstJsonValue: properties", () => {
  it("returns any JSON value followed by anything that cannot continue it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("", " ", "\n", " garbage", "}", "]", ",1", '{"a":'), (value, tail) => {
        const text = JSON.stringify(value) + tail;
        const result = decodeFirstJsonValue(text);
        expect(result).toEqual({ ok: true, value: withExactIntegers(JSON.parse(JSON.stringify(value))) });
      }),
    );
  });

  it("never throws on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (arr) => {
        const result = decodeFirstJsonValue(Buffer.from(arr));
        expect(typeof result.ok).toBe("boolean");
      }),
    );
  });

  it("never throws on truncations of a valid document and reports unexpected EOF for them", () => {
    const doc = '{"apiVersion":"v1","items":[1,-2.5e+3,true,false,null,"a\\u00e9\\n"],"o":{}}';
    for (let n = 1; n < doc.length; n++) {
      expect(decodeFirstJsonValue(doc.slice(0, n)), doc.slice(0, n)).toEqual({ ok: false, error: "unexpected EOF" });
    }
  });
});
