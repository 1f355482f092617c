/**
 * `duckbill upgrade-check` on manifests: the 1.17 corpus of test/fixtures/upgrade-check (exit code, categories,
 * the releases' own messages), cases taken from the public vectors of both releases (the difference reported is
 * the one between the vectors' answers), and the usage errors.
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import jsonpatch from "fast-json-patch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { optionsTable, UPGRADE_CHECK_OPTIONS, type OptionSpec } from "../../src/cli/settings/options.js";
import { runUpgradeCheck, type UpgradeCheckDeps } from "../../src/cli/upgrade/upgrade-check.js";
import type { Summary, UpgradeReport } from "../../src/cli/upgrade/upgrade-report.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";

const CORPUS = "test/fixtures/upgrade-check";
const MANIFESTS = `${CORPUS}/manifests`;
const CONFIG = `${CORPUS}/config`;

function upgradeCheck(args: string[], env: NodeJS.ProcessEnv = {}, deps?: UpgradeCheckDeps): Promise<CapturedRun> {
  return runCaptured((io) => runUpgradeCheck(args, io, deps, env));
}

type JsonReport = UpgradeReport & { summary: Summary };

async function report(args: string[]): Promise<{ code: number; report: JsonReport }> {
  const r = await upgradeCheck([...args, "-o", "json"]);
  expect(r.stderr).toBe("");
  return { code: r.code, report: JSON.parse(r.stdout) as JsonReport };
}

function object(r: JsonReport, name: string): JsonReport["objects"][number] {
  const o = r.objects.find((x) => x.name === name);
  if (o === undefined) throw new Error(`no object ${name}`);
  return o;
}

function configMap(r: JsonReport, name: string): JsonReport["configMaps"][number] {
  const m = r.configMaps.find((x) => x.name === name);
  if (m === undefined) throw new Error(`no ConfigMap ${name}`);
  return m;
}

/** The findings of one check of an object, without their causes. */
function findings(o: JsonReport["objects"][number], check: string): unknown[] {
  return (o.checks.find((c) => c.check === check)?.findings ?? []).map(({ causes: _causes, ...rest }) => rest);
}

function causes(o: JsonReport["objects"][number], check: string): string[] {
  return (o.checks.find((c) => c.check === check)?.findings ?? []).flatMap((f) => f.causes.map((c) => c.field));
}

const VALIDATION = "validation.webhook.serving.knative.dev";

describe("duckbill upgrade-check: the 1.17 corpus against 1.24", () => {
  let r: JsonReport;
  let code: number;
  beforeAll(async () => {
    ({ code, report: r } = await report(["--from", "1.17", "--to", "1.24", "-f", MANIFESTS, "--config-dir", CONFIG]));
  });

  it("exits 1 and says where it all came from", () => {
    expect(code).toBe(1);
    expect(r).toMatchObject({ from: "1.17", to: "1.24", fromSource: "given", objectsFrom: "manifests", configuration: `dir:${CONFIG}` });
    expect(r.summary).toEqual({
      objects: 7,
      breaks: 4,
      defaultsChange: 0,
      warningsChange: 0,
      newlyAllowed: 1,
      unchanged: 2,
      deniedByBoth: 0,
      configMaps: 3,
      configMapsBreak: 1,
      configMapsNewlyAllowed: 0,
      configMapsChange: 2,
      configMapsUnchanged: 0,
      skipped: 0,
      unreadable: 0,
    });
  });

  it("puts each object in its category", () => {
    expect(Object.fromEntries(r.objects.map((o) => [o.name, o.category]))).toEqual({
      hello: "unchanged",
      "from-helm": "breaks",
      internal: "breaks",
      "with-proxy": "breaks",
      "new-fields": "breaks",
      gang: "unchanged",
      graceful: "newly-allowed",
    });
  });

  it.each([
    {
      name: "a pod securityContext that secure-pod-defaults Allowed let through",
      object: "from-helm",
      message: "validation failed: must not set the field(s): spec.template.spec.securityContext",
      cause: "securePodDefaults.values",
    },
    {
      name: "an unknown networking.knative.dev template annotation",
      object: "internal",
      message: 'validation failed: invalid key name "networking.knative.dev/visibility": spec.template.metadata.annotations',
      cause: "templateNetworkingAnnotations",
    },
    {
      name: "a sidecar's startup probe, once startup probes are validated",
      object: "with-proxy",
      message: "validation failed: must not set the field(s): spec.template.spec.containers[1].startupProbe",
      cause: "probes.validateStartupProbes",
    },
  ])("$name breaks on create and on the next update", ({ object: name, message, cause }) => {
    const o = object(r, name);
    const denial = { category: "breaks", webhook: VALIDATION, message };
    expect(findings(o, "create")).toEqual([denial]);
    expect(findings(o, "update")).toEqual([denial]);
    expect(causes(o, "create")).toEqual([cause]);
    expect(causes(o, "update")).toEqual([cause]);
  });

  it("Kubernetes fields 1.17 dropped break a create of the manifest, not the update of what 1.17 stored", () => {
    const o = object(r, "new-fields");
    expect(findings(o, "create")).toEqual([
      { category: "breaks", webhook: VALIDATION, message: "validation failed: must not set the field(s): spec.template.spec.hostnameOverride, spec.template.spec.resources" },
    ]);
    expect(causes(o, "create")).toEqual(["unknownK8sFields.core.PodSpec"]);
    expect(o.checks.find((c) => c.check === "update")).toMatchObject({ from: { allowed: true }, to: { allowed: true }, findings: [] });
  });

  it("a Kubernetes 1.35 workloadRef is dropped by both 1.17 and 1.24", () => {
    expect(object(r, "gang").checks.map((c) => [c.check, c.from.allowed, c.to.allowed, c.findings.length])).toEqual([
      ["create", true, true, 0],
      ["update", true, true, 0],
    ]);
  });

  it("a probe's terminationGracePeriodSeconds is newly allowed, with 1.17's denial; a denied manifest has no update check", () => {
    const o = object(r, "graceful");
    expect(findings(o, "create")).toEqual([
      {
        category: "newly-allowed",
        webhook: VALIDATION,
        message: "validation failed: must not set the field(s): spec.template.spec.containers[0].readinessProbe.httpGet.terminationGracePeriodSeconds",
      },
    ]);
    expect(causes(o, "create")).toEqual(["probes.terminationGracePeriodSeconds"]);
    expect(o.checks.map((c) => c.check)).toEqual(["create"]);
  });

  it("config-observability: a key the OpenTelemetry schema rejects breaks; the OpenCensus keys are ignored", () => {
    const m = configMap(r, "config-observability");
    expect(m.category).toBe("breaks");
    expect(m.validation.findings.map(({ causes: c, ...rest }) => ({ ...rest, causes: c.map((x) => x.field) }))).toEqual([
      { category: "breaks", webhook: "config.webhook.serving.knative.dev", message: 'validation failed: unsupported profile setting "true"', causes: ["observabilitySchema"] },
    ]);
    expect(m.notes.map((n) => [n.category, n.key, n.field])).toEqual([
      ["ignored", "metrics.backend-destination", "observabilitySchema"],
      ["ignored", "metrics.request-metrics-backend-destination", "observabilitySchema"],
      ["ignored", "profiling.enable", "observabilitySchema"],
      ["takes-effect", "runtime-profiling", "observabilitySchema"],
      ["default-change", "metrics-protocol", "observabilitySchema"],
    ]);
    expect(m.notes[0]?.message).toBe("not read by Knative 1.24's opentelemetry schema; its opentelemetry counterpart is metrics-protocol");
  });

  it("config-tracing is no longer validated and its keys no longer read", () => {
    const m = configMap(r, "config-tracing");
    expect(m.category).toBe("changes");
    expect(m.validation.findings).toEqual([]);
    expect(m.notes).toEqual([
      { category: "unvalidated", message: "Knative 1.24's webhook no longer validates config-tracing: it admits it whatever it holds", field: "unvalidatedConfigMaps" },
      {
        category: "ignored",
        message: "backend, sample-rate, zipkin-endpoint: Knative 1.24 takes tracing from config-observability (tracing-protocol, tracing-endpoint, tracing-sampling-rate) instead",
        field: "observabilitySchema",
      },
    ]);
  });

  it("config-features: secure-pod-defaults Allowed becomes Disabled", () => {
    expect(configMap(r, "config-features").notes).toEqual([
      {
        category: "value-change",
        key: "secure-pod-defaults",
        message: '"Allowed" is Allowed in Knative 1.17 and Disabled in 1.24, which takes Disabled, AllowRootBounded, Enabled',
        field: "securePodDefaults.values",
      },
    ]);
  });
});

describe("duckbill upgrade-check: text output", () => {
  it("groups the findings per object, leaves unchanged objects out, and ends with the summary line", async () => {
    const r = await upgradeCheck(["--from", "1.17", "-f", MANIFESTS, "--config-dir", CONFIG]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(`Knative 1.17 → 1.24: 7 objects from manifests, 3 ConfigMaps, configuration dir:${CONFIG}`);
    expect(lines.filter((l) => /^\S/.test(l)).slice(1)).toEqual([
      `Service default/from-helm  (${MANIFESTS}/services.yaml:14)`,
      `Service default/internal  (${MANIFESTS}/services.yaml:26)`,
      `Service default/with-proxy  (${MANIFESTS}/services.yaml:40)`,
      `Service default/new-fields  (${MANIFESTS}/services.yaml:59)`,
      `Service default/graceful  (${MANIFESTS}/services.yaml:88)`,
      `ConfigMap knative-serving/config-features  (dir:${CONFIG})`,
      `ConfigMap knative-serving/config-observability  (dir:${CONFIG})`,
      `ConfigMap knative-serving/config-tracing  (dir:${CONFIG})`,
      "Summary: 7 objects: 4 break, 0 defaults change, 0 warnings change, 1 newly allowed, 2 unchanged; 3 ConfigMaps: 1 break, 0 newly allowed, 2 change, 0 unchanged: something breaks on Knative 1.24.",
    ]);
    expect(r.stdout).toContain(
      'Service default/from-helm  (test/fixtures/upgrade-check/manifests/services.yaml:14)\n  breaks on create and its next update: Knative 1.24 answers: admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: must not set the field(s): spec.template.spec.securityContext\n    because secure-pod-defaults takes Disabled, AllowRootBounded, Enabled (was Enabled, Allowed, Disabled); any other value means Disabled [securePodDefaults.values]\n',
    );
    expect(r.stdout).toContain("  its next update stays allowed: the object as Knative 1.17 stored it passes; applying this manifest again is what breaks\n");
    expect(r.stdout).toContain("  ignored: profiling.enable: not read by Knative 1.24's opentelemetry schema (runtime-profiling is set) [observabilitySchema]\n");
  });

  it("prints the defaults difference as a patch and the warnings that go away (secure-pod-defaults Enabled)", async () => {
    const r = await upgradeCheck(["--from", "1.17", "--to", "1.24", "-f", `${CORPUS}/secure-services.yaml`, "--config-dir", `${CORPUS}/config-secure`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "  defaults change on create (the object as 1.17 defaults it → as 1.24 does):\n    ~ /spec/template/spec/containers/0/securityContext/runAsNonRoot: true → false\n    because secure-pod-defaults Enabled keeps a container's own runAsNonRoot [securePodDefaults.keepContainerRunAsNonRoot]\n",
    );
    expect(r.stdout).toContain(
      "  warnings change on create and its next update:\n    - Warning: Kubernetes default value is insecure, Knative may default this to secure in a future release: spec.template.spec.containers[0].securityContext.capabilities.drop\n    because no insecure-default warnings under secure-pod-defaults Enabled, AllowRootBounded [securePodDefaults.silenceInsecureDefaultWarnings]\n",
    );
    expect(r.stdout).toMatch(/\nSummary: 2 objects: 0 break, 1 defaults change, 1 warnings change, 0 newly allowed, 0 unchanged; 1 ConfigMap: .*: nothing breaks on Knative 1\.24\.\n$/);
  });

  it("notes documents the webhook does not see on stderr", async () => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-upgrade-"));
    try {
      await writeFile(join(dir, "d.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n");
      const r = await upgradeCheck(["--from", "1.17", "-f", join(dir, "d.yaml")]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(`note: ${join(dir, "d.yaml")}:1: skipped apps/v1 Deployment "web": not a kind the Knative Serving webhook handles\n`);
      expect(r.stdout).toMatch(/; 1 document skipped: nothing breaks on Knative 1\.24\.\n$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("duckbill upgrade-check: other releases", () => {
  it("1.17 → 1.23: workloadRef, which 1.23 knows, breaks", async () => {
    const { code, report: r } = await report(["--from", "1.17", "--to", "1.23", "-f", MANIFESTS, "--config-dir", CONFIG]);
    expect(code).toBe(1);
    expect(findings(object(r, "gang"), "create")).toEqual([{ category: "breaks", webhook: VALIDATION, message: "validation failed: must not set the field(s): spec.template.spec.workloadRef" }]);
  });

  it("1.23 → 1.24: workloadRef is newly allowed, what 1.23 denies already is denied by both", async () => {
    const { code, report: r } = await report(["--from", "1.23", "--to", "1.24", "-f", MANIFESTS]);
    expect(code).toBe(0);
    expect(object(r, "gang").category).toBe("newly-allowed");
    expect(r.summary).toMatchObject({ breaks: 0, newlyAllowed: 1, deniedByBoth: 4 });
  });

  it("takes --from and --to from DUCKBILL_UPGRADE_FROM and DUCKBILL_UPGRADE_TO, flags first", async () => {
    const env = { DUCKBILL_UPGRADE_FROM: "1.17", DUCKBILL_UPGRADE_TO: "1.23" };
    const byEnv = await upgradeCheck(["-f", MANIFESTS, "-o", "json"], env);
    expect(JSON.parse(byEnv.stdout)).toMatchObject({ from: "1.17", to: "1.23" });
    const byFlag = await upgradeCheck(["-f", MANIFESTS, "-o", "json", "--to", "1.24"], env);
    expect(JSON.parse(byFlag.stdout)).toMatchObject({ from: "1.17", to: "1.24" });
  });
});

/** Every line of a release's vector files, by name. */
function vectors(dir: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const v = JSON.parse(line) as { name: string };
      out.set(v.name, v);
    }
  }
  return out;
}

interface VectorLine {
  configs?: Record<string, Record<string, string>>;
  review: { request: { object: Record<string, unknown> } };
  expect: { patchedObject?: Record<string, unknown>; response: { allowed: boolean; warnings?: string[]; status?: { message: string } } };
}

function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

describe("duckbill upgrade-check reports the difference between the releases' own vectors", () => {
  const v117 = vectors("test/conformance/vectors");
  const v124 = vectors("test/conformance/knative-1.24");
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-upgrade-vectors-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  /** The case's manifest (the object its /defaulting request carries) through upgrade-check 1.17 → 1.24 with its ConfigMaps. */
  async function run(name: string): Promise<{ r: JsonReport; old: VectorLine; now: VectorLine; oldValidation: VectorLine; newValidation: VectorLine }> {
    const old = v117.get(`${name}/defaulting`) as unknown as VectorLine;
    const now = v124.get(`${name}/defaulting`) as unknown as VectorLine;
    const caseDir = join(dir, name.replace(/\//g, "_"));
    const configDir = join(caseDir, "config");
    await rm(caseDir, { recursive: true, force: true });
    await mkdir(configDir, { recursive: true });
    for (const [cm, data] of Object.entries(old.configs ?? {})) await writeFile(join(configDir, `${cm}.json`), JSON.stringify(data));
    await writeFile(join(caseDir, "manifest.json"), JSON.stringify(old.review.request.object));
    const { report: r } = await report(["--from", "1.17", "--to", "1.24", "-f", join(caseDir, "manifest.json"), "--config-dir", configDir]);
    return { r, old, now, oldValidation: v117.get(`${name}/validation`) as unknown as VectorLine, newValidation: v124.get(`${name}/validation`) as unknown as VectorLine };
  }

  it.each(["metadata/template-networking-annotations", "podspec/probe-startup-two-handlers", "podspec/probe-startup-empty", "podspec/probe-multi-container-sidecar-startup-probe"])(
    "%s: allowed by 1.17, and breaks with 1.24's message",
    async (name) => {
      const { r, oldValidation, newValidation } = await run(name);
      expect(oldValidation.expect.response.allowed).toBe(true);
      const [o] = r.objects;
      expect(findings(o!, "create")).toEqual([{ category: "breaks", webhook: VALIDATION, message: newValidation.expect.response.status?.message }]);
    },
  );

  it.each(["podspec/probe-readiness-termination-grace", "podspec/probe-liveness-termination-grace"])("%s: newly allowed, with 1.17's message", async (name) => {
    const { r, oldValidation, newValidation } = await run(name);
    expect(newValidation.expect.response.allowed).toBe(true);
    expect(findings(r.objects[0]!, "create")).toEqual([{ category: "newly-allowed", webhook: VALIDATION, message: oldValidation.expect.response.status?.message }]);
  });

  it("defaulting/secure-defaults-partial-sc: the defaults and warnings change as between the vectors", async () => {
    const { r, old, now, oldValidation, newValidation } = await run("defaulting/secure-defaults-partial-sc");
    const expectedPatch = jsonpatch.compare(dropNulls(old.expect.patchedObject) as object, dropNulls(now.expect.patchedObject) as object);
    expect(expectedPatch.length).toBeGreaterThan(0);
    const create = r.objects[0]!.checks.find((c) => c.check === "create")!;
    const defaults = create.findings.find((f) => f.category === "defaults-change");
    expect(defaults?.category === "defaults-change" ? defaults.patch.map(({ was: _was, ...op }) => op) : undefined).toEqual(expectedPatch);
    const removed = (oldValidation.expect.response.warnings ?? []).filter((w) => !(newValidation.expect.response.warnings ?? []).includes(w));
    expect(create.findings.find((f) => f.category === "warnings-change")).toMatchObject({ removed, added: [] });
  });
});

describe("duckbill upgrade-check: usage", () => {
  it.each([
    { name: "--from auto with manifests", args: ["-f", MANIFESTS], stderr: "--from auto is the release the cluster runs and needs --kubeconfig; for manifests, name the release running now (--from 1.24, 1.23, 1.17)" },
    { name: "the same release twice", args: ["--from", "1.24", "-f", MANIFESTS], stderr: "--from and --to are the same release (1.24): nothing changes" },
    { name: "an unknown --to", args: ["--from", "1.17", "--to", "1.25", "-f", MANIFESTS], stderr: '--to must be one of 1.24, 1.23, 1.17, got "1.25"' },
    { name: "--to auto", args: ["--from", "1.17", "--to", "auto", "-f", MANIFESTS], stderr: '--to must be one of 1.24, 1.23, 1.17, got "auto"' },
    { name: "an unknown --from", args: ["--from", "1.18", "-f", MANIFESTS], stderr: '--from must be auto or one of 1.24, 1.23, 1.17, got "1.18"' },
    { name: "nothing to check", args: ["--from", "1.17"], stderr: "upgrade-check needs manifests (-f FILE|DIR|- or files as arguments) or --kubeconfig FILE for the cluster's objects" },
    { name: "--kubeconfig with --config-dir", args: ["--kubeconfig", "kc", "--config-dir", CONFIG], stderr: "--kubeconfig and --config-dir are alternatives: give one of them" },
    { name: "an unknown output", args: ["--from", "1.17", "-f", MANIFESTS, "-o", "yaml"], stderr: '--output must be text or json, got "yaml"' },
  ])("exits 2: $name", async ({ args, stderr }) => {
    const r = await upgradeCheck(args);
    expect(r).toEqual({ code: 2, stdout: "", stderr: `duckbill upgrade-check: ${stderr}\nRun "duckbill upgrade-check --help" for usage.\n` });
  });

  it("exits 2 on an unknown flag", async () => {
    const r = await upgradeCheck(["--form", "1.17"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^duckbill upgrade-check: unknown option --form; did you mean --from\?/);
  });

  it("exits 2 on a manifest it cannot read", async () => {
    const r = await upgradeCheck(["--from", "1.17", "-f", "test/fixtures/check/syntax-error.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^duckbill upgrade-check: test\/fixtures\/check\/syntax-error\.yaml:\d+:\d+: /);
  });

  it("--help prints the usage and every setting as text, grouped", async () => {
    const r = await upgradeCheck(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: duckbill upgrade-check --to 1\.24 --from 1\.17 /);
    expect(r.stdout.replace(/\n {30}/g, " ")).toMatch(/^Releases:\n {6}--from RELEASE +the Knative release running now: .*\(env DUCKBILL_UPGRADE_FROM, default "auto"\)$/m);
    for (const o of UPGRADE_CHECK_OPTIONS as readonly OptionSpec[]) expect(r.stdout).toMatch(new RegExp(`^ {2}(-${o.short ?? "x"}, | {4})--${o.flag}\\b`, "m"));
    expect(r.stdout).not.toContain(optionsTable(UPGRADE_CHECK_OPTIONS).split("\n")[0]);
  });
});
