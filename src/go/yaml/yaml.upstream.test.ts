/**
 * unmarshalYaml and yamlUnmarshalInto against gopkg.in/yaml.v2 v2.4.0 (Unmarshal into an interface{}) and
 * sigs.k8s.io/yaml v1.4.0 (Unmarshal into the types Knative's config maps decode YAML into) on Go 1.23: every
 * document of test/fixtures/go-ports/yaml/cases.json with Go's value or error (expected.json, written by main.go
 * there). To regenerate:
 *
 *   cd test/fixtures/go-ports/yaml && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, loadUpstream, type Answer } from "../../../test/fixtures/go-ports/load.js";
import { call, runRecursion, type Recursion } from "../internal/recursion.js";
import { goFormatFloat } from "../strconv/ftoa.js";
import { unmarshalYaml } from "./decode.js";
import { GoFloat, GoInt, GoMap, type GoValue } from "./values.js";
import { yamlUnmarshalInto, type Decoded, type JsonTarget } from "./yaml-to-json.js";

type Case = { op: "v2"; y: string } | { op: "sigs"; target: keyof typeof TARGETS; y: string };

/** main.go's dump of a Go value: nil, bool, string, {int}, {uint64}, {float64}, [elements], {map: [[key, value], …]}. */
type Dump = null | boolean | string | { int: string } | { uint64: string } | { float64: string } | Dump[] | { map: Array<[Dump, Dump]> };

function* dump(v: GoValue): Recursion<Dump> {
  if (v instanceof GoInt) return v.unsigned ? { uint64: v.value.toString() } : { int: v.value.toString() };
  if (v instanceof GoFloat) return { float64: goFormatFloat(v.value) };
  if (v instanceof GoMap) {
    const map: Array<[Dump, Dump]> = [];
    for (const [k, e] of v.entries()) map.push([yield* call(dump(k)), yield* call(dump(e))]);
    return { map };
  }
  if (Array.isArray(v)) {
    const out: Dump[] = [];
    for (const e of v) out.push(yield* call(dump(e)));
    return out;
  }
  return v;
}

/** Go's map order is random: entries sorted by their key's JSON, on both sides. */
function* sorted(d: Dump): Recursion<Dump> {
  if (Array.isArray(d)) {
    const out: Dump[] = [];
    for (const e of d) out.push(yield* call(sorted(e)));
    return out;
  }
  if (d === null || typeof d !== "object" || !("map" in d)) return d;
  const entries: Array<[Dump, Dump]> = [];
  for (const [k, v] of d.map) entries.push([yield* call(sorted(k)), yield* call(sorted(v))]);
  return { map: entries.sort(([a], [b]) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0)) };
}

/** What json.Marshal writes for a decoded value (Maps as objects). */
function* json(d: Decoded): Recursion<unknown> {
  if (Array.isArray(d)) {
    const out: unknown[] = [];
    for (const e of d) out.push(yield* call(json(e)));
    return out;
  }
  if (d === null || typeof d !== "object") return d;
  const out: Record<string, unknown> = {};
  for (const [k, v] of d instanceof Map ? [...d] : Object.entries(d)) out[k] = yield* call(json(v as Decoded));
  return out;
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

/** Equality of JSON-shaped values on an explicit stack: toEqual recurses too deep for the 10,000-level cases. */
function same(a: unknown, b: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") {
      if (x !== y) return false;
    } else if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      x.forEach((e, i) => pending.push([e, y[i]]));
    } else {
      const xs = Object.entries(x).filter(([, v]) => v !== undefined);
      const ys = new Map(Object.entries(y).filter(([, v]) => v !== undefined));
      if (xs.length !== ys.size || xs.some(([k]) => !ys.has(k))) return false;
      for (const [k, v] of xs) pending.push([v, ys.get(k)]);
    }
  }
  return true;
}

/** toEqual (for its report) only when the values differ. */
function expectSame(got: unknown, want: unknown): void {
  if (!same(got, want)) expect(got).toEqual(want);
}

describe("yaml against gopkg.in/yaml.v2 v2.4.0 and sigs.k8s.io/yaml v1.4.0 (test/fixtures/go-ports/yaml)", () => {
  eachUpstreamCase(loadUpstream<Case, Answer>("yaml"), (c, want) => {
    if (c.op === "v2") {
      const got = answerOf(unmarshalYaml(c.y), (r) => runRecursion(sorted(runRecursion(dump(r.value)))));
      // fixture.Answer leaves a nil value out.
      expectSame(got, want.err === undefined ? { value: runRecursion(sorted((want.value ?? null) as Dump)) } : want);
    } else {
      expectSame(answerOf(yamlUnmarshalInto(c.y, TARGETS[c.target]), (r) => runRecursion(json(r.value))), want);
    }
  });
});
