import fc from "fast-check";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { EXAMPLE_EDITED_ERROR, checkExample, exampleChecksum } from "./example-checksum.js";

const EXAMPLE = "# comment\nkey: value\n\n# more\nother: x";

describe("exampleChecksum (configmap.Checksum)", () => {
  it("is the CRC-32 of the text as 8 lower-case hex digits", () => {
    // crc32("abc") = 0x352441c2
    expect(exampleChecksum("abc")).toBe("352441c2");
    expect(exampleChecksum("")).toBe("00000000");
  });

  it("ignores surrounding whitespace and how line breaks are written or repeated", () => {
    const base = exampleChecksum(EXAMPLE);
    expect(exampleChecksum(`  \n${EXAMPLE}\n\n  `)).toBe(base);
    expect(exampleChecksum(EXAMPLE.replace(/\n/g, "\r\n"))).toBe(base);
    expect(exampleChecksum(EXAMPLE.replace("\n\n", "\n"))).toBe(base);
    expect(exampleChecksum(EXAMPLE.replace("key", "kei"))).not.toBe(base);
  });

  it("collapses line breaks into the two characters backslash-n", () => {
    expect(exampleChecksum("a\n\nb")).toBe(exampleChecksum("a\\nb"));
  });

  it("trims what Go's strings.TrimSpace trims, not what JavaScript's trim does", () => {
    expect(exampleChecksum("\u0085abc\u0085")).toBe(exampleChecksum("abc"));
    expect(exampleChecksum("\ufeffabc")).not.toBe(exampleChecksum("abc"));
  });

  it("is the checksum of the regex-trimmed text for any text of spaces, line breaks and letters", () => {
    // The former implementation: strings.TrimSpace's set as a regex.
    const space = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
    const trim = new RegExp(`^${space}+|${space}+$`, "g");
    const reference = (text: string): string => crc32(Buffer.from(text.replace(trim, "").replace(/(?:\r?\n)+/g, "\\n"), "utf8")).toString(16).padStart(8, "0");
    const char = fc.constantFrom(" ", "\t", "\n", "\r", "\v", "\f", "\u0085", "\u00a0", "\u2000", "\u3000", "\ufeff", "a", "#", "\u00e9");
    fc.assert(
      fc.property(fc.array(char, { maxLength: 30 }), (chars) => {
        const text = chars.join("");
        expect(exampleChecksum(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("checkExample", () => {
  const sum = exampleChecksum(EXAMPLE);

  it.each([
    ["matching checksum", { _example: EXAMPLE }, { "knative.dev/example-checksum": sum }, undefined],
    ["edited example", { _example: EXAMPLE + "x" }, { "knative.dev/example-checksum": sum }, EXAMPLE_EDITED_ERROR],
    ["no annotation", { _example: "anything" }, {}, undefined],
    ["no example", { a: "b" }, { "knative.dev/example-checksum": "00000000" }, undefined],
    ["empty example with a checksum", { _example: "" }, { "knative.dev/example-checksum": "deadbeef" }, EXAMPLE_EDITED_ERROR],
  ] as const)("%s", (_name, data, annotations, want) => {
    expect(checkExample(data, annotations)).toBe(want);
  });

  it("does not treat inherited properties as keys", () => {
    expect(checkExample(Object.create({ _example: "x" }) as Record<string, string>, { "knative.dev/example-checksum": "1" })).toBeUndefined();
  });
});
