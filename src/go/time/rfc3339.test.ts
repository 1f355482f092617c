import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { roundTripParsed, roundTripRfc3339, type TimeParse } from "./rfc3339.js";

// Produced by Go: json.Unmarshal of the string into a metav1.Time (apimachinery v0.31.4), then json.Marshal.
const GO_TIMES: ReadonlyArray<readonly [string, TimeParse]> = [
  ["2024-05-14T09:30:00Z", { ok: true, json: "2024-05-14T09:30:00Z" }],
  ["2024-05-14T09:30:00.123456Z", { ok: true, json: "2024-05-14T09:30:00Z" }],
  ["2024-05-14T09:30:00.123456789123Z", { ok: true, json: "2024-05-14T09:30:00Z" }],
  ["2024-05-14T11:30:00+02:00", { ok: true, json: "2024-05-14T09:30:00Z" }],
  ["2024-05-14T09:30:00-07:30", { ok: true, json: "2024-05-14T17:00:00Z" }],
  ["yesterday", { ok: false, error: "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\"" }],
  ["", { ok: false, error: "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\"" }],
  ["2024", { ok: false, error: "parsing time \"2024\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"-\"" }],
  ["2024-05", { ok: false, error: "parsing time \"2024-05\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"-\"" }],
  ["2024-05-14", { ok: false, error: "parsing time \"2024-05-14\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"T\"" }],
  ["2024-05-14T", { ok: false, error: "parsing time \"2024-05-14T\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"15\"" }],
  ["2024-05-14T09", { ok: false, error: "parsing time \"2024-05-14T09\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \":\"" }],
  ["2024-05-14T09:30", { ok: false, error: "parsing time \"2024-05-14T09:30\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \":\"" }],
  ["2024-05-14T09:30:00", { ok: false, error: "parsing time \"2024-05-14T09:30:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\"" }],
  ["2024-13-01T00:00:00Z", { ok: false, error: "parsing time \"2024-13-01T00:00:00Z\": month out of range" }],
  ["2024-00-01T00:00:00Z", { ok: false, error: "parsing time \"2024-00-01T00:00:00Z\": month out of range" }],
  ["2024-02-30T00:00:00Z", { ok: false, error: "parsing time \"2024-02-30T00:00:00Z\": day out of range" }],
  ["2023-02-29T00:00:00Z", { ok: false, error: "parsing time \"2023-02-29T00:00:00Z\": day out of range" }],
  ["2024-02-29T00:00:00Z", { ok: true, json: "2024-02-29T00:00:00Z" }],
  ["2024-05-14T24:00:00Z", { ok: false, error: "parsing time \"2024-05-14T24:00:00Z\": hour out of range" }],
  ["2024-05-14T23:60:00Z", { ok: false, error: "parsing time \"2024-05-14T23:60:00Z\": minute out of range" }],
  ["2024-05-14T23:59:60Z", { ok: false, error: "parsing time \"2024-05-14T23:59:60Z\": second out of range" }],
  ["2024-05-14T9:30:00Z", { ok: true, json: "2024-05-14T09:30:00Z" }],
  ["2024-05-14T09:3:00Z", { ok: false, error: "parsing time \"2024-05-14T09:3:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"3:00Z\" as \"04\"" }],
  ["2024-05-14 09:30:00Z", { ok: false, error: "parsing time \"2024-05-14 09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 09:30:00Z\" as \"T\"" }],
  ["2024-05-14t09:30:00Z", { ok: false, error: "parsing time \"2024-05-14t09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"t09:30:00Z\" as \"T\"" }],
  ["2024-05-14T09:30:00z", { ok: false, error: "parsing time \"2024-05-14T09:30:00z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" as \"Z07:00\"" }],
  ["2024-05-14T09:30:00,5Z", { ok: true, json: "2024-05-14T09:30:00Z" }],
  ["2024-05-14T09:30:00.Z", { ok: false, error: "parsing time \"2024-05-14T09:30:00.Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".Z\" as \"Z07:00\"" }],
  ["2024-05-14T09:30:00+25:00", { ok: false, error: "parsing time \"2024-05-14T09:30:00+25:00\": time zone offset hour out of range" }],
  ["2024-05-14T09:30:00+24:00", { ok: true, json: "2024-05-13T09:30:00Z" }],
  ["2024-05-14T09:30:00+01:61", { ok: false, error: "parsing time \"2024-05-14T09:30:00+01:61\": time zone offset minute out of range" }],
  ["2024-05-14T09:30:00+01:60", { ok: true, json: "2024-05-14T07:30:00Z" }],
  ["2024-05-14T09:30:00+0100", { ok: false, error: "parsing time \"2024-05-14T09:30:00+0100\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+0100\" as \"Z07:00\"" }],
  ["2024-05-14T09:30:00x01:00", { ok: false, error: "parsing time \"2024-05-14T09:30:00x01:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x01:00\" as \"Z07:00\"" }],
  ["2024-05-14T09:30:00+ab:00", { ok: false, error: "parsing time \"2024-05-14T09:30:00+ab:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+ab:00\" as \"Z07:00\"" }],
  ["2024-05-14T09:30:00Zjunk", { ok: false, error: "parsing time \"2024-05-14T09:30:00Zjunk\": extra text: \"junk\"" }],
  ["2024-05-14T09:30:00+01:00junk", { ok: false, error: "parsing time \"2024-05-14T09:30:00+01:00junk\": extra text: \"junk\"" }],
  ["0001-01-01T00:00:00Z", { ok: true, json: null }],
  ["0001-01-01T00:00:00.000000001Z", { ok: true, json: "0001-01-01T00:00:00Z" }],
  ["0001-01-01T01:00:00+01:00", { ok: true, json: null }],
  ["0000-01-01T00:00:00+01:00", { ok: true, json: "-0001-12-31T23:00:00Z" }],
  ["9999-12-31T23:59:59-23:00", { ok: true, json: "10000-01-01T22:59:59Z" }],
  ["0000-02-29T00:00:00Z", { ok: true, json: "0000-02-29T00:00:00Z" }],
  ["1900-02-29T00:00:00Z", { ok: false, error: "parsing time \"1900-02-29T00:00:00Z\": day out of range" }],
  ["２０２４-01-01T00:00:00Z", { ok: false, error: "parsing time \"\\xef\\xbc\\x92\\xef\\xbc\\x90\\xef\\xbc\\x92\\xef\\xbc\\x94-01-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\xef\\xbc\\x92\\xef\\xbc\\x90\\xef\\xbc\\x92\\xef\\xbc\\x94-01-01T00:00:00Z\" as \"2006\"" }],
  ["2024-é5-14T09:30:00Z", { ok: false, error: "parsing time \"2024-\\xc3\\xa95-14T09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\xc3\\xa95-14T09:30:00Z\" as \"01\"" }],
  ["\"quoted\"", { ok: false, error: "parsing time \"\\\"quoted\\\"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\\"quoted\\\"\" as \"2006\"" }],
  ["back\\slash", { ok: false, error: "parsing time \"back\\\\slash\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"back\\\\slash\" as \"2006\"" }],
  ["tab\there", { ok: false, error: "parsing time \"tab\\x09here\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"tab\\x09here\" as \"2006\"" }],
  ["2024-05-14T09:30:00.5+01:00", { ok: true, json: "2024-05-14T08:30:00Z" }],
  ["1970-01-01T00:00:00Z", { ok: true, json: "1970-01-01T00:00:00Z" }],
  ["-2024-05-14T09:30:00Z", { ok: false, error: "parsing time \"-2024-05-14T09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"-2024-05-14T09:30:00Z\" as \"2006\"" }],
  ["+2024-05-14T09:30:00Z", { ok: false, error: "parsing time \"+2024-05-14T09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+2024-05-14T09:30:00Z\" as \"2006\"" }],
  ["20x4-05-14T09:30:00Z", { ok: false, error: "parsing time \"20x4-05-14T09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"20x4-05-14T09:30:00Z\" as \"2006\"" }],
  ["2024-05-14T09:30:00+01", { ok: false, error: "parsing time \"2024-05-14T09:30:00+01\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+01\" as \"Z07:00\"" }],
  ["2024-05-14T09:30:00+1:00", { ok: false, error: "parsing time \"2024-05-14T09:30:00+1:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+1:00\" as \"Z07:00\"" }],
  ["2024-5-14T09:30:00Z", { ok: false, error: "parsing time \"2024-5-14T09:30:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"5-14T09:30:00Z\" as \"01\"" }],
];

describe("roundTripRfc3339 matches metav1.Time's JSON round trip", () => {
  it.each(GO_TIMES)("%j", (input, want) => {
    expect(roundTripRfc3339(input)).toEqual(want);
  });
});

describe("roundTripRfc3339's shortcut for the canonical form", () => {
  const digits = (n: number, max: number): fc.Arbitrary<string> => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, "0"));
  it("answers as the field-by-field parse on times near and past every range limit", () => {
    const time = fc
      .tuple(digits(4, 9999), digits(2, 19), digits(2, 39), digits(2, 29), digits(2, 69), digits(2, 69), fc.constantFrom("Z", "z", "+00:00", ".5Z", "", "ZZ"))
      .map(([y, mo, d, h, mi, s, zone]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
    fc.assert(
      fc.property(time, (t) => {
        expect(roundTripRfc3339(t)).toEqual(roundTripParsed(t));
      }),
      { numRuns: 20000 },
    );
  });

  it("answers as the field-by-field parse on any 20 characters of a timestamp's alphabet", () => {
    const chars = fc.constantFrom(..."0123456789-T:Z+.１");
    fc.assert(
      fc.property(fc.array(chars, { minLength: 20, maxLength: 20 }), (cs) => {
        const t = cs.join("");
        expect(roundTripRfc3339(t)).toEqual(roundTripParsed(t));
      }),
      { numRuns: 20000 },
    );
  });

  it.each(["0001-01-01T00:00:00Z", "0999-12-31T23:59:59Z", "1000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z"])("%s: as the field-by-field parse", (t) => {
    expect(roundTripRfc3339(t)).toEqual(roundTripParsed(t));
  });
});
