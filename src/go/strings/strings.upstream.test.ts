/**
 * compareByteOrder and equalFoldAscii against Go 1.23's strings.Compare and strings.EqualFold: every pair of
 * test/fixtures/go-ports/strings/cases.json with Go's answer (expected.json, written by main.go there). The inputs
 * are well-formed UTF-16, as every string decoded from JSON is by then (lone surrogates become U+FFFD). To
 * regenerate:
 *
 *   cd test/fixtures/go-ports/strings && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { eachUpstreamCase, loadUpstream } from "../../../test/fixtures/go-ports/load.js";
import { compareByteOrder } from "./compare.js";
import { equalFoldAscii } from "./fold.js";

type Case = { op: "Compare"; a: string; b: string } | { op: "EqualFold"; s: string; t: string };

describe("strings against Go 1.23 (test/fixtures/go-ports/strings)", () => {
  eachUpstreamCase(loadUpstream<Case, number | boolean>("strings"), (c, want) =>
    expect(c.op === "Compare" ? Math.sign(compareByteOrder(c.a, c.b)) : equalFoldAscii(c.s, c.t)).toBe(want),
  );
});
