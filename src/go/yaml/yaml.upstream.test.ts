/**
 * unmarshalYaml and yamlUnmarshalInto against gopkg.in/yaml.v2 v2.4.0 (Unmarshal into an interface{}) and
 * sigs.k8s.io/yaml v1.4.0 (Unmarshal into the types Knative's config maps decode YAML into) on Go 1.23: every
 * document of test/fixtures/go-ports/yaml/cases.json with Go's value or error (expected.json, written by main.go
 * there). To regenerate:
 *
 *   cd test/fixtures/go-ports/yaml && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, caseKey, eachUpstreamCase, loadUpstream, type Answer } from "../../../test/fixtures/go-ports/load.js";
import { goFormatFloat } from "../strconv/ftoa.js";
import { unmarshalYaml } from "./decode.js";
import { GoFloat, GoInt, GoMap, type GoValue } from "./values.js";
import { yamlUnmarshalInto, type Decoded, type JsonTarget } from "./yaml-to-json.js";

type Case = { op: "v2"; y: string } | { op: "sigs"; target: keyof typeof TARGETS; y: string };

/** main.go's dump of a Go value: nil, bool, string, {int}, {uint64}, {float64}, [elements], {map: [[key, value], …]}. */
type Dump = null | boolean | string | { int: string } | { uint64: string } | { float64: string } | Dump[] | { map: Array<[Dump, Dump]> };

function dump(v: GoValue): Dump {
  if (v instanceof GoInt) return v.unsigned ? { uint64: v.value.toString() } : { int: v.value.toString() };
  if (v instanceof GoFloat) return { float64: goFormatFloat(v.value) };
  if (v instanceof GoMap) return { map: [...v.entries()].map(([k, e]): [Dump, Dump] => [dump(k), dump(e)]) };
  if (Array.isArray(v)) return v.map(dump);
  return v;
}

/** Go's map order is random: entries sorted by their key's JSON, on both sides. */
function sorted(d: Dump): Dump {
  if (Array.isArray(d)) return d.map(sorted);
  if (d === null || typeof d !== "object" || !("map" in d)) return d;
  const entries = d.map.map(([k, v]): [Dump, Dump] => [sorted(k), sorted(v)]);
  return { map: entries.sort(([a], [b]) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0)) };
}

/** What json.Marshal writes for a decoded value (Maps as objects). */
function json(d: Decoded): unknown {
  if (d instanceof Map) return Object.fromEntries([...d].map(([k, v]) => [k, json(v)]));
  if (Array.isArray(d)) return d.map(json);
  if (d !== null && typeof d === "object") return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, json(v as Decoded)]));
  return d;
}

// The targets of main.go (its v1, config and deployment packages mirror Knative's types).
const STRING: JsonTarget = { kind: "string", type: "string" };
const STRING_MAP: JsonTarget = { kind: "map", type: "map[string]string", elem: STRING };
const struct = (type: string, fields: Array<[string, JsonTarget]>): JsonTarget => ({
  kind: "struct",
  type,
  name: type.slice(type.indexOf(".") + 1),
  fields: fields.map(([json, target]) => ({ json, target })),
});
const REQUIREMENT = struct("v1.LabelSelectorRequirement", [
  ["key", STRING],
  ["operator", { kind: "string", type: "v1.LabelSelectorOperator" }],
  ["values", { kind: "slice", type: "[]string", elem: STRING }],
]);
const TARGETS = {
  labelSelector: struct("v1.LabelSelector", [
    ["matchLabels", STRING_MAP],
    ["matchExpressions", { kind: "slice", type: "[]v1.LabelSelectorRequirement", elem: REQUIREMENT }],
  ]),
  objectReference: struct("v1.ObjectReference", [
    ["name", STRING],
    ["kind", STRING],
    ["group", STRING],
  ]),
  domain: struct("config.domainInternalConfig", [
    ["selector", STRING_MAP],
    ["type", STRING],
  ]),
  runtimeClass: {
    kind: "map",
    type: "map[string]deployment.RuntimeClassNameLabelSelector",
    elem: struct("deployment.RuntimeClassNameLabelSelector", [["selector", STRING_MAP]]),
  },
} satisfies Record<string, JsonTarget>;

/** Where the port does not answer as Go does, and how (each runs as it.fails). */
const KNOWN = new Map([
  [
    caseKey({ op: "v2", y: "[".repeat(8000) + "]".repeat(8000) }),
    // Go's node builder recurses on goroutine stacks that grow; decode.ts and parser.ts recurse on the JS stack.
    "8,000 nested flow sequences: Go decodes them, the port runs out of JS stack (RangeError) from about 5,000 levels",
  ],
  [
    caseKey({ op: "v2", y: "[".repeat(10001) + "]".repeat(10001) }),
    // scannerc.go's max_flow_level: Go's scanner reaches the 10,001st '[' and fails; the port's parser overflows first.
    'past 10,000 levels Go answers "yaml: exceeded max depth of 10000"; the port throws RangeError before its scanner gets there',
  ],
]);

describe("yaml against gopkg.in/yaml.v2 v2.4.0 and sigs.k8s.io/yaml v1.4.0 (test/fixtures/go-ports/yaml)", () => {
  eachUpstreamCase(loadUpstream<Case, Answer>("yaml"), (c, want) => {
    if (c.op === "v2") {
      const got = answerOf(unmarshalYaml(c.y), (r) => sorted(dump(r.value)));
      // fixture.Answer leaves a nil value out.
      expect(got).toEqual(want.err === undefined ? { value: sorted((want.value ?? null) as Dump) } : want);
    } else {
      expect(answerOf(yamlUnmarshalInto(c.y, TARGETS[c.target]), (r) => json(r.value))).toEqual(want);
    }
  }, KNOWN);
});
