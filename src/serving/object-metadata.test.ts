import { PROFILES } from "../config/profile.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { VECTORS_DIR } from "../../test/conformance/paths.js";
import { also, filter, renderFieldError, type FieldError } from "../apis/field-error.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import type { AutoscalerConfig } from "../config/types.js";
import { validateRolloutDuration } from "./annotations.js";
import type { RequestContext } from "./context.js";
import { validateObjectMetadata } from "./object-metadata.js";
import { validateRevisionTemplate } from "./revision-template.js";
import { validateTraffic } from "./traffic.js";

// RevisionSpec rules belong to podspec.ts: left out so that only this module's rules are measured.
vi.mock("./podspec.js", () => ({ validateRevisionSpec: () => undefined }));

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const MISPLACED = 'autoscaling annotations must be put under "spec.template.metadata.annotations" to work';

const AUTOSCALER_DEFAULTS = {
  podAutoscalerClass: "kpa.autoscaling.knative.dev",
  allowZeroInitialScale: false,
  maxScaleLimit: 0,
} as AutoscalerConfig;

function contextWith(autoscaler: AutoscalerConfig): RequestContext {
  return { operation: "CREATE", subResource: "", config: { admission: { autoscaler }, profile: PROFILES["1.17"] } } as unknown as RequestContext;
}

const ctx = contextWith(AUTOSCALER_DEFAULTS);

describe("validateObjectMetadata: names (knative/pkg ValidateObjectMetadata)", () => {
  it.each<[string, Record<string, unknown> | undefined, string]>([
    ["valid name", { name: "hello" }, ""],
    ["double dash is fine", { name: "a--b" }, ""],
    ["valid generateName", { generateName: "hello-" }, ""],
    ["generateName without a dash", { generateName: "hello" }, ""],
    ["name and generateName", { name: "hello", generateName: "hello-" }, ""],
    ["63 characters", { name: "a".repeat(63) }, ""],
    ["64 characters", { name: "a".repeat(64) }, "not a DNS 1035 label: [must be no more than 63 characters]: name"],
    ["both messages at once", { name: "A".repeat(64) }, `not a DNS 1035 label: [must be no more than 63 characters ${DNS1035}]: name`],
    ["leading digit", { name: "1hello" }, `not a DNS 1035 label: [${DNS1035}]: name`],
    ["dots", { name: "hello.world" }, `not a DNS 1035 label: [${DNS1035}]: name`],
    ["underscore", { name: "hello_world" }, `not a DNS 1035 label: [${DNS1035}]: name`],
    ["uppercase", { name: "Hello" }, `not a DNS 1035 label: [${DNS1035}]: name`],
    ["trailing dash", { name: "hello-" }, `not a DNS 1035 label: [${DNS1035}]: name`],
    ["leading dash", { name: "-hello" }, `not a DNS 1035 label: [${DNS1035}]: name`],
    ["neither", {}, "name or generateName is required: name"],
    ["no metadata", undefined, "name or generateName is required: name"],
    ["uppercase generateName", { generateName: "Hello-" }, `not a DNS 1035 label prefix: [${DNS1035}]: generateName`],
    ["generateName with a leading digit", { generateName: "1hello-" }, `not a DNS 1035 label prefix: [${DNS1035}]: generateName`],
    ["generateName with a dot", { generateName: "hello.world-" }, `not a DNS 1035 label prefix: [${DNS1035}]: generateName`],
    // The prefix check replaces the last *two* characters of a trailing-dash prefix with `a`.
    ["generateName prefix quirk hides a bad character before the dash", { generateName: "ab_-" }, ""],
    ["a lone dash as generateName", { generateName: "-" }, `not a DNS 1035 label prefix: [${DNS1035}]: generateName`],
    [
      "only the first error is returned",
      { name: "Bad", generateName: "Bad-" },
      `not a DNS 1035 label prefix: [${DNS1035}]: generateName`,
    ],
  ])("%s", (_name, meta, want) => {
    expect(renderFieldError(validateObjectMetadata(meta, false, ctx))).toBe(want);
  });
});

describe("validateObjectMetadata: autoscaling annotations", () => {
  it.each<[string, Record<string, string>, string]>([
    ["no autoscaling annotation", { "serving.knative.dev/creator": "alice" }, ""],
    [
      "one misplaced annotation",
      { "autoscaling.knative.dev/min-scale": "-1" },
      `invalid key name "autoscaling.knative.dev/min-scale": annotations\n${MISPLACED}`,
    ],
    [
      "one error per key, sorted by key",
      { "autoscaling.knative.dev/max-scale": "3", "autoscaling.knative.dev/class": "kpa.autoscaling.knative.dev" },
      `invalid key name "autoscaling.knative.dev/class": annotations\n${MISPLACED}\n` +
        `invalid key name "autoscaling.knative.dev/max-scale": annotations\n${MISPLACED}`,
    ],
    [
      "a plain string prefix, without the slash",
      { "autoscaling.knative.dev": "x", "autoscaling.knative.devx/foo": "y", "xautoscaling.knative.dev/a": "z" },
      `invalid key name "autoscaling.knative.dev": annotations\n${MISPLACED}\n` +
        `invalid key name "autoscaling.knative.devx/foo": annotations\n${MISPLACED}`,
    ],
    ["the internal group is another prefix", { "autoscaling.internal.knative.dev/x": "1" }, ""],
  ])("are forbidden on Service, Configuration and Route: %s", (_name, annotations, want) => {
    expect(renderFieldError(validateObjectMetadata({ name: "hello", annotations }, false, ctx))).toBe(want);
  });

  it.each<[string, Record<string, string>, string]>([
    ["valid values", { "autoscaling.knative.dev/min-scale": "1", "autoscaling.knative.dev/max-scale": "3" }, ""],
    ["negative min-scale", { "autoscaling.knative.dev/min-scale": "-1" }, "expected 0 <= -1 <= 2147483647: annotations.autoscaling.knative.dev/min-scale"],
    ["unknown autoscaling keys are ignored", { "autoscaling.knative.dev/whatever": "x" }, ""],
  ])("are validated on Revision, PodAutoscaler and Metric: %s", (_name, annotations, want) => {
    expect(renderFieldError(validateObjectMetadata({ name: "hello-00001", annotations }, true, ctx))).toBe(want);
  });

  it("reports name and annotation errors together", () => {
    const got = validateObjectMetadata({ annotations: { "autoscaling.knative.dev/window": "1s" } }, true, ctx);
    expect(renderFieldError(got?.viaField("metadata"))).toBe(
      "expected 6s <= 1s <= 1h0m0s: metadata.annotations.autoscaling.knative.dev/window\n" +
        "name or generateName is required: metadata.name",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Conformance vectors: the lines of the expected denial that concern this module's paths.

type JsonObject = Record<string, unknown>;

interface VectorCase {
  readonly name: string;
  readonly kind: string;
  readonly object: JsonObject;
  readonly autoscaler: AutoscalerConfig;
  /** Expected error lines (message without `validation failed: `), or [] when allowed. */
  readonly expectedLines: readonly string[];
  readonly expectedWarnings: readonly string[];
}

const KINDS = new Set(["Service", "Configuration", "Route", "Revision"]);
/** Paths this module produces (rendered, from the object root). */
const OWNED_PATH = /(?:^|, |: )(?:metadata\.(?:name|generateName|annotations)|spec\.template\.metadata|spec\.traffic)\b/;

function autoscalerFrom(data: Record<string, string> | undefined): AutoscalerConfig {
  const limit = data?.["max-scale-limit"];
  const allowZero = data?.["allow-zero-initial-scale"];
  const cls = data?.["pod-autoscaler-class"];
  return {
    ...AUTOSCALER_DEFAULTS,
    ...(limit !== undefined ? { maxScaleLimit: Number(limit) } : {}),
    ...(allowZero !== undefined ? { allowZeroInitialScale: allowZero.toLowerCase() === "true" } : {}),
    ...(cls !== undefined ? { podAutoscalerClass: cls.trim() } : {}),
  };
}

function loadVectorCases(file: string): VectorCase[] {
  const out: VectorCase[] = [];
  for (const line of readFileSync(join(VECTORS_DIR, file), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const v = JSON.parse(line) as JsonObject;
    if (v.path !== "/resource-validation") continue;
    const request = (v.review as JsonObject).request as JsonObject;
    const gvk = request.kind as JsonObject;
    if (!KINDS.has(gvk.kind as string) || request.operation !== "CREATE") continue;
    const decoded = decodeGo(knativeTypes.get(`${String(gvk.group)}/${String(gvk.version)}, Kind=${String(gvk.kind)}`)!, request.object);
    if (!decoded.ok) throw new Error(`${String(v.name)}: ${decoded.error}`);
    const response = (v.expect as JsonObject).response as JsonObject;
    const message = ((response.status as JsonObject | undefined)?.message as string | undefined) ?? "";
    const configs = v.configs as Record<string, Record<string, string>> | undefined;
    out.push({
      name: v.name as string,
      kind: gvk.kind as string,
      object: decoded.value as JsonObject,
      autoscaler: autoscalerFrom(configs?.["config-autoscaler"]),
      expectedLines: response.allowed === true ? [] : message.replace(/^validation failed: /, "").split("\n"),
      expectedWarnings: (response.warnings as string[] | undefined) ?? [],
    });
  }
  return out;
}

/** What this module contributes to the kind's Validate on CREATE. */
function ownedValidation(c: VectorCase): FieldError | undefined {
  const vctx = contextWith(c.autoscaler);
  const meta = c.object.metadata as JsonObject | undefined;
  const spec = (c.object.spec as JsonObject | undefined) ?? {};
  let errs = validateObjectMetadata(meta, c.kind === "Revision", vctx)?.viaField("metadata");
  if (c.kind === "Service" || c.kind === "Route") errs = also(errs, validateRolloutDuration(meta)?.viaField("metadata"));
  if (c.kind === "Service" || c.kind === "Configuration") {
    errs = also(errs, validateRevisionTemplate(spec.template as JsonObject | undefined, meta, vctx)?.viaField("spec.template"));
  }
  if (c.kind === "Service" || c.kind === "Route") {
    errs = also(errs, validateTraffic(spec, { serviceContext: c.kind === "Service" })?.viaField("spec"));
  }
  return errs;
}

/** Removes `block` (consecutive lines) from `lines`; false when it is not there. */
function takeBlock(lines: string[], block: readonly string[]): boolean {
  for (let i = 0; i + block.length <= lines.length; i++) {
    if (block.every((b, j) => lines[i + j] === b)) {
      lines.splice(i, block.length);
      return true;
    }
  }
  return false;
}

describe.each(["metadata.jsonl", "traffic.jsonl"])("conformance vectors (%s): this module's share", (file) => {
  const cases = loadVectorCases(file);

  it("has vectors to check", () => {
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases)("$name", (c) => {
    const result = ownedValidation(c);
    const errors = filter(result, "Error");
    // Each of our errors (message line plus its detail lines) must be in the expected denial...
    const remaining = [...c.expectedLines];
    const unexpected: string[] = [];
    for (const leaf of errors?.wrappedErrors() ?? []) {
      const block = leaf.error().split("\n");
      if (!takeBlock(remaining, block)) unexpected.push(leaf.error());
    }
    expect(unexpected).toEqual([]);
    // ...and no expected line about our paths may be left over.
    expect(remaining.filter((l) => OWNED_PATH.test(l))).toEqual([]);
    // Our warnings (queue-proxy resource percentage) are among the expected ones.
    const warnings = filter(result, "Warning")?.wrappedErrors().map((w) => w.error()) ?? [];
    for (const w of warnings) expect(c.expectedWarnings).toContain(w);
    if (c.expectedWarnings.some((w) => w.startsWith("Queue proxy"))) expect(warnings.length).toBe(1);
  });
});
