import { describe, expect, it } from "vitest";
import { yamlUnmarshalInto, type JsonTarget } from "./yaml-to-json.js";

// go-yaml v2.4.0 + sigs.k8s.io/yaml v1.4.0 answers, confirmed against the Go libraries.
const TARGET: JsonTarget = { kind: "struct", type: "config.domainInternalConfig", name: "domainInternalConfig", fields: [] };
const CASES: ReadonlyArray<readonly [yaml: string, error: string | undefined]> = [
  ["a: b: c", "error converting YAML to JSON: yaml: mapping values are not allowed in this context"],
  ["a: 1\n b: 2", "error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"],
  ["a:\n\tb: 1", "error converting YAML to JSON: yaml: line 2: found character that cannot start any token"],
  ["key: 'unterminated", "error converting YAML to JSON: yaml: found unexpected end of stream"],
  ["x: 1\ny: \"unterminated", "error converting YAML to JSON: yaml: line 2: found unexpected end of stream"],
  ["{a: b", "error converting YAML to JSON: yaml: line 1: did not find expected ',' or '}'"],
  ["[a, b", "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"],
  ["- a\nb: c", "error converting YAML to JSON: yaml: line 1: did not find expected '-' indicator"],
  ["a: *nope", "error converting YAML to JSON: yaml: unknown anchor 'nope' referenced"],
  ["a: !!int abc", "error converting YAML to JSON: yaml: cannot decode !!str `abc` as a !!int"],
  ["a: !!binary ###", undefined],
  ["<<: 5", "error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value"],
  ["? [a]\n: b", "error converting YAML to JSON: yaml: invalid map key: []interface {}{\"a\"}"],
  ["a: \"\\q\"", "error converting YAML to JSON: yaml: found unknown escape character"],
  ["%YAML 1.2\n---\na: b", "error converting YAML to JSON: yaml: found incompatible YAML document"],
  ["a: |0\n  x", "error converting YAML to JSON: yaml: found an indentation indicator equal to 0"],
  ["x: 1\ny: 2\n{}", "error converting YAML to JSON: yaml: line 2: did not find expected key"],
  ["a: b\u0001", "error converting YAML to JSON: yaml: control characters are not allowed"],
  ["a: @x", "error converting YAML to JSON: yaml: found character that cannot start any token"],
  ["a: b\n- c", "error converting YAML to JSON: yaml: line 1: did not find expected key"],
  ["a:\n  b: 1\n c: 2", "error converting YAML to JSON: yaml: line 2: did not find expected key"],
  ["18446744073709551615: x", "error converting YAML to JSON: unsupported map key of type: uint64, key: 0xffffffffffffffff, value: \"x\""],
  ["a: &x [*x]", "error converting YAML to JSON: yaml: anchor 'x' value contains itself"],
  ["x: &a\n  <<: *a", "error converting YAML to JSON: yaml: anchor 'a' value contains itself"],
  ["'x\n---\ny'", "error converting YAML to JSON: yaml: line 2: found unexpected document indicator"],
];

describe("yamlUnmarshalInto", () => {
  it.each(CASES)("%j → %s", (yaml, error) => {
    const r = yamlUnmarshalInto(yaml, TARGET);
    expect(r.ok ? undefined : r.error).toBe(error);
  });
});
