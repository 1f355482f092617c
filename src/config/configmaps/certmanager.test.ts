import { describe, expect, it } from "vitest";
import { parseCertManagerConfig } from "./certmanager.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"issuerRef": "kind: ClusterIssuer\nname: letsencrypt-prod\n"}, undefined],
  [{"issuerRef": "kind: [ClusterIssuer"}, "error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'"],
  [{"systemInternalIssuerRef": "name: [a]"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field ObjectReference.name of type string"],
  [{"clusterLocalIssuerRef": "- a\n- b"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type v1.ObjectReference"],
  [{"issuerRef": "42"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go value of type v1.ObjectReference"],
  [{"issuerRef": "kind: ClusterIssuer\nname: x: y"}, "error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"],
  [{"issuerRef": "name: x\n\tkind: y"}, "error converting YAML to JSON: yaml: line 2: found a tab character that violates indentation"],
];

describe("parseCertManagerConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseCertManagerConfig(data)).toBe(error);
  });
});
