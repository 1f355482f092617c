import { describe, expect, it } from "vitest";
import { goTrimSpace } from "../../strings/trim.js";
import { goString } from "./go-strings.js";
import { goQuote } from "../../strconv/quote.js";

describe("goQuote is strconv.Quote", () => {
  it.each([
    ["plain", '"plain"'],
    ['say "hi"\\', '"say \\"hi\\"\\\\"'],
    ["tab\there\n", '"tab\\there\\n"'],
    ["\u0001\u007f", '"\\x01\\x7f"'],
    ["ünïcödé €", '"ünïcödé €"'],
    ["soft\u00adhyphen", '"soft\\u00adhyphen"'],
    ["\u{e0001}", '"\\U000e0001"'],
  ])("%j", (input, want) => {
    expect(goQuote(input)).toBe(want);
  });
});

describe("goTrimSpace is strings.TrimSpace", () => {
  it.each([
    [" \t\n1\r\v\f", "1"],
    ["\u00851\u00a0", "1"],
    ["\u20281\u3000", "1"],
    ["\ufeff1", "\ufeff1"],
    ["a b", "a b"],
  ])("%j", (input, want) => {
    expect(goTrimSpace(input)).toBe(want);
  });
});

describe("goString", () => {
  it("turns lone surrogates into U+FFFD and keeps pairs", () => {
    expect(goString("a\ud800b\udc00c\ud83d\ude00")).toBe("a\ufffdb\ufffdc\ud83d\ude00");
    const plain = "no surrogates";
    expect(goString(plain)).toBe(plain);
  });
});
