/**
 * roundTripUrl against Go 1.23's net/url as knative.dev/pkg's apis.URL uses it (url.Parse, then URL.String()):
 * every URL of test/fixtures/go-ports/url/cases.json with Go's answer (expected.json, written by main.go there).
 * To regenerate:
 *
 *   cd test/fixtures/go-ports/url && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, loadUpstream, type Answer } from "../../../../test/fixtures/go-ports/load.js";
import { roundTripUrl } from "./url.js";

describe("net/url against Go 1.23 (test/fixtures/go-ports/url)", () => {
  eachUpstreamCase(loadUpstream<{ s: string }, Answer<string>>("url"), (c, want) => expect(answerOf(roundTripUrl(c.s), (r) => r.value)).toEqual(want));
});
