/**
 * `duckbill test`: declarative expected results per object, run through check's pipeline. The example of docs/cli.md
 * (docs/examples/duckbill-test/) passes and prints what the page shows; a suite with wrong expectations fails case by
 * case with the reason; test files that cannot be run are errors (exit 2), and a misspelled key names the right one.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runTest } from "../../src/cli/test-suites/test-command.js";
import { fieldPath, parseTestFile, TestFileError } from "../../src/cli/test-suites/test-suite.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";
import { elementsNamed, parseXml } from "../support/xml.js";

const EXAMPLE = "docs/examples/duckbill-test";
const SUITES = "test/fixtures/test-suites";

function test(args: string[]): Promise<CapturedRun> {
  return runCaptured((io) => runTest(args, io, undefined, {}));
}

describe("the example suite of docs/cli.md", () => {
  const doc = readFileSync("docs/cli.md", "utf8");

  it("is the test file docs/cli.md shows, and passes with the output it shows", async () => {
    expect(doc).toContain(readFileSync(`${EXAMPLE}/duckbill-test.yaml`, "utf8"));
    const r = await test([EXAMPLE]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(doc).toContain(`$ duckbill test ${EXAMPLE}\n${r.stdout}`);
  });
});

describe("duckbill test", () => {
  it("fails each wrong expectation with the reason, and exits 1", async () => {
    const r = await test([`${SUITES}/failing`]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split("\n");
    expect(lines.filter((l) => /^ {2}(PASS|FAIL) /.test(l))).toEqual([
      "  PASS  Service hello: allowed",
      "  FAIL  Service reserved: allowed",
      "  FAIL  Service reserved: denied",
      "  FAIL  Service hello: allowed",
      "  FAIL  Service hello: allowed",
      "  FAIL  Service hello: allowed",
      "  FAIL  Service hello: allowed",
      "  FAIL  Service goodbye: allowed",
      "  PASS  ConfigMap app-settings: skipped",
    ]);
    expect(r.stdout).toContain('        expected allowed, got denied: admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: invalid value: 8012 is a reserved port');
    expect(r.stdout).toContain('        the denial does not contain "9090 is a reserved port": ');
    expect(r.stdout).toContain('        expected no warnings, got "Kubernetes default value is insecure');
    expect(r.stdout).toContain('        no warning contains "runAsUser" (warnings: "Kubernetes default value is insecure');
    expect(r.stdout).toContain('        defaulted spec.template.spec.containers[0].name: "user-container", expected "main"\n        defaulted spec.template.spec.containers[1].name: not set, expected "sidecar"\n');
    expect(r.stdout).toContain('        the JSON Patch has no operation {"op":"add","path":"/spec/traffic","value":[]}\n');
    expect(r.stdout).toContain("  FAIL  Service goodbye: allowed\n        no such object in the manifests\n");
    expect(lines.at(-2)).toBe("Summary: 1 test file, 9 cases: 2 passed, 7 failed");
  });

  it("--fail-only prints only the failed cases", async () => {
    const r = await test(["--fail-only", `${SUITES}/failing`]);
    expect(r.stdout).not.toContain("PASS");
    expect(r.stdout.match(/^ {2}FAIL /gm)).toHaveLength(7);
  });

  it("finds test files below a directory, reports those that cannot be run as errors, runs the rest, and exits 2", async () => {
    const r = await test([SUITES]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('test/fixtures/test-suites/broken/duckbill-test.yaml (broken)\n  ERROR the test file: unknown key "result"; did you mean "results"?\n');
    expect(r.stdout).toContain(
      "test/fixtures/test-suites/broken/nested/duckbill-test.yaml (nested)\n" +
        "  ERROR test/fixtures/test-suites/broken/nested/missing.yaml: the path does not exist\n" +
        "  ERROR test/fixtures/check/with-broken/b-half-broken.yaml:21:1: Sequence item without - indicator\n" +
        "  PASS  Service before-the-error: allowed\n",
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("Summary: 3 test files, 10 cases: 3 passed, 7 failed; 3 errors");
  });

  it("-o json and -o junit carry every case", async () => {
    const json = JSON.parse((await test(["-o", "json", `${SUITES}/failing`])).stdout) as { tests: Array<{ cases: Array<{ passed: boolean; problems: string[]; where?: string }> }>; summary: Record<string, number> };
    expect(json.summary).toEqual({ files: 1, cases: 9, passed: 2, failed: 7, errors: 0 });
    expect(json.tests[0]?.cases[0]).toMatchObject({ passed: true, problems: [], where: "test/fixtures/check/valid-service.yaml:2" });
    const junit = parseXml((await test(["-o", "junit", SUITES])).stdout);
    expect(junit.attributes).toMatchObject({ tests: String(10 + 3), failures: "7", errors: "3" });
    expect(elementsNamed(junit, "testsuite")).toHaveLength(3);
  });

  it("exits 2 when there is no test file, or on a bad option", async () => {
    const none = await test(["test/fixtures/check/dir"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('duckbill test: no duckbill-test.yaml in test/fixtures/check/dir\nRun "duckbill test --help" for usage.\n');
    expect((await test(["-o", "yaml", EXAMPLE])).code).toBe(2);
  });
});

describe("test files", () => {
  it.each([
    ["[]", "a test file is a mapping with manifests and results"],
    ["results: [{kind: Service, name: a, result: allowed}]", "manifests is missing"],
    ["manifests: [a.yaml]\nresults: []", "results must list at least one expected result"],
    ["manifests: [a.yaml]\nresults: [{kind: Service, name: a, result: ok}]", "results[0].result must be allowed, denied or skipped"],
    ["manifests: [a.yaml]\nresults: [{kind: Service, name: a, result: allowed, mesage: x}]", 'results[0]: unknown key "mesage"; did you mean "message"?'],
    ["manifests: [a.yaml]\nresults: [{kind: Service, name: a, result: allowed, message: x}]", "results[0]: message is for a denied result"],
    ["manifests: [a.yaml]\nresults: [{kind: Service, name: a, result: denied, patch: []}]", "results[0]: defaulted and patch are for an allowed result"],
    ["manifests: [a.yaml]\nresults: [{kind: Service, result: allowed}]", "results[0] needs kind and name"],
    ["manifests: [a.yaml]\nresults: [{kind: Service, name: a, result: allowed, defaulted: {'spec..x': 1}}]", 'results[0].defaulted: "spec..x" is not a field path'],
  ])("refuses %j", (text, reason) => {
    expect(() => parseTestFile("t.yaml", text, "d")).toThrow(TestFileError);
    expect(() => parseTestFile("t.yaml", text, "d")).toThrow(reason);
  });

  it("reads field paths with indices and quoted keys", () => {
    expect(fieldPath("", "", "spec.template.spec.containers[0].name")).toEqual(["spec", "template", "spec", "containers", 0, "name"]);
    expect(fieldPath("", "", `metadata.annotations['serving.knative.dev/creator']`)).toEqual(["metadata", "annotations", "serving.knative.dev/creator"]);
    expect(fieldPath("", "", `metadata.labels["a.b/c"]`)).toEqual(["metadata", "labels", "a.b/c"]);
  });

  it("takes an unquoted release number as written, and defaults the rest", () => {
    const spec = parseTestFile("t.yaml", "manifests: a.yaml\nknativeVersion: 1.23\nresults: [{kind: Service, name: a, result: allowed, warnings: null}]", "dir");
    expect(spec).toEqual({ name: "dir", manifests: ["a.yaml"], old: [], knativeVersion: "1.23", namespace: "default", user: "duckbill-test", results: [{ kind: "Service", name: "a", result: "allowed", warnings: [] }] });
  });
});
