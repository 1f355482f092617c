/**
 * parseImageReference against go-containerregistry v0.20.3's name.ParseReference(s, name.WeakValidation) on
 * Go 1.23: every reference of test/fixtures/go-ports/containerregistry/cases.json with whether Go parsed it or its
 * error (expected.json, written by main.go there). To regenerate:
 *
 *   cd test/fixtures/go-ports/containerregistry && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { eachUpstreamCase, loadUpstream, type Answer } from "../../../test/fixtures/go-ports/load.js";
import { parseImageReference } from "./reference.js";

describe("name.ParseReference against go-containerregistry v0.20.3 (test/fixtures/go-ports/containerregistry)", () => {
  eachUpstreamCase(loadUpstream<{ s: string }, Answer<true>>("containerregistry"), (c, want) => {
    const error = parseImageReference(c.s);
    expect(error === undefined ? { value: true } : { err: error }).toEqual(want);
  });
});
