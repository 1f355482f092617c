/**
 * Integer literals beyond 2^53 through decodeFirstJsonValue + decodeGo, against Go 1.23's json.Unmarshal +
 * json.Marshal of the same types: every expected text and value below is printed by
 * test/fixtures/go-bigint/main.go (its output is test/fixtures/go-bigint/output.txt; the `[label]` of each line is
 * named in the comments).
 */
import { describe, expect, it } from "vitest";
import { decodeGo } from "./decode.js";
import { GoTypeRegistry } from "./types.js";
import { parseJsonExact, stringifyJson } from "./json-bigint.js";
import { configMapType, knativeTypes } from "../../../apis/knative-types.js";
import { decodeFirstJsonValue } from "./stream.js";
import type { GoType } from "./types.js";

const service = knativeTypes.get("serving.knative.dev/v1, Kind=Service") as GoType;

/** json.Unmarshal of `text` into `type`, then json.Marshal: the marshalled value, or Go's error. */
function roundTrip(type: GoType, text: string): { out: unknown } | { err: string } {
  const parsed = decodeFirstJsonValue(text);
  if (!parsed.ok) throw new Error(parsed.error);
  const r = decodeGo(type, parsed.value);
  return r.ok ? { out: r.value } : { err: r.error };
}

/** roundTrip's value as the webhook writes it (stringifyJson): compared as text where a number's form matters. */
function roundTripText(type: GoType, text: string): { out: string } | { err: string } {
  const r = roundTrip(type, text);
  return "out" in r ? { out: stringifyJson(r.out) } : r;
}

/** Go's json.Marshal output (an `out=` line of the fixture), read exactly; member order is not compared. */
const goOut = (text: string): { out: unknown } => ({ out: parseJsonExact(text) });

const spec = (inner: string): string => `{"spec":{"template":{"spec":${inner}}}}`;
/** What json.Marshal writes for a Service whose template spec marshals as `inner` (the fixture's `out=` lines). */
const marshalled = (inner: string): { out: unknown } =>
  goOut(`{"metadata":{"creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":${inner}}},"status":{}}`);
const typeError = (literal: string, field: string, type: string): { err: string } => ({ err: `json: cannot unmarshal number ${literal} into Go struct field ${field} of type ${type}` });

describe("int64 fields keep Go's exact value (decode.go literalStore: strconv.ParseInt)", () => {
  it.each([
    // [int64 9223372036854775807], [int64 -9223372036854775808], [int64 9007199254740993]
    ["9223372036854775807", marshalled('{"containers":null,"timeoutSeconds":9223372036854775807}')],
    ["-9223372036854775808", marshalled('{"containers":null,"timeoutSeconds":-9223372036854775808}')],
    ["9007199254740993", marshalled('{"containers":null,"timeoutSeconds":9007199254740993}')],
    // [int64 9223372036854775808], [int64 -9223372036854775809]: Go prints the literal as written.
    ["9223372036854775808", typeError("9223372036854775808", "RevisionSpec.spec.template.spec.timeoutSeconds", "int64")],
    ["-9223372036854775809", typeError("-9223372036854775809", "RevisionSpec.spec.template.spec.timeoutSeconds", "int64")],
    ["18446744073709551615", typeError("18446744073709551615", "RevisionSpec.spec.template.spec.timeoutSeconds", "int64")],
  ])("timeoutSeconds %s", (literal, want) => {
    expect(roundTrip(service, spec(`{"timeoutSeconds":${literal}}`))).toEqual(want);
  });

  it("holds them as a bigint beyond 2^53 and a number below", () => {
    const parsed = decodeFirstJsonValue(spec('{"timeoutSeconds":9223372036854775807,"containerConcurrency":9007199254740991}'));
    const r = parsed.ok ? decodeGo(service, parsed.value) : parsed;
    const revisionSpec = (r.ok ? (r.value as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec : {}) as Record<string, unknown>;
    expect(revisionSpec.timeoutSeconds).toBe(9223372036854775807n);
    expect(revisionSpec.containerConcurrency).toBe(9007199254740991);
  });

  it("matches a folded key and marshals it under the field's name ([folded key])", () => {
    expect(roundTrip(service, spec('{"TimeoutSeconds":9223372036854775807}'))).toEqual(marshalled('{"containers":null,"timeoutSeconds":9223372036854775807}'));
  });

  it.each([
    // [runAsUser], [percent]
    [spec('{"containers":[{"securityContext":{"runAsUser":9223372036854775808}}]}'), typeError("9223372036854775808", "SecurityContext.spec.template.spec.containers.securityContext.runAsUser", "int64")],
    ['{"spec":{"traffic":[{"percent":9223372036854775808}]}}', typeError("9223372036854775808", "TrafficTarget.spec.traffic.percent", "int64")],
    // [int32]: an int64 literal into an int32.
    [spec('{"containers":[{"ports":[{"containerPort":9223372036854775807}]}]}'), typeError("9223372036854775807", "ContainerPort.spec.template.spec.containers.ports.containerPort", "int32")],
    // [IntOrString]: intstr's UnmarshalJSON decodes into its int32.
    [spec('{"containers":[{"readinessProbe":{"httpGet":{"port":9223372036854775807}}}]}'), typeError("9223372036854775807", "HTTPGetAction.spec.template.spec.containers.readinessProbe.httpGet.port", "int32")],
    // [string]: a number into a string is `number`, without the literal.
    [spec('{"containers":[{"image":9223372036854775807}]}'), { err: "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string" }],
  ])("%s", (text, want) => {
    expect(roundTrip(service, text)).toEqual(want);
  });

  it("[]byte elements are uint8 ([[]byte])", () => {
    expect(roundTrip(configMapType, '{"binaryData":{"k":[9223372036854775807]}}')).toEqual(typeError("9223372036854775807", "ConfigMap.binaryData", "uint8"));
  });
});

describe("values Go keeps as raw text or parses as a quantity", () => {
  it("FieldsV1 (managedFields) keeps every literal exactly ([FieldsV1])", () => {
    const fields = '{"f:n":[9223372036854775807,-9223372036854775809,9007199254740993,18446744073709551616]}';
    expect(roundTrip(service, `{"metadata":{"managedFields":[{"manager":"m","fieldsV1":${fields}}]}}`)).toEqual(
      goOut(`{"metadata":{"creationTimestamp":null,"managedFields":[{"manager":"m","fieldsV1":${fields}}]},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}},"status":{}}`),
    );
  });

  it("a Quantity parses the literal's text ([Quantity])", () => {
    expect(roundTrip(service, spec('{"containers":[{"resources":{"limits":{"cpu":9223372036854775807,"memory":9223372036854775808}}}]}'))).toEqual(
      marshalled('{"containers":[{"name":"","resources":{"limits":{"cpu":"9223372036854775807","memory":"9223372036854775808"}}}]}'),
    );
  });
});

describe("uint64, float64 and interface{} (types Knative's kinds do not have)", () => {
  // The fixture's `Untyped` struct.
  const untyped = new GoTypeRegistry({ "main.Untyped": ["u uint64 omitempty", "f float64 omitempty", "a interface{} omitempty", "m map[string]interface{} omitempty"] }, {}, { main: "main" }).struct(
    "main.Untyped",
  );
  const e400 = "1" + "0".repeat(400);

  it.each([
    // [uint64 ...]
    ['{"u":18446744073709551615}', { out: '{"u":18446744073709551615}' }],
    ['{"u":18446744073709551616}', typeError("18446744073709551616", "Untyped.u", "uint64")],
    ['{"u":-9223372036854775809}', typeError("-9223372036854775809", "Untyped.u", "uint64")],
    // [float64 ...], [interface ...], [map interface ...]: ParseFloat's float64, marshalled by floatEncoder
    // (strconv 'f' format below 1e21: 9223372036854775807 → 2^63 → "9223372036854776000").
    ['{"f":9223372036854775807}', { out: '{"f":9223372036854776000}' }],
    ['{"a":9223372036854775807}', { out: '{"a":9223372036854776000}' }],
    ['{"m":{"k":[1,9223372036854775807]}}', { out: '{"m":{"k":[1,9223372036854776000]}}' }],
    ['{"f":9007199254740993}', { out: '{"f":9007199254740992}' }],
    ['{"a":9007199254740993}', { out: '{"a":9007199254740992}' }],
    ['{"m":{"k":[1,9007199254740993]}}', { out: '{"m":{"k":[1,9007199254740992]}}' }],
    ['{"f":-9223372036854775809}', { out: '{"f":-9223372036854776000}' }],
    ['{"a":-9223372036854775809}', { out: '{"a":-9223372036854776000}' }],
    ['{"f":18446744073709551615}', { out: '{"f":18446744073709552000}' }],
    ['{"m":{"k":[1,18446744073709551615]}}', { out: '{"m":{"k":[1,18446744073709552000]}}' }],
    // [float64 1e400], [interface 1e400], [map interface 1e400]: beyond float64, ParseFloat's range error.
    [`{"f":${e400}}`, typeError(e400, "Untyped.f", "float64")],
    [`{"a":${e400}}`, typeError(e400, "Untyped.a", "float64")],
    [`{"m":{"k":[1,${e400}]}}`, typeError(e400, "Untyped.m", "float64")],
  ])("%s", (text, want) => {
    expect(roundTripText(untyped, text)).toEqual(want);
  });

  it("reports the first out-of-range literal of an interface{} value in document order", () => {
    const first = "2" + "0".repeat(400);
    expect(roundTrip(untyped, `{"m":{"k":[[${first}],${e400}],"j":${e400}}}`)).toEqual(typeError(first, "Untyped.m", "float64"));
  });
});
