import { describe, expect, it } from "vitest";
import { parseDomainConfig } from "./domain.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"example.com": ""}, undefined],
  [{"example.com": "selector:\n  app: prod"}, undefined],
  [{"example.com": "selector: 5"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field domainInternalConfig.selector of type map[string]string"],
  [{"example.com": "selector: {a: [1]}"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field domainInternalConfig.selector of type string"],
  [{"example.com": "type: [x]"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field domainInternalConfig.type of type string"],
  [{"example.com": "just a string"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type config.domainInternalConfig"],
  [{"example.com": "- a"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type config.domainInternalConfig"],
  [{"example.com": "selector: {a: .nan}"}, undefined],
  [{"example.com": "foo: .nan"}, "error converting YAML to JSON: json: unsupported value: NaN"],
  [{"example.com": "~: x"}, "error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: \"x\""],
  [{"example.com": "selector: {a: 1}\nSelector: 5"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field domainInternalConfig.selector of type map[string]string"],
  [{"_example": "selector: [broken", "example.com": ""}, undefined],
];

describe("parseDomainConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseDomainConfig(data)).toBe(error);
  });
});
