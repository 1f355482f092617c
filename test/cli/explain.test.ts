/**
 * `duckbill features explain`: every flag of every release is explained; a misspelled flag or field exits 2 with the
 * closest names; a field is explained by what the webhook answers when it is set (check's pipeline), so the rules
 * no flag governs (privileged, nfs volumes, lifecycle hooks, ...) are explained too.
 */
import { describe, expect, it } from "vitest";
import { runFeatures } from "../../src/cli/features/features-command.js";
import { resolveFields, serviceFields } from "../../src/cli/features/field-explain.js";
import { closest, editDistance } from "../../src/cli/suggest.js";
import { KNATIVE_VERSIONS, PROFILES } from "../../src/config/profile.js";
import { FEATURE_GATES, featureGatesOf } from "../../src/serving/feature-gates.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";

function explain(...args: string[]): Promise<CapturedRun> {
  return runCaptured((io) => runFeatures(["explain", ...args], io));
}

interface FieldJson {
  path: string;
  verdict: string;
  gates: string[];
  refusal?: string;
  allowedValues: unknown[];
  refusedValues: unknown[];
  current: { allowed: boolean; message?: string };
}

async function explainJson(...args: string[]): Promise<{ fields: FieldJson[]; gates: Array<{ key: string }> }> {
  const r = await explain("-o", "json", ...args);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { fields: FieldJson[]; gates: Array<{ key: string }> };
}

describe("features explain <flag>", () => {
  it.each(KNATIVE_VERSIONS)("explains every flag of Knative %s", async (version) => {
    for (const gate of featureGatesOf(PROFILES[version])) {
      const r = await explain(gate.key, "--knative-version", version);
      expect(r.code, gate.key).toBe(0);
      expect(r.stdout.split("\n")[0]).toMatch(new RegExp(`^${gate.key.replace(/\./g, "\\.")}: (feature|extension), default `));
      expect(r.stderr).toBe("");
    }
  });

  it("explains a flag of another release with a note that this one ignores it", async () => {
    const r = await explain("kubernetes.podspec-volumes-csi", "--knative-version", "1.17");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubernetes\.podspec-volumes-csi: extension/);
    expect(r.stderr).toBe("note: kubernetes.podspec-volumes-csi is not a config-features flag of Knative 1.17 (it came with knative.dev/serving v0.45.0): that release ignores it\n");
  });

  it("answers a misspelled flag with exit 2 and the closest flags", async () => {
    const r = await explain("kubernetes.podspec-afinity");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toBe(
      'duckbill features: "kubernetes.podspec-afinity" is neither a config-features flag of Knative 1.24 nor a field of a Service; did you mean kubernetes.podspec-affinity, kubernetes.podspec-hostipc or kubernetes.podspec-fieldref?',
    );
  });

  it("suggests fields for a misspelled field, and says so when nothing is close", async () => {
    expect((await explain("spec.template.spec.afinity")).stderr).toMatch(/did you mean spec\.template\.spec\.affinity\b/);
    expect((await explain("privilegd")).stderr).toMatch(/did you mean privileged\?/);
    const none = await explain("zzzzzzzzzzzz");
    expect(none.code).toBe(2);
    expect(none.stderr.split("\n")[0]).toBe('duckbill features: "zzzzzzzzzzzz" is neither a config-features flag of Knative 1.24 nor a field of a Service');
  });

  it("asks for a path when a bare name stands for many fields", async () => {
    const r = await explain("name");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^duckbill features: "name" names \d+ fields; name one by its path, e.g. spec\.template\.metadata\.name, /);
  });

  it("names the closest flags for impact --disable too", async () => {
    const r = await runCaptured((io) => runFeatures(["impact", "--disable", "multi-containr", "test/fixtures/check/valid-service.yaml"], io));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown flag "multi-containr"; did you mean multi-container\?/);
  });
});

describe("features explain <field>: the rules check enforces without a flag", () => {
  it.each([
    // Field masks with no flag behind them (knative.dev/serving pkg/apis/serving/fieldmask.go).
    ["nfs", "spec.template.spec.volumes[*].nfs", "never", "must not set the field(s): spec.template.spec.volumes[0].nfs"],
    ["spec.template.spec.nodeName", "spec.template.spec.nodeName", "never", "must not set the field(s): spec.template.spec.nodeName"],
    ["containers[0].lifecycle.preStop", "spec.template.spec.containers[*].lifecycle.preStop", "never", "must not set the field(s): spec.template.spec.containers[0].lifecycle"],
    ["spec.template.spec.containers[0].ports[0].hostPort", "spec.template.spec.containers[*].ports[*].hostPort", "never", "must not set the field(s): spec.template.spec.containers[0].ports.hostPort"],
    ["spec.traffic[0].url", "spec.traffic[*].url", "never", "must not set the field(s): spec.traffic[0].url"],
    // Copied only when false (SecurityContextMask, PodSpecMask).
    ["spec.template.spec.containers[*].securityContext.privileged", "spec.template.spec.containers[*].securityContext.privileged", "some-values", "must not set the field(s): spec.template.spec.containers[0].securityContext.privileged"],
    ["automountServiceAccountToken", "spec.template.spec.automountServiceAccountToken", "some-values", "must not set the field(s): spec.template.spec.automountServiceAccountToken"],
  ])("%s: %s is %s", async (subject, path, verdict, refusal) => {
    const { fields } = await explainJson(subject);
    expect(fields).toHaveLength(1);
    expect(fields[0]).toMatchObject({ path, verdict, refusal, gates: [], current: { allowed: false, message: refusal } });
  });

  it("says which values a false-only field takes", async () => {
    const [field] = (await explainJson("spec.template.spec.containers.securityContext.privileged")).fields;
    expect(field).toMatchObject({ allowedValues: [false], refusedValues: [true] });
    const r = await explain("spec.template.spec.containers.securityContext.privileged");
    expect(r.stdout).toContain("  No config-features flag gates it: Knative allows it only as false; as true the webhook answers:\n    must not set the field(s): spec.template.spec.containers[0].securityContext.privileged\n");
  });

  it("explains every field a bare name stands for, with the flags that gate some of them", async () => {
    const { fields, gates } = await explainJson("privileged");
    expect(fields.map((f) => [f.path, f.verdict, f.gates])).toEqual([
      ["spec.template.spec.initContainers[*].securityContext.privileged", "some-values", ["kubernetes.podspec-init-containers"]],
      ["spec.template.spec.containers[*].securityContext.privileged", "some-values", []],
      ["spec.template.spec.ephemeralContainers[*].securityContext.privileged", "never", []],
    ]);
    expect(gates.map((g) => g.key)).toEqual(["kubernetes.podspec-init-containers"]);
  });

  it("tells gated fields and freely allowed ones apart, and follows the configuration", async () => {
    expect((await explainJson("affinity")).fields[0]).toMatchObject({ verdict: "gated", gates: ["kubernetes.podspec-affinity"], current: { allowed: false } });
    expect((await explainJson("affinity", "--config-dir", "test/fixtures/check/config-affinity")).fields[0]).toMatchObject({ verdict: "gated", current: { allowed: true } });
    expect((await explainJson("spec.template.spec.timeoutSeconds")).fields[0]).toMatchObject({ verdict: "allowed", current: { allowed: true } });
  });
});

describe("the field catalog and suggestions", () => {
  it("holds the Service's spec, the pod spec's fields included, once each", () => {
    const paths = serviceFields().map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toEqual(expect.arrayContaining(["spec.traffic[*].percent", "spec.template.spec.containers[*].securityContext.privileged", "spec.template.spec.volumes[*].nfs.server"]));
    expect(resolveFields("spec.template.spec.containers[3].env[1].valueFrom.fieldRef").map((f) => f.path)).toEqual(["spec.template.spec.containers[*].env[*].valueFrom.fieldRef"]);
  });

  it("measures edit distance and keeps the nearest", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(closest("multi-containr", FEATURE_GATES.map((g) => g.key))).toEqual(["multi-container"]);
    expect(closest("xyz", ["abc", "xya", "xyzz"])).toEqual(["xya", "xyzz"]);
  });
});
