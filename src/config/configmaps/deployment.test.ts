import { describe, expect, it } from "vitest";
import { parseDeploymentConfig } from "./deployment.js";
import { PROFILES } from "../profile.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins), so they are parsed as Knative 1.17
// parses them. Knative 1.24's texts: configmap-parse.test.ts, and index.test.ts runs each release's config_validation
// vectors.
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{}, "queue-sidecar-image cannot be empty or unset"],
  [{"queueSidecarImage": "img"}, undefined],
  [{"queue-sidecar-image": "img", "progress-deadline": "1.5s"}, "progress-deadline must be rounded to a whole second, was: 1.5s"],
  [{"queue-sidecar-image": "img", "progressDeadline": "abc"}, "failed to parse \"progressDeadline\": time: invalid duration \"abc\""],
  [{"queue-sidecar-image": "img", "progress-deadline": "0s"}, "progress-deadline cannot be a non-positive duration, was 0s"],
  [{"queue-sidecar-image": "img", "digest-resolution-timeout": "-5s"}, "digest-resolution-timeout cannot be a non-positive duration, was -5s"],
  [{"queue-sidecar-image": "img", "queue-sidecar-cpu-request": "lots"}, "failed to parse \"queue-sidecar-cpu-request\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  [{"queue-sidecar-image": "img", "queueSidecarMemoryLimit": "1Qi"}, "failed to parse \"queueSidecarMemoryLimit\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  [{"queue-sidecar-image": "img", "default-affinity-type": "None"}, "unsupported default-affinity-type value: \"None\""],
  [{"queue-sidecar-image": "img", "pod-is-always-schedulable": "maybe"}, undefined],
  [{"queue-sidecar-image": "img", "runtime-class-name": "kata:\n  selector:\n    good: \"bad value!\""}, "runtime-class-name kata selector invalid: values[0][good]: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
  [{"queue-sidecar-image": "img", "runtime-class-name": "kata:\n  selector:\n    \"bad key!\": \"bad value!\""}, "runtime-class-name kata selector invalid: [key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values[0][bad key!]: Invalid value: \"bad value!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"],
  [{"queue-sidecar-image": "img", "runtime-class-name": "kata:\n  selector:\n    k: .inf"}, "runtime-class-name kata selector invalid: values[0][k]: Invalid value: \"+Inf\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
  [{"queue-sidecar-image": "img", "runtime-class-name": "kata:\n  selector:\n    k: 1.5"}, undefined],
  [{"queue-sidecar-image": "img", "runtime-class-name": "kata: [a]"}, "runtime-class-name cannot be parsed, please check the format: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type deployment.RuntimeClassNameLabelSelector"],
  [{"queue-sidecar-image": "img", "runtime-class-name": "kata:\n  selector: {k: [v]}"}, "runtime-class-name cannot be parsed, please check the format: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field RuntimeClassNameLabelSelector.selector of type string"],
  [{"queue-sidecar-image": "img", "runtime-class-name": "- a"}, "runtime-class-name cannot be parsed, please check the format: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]deployment.RuntimeClassNameLabelSelector"],
];

describe("parseDeploymentConfig (Knative 1.17)", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseDeploymentConfig(data, PROFILES["1.17"])).toBe(error);
  });
});
