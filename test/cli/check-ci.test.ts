/**
 * `duckbill check` in CI: it goes on past manifests it cannot read, refuses unknown fields as the API server's strict
 * decoding does (before any webhook), writes JUnit XML and GitHub workflow commands, and with --kubeconfig judges as
 * the cluster would (its ConfigMaps, release and CRD schemas; the fake API server of test/support).
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCheck } from "../../src/cli/check/check-command.js";
import { CRD_SCHEMAS } from "../../src/cli/check/crd-schemas.js";
import { junitXml } from "../../src/cli/check/junit.js";
import { prunedFields, strictDecodingMessage, structuralOf, unknownCustomResourceFields } from "../../src/cli/kubectl/strict-decoding.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";
import { BUILTIN_RESOURCES, CONFIGMAPS, configMap, CUSTOM_RESOURCE_DEFINITIONS, FakeApiServer, type KubeObject, type ResourceType } from "../support/fake-apiserver.js";
import { elementsNamed, parseXml, type XmlElement } from "../support/xml.js";

const FIXTURES = "test/fixtures/check";
const BROKEN_DIR = `${FIXTURES}/with-broken`;

/** The environment the command is given (main.ts hands it process.env). */
let env: Record<string, string> = {};

function check(args: string[], stdin = ""): Promise<CapturedRun> {
  return runCaptured(async (io) => runCheck(args, { ...io, readStdin: async () => stdin }, undefined, env));
}

const RESERVED_LINE =
  'Error from server (BadRequest): error when creating "test/fixtures/check/with-broken/d-reserved.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
  "validation failed: invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort\n8012 is a reserved port, please use a different value";

describe("check goes on past manifests it cannot read", () => {
  it("checks every other document of a directory with a broken file, reports each broken file with its line, and exits 2", async () => {
    const r = await check(["-R", "-f", BROKEN_DIR]);
    expect(r.code).toBe(2);
    // The file before the broken one, the document before the error in the broken file, and the files after it.
    expect(r.stdout).toBe("service.serving.knative.dev/hello created\nservice.serving.knative.dev/before-the-error created\n");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines.slice(-2)).toEqual([
      "duckbill check: test/fixtures/check/with-broken/b-half-broken.yaml:21:1: Sequence item without - indicator",
      "duckbill check: test/fixtures/check/with-broken/c-no-kind.yaml:2:1: kind not set",
    ]);
    expect(r.stderr).toContain(RESERVED_LINE);
    expect(r.stderr).not.toContain("after-the-error");
  });

  it("reports a path that does not exist and still checks the others", async () => {
    const r = await check([`${FIXTURES}/nope.yaml`, `${BROKEN_DIR}/a-hello.yaml`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("service.serving.knative.dev/hello created\n");
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("duckbill check: test/fixtures/check/nope.yaml: the path does not exist");
  });

  it("exits 1, not 2, when everything could be read and something is denied", async () => {
    const r = await check([`${BROKEN_DIR}/a-hello.yaml`, `${BROKEN_DIR}/d-reserved.yaml`]);
    expect(r.code).toBe(1);
  });

  it("lists the unreadable manifests in -o json", async () => {
    const r = await check(["-o", "json", "-f", BROKEN_DIR]);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout) as { results: Array<{ name: string; outcome: string }>; errors: unknown[]; summary: Record<string, number> };
    expect(out.results.map((x) => [x.name, x.outcome])).toEqual([
      ["hello", "created"],
      ["before-the-error", "created"],
      ["reserved", "denied"],
    ]);
    expect(out.errors).toEqual([
      { source: "test/fixtures/check/with-broken/b-half-broken.yaml", line: 21, column: 1, message: "Sequence item without - indicator" },
      { source: "test/fixtures/check/with-broken/c-no-kind.yaml", line: 2, column: 1, message: "kind not set" },
    ]);
    expect(out.summary).toEqual({ documents: 3, allowed: 2, denied: 1, skipped: 0, unreadable: 2 });
  });
});

describe("check refuses unknown fields as the API server's strict decoding does, before the webhooks", () => {
  it("reports spec nested under metadata as kubectl does, not as a missing container", async () => {
    const r = await check([`${FIXTURES}/metadata-spec.yaml`]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'Error from server (BadRequest): error when creating "test/fixtures/check/metadata-spec.yaml": Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "metadata.spec"\n',
    });
  });

  it("names every unknown field: metadata's first, then the schema's in sorted order", async () => {
    const r = await check(["-o", "json", `${FIXTURES}/unknown-fields.yaml`]);
    const [result] = (JSON.parse(r.stdout) as { results: Array<Record<string, unknown>> }).results;
    expect(result).toMatchObject({
      outcome: "denied",
      rejectedBy: "strict-decoding",
      message: 'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "metadata.lables", unknown field "spec.tempalte", unknown field "spec.traffic[0].weight"',
    });
    expect(result?.webhook).toBeUndefined();
  });

  it("leaves unknown pod spec fields to the webhook, as Knative's CRDs keep them", async () => {
    const svc = "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s}\nspec:\n  template:\n    spec:\n      containers: [{image: ghcr.io/knative/helloworld-go}]\n      hostnme: h\n";
    const r = await check(["-"], svc);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("service.serving.knative.dev/s created\n");
  });

  it("checks a Knative ConfigMap against the ConfigMap type", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-features\n  namespace: knative-serving\n  labels: {app.kubernetes.io/name: knative-serving, app.kubernetes.io/component: controller}\ndatas: {}\n";
    const r = await check(["-"], cm);
    expect(r.stderr).toBe('Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datas"\n');
  });

  it("follows Duckbill's CRDs in manifests/crds without a cluster (src/cli/check/crd-schemas.ts is generated from them)", () => {
    const fromYaml: Record<string, unknown> = {};
    for (const file of readdirSync("manifests/crds").filter((f) => f.endsWith(".yaml"))) {
      const crd = parseYaml(readFileSync(join("manifests/crds", file), "utf8")) as { spec: { group: string; names: { kind: string }; versions: Array<{ name: string; schema: { openAPIV3Schema: unknown } }> } };
      for (const v of crd.spec.versions) fromYaml[`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`] = structuralOf(v.schema.openAPIV3Schema);
    }
    expect(CRD_SCHEMAS, "run node scripts/crd-schemas.mjs").toEqual(fromYaml);
  });

  it("prunes as apiextensions-apiserver does: additionalProperties, items, preserved subtrees with declared fields, unknown metadata of nested objects", () => {
    const schema = structuralOf({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            labels: { type: "object", additionalProperties: { type: "string" } },
            list: { type: "array", items: { type: "object", properties: { a: { type: "string" } } } },
            open: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { closed: { type: "object", properties: {} } } },
          },
        },
      },
    });
    const obj = { apiVersion: "x/v1", kind: "X", metadata: { name: "n", ownerReferences: [{ name: "o", zone: 1 }] }, spec: { labels: { any: "v" }, list: [{ a: "1" }, { b: 2 }], open: { kept: 1, closed: { gone: 1 } }, zzz: 1 } };
    expect(prunedFields(obj, schema)).toEqual(["spec.list[1].b", "spec.open.closed.gone", "spec.zzz"]);
    expect(unknownCustomResourceFields(obj, schema)).toEqual(["metadata.ownerReferences[0].zone", "spec.list[1].b", "spec.open.closed.gone", "spec.zzz"]);
    expect(strictDecodingMessage("X", "v1", ["a", "b"])).toBe('X in version "v1" cannot be handled as a X: strict decoding error: unknown field "a", unknown field "b"');
  });
});

describe("check -o junit", () => {
  let report: XmlElement;
  let code: number;

  beforeAll(async () => {
    const r = await check(["-o", "junit", "-f", BROKEN_DIR, `${FIXTURES}/multi-doc.yaml`]);
    code = r.code;
    report = parseXml(r.stdout);
  });

  it("is well-formed JUnit XML whose counts add up, one testcase per document and per unreadable manifest", () => {
    expect(code).toBe(2);
    expect(report.name).toBe("testsuites");
    const suites = elementsNamed(report, "testsuite");
    const cases = elementsNamed(report, "testcase");
    expect(cases).toHaveLength(3 + 4 + 2);
    expect(report.attributes).toMatchObject({ tests: "9", failures: "3", errors: "2", skipped: "1" });
    for (const s of suites) {
      const own = elementsNamed(s, "testcase");
      expect(Number(s.attributes.tests)).toBe(own.length);
      expect(Number(s.attributes.failures)).toBe(own.filter((c) => c.children.some((x) => x.name === "failure")).length);
      expect(Number(s.attributes.errors)).toBe(own.filter((c) => c.children.some((x) => x.name === "error")).length);
      for (const c of own) expect(c.attributes.classname).toBe(s.attributes.name);
    }
  });

  it("gives a denied document a failure with the webhook's answer and kubectl's line, warnings in system-err", () => {
    const reserved = elementsNamed(report, "testcase").find((c) => c.attributes.name === "service.serving.knative.dev/reserved (line 2)");
    const failure = reserved?.children.find((x) => x.name === "failure");
    expect(failure?.attributes.type).toBe("denied");
    expect(failure?.attributes.message).toMatch(/^admission webhook "validation\.webhook\.serving\.knative\.dev" denied the request: validation failed: invalid value: 8012 is a reserved port/);
    expect(failure?.attributes.message).toContain("containerPort\n8012 is a reserved port, please use a different value");
    expect(failure?.text).toBe(RESERVED_LINE);
    expect(reserved?.children.find((x) => x.name === "system-err")?.text).toMatch(/^Warning: Kubernetes default value is insecure/);
  });

  it("gives an unreadable manifest an error and a skipped document a skipped element", () => {
    const broken = elementsNamed(report, "testcase").find((c) => c.attributes.name === "test/fixtures/check/with-broken/b-half-broken.yaml (unreadable)");
    expect(broken?.children[0]?.attributes).toEqual({ message: "Sequence item without - indicator", type: "unreadable" });
    expect(broken?.children[0]?.text).toBe("test/fixtures/check/with-broken/b-half-broken.yaml:21:1: Sequence item without - indicator");
    const skipped = elementsNamed(report, "skipped");
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.attributes.message).toMatch(/^the config webhook only sees ConfigMaps labelled/);
  });

  it("escapes what XML needs escaped and replaces characters XML cannot hold", () => {
    const tricky = '<&"\'\u0001>\tx\ny';
    const xml = junitXml(tricky, [{ name: tricky, cases: [{ name: tricky, classname: tricky, failure: { message: tricky, type: "denied", text: `${tricky}\n${tricky}` }, systemErr: tricky }] }]);
    const root = parseXml(xml);
    const testcase = elementsNamed(root, "testcase")[0];
    const replaced = '<&"\'\uFFFD>\tx\ny';
    expect(root.attributes.name).toBe(replaced);
    expect(testcase?.attributes).toEqual({ name: replaced, classname: replaced });
    expect(elementsNamed(root, "failure")[0]).toMatchObject({ attributes: { message: replaced, type: "denied" }, text: `${replaced}\n${replaced}` });
    expect(elementsNamed(root, "system-err")[0]?.text).toBe(replaced);
  });
});

describe("check -o github", () => {
  it("annotates denials (at the field they name), warnings, skipped documents and unreadable manifests at their file and line, then sums up", async () => {
    const r = await check(["-o", "github", "-f", BROKEN_DIR]);
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => l.startsWith("::warning "))).toHaveLength(3);
    expect(lines[0]).toMatch(/^::warning file=test\/fixtures\/check\/with-broken\/a-hello\.yaml,line=2,title=service\.serving\.knative\.dev\/hello%3A warning::Kubernetes default value is insecure/);
    expect(lines).toContain(
      "::error file=test/fixtures/check/with-broken/d-reserved.yaml,line=12,col=15,title=service.serving.knative.dev/reserved denied::" +
        'admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort%0A8012 is a reserved port, please use a different value',
    );
    expect(lines).toContain("::error file=test/fixtures/check/with-broken/b-half-broken.yaml,line=21,col=1,title=unreadable manifest::Sequence item without - indicator");
    expect(lines).toContain("::error file=test/fixtures/check/with-broken/c-no-kind.yaml,line=2,col=1,title=unreadable manifest::kind not set");
    expect(lines.at(-1)).toBe("duckbill check: 3 documents: 2 allowed, 1 denied, 0 skipped; 2 manifests could not be read");
  });

  it("names no file for stdin and says when the API server refused a document", async () => {
    const r = await check(["-o", "github", "-"], "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: m\n  spec: {}\n");
    expect(r.stdout.split("\n")[0]).toBe(
      '::error line=5,col=3,title=service.serving.knative.dev/m refused by the API server::Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "metadata.spec"',
    );
  });

  it("points a denial at the field it names, through annotation keys with dots and list items, else at the document", async () => {
    const manifest = [
      "apiVersion: serving.knative.dev/v1",
      "kind: Service",
      "metadata:",
      "  name: scaled",
      "spec:",
      "  template:",
      "    metadata:",
      "      annotations:",
      '        autoscaling.knative.dev/min-scale: "-1"',
      "    spec:",
      "      containers:",
      "        - image: ghcr.io/knative/helloworld-go:latest",
      "",
    ].join("\n");
    const r = await check(["-o", "github", "-"], manifest);
    expect(r.stdout.split("\n").find((l) => l.startsWith("::error"))).toMatch(/^::error line=9,col=9,title=service\.serving\.knative\.dev\/scaled denied::.*spec\.template\.metadata\.annotations\.autoscaling\.knative\.dev\/min-scale/);
    const json = await check(["-o", "json", "-"], manifest);
    expect((JSON.parse(json.stdout) as { results: Array<{ field?: unknown }> }).results[0]?.field).toEqual({ path: "spec.template.metadata.annotations.autoscaling.knative.dev/min-scale", line: 9, column: 9 });
  });
});

describe("check --kubeconfig", () => {
  let api: FakeApiServer;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-check-kc-"));
    kubeconfig = join(dir, "config");
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    env = { DUCKBILL_KNATIVE_VERSION: "1.24" };
    api = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, CUSTOM_RESOURCE_DEFINITIONS] });
    await writeFile(kubeconfig, api.kubeconfigYaml());
  });
  afterEach(async () => {
    env = {};
    await api.close();
  });

  /** A Service CRD whose pod spec declares its fields and keeps no unknown ones (stricter than Knative's). */
  function strictServiceCrd(): Record<string, unknown> {
    const podSpec = { type: "object", properties: { containers: { type: "array", items: { type: "object", "x-kubernetes-preserve-unknown-fields": true } }, affinity: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } };
    return {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "services.serving.knative.dev" },
      spec: {
        group: "serving.knative.dev",
        names: { kind: "Service", plural: "services" },
        scope: "Namespaced",
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { template: { type: "object", properties: { spec: podSpec } } } } } } } }],
      },
    };
  }

  const KSVC: ResourceType = { group: "serving.knative.dev", version: "v1", plural: "services", kind: "Service", namespaced: true };

  it.each(["hello-new-image.yaml", "hello-same.yaml", "hello-steal-creator.yaml"])(
    "checks %s, whose Service exists in the cluster, as the update of the live object, exactly as --old does",
    async (manifest) => {
      await api.close();
      api = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, CUSTOM_RESOURCE_DEFINITIONS, KSVC] });
      await writeFile(kubeconfig, api.kubeconfigYaml());
      const live = `${FIXTURES}/update/live-hello.yaml`;
      api.create(KSVC, parseYaml(readFileSync(live, "utf8")) as KubeObject);
      const fromCluster = await check(["--kubeconfig", kubeconfig, `${FIXTURES}/update/${manifest}`]);
      const fromOld = await check(["--old", live, `${FIXTURES}/update/${manifest}`]);
      // This cluster has no Knative CRDs: the notes that say so are the only difference.
      const withoutCrdNotes = (r: CapturedRun): CapturedRun => ({ ...r, stderr: r.stderr.replace(/^note: reading CRD .*\n/gm, "") });
      expect(withoutCrdNotes(fromCluster)).toEqual(fromOld);
      expect(fromCluster.stdout + fromCluster.stderr).not.toContain("created");
      expect(api.requests.filter((q) => q.path === "/apis/serving.knative.dev/v1/namespaces/default/services/hello")).toHaveLength(1);
      // Not in the cluster: a create, as before.
      const other = await check(["--kubeconfig", kubeconfig, "-"], "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: other}\nspec:\n  template:\n    spec:\n      containers: [{image: ghcr.io/knative/helloworld-go:latest}]\n");
      expect(other.stdout).toBe("service.serving.knative.dev/other created\n");
    },
  );

  it("judges with the cluster's config-features", async () => {
    expect((await check([`${FIXTURES}/affinity.yaml`])).code).toBe(1);
    api.create(CONFIGMAPS, configMap("knative-serving", "config-features", { "kubernetes.podspec-affinity": "enabled" }));
    const r = await check(["--kubeconfig", kubeconfig, `${FIXTURES}/affinity.yaml`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("service.serving.knative.dev/pinned created\n");
  });

  it("decodes strictly with the cluster's CRD schema, and says when it falls back to Duckbill's", async () => {
    api.create(CUSTOM_RESOURCE_DEFINITIONS, strictServiceCrd() as never);
    const svc = "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: s}\nspec:\n  template:\n    spec:\n      containers: [{image: x}]\n      affinity: {nodeAffinity: {}}\n      hostnme: h\n";
    const r = await check(["--kubeconfig", kubeconfig, "-"], svc);
    expect(r.code).toBe(1);
    // Only the misspelt field: the schema's x-kubernetes-preserve-unknown-fields (containers, affinity) is honoured.
    expect(r.stderr).toMatch(/strict decoding error: unknown field "spec\.template\.spec\.hostnme"\n/);
    expect(r.stderr).not.toMatch(/unknown field "spec\.template\.spec\.(containers|affinity)/);
    // The other Knative CRDs are not installed in this cluster: one note each, Duckbill's schema used instead.
    expect(r.stderr).toMatch(/^note: reading CRD configurations\.serving\.knative\.dev: .*404.*; strict decoding follows Duckbill's CRD \(manifests\/crds\) instead$/m);
    expect(api.requests.filter((q) => q.path.includes("customresourcedefinitions")).length).toBe(5);
  });

  it("takes the release from the cluster with --knative-version auto, and refuses --config-dir beside it", async () => {
    env = {};
    const r = await check(["--kubeconfig", kubeconfig, `${BROKEN_DIR}/a-hello.yaml`]);
    expect(r.stderr).toMatch(/^note: answering as Knative 1\.24: no release label found in the cluster; pin one with --knative-version$/m);
    const both = await check(["--kubeconfig", kubeconfig, "--config-dir", `${FIXTURES}/config-affinity`, `${BROKEN_DIR}/a-hello.yaml`]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--kubeconfig and --config-dir are alternatives/);
  });

  it("exits 2 when the cluster cannot be read", async () => {
    await api.close();
    const r = await check(["--kubeconfig", kubeconfig, `${BROKEN_DIR}/a-hello.yaml`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^duckbill check: /);
  });
});
