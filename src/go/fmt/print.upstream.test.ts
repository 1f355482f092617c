/**
 * goSprint against Go 1.23's fmt.Sprint: every value of test/fixtures/go-ports/fmt/cases.json with what Go printed
 * (expected.json, written by main.go there). To regenerate:
 *
 *   cd test/fixtures/go-ports/fmt && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { eachUpstreamCase, float64FromBits, loadUpstream } from "../../../test/fixtures/go-ports/load.js";
import { goFloat64, goSprint } from "./print.js";

/** A Go value as main.go builds it (see Value there). */
type Value =
  | { t: "int" | "uint64"; v: string }
  | { t: "float64"; bits: string }
  | { t: "string" | "error"; v: string }
  | { t: "bool"; v: boolean }
  | { t: "nil" }
  | { t: "slice"; v: Value[] }
  | { t: "map"; k: "string"; v: Array<[string, Value]> }
  | { t: "map"; k: "int"; v: Array<[number, Value]> };

/** The JS value goSprint takes for a Go value (print.ts: a safe integer is an int, any other number a float64). */
function toJs(d: Value): unknown {
  switch (d.t) {
    case "int":
    case "uint64": {
      const n = BigInt(d.v);
      return Number.isSafeInteger(Number(n)) ? Number(n) : n;
    }
    case "float64": {
      const x = float64FromBits(d.bits);
      return Number.isSafeInteger(x) ? goFloat64(x) : x;
    }
    case "string":
    case "bool":
      return d.v;
    case "error":
      return new Error(d.v);
    case "nil":
      return null;
    case "slice":
      return d.v.map(toJs);
    case "map":
      // Maps keyed by string as plain objects, maps keyed by int as Maps: goSprint takes both.
      return d.k === "string" ? Object.fromEntries(d.v.map(([k, v]) => [k, toJs(v)])) : new Map(d.v.map(([k, v]) => [k, toJs(v)]));
  }
}

describe("fmt.Sprint against Go 1.23 (test/fixtures/go-ports/fmt)", () => {
  eachUpstreamCase(loadUpstream<Value, string>("fmt"), (d, want) => expect(goSprint(toJs(d))).toBe(want));
});
