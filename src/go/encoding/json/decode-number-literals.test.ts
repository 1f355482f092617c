/**
 * Number tokens written with a fraction or an exponent through decodeFirstJsonValue + decodeGo. Go decodes a number
 * from its literal (decode.go literalStore): strconv.ParseInt fails on `1.0` and `1e3` for every integer field, and
 * the error prints the literal, where JSON.parse's double prints `1`, `1000`, `0.5` or `Infinity`. The expected
 * texts are the answers of Knative's webhooks (1.17, 1.23, 1.24) to the same Services
 * (test/conformance/found-differences, `number-literal-text/*`).
 */
import { describe, expect, it } from "vitest";
import { decodeGo, overflowsFloat64 } from "./decode.js";
import { decodeFirstJsonValue } from "./stream.js";
import { mayHaveFractionOrExponent, numberLiteralsOf, parseJsonExact } from "./json-bigint.js";
import { knativeTypes } from "../../../apis/knative-types.js";
import type { GoType } from "./types.js";

const service = knativeTypes.get("serving.knative.dev/v1, Kind=Service") as GoType;

function serviceText(spec: string): string {
  return `{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"s"},"spec":{"template":{"spec":${spec}}}}`;
}

function decodeService(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const parsed = decodeFirstJsonValue(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return decodeGo(service, parsed.value);
}

// Field paths as Go 1.23 (Knative 1.17) prints them; decodeGo takes the later forms from its options.
const FIELD = "RevisionSpec.spec.template.spec";

describe("number literals with a fraction or an exponent", () => {
  it.each([
    ["1.0", `json: cannot unmarshal number 1.0 into Go struct field ${FIELD}.containerConcurrency of type int64`],
    ["1e3", `json: cannot unmarshal number 1e3 into Go struct field ${FIELD}.containerConcurrency of type int64`],
    ["5e-1", `json: cannot unmarshal number 5e-1 into Go struct field ${FIELD}.containerConcurrency of type int64`],
    ["-0.0", `json: cannot unmarshal number -0.0 into Go struct field ${FIELD}.containerConcurrency of type int64`],
    ["1e400", `json: cannot unmarshal number 1e400 into Go struct field ${FIELD}.containerConcurrency of type int64`],
    ["1.5", `json: cannot unmarshal number 1.5 into Go struct field ${FIELD}.containerConcurrency of type int64`],
  ])("an integer field refuses %s, printing the literal", (literal, error) => {
    expect(decodeService(serviceText(`{"containerConcurrency":${literal},"containers":[{"image":"x"}]}`))).toEqual({ ok: false, error });
  });

  it("keeps refusing integers written as plain integers only when they do not fit", () => {
    const r = decodeService(serviceText(`{"containerConcurrency":7,"containers":[{"image":"x:1.0"}]}`));
    expect(r.ok && (r.value as { spec: { template: { spec: { containerConcurrency: number } } } }).spec.template.spec.containerConcurrency).toBe(7);
  });

  it("reads elements of a list and members of a map by their literal too", () => {
    const ports = decodeService(serviceText(`{"containers":[{"image":"x","ports":[{"containerPort":8080},{"containerPort":8.08e3}]}]}`));
    expect(ports).toEqual({ ok: false, error: `json: cannot unmarshal number 8.08e3 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32` });
  });

  it("gives IntOrString the literal in its int32 error", () => {
    const r = decodeService(serviceText(`{"containers":[{"image":"x","readinessProbe":{"httpGet":{"port":1.0}}}]}`));
    expect(r).toEqual({ ok: false, error: "json: cannot unmarshal number 1.0 into Go struct field HTTPGetAction.spec.template.spec.containers.readinessProbe.httpGet.port of type int32" });
  });

  // ParseQuantity keeps a canonical input as the quantity's text (quantity.go: "if the number is in canonical form,
  // reuse the string"): `1e3` stays `1e3`, where the double's `1000` became `1k`.
  it("parses a quantity written as a number from its literal", () => {
    const r = decodeService(serviceText(`{"containers":[{"image":"x","resources":{"limits":{"cpu":1e3,"memory":2.50e2}}}]}`));
    const limits = r.ok ? (r.value as { spec: { template: { spec: { containers: [{ resources: { limits: unknown } }] } } } }).spec.template.spec.containers[0].resources.limits : undefined;
    expect(limits).toEqual({ cpu: "1e3", memory: "2.50e2" });
  });

  it("records literals only for tokens with a fraction or an exponent, by member and index", () => {
    const v = parseJsonExact(`{"a":1.0,"b":2,"c":[3,4e0,"5.0"],"d":"6.0,"}`, false, true) as { c: unknown[] };
    expect([...(numberLiteralsOf(v as object) ?? [])]).toEqual([["a", "1.0"]]);
    expect([...(numberLiteralsOf(v.c) ?? [])]).toEqual([[1, "4e0"]]);
  });

  it("finds every candidate text, and lets plain bodies through without a second parse", () => {
    expect(mayHaveFractionOrExponent(`{"a":1.0}`)).toBe(true);
    expect(mayHaveFractionOrExponent(`[1e3 ]`)).toBe(true);
    expect(mayHaveFractionOrExponent(`{"a":5E-1,"b":2}`)).toBe(true);
    expect(mayHaveFractionOrExponent(`{"image":"ghcr.io/x:1.0","n":1}`)).toBe(false);
  });
});

describe("overflowsFloat64 (json.Unmarshal into interface{}, as 1.17's roundTripPatch reads the object)", () => {
  it.each([
    ['{"spec":{"foo":1e400}}', true],
    ['{"spec":{"foo":[1,-1e999]}}', true],
    [`{"metadata":{"foo":1${"0".repeat(400)}}}`, true],
    ['{"spec":{"foo":1e308,"bar":1e-400,"baz":18446744073709551616}}', false],
    ['{"spec":{"foo":1e400,"foo":1}}', true],
  ])("%s: %s", (text, want) => {
    const parsed = decodeFirstJsonValue(text);
    expect(parsed.ok && overflowsFloat64(parsed.value)).toBe(want);
  });
});
