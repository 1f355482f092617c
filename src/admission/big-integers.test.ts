/**
 * Integer literals beyond 2^53 in request bodies, through answerReview as the HTTPS server runs it. Go
 * decodes a number from its literal text, so Knative keeps every int64 exact: the decode errors, the `%v` digits in
 * validation messages and the re-marshalled values below are printed by test/fixtures/go-bigint/main.go (see its
 * output.txt; `[label]` names the line). The rest of each answer is Knative's rule for the same field with a small
 * value, which the conformance vectors cover: each case is also checked against that analog.
 *
 * The fixture runs Go 1.23, the Go of Knative 1.17, so these answers are Knative 1.17's. Go 1.24 and later name
 * embedded structs in decode-error field paths: Knative 1.24's decode errors are at the end, with the paths of the
 * 1.24 vectors envelope/wrong-type-*.
 */
import { describe, expect, it } from "vitest";
import { parseJsonExact } from "../go/encoding/json/json-bigint.js";
import { defaultDeps } from "../cli/main.js";
import { PROFILES, type KnativeProfile } from "../config/profile.js";
import { snapshotFrom } from "../config/snapshot.js";
import { answerReview, type AdmissionPath } from "./http.js";

const I64_MAX = "9223372036854775807";
const I64_MAX_PLUS_1 = "9223372036854775808";
const I64_MIN = "-9223372036854775808";
const I64_MIN_MINUS_1 = "-9223372036854775809";
const P53_PLUS_1 = "9007199254740993"; // 2^53 + 1: JSON.parse reads 9007199254740992

const deps = defaultDeps();

/** A review of a Service whose template spec is `specText` (raw JSON, so that literals arrive as written). */
function review(specText: string, metadataExtra = ""): string {
  const object =
    `{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"hello","namespace":"default"${metadataExtra}},` +
    `"spec":{"template":{"spec":${specText}},"traffic":[{"latestRevision":true,"percent":100}]}}`;
  return (
    `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"9e2b7c1a-0000-4000-8000-000000000013",` +
    `"kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},"resource":{"group":"serving.knative.dev","version":"v1","resource":"services"},` +
    `"operation":"CREATE","userInfo":{"username":"alice"},"object":${object}}}`
  );
}

const IMAGE = '"image":"ghcr.io/knative/helloworld-go"';

interface Answer {
  status: number;
  allowed?: boolean;
  message?: string;
  /** The patch as sent (the decoded base64 text), and read back with exact integers. */
  patchText?: string;
  patch?: Array<{ op: string; path: string; value?: unknown }>;
  body: string;
}

async function answer(path: AdmissionPath, body: string, configDefaults: Record<string, string> = {}, profile: KnativeProfile = PROFILES["1.17"]): Promise<Answer> {
  const a = await answerReview(path, body, deps, { config: snapshotFrom({ "config-defaults": configDefaults }, "test", profile) });
  if (a.status !== 200) return { status: a.status, body: a.body };
  const r = (JSON.parse(a.body) as { response: { allowed: boolean; status?: { message: string }; patch?: string } }).response;
  const patchText = r.patch === undefined ? undefined : Buffer.from(r.patch, "base64").toString("utf8");
  return {
    status: a.status,
    allowed: r.allowed,
    message: r.status?.message,
    patchText,
    patch: patchText === undefined ? undefined : (parseJsonExact(patchText) as Answer["patch"]),
    body: a.body,
  };
}

describe("/resource-validation", () => {
  const timeout = (literal: string): string => review(`{"containers":[{${IMAGE}}],"timeoutSeconds":${literal}}`);

  it.each([
    // [bounds]: apis.ErrOutOfBoundsValue prints the int64 with %v.
    [I64_MAX, `validation failed: expected 0 <= ${I64_MAX} <= 600: spec.template.spec.timeoutSeconds`],
    [I64_MIN, `validation failed: expected 0 <= ${I64_MIN} <= 600: spec.template.spec.timeoutSeconds`],
    [P53_PLUS_1, `validation failed: expected 0 <= ${P53_PLUS_1} <= 600: spec.template.spec.timeoutSeconds`],
  ])("timeoutSeconds %s is out of bounds, printed with its digits", async (literal, want) => {
    const got = await answer("/resource-validation", timeout(literal));
    expect(got.message).toBe(want);
    // The same answer as for a small out-of-range value, but for the number.
    const analog = await answer("/resource-validation", timeout("601"));
    expect(got.body.replace(literal, "601")).toBe(analog.body);
  });

  it.each([
    // [int64 9223372036854775808], [int64 -9223372036854775809]: Go prints the literal as written.
    [I64_MAX_PLUS_1, `decoding request failed: cannot decode incoming new object: json: cannot unmarshal number ${I64_MAX_PLUS_1} into Go struct field RevisionSpec.spec.template.spec.timeoutSeconds of type int64`],
    [I64_MIN_MINUS_1, `decoding request failed: cannot decode incoming new object: json: cannot unmarshal number ${I64_MIN_MINUS_1} into Go struct field RevisionSpec.spec.template.spec.timeoutSeconds of type int64`],
  ])("timeoutSeconds %s does not fit an int64", async (literal, want) => {
    expect((await answer("/resource-validation", timeout(literal))).message).toBe(want);
  });

  it("accepts int64 max when max-revision-timeout-seconds is int64 max, and compares exactly one below it", async () => {
    expect((await answer("/resource-validation", timeout(I64_MAX), { "max-revision-timeout-seconds": I64_MAX })).allowed).toBe(true);
    // 9223372036854775806 and int64 max are the same double: the comparison must not go through one.
    expect((await answer("/resource-validation", timeout(I64_MAX), { "max-revision-timeout-seconds": "9223372036854775806" })).message).toBe(
      `validation failed: expected 0 <= ${I64_MAX} <= 9223372036854775806: spec.template.spec.timeoutSeconds`,
    );
    expect((await answer("/resource-validation", timeout(P53_PLUS_1), { "max-revision-timeout-seconds": "9007199254740992" })).message).toBe(
      `validation failed: expected 0 <= ${P53_PLUS_1} <= 9007199254740992: spec.template.spec.timeoutSeconds`,
    );
  });

  it("containerConcurrency 2^53 + 1 ([bounds])", async () => {
    const got = await answer("/resource-validation", review(`{"containers":[{${IMAGE}}],"containerConcurrency":${P53_PLUS_1}}`));
    expect(got.message).toBe(`validation failed: expected 0 <= ${P53_PLUS_1} <= 1000: spec.template.spec.containerConcurrency`);
  });

  it("a container's runAsUser at int64 max ([bounds]) and past it ([runAsUser])", async () => {
    const runAsUser = (literal: string): string => review(`{"containers":[{${IMAGE},"securityContext":{"runAsUser":${literal}}}]}`);
    const got = await answer("/resource-validation", runAsUser(I64_MAX));
    expect(got.message).toBe(`validation failed: expected 0 <= ${I64_MAX} <= 2147483647: spec.template.spec.containers[0].securityContext.runAsUser`);
    expect(got.body.replace(I64_MAX, "-1")).toBe((await answer("/resource-validation", runAsUser("-1"))).body);
    expect((await answer("/resource-validation", runAsUser(I64_MAX_PLUS_1))).message).toBe(
      `decoding request failed: cannot decode incoming new object: json: cannot unmarshal number ${I64_MAX_PLUS_1} into Go struct field SecurityContext.spec.template.spec.containers.securityContext.runAsUser of type int64`,
    );
  });

  it("an int64 literal in an int32 field ([int32])", async () => {
    const got = await answer("/resource-validation", review(`{"containers":[{${IMAGE},"ports":[{"containerPort":${I64_MAX}}]}]}`));
    expect(got.message).toBe(
      `decoding request failed: cannot decode incoming new object: json: cannot unmarshal number ${I64_MAX} into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32`,
    );
  });

  it("a traffic percent at int64 max: out of bounds ([bounds]), and the int64 sum wraps as Go's does ([sum])", async () => {
    const body = review(`{"containers":[{${IMAGE}}]}`).replace('"traffic":[{"latestRevision":true,"percent":100}]', `"traffic":[{"latestRevision":true,"percent":${I64_MAX}},{"latestRevision":true,"percent":1}]`);
    expect((await answer("/resource-validation", body)).message).toBe(
      `validation failed: Traffic targets sum to ${I64_MIN}, want 100: spec.traffic\nexpected 0 <= ${I64_MAX} <= 100: spec.traffic[0].percent`,
    );
  });
});

describe("/defaulting", () => {
  /** The patch of a Service whose template spec has the given timeoutSeconds member text. */
  const patchFor = async (member: string, configDefaults: Record<string, string> = {}): Promise<Answer> =>
    answer("/defaulting", review(`{"containers":[{${IMAGE}}]${member}}`), configDefaults);

  it.each([I64_MAX, I64_MIN, P53_PLUS_1])("timeoutSeconds %s: Go's round trip keeps it, so the patch leaves it alone", async (literal) => {
    // [int64 ...]: json.Marshal writes the int64 back with the same digits.
    const got = await patchFor(`,"timeoutSeconds":${literal}`);
    expect(got.allowed).toBe(true);
    expect(got.patch?.some((op) => op.path.includes("timeoutSeconds") && op.path !== "/spec/template/spec/responseStartTimeoutSeconds")).toBe(false);
    // The defaults of a large timeout (responseStartTimeoutSeconds: 300 is below it; a negative one is not).
    const analog = await patchFor(`,"timeoutSeconds":${literal.startsWith("-") ? "-1" : "601"}`);
    expect(got.patchText).toBe(analog.patchText);
  });

  it("timeoutSeconds past int64 max is denied with Go's error", async () => {
    expect((await patchFor(`,"timeoutSeconds":${I64_MAX_PLUS_1}`)).message).toBe(
      `mutation failed: cannot decode incoming new object: json: cannot unmarshal number ${I64_MAX_PLUS_1} into Go struct field RevisionSpec.spec.template.spec.timeoutSeconds of type int64`,
    );
  });

  it("a folded key is moved, and the value is written with its digits ([folded key])", async () => {
    // Knative's own patch would write this value as 9223372036854776000: gomodules.xyz/jsonpatch/v2 CreatePatch diffs
    // the marshalled documents after json.Unmarshal into interface{} (float64). Duckbill writes the int64 Go's
    // round trip holds.
    const got = await patchFor(`,"TimeoutSeconds":${I64_MAX}`);
    expect(got.patch).toContainEqual({ op: "remove", path: "/spec/template/spec/TimeoutSeconds" });
    expect(got.patch).toContainEqual({ op: "add", path: "/spec/template/spec/timeoutSeconds", value: 9223372036854775807n });
    expect(got.patchText).toContain(`{"op":"add","path":"/spec/template/spec/timeoutSeconds","value":${I64_MAX}}`);
  });

  it("revision-timeout-seconds 2^53 + 1 is written exactly ([default])", async () => {
    const got = await patchFor("", { "revision-timeout-seconds": P53_PLUS_1, "max-revision-timeout-seconds": P53_PLUS_1 });
    expect(got.patchText).toContain(`{"op":"add","path":"/spec/template/spec/timeoutSeconds","value":${P53_PLUS_1}}`);
    // The response-start timeout defaults to the revision timeout, which it does not stay below: not set.
    expect(got.patch?.some((op) => op.path === "/spec/template/spec/responseStartTimeoutSeconds")).toBe(false);
  });

  it("managedFields' FieldsV1 keeps its literals, so the patch leaves them alone ([FieldsV1])", async () => {
    const managed = `,"managedFields":[{"manager":"m","fieldsV1":{"f:n":[${I64_MAX},${I64_MIN_MINUS_1},${P53_PLUS_1},18446744073709551616]}}]`;
    const got = await answer("/defaulting", review(`{"containers":[{${IMAGE}}]}`, managed));
    expect(got.allowed).toBe(true);
    expect(got.patch?.filter((op) => op.path.startsWith("/metadata/managedFields"))).toEqual([]);
    expect(got.patchText).toBe((await answer("/defaulting", review(`{"containers":[{${IMAGE}}]}`, ',"managedFields":[{"manager":"m","fieldsV1":{"f:n":[1]}}]'))).patchText);
  });
});

describe("the AdmissionReview envelope", () => {
  it.each([
    // [review uid], [review dryRun], [review request]: a number into a string, bool or struct is `number`.
    ['{"request":{"uid":9223372036854775808}}', "could not decode body:json: cannot unmarshal number into Go struct field AdmissionRequest.request.uid of type types.UID"],
    ['{"request":{"dryRun":1.5}}', "could not decode body:json: cannot unmarshal number into Go struct field AdmissionRequest.request.dryRun of type bool"],
    ['{"request":1.5}', "could not decode body:json: cannot unmarshal number into Go struct field AdmissionReview.request of type v1.AdmissionRequest"],
  ])("%s", async (body, want) => {
    const a = await answerReview("/defaulting", body, deps, { config: snapshotFrom({}, "test", PROFILES["1.17"]) });
    expect({ status: a.status, body: a.body }).toEqual({ status: 400, body: `${want}\n` });
  });
});

describe("Knative 1.24 (Go 1.26): decode errors name the embedded structs", () => {
  const V1_24 = PROFILES["1.24"];
  const prefix = "cannot decode incoming new object: json: cannot unmarshal number";

  it.each([
    // envelope/wrong-type-timeout-as-string, envelope/wrong-type-port-as-string: the paths of these fields.
    ["timeoutSeconds past int64 max", `{"containers":[{${IMAGE}}],"timeoutSeconds":${I64_MAX_PLUS_1}}`, `${I64_MAX_PLUS_1} into Go struct field RevisionSpec.spec.ConfigurationSpec.template.spec.timeoutSeconds of type int64`],
    ["timeoutSeconds below int64 min", `{"containers":[{${IMAGE}}],"timeoutSeconds":${I64_MIN_MINUS_1}}`, `${I64_MIN_MINUS_1} into Go struct field RevisionSpec.spec.ConfigurationSpec.template.spec.timeoutSeconds of type int64`],
    ["an int64 literal in an int32 field", `{"containers":[{${IMAGE},"ports":[{"containerPort":${I64_MAX}}]}]}`, `${I64_MAX} into Go struct field ContainerPort.spec.ConfigurationSpec.template.spec.PodSpec.containers.ports.containerPort of type int32`],
  ])("%s", async (_name, spec, error) => {
    expect((await answer("/resource-validation", review(spec), {}, V1_24)).message).toBe(`decoding request failed: ${prefix} ${error}`);
    expect((await answer("/defaulting", review(spec), {}, V1_24)).message).toBe(`mutation failed: ${prefix} ${error}`);
  });

  it("keeps an int64 in range exact, as 1.17 does", async () => {
    const got = await answer("/resource-validation", review(`{"containers":[{${IMAGE}}],"timeoutSeconds":${I64_MAX}}`), {}, V1_24);
    expect(got.message).toBe(`validation failed: expected 0 <= ${I64_MAX} <= 600: spec.template.spec.timeoutSeconds`);
  });
});
