/**
 * parseDuration, formatDuration and roundTripRfc3339 against Go 1.23's time.ParseDuration and Duration.String and
 * apimachinery v0.31.4's metav1.Time JSON round trip: every case of test/fixtures/go-ports/time/cases.json with
 * Go's answer (expected.json, written by main.go there). To regenerate:
 *
 *   cd test/fixtures/go-ports/time && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, loadUpstream, type Answer } from "../../../test/fixtures/go-ports/load.js";
import { formatDuration, parseDuration } from "./duration.js";
import { roundTripRfc3339 } from "./rfc3339.js";

type Case = { op: "ParseDuration" | "Time"; s: string } | { op: "String"; ns: string };

/** What main.go writes: nanoseconds as decimal text, Duration.String() or metav1.Time's JSON; or the error. */
function port(c: Case): Answer<string> {
  switch (c.op) {
    case "ParseDuration":
      return answerOf(parseDuration(c.s), (r) => r.value.ns.toString());
    case "String":
      return { value: formatDuration(BigInt(c.ns)) };
    case "Time":
      return answerOf(roundTripRfc3339(c.s), (r) => JSON.stringify(r.json));
  }
}

describe("time against Go 1.23 and metav1.Time (test/fixtures/go-ports/time)", () => {
  eachUpstreamCase(loadUpstream<Case, Answer<string>>("time"), (c, want) => expect(port(c)).toEqual(want));
});
