/**
 * src/go/strconv against Go 1.23's strconv itself: every case of test/fixtures/go-ports/strconv/cases.json with
 * the value or error text Go returned (expected.json, written by main.go there). To regenerate:
 *
 *   cd test/fixtures/go-ports/strconv && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, float64FromBits, loadUpstream, type Answer } from "../../../test/fixtures/go-ports/load.js";
import { goFormatFloat } from "./ftoa.js";
import { goQuote } from "./quote.js";
import { atoi, formatFloatFixed, parseBool, parseFloat, parseIntBig, parseUintBig, unquote, type GoParse } from "./strconv.js";

interface Case {
  op: "Quote" | "FormatFloat" | "ParseInt" | "ParseUint" | "Atoi" | "ParseFloat" | "ParseBool" | "Unquote";
  s?: string;
  bits?: string;
  fmt?: "g" | "f";
  prec?: number;
  base?: number;
  bitSize?: number;
}

/** What main.go writes: the value (integers as decimal text, floats as their bits in hex or "NaN"), or the error. */
type Result = Answer<string | boolean>;

function floatBits(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0).toString(16);
}

function result<T>(r: GoParse<T>, show: (v: T) => string | boolean): Result {
  return answerOf(r, (ok) => show(ok.value));
}

function port(c: Case): Result {
  const s = c.s ?? "";
  switch (c.op) {
    case "Quote":
      return { value: goQuote(s) };
    case "FormatFloat": {
      const v = float64FromBits(c.bits ?? "");
      return { value: c.fmt === "g" ? goFormatFloat(v) : formatFloatFixed(v, c.prec) };
    }
    case "ParseInt":
      return result(parseIntBig(s, c.base, c.bitSize), String);
    case "ParseUint":
      return result(parseUintBig(s, c.base, c.bitSize), String);
    case "Atoi":
      // atoi returns a number: Go's int rounded to a double beyond 2^53 (parseIntBig, checked above, is exact).
      return result(atoi(s), (v) => String(BigInt(v)));
    case "ParseFloat":
      return result(parseFloat(s), floatBits);
    case "ParseBool":
      return result(parseBool(s), (v) => v);
    case "Unquote":
      return result(unquote(s), (v) => v);
  }
}

function rounded(r: Result): Result {
  return r.value === undefined ? r : { value: String(BigInt(Number(r.value))) };
}

describe("strconv against Go 1.23 (test/fixtures/go-ports/strconv)", () => {
  eachUpstreamCase(loadUpstream<Case, Result>("strconv"), (c, want) => expect(port(c)).toEqual(c.op === "Atoi" ? rounded(want) : want));
});
