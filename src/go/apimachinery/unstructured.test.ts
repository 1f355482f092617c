import { describe, expect, it } from "vitest";
import { unstructuredDecodeError } from "./unstructured.js";

const TEXT = (): string => "{…}";
const MISSING = "Object 'Kind' is missing in '{…}'";

describe("unstructuredDecodeError", () => {
  it.each([
    [{ kind: "Service", apiVersion: "serving.knative.dev/v1" }, undefined],
    [{ kind: "Service" }, undefined],
    [{ kind: "Service", apiVersion: "v1" }, undefined],
    [{ kind: "Service", apiVersion: "/" }, undefined],
    // Not a string: GetAPIVersion reads "", which parses.
    [{ kind: "Service", apiVersion: 5 }, undefined],
    [{}, MISSING],
    [{ kind: "" }, MISSING],
    [{ kind: null }, MISSING],
    [{ kind: 5 }, MISSING],
    // Map keys are exact: `Kind` is not `kind`.
    [{ Kind: "Service" }, MISSING],
    // schema.ParseGroupVersion rejects more than one slash, and GroupVersionKind is then empty.
    [{ kind: "Service", apiVersion: "a/b/c" }, MISSING],
  ])("%j → %s", (object, want) => {
    expect(unstructuredDecodeError(object, TEXT)).toBe(want);
  });
});
