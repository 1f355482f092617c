import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { VECTORS_DIR } from "../../test/conformance/paths.js";
import { filter, renderFieldError } from "../apis/field-error.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import { PROFILES } from "../config/profile.js";
import { snapshotFrom } from "../config/snapshot.js";
import type { AutoscalerConfig } from "../config/types.js";
import type { RequestContext } from "./context.js";
import { validateRevisionTemplate, verifyRevisionSpecImmutable, verifyTemplateNameChange } from "./revision-template.js";

// The RevisionSpec rules belong to podspec.ts; here they only need to be called with the spec, under `spec`.
vi.mock("./podspec.js", async () => {
  const { errGeneric } = await import("../apis/field-error.js");
  return {
    validateRevisionSpec: (spec: Record<string, unknown>) => (spec.fail === true ? errGeneric("revision spec rule", "x") : undefined),
  };
});

const AUTOSCALER = {
  podAutoscalerClass: "kpa.autoscaling.knative.dev",
  allowZeroInitialScale: false,
  maxScaleLimit: 0,
} as AutoscalerConfig;
const ctx = { operation: "CREATE", config: { admission: { autoscaler: AUTOSCALER }, profile: PROFILES["1.17"] } } as unknown as RequestContext;

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QP = "queue.sidecar.serving.knative.dev/";
const DEPRECATED =
  "Queue proxy resource percentage annotation is deprecated. Please use the available annotations to explicitly set resource values per service: ";

const parent = { name: "hello" };

function render(template: Record<string, unknown> | undefined, parentMeta: Record<string, unknown> | undefined = parent) {
  const got = validateRevisionTemplate(template, parentMeta, ctx);
  return { errors: renderFieldError(filter(got, "Error")), warnings: renderFieldError(filter(got, "Warning")) };
}

describe("validateRevisionTemplate: revision names (BYO)", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown> | undefined, string]>([
    ["no name", {}, parent, ""],
    ["name with the parent prefix", { name: "hello-v1" }, parent, ""],
    ["long valid name", { name: "hello-" + "a".repeat(57) }, parent, ""],
    ["name without the prefix", { name: "v1" }, parent, 'invalid value: "v1" must have prefix "hello-": metadata.name'],
    ["name equal to the parent", { name: "hello" }, parent, 'invalid value: "hello" must have prefix "hello-": metadata.name'],
    ["other prefix", { name: "world-v1" }, parent, 'invalid value: "world-v1" must have prefix "hello-": metadata.name'],
    ["uppercase name", { name: "hello-V1" }, parent, `invalid value: not a DNS 1035 label: [${DNS1035}]: metadata.name`],
    ["dotted name", { name: "hello.v1" }, parent, `invalid value: not a DNS 1035 label: [${DNS1035}]: metadata.name`],
    [
      "name too long",
      { name: "hello-" + "a".repeat(58) },
      parent,
      "invalid value: not a DNS 1035 label: [must be no more than 63 characters]: metadata.name",
    ],
    ["parent still to be generated", { name: "hello-v1" }, { generateName: "hello-" }, "must not set the field(s): metadata.name"],
    [
      "generated parent name is the prefix",
      { name: "hello-v1" },
      { name: "hello-6bbqq", generateName: "hello-" },
      'invalid value: "hello-v1" must have prefix "hello-6bbqq-": metadata.name',
    ],
    ["parent without any name", { name: "x-v1" }, {}, 'invalid value: "x-v1" must have prefix "-": metadata.name'],
    ["valid generateName", { generateName: "hello-rev-" }, parent, ""],
    [
      "invalid generateName",
      { generateName: "Hello-" },
      parent,
      `invalid value: not a DNS 1035 label prefix: [${DNS1035}]: metadata.generateName`,
    ],
    [
      "generateName is checked first",
      { generateName: "Hello-", name: "nope" },
      parent,
      `invalid value: not a DNS 1035 label prefix: [${DNS1035}]: metadata.generateName`,
    ],
    ["valid generateName with a bad name", { generateName: "hello-", name: "nope" }, parent, 'invalid value: "nope" must have prefix "hello-": metadata.name'],
  ])("%s", (_name, metadata, parentMeta, want) => {
    expect(render({ metadata, spec: {} }, parentMeta).errors).toBe(want);
  });
});

describe("validateRevisionTemplate: annotations", () => {
  it.each<[string, Record<string, string>, string, string?]>([
    ["autoscaling annotations are validated", { "autoscaling.knative.dev/window": "1s" }, "expected 6s <= 1s <= 1h0m0s: metadata.annotations.autoscaling.knative.dev/window"],
    [
      "min above max",
      { "autoscaling.knative.dev/min-scale": "5", "autoscaling.knative.dev/max-scale": "3" },
      "max-scale=3 is less than min-scale=5: metadata.annotations.autoscaling.knative.dev/max-scale, metadata.annotations.autoscaling.knative.dev/min-scale",
    ],
    ["networking annotations are not checked at v0.44.2", { "networking.knative.dev/not-a-real-key": "x" }, ""],
    ["rollout duration is not a template annotation", { "serving.knative.dev/rollout-duration": "x" }, ""],
    ["labels-like features annotations are ignored", { "features.knative.dev/queueproxy-podinfo": "bogus" }, ""],
    ["progress deadline", { "serving.knative.dev/progress-deadline": "1.5s" }, "progress-deadline=1.5s is not at second precision: metadata.annotations.serving.knative.dev/progress-deadline"],
    ["progress deadline not a duration", { "serving.knative.dev/progress-deadline": "abc" }, "invalid value: abc: metadata.annotations.serving.knative.dev/progress-deadline"],
    ["resource percentage within bounds warns", { [QP + "resource-percentage"]: "50" }, "", DEPRECATED],
    [
      "resource percentage above bounds",
      { [QP + "resource-percentage"]: "100.1" },
      `expected 0.1 <= 100.1 <= 100: metadata.annotations.[${QP}resource-percentage]`,
      DEPRECATED,
    ],
    [
      "resource percentage below bounds prints a Go float",
      { [QP + "resource-percentage"]: "0.01982" },
      `expected 0.1 <= 0.01982 <= 100: metadata.annotations.[${QP}resource-percentage]`,
      DEPRECATED,
    ],
    [
      "resource percentage far above bounds prints Go's exponent form",
      { [QP + "resource-percentage"]: "10000000" },
      `expected 0.1 <= 1e+07 <= 100: metadata.annotations.[${QP}resource-percentage]`,
      DEPRECATED,
    ],
    ["resource percentage NaN passes", { [QP + "resource-percentage"]: "NaN" }, "", DEPRECATED],
    [
      "resource percentage not a number",
      { [QP + "resource-percentage"]: "x" },
      `invalid value: x: metadata.annotations.[${QP}resource-percentage]`,
      DEPRECATED,
    ],
    [
      "resource percentage alias",
      { [QP + "resourcePercentage"]: "150" },
      `expected 0.1 <= 150 <= 100: metadata.annotations.[${QP}resourcePercentage]`,
      DEPRECATED,
    ],
    ["cpu request quantity", { [QP + "cpu-resource-request"]: "100m" }, ""],
    ["cpu request not a quantity", { [QP + "cpu-resource-request"]: "abc" }, `invalid value: abc: metadata.annotations.[${QP}cpu-resource-request]`],
    ["memory limit with a bad suffix", { [QP + "memory-resource-limit"]: "1GG" }, `invalid value: 1GG: metadata.annotations.[${QP}memory-resource-limit]`],
    ["a lone sign parses as zero", { [QP + "ephemeral-storage-resource-limit"]: "-" }, ""],
    ["empty quantity", { [QP + "ephemeral-storage-resource-request"]: "" }, `invalid value: : metadata.annotations.[${QP}ephemeral-storage-resource-request]`],
    ["unknown queue sidecar key", { [QP + "something-else"]: "abc" }, ""],
    [
      "all invalid",
      {
        [QP + "cpu-resource-request"]: "a",
        [QP + "cpu-resource-limit"]: "b",
        [QP + "memory-resource-request"]: "c",
        [QP + "memory-resource-limit"]: "d",
        [QP + "resource-percentage"]: "e",
      },
      `invalid value: a: metadata.annotations.[${QP}cpu-resource-request]\n` +
        `invalid value: b: metadata.annotations.[${QP}cpu-resource-limit]\n` +
        `invalid value: c: metadata.annotations.[${QP}memory-resource-request]\n` +
        `invalid value: d: metadata.annotations.[${QP}memory-resource-limit]\n` +
        `invalid value: e: metadata.annotations.[${QP}resource-percentage]`,
      DEPRECATED,
    ],
  ])("%s", (_name, annotations, wantErrors, wantWarnings = "") => {
    const got = render({ metadata: { annotations }, spec: {} });
    expect(got.errors).toBe(wantErrors);
    expect(got.warnings).toBe(wantWarnings);
  });

  it("labels are not validated", () => {
    expect(render({ metadata: { labels: { "serving.knative.dev/service": "spoofed", "Bad Label": "x" } } }).errors).toBe("");
  });
});

describe("validateRevisionTemplate: spec and composition", () => {
  it("prefixes RevisionSpec errors with spec", () => {
    expect(render({ spec: { fail: true } }).errors).toBe("revision spec rule: spec.x");
  });

  it("validates an absent spec as the zero RevisionSpec", () => {
    expect(render({ metadata: { name: "hello-v1" } }).errors).toBe("");
    expect(render(undefined).errors).toBe("");
  });

  it("accumulates errors from every rule", () => {
    const got = render({
      metadata: { name: "v1", annotations: { "autoscaling.knative.dev/target": "0", "serving.knative.dev/progress-deadline": "-1s" } },
      spec: { fail: true },
    });
    expect(got.errors).toBe(
      'invalid value: "v1" must have prefix "hello-": metadata.name\n' +
        "progress-deadline=-1s must be positive: metadata.annotations.serving.knative.dev/progress-deadline\n" +
        "revision spec rule: spec.x\n" +
        "target 0 should be at least 0.01: metadata.annotations.autoscaling.knative.dev/target",
    );
  });
});

describe("verifyTemplateNameChange", () => {
  const template = (name: string, image: string, labels?: Record<string, string>) => ({
    metadata: labels === undefined ? { name } : { name, labels },
    spec: { containers: [{ name: "user-container", image }] },
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    ["no BYO name", { metadata: {}, spec: { containers: [{ image: "a" }] } }, { metadata: {}, spec: { containers: [{ image: "b" }] } }, ""],
    ["name changed with the template", template("api-v1", "a:1"), template("api-v2", "a:2"), ""],
    ["same name, same template", template("api-v1", "a:1"), template("api-v1", "a:1"), ""],
    [
      "same name, new image",
      template("api-v1", "a:1"),
      template("api-v1", "a:2"),
      "Saw the following changes without a name change (-old +new): metadata.name\n" +
        '{*v1.RevisionTemplateSpec}.Spec.PodSpec.Containers[0].Image:\n\t-: "a:1"\n\t+: "a:2"\n',
    ],
    [
      "same name, new labels",
      template("api-v1", "a:1"),
      template("api-v1", "a:1", { release: "2024-05" }),
      "Saw the following changes without a name change (-old +new): metadata.name\n" +
        '{*v1.RevisionTemplateSpec}.ObjectMeta.Labels:\n\t-: "map[]"\n\t+: "map[release:2024-05]"\n',
    ],
  ])("%s", (_name, oldTemplate, newTemplate, want) => {
    expect(renderFieldError(verifyTemplateNameChange(newTemplate, oldTemplate))).toBe(want);
  });

  it("is relative to the template (the caller adds spec.template)", () => {
    const err = verifyTemplateNameChange(template("api-v1", "a:2"), template("api-v1", "a:1"));
    expect(err?.viaField("spec.template").paths).toEqual(["spec.template.metadata.name"]);
  });
});

describe("verifyRevisionSpecImmutable", () => {
  it("accepts an unchanged spec", () => {
    const spec = { containers: [{ name: "user-container", image: "busybox" }], timeoutSeconds: 300 };
    expect(verifyRevisionSpecImmutable(structuredClone(spec), spec)).toBeUndefined();
  });

  it.each<[string, unknown, unknown, string]>([
    [
      "image changed",
      { containers: [{ image: "busybox" }] },
      { containers: [{ image: "helloworld" }] },
      'Immutable fields changed (-old +new): spec\n{v1.RevisionSpec}.PodSpec.Containers[0].Image:\n\t-: "busybox"\n\t+: "helloworld"\n',
    ],
    [
      "timeout changed",
      { timeoutSeconds: 300 },
      { timeoutSeconds: 30 },
      'Immutable fields changed (-old +new): spec\n*{v1.RevisionSpec}.TimeoutSeconds:\n\t-: "300"\n\t+: "30"\n',
    ],
  ])("%s", (_name, oldSpec, newSpec, want) => {
    expect(renderFieldError(verifyRevisionSpecImmutable(newSpec, oldSpec))).toBe(want);
  });
});

// ---------------------------------------------------------------------------------------------
// Conformance vectors (updates.jsonl): BYO-name and Revision-immutability decisions.

type JsonObject = Record<string, unknown>;

interface UpdateCase {
  readonly name: string;
  readonly kind: string;
  readonly object: JsonObject;
  readonly oldObject: JsonObject;
  readonly message: string;
}

function loadUpdateCases(): UpdateCase[] {
  const out: UpdateCase[] = [];
  for (const line of readFileSync(join(VECTORS_DIR, "updates.jsonl"), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const v = JSON.parse(line) as JsonObject;
    if (v.path !== "/resource-validation") continue;
    const request = (v.review as JsonObject).request as JsonObject;
    const gvk = request.kind as JsonObject;
    if (request.operation !== "UPDATE" || !["Service", "Configuration", "Revision"].includes(gvk.kind as string)) continue;
    const type = knativeTypes.get(`${String(gvk.group)}/${String(gvk.version)}, Kind=${String(gvk.kind)}`)!;
    const object = decodeGo(type, request.object);
    const oldObject = decodeGo(type, request.oldObject);
    if (!object.ok || !oldObject.ok) throw new Error(`${String(v.name)}: does not decode`);
    const response = (v.expect as JsonObject).response as JsonObject;
    out.push({
      name: v.name as string,
      kind: gvk.kind as string,
      object: object.value as JsonObject,
      oldObject: oldObject.value as JsonObject,
      message: ((response.status as JsonObject | undefined)?.message as string | undefined) ?? "",
    });
  }
  return out;
}

describe("conformance vectors (updates.jsonl): template name changes and Revision immutability", () => {
  const cases = loadUpdateCases();
  const spec = (o: JsonObject) => o.spec as JsonObject | undefined;

  it("has vectors to check", () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  it.each(cases)("$name", (c) => {
    const got =
      c.kind === "Revision"
        ? verifyRevisionSpecImmutable(spec(c.object), spec(c.oldObject))
        : verifyTemplateNameChange(spec(c.object)?.template as JsonObject, spec(c.oldObject)?.template as JsonObject)?.viaField("spec.template");
    const marker = c.kind === "Revision" ? "Immutable fields changed" : "Saw the following changes without a name change";
    if (!c.message.includes(marker)) {
      expect(got).toBeUndefined();
      return;
    }
    // The whole answer is this one error; the diff (go-cmp) follows the first line.
    expect("validation failed: " + renderFieldError(got)).toBe(c.message);
  });
});

describe("networking.knative.dev template annotations (knative.dev/networking ValidateAnnotations, serving v0.48.0)", () => {
  const template = (annotations: Record<string, string>): Record<string, unknown> => ({ metadata: { annotations }, spec: { containers: [{ image: "busybox" }] } });
  const annotations = { "networking.knative.dev/ingress.class": "kourier", "networking.knative.devx/foo": "1", "networking.knative.dev/zzz": "2" };
  it("are not checked by 1.17", () => {
    const ctx = { operation: "CREATE", config: snapshotFrom({}, "test", PROFILES["1.17"]) } as unknown as RequestContext;
    expect(renderFieldError(validateRevisionTemplate(template(annotations), undefined, ctx))).not.toContain("invalid key name");
  });
  it("1.24 rejects every key with the prefix that it does not know, one line each", () => {
    const ctx = { operation: "CREATE", config: snapshotFrom({}, "test", PROFILES["1.24"]) } as unknown as RequestContext;
    const text = renderFieldError(validateRevisionTemplate(template(annotations), undefined, ctx));
    expect(text).toContain('invalid key name "networking.knative.dev/zzz": metadata.annotations');
    expect(text).toContain('invalid key name "networking.knative.devx/foo": metadata.annotations');
    expect(text).not.toContain("ingress.class");
  });
});
