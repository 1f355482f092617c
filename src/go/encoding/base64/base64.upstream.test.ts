/**
 * decodeStdBase64 against Go 1.23's base64.StdEncoding.DecodeString: every string of
 * test/fixtures/go-ports/base64/cases.json with Go's bytes (in hex) or CorruptInputError (expected.json, written by main.go
 * there). To regenerate:
 *
 *   cd test/fixtures/go-ports/base64 && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, loadUpstream, type Answer } from "../../../../test/fixtures/go-ports/load.js";
import { decodeStdBase64 } from "./base64.js";

describe("encoding/base64 against Go 1.23 (test/fixtures/go-ports/base64)", () => {
  eachUpstreamCase(loadUpstream<{ s: string }, Answer<string>>("base64"), (c, want) =>
    expect(answerOf(decodeStdBase64(c.s), (r) => r.bytes.toString("hex"))).toEqual(want),
  );
});
