import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse as parseYaml, parseAllDocuments, stringify as stringifyYaml } from "yaml";
import { answerReview, JSON_CONTENT_TYPE } from "../../src/admission/http.js";
import { checkDocuments, readOldObjects, type CheckResult, type CliIO, type ReviewTransport } from "../../src/cli/check/check.js";
import { runCheck } from "../../src/cli/check/check-command.js";
import { applyMergePatch, goJson, ResponseWarnings, threeWayMergePatch, WarningPrinter, withLastApplied } from "../../src/cli/kubectl/kubectl-apply.js";
import { defaultDeps, main } from "../../src/cli/main.js";
import { kubectlTags, ManifestError, parseManifests, readManifests } from "../../src/cli/kubectl/manifests.js";
import { parseSimpleYaml } from "../../src/cli/kubectl/simple-yaml.js";
import { loadConfigDir } from "../../src/config/dir.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
import { httpsCall, startTestWebhook, type TestWebhook } from "../support/webhook.js";

const FIXTURES = "test/fixtures/check";
const VECTORS = "test/conformance/vectors";
const fixture = (name: string): string => `${FIXTURES}/${name}`;

/** The parts of a printed Service the tests look at. */
interface PrintedService {
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec: { template: { spec: { containers: Array<{ name?: string }> } }; traffic?: unknown };
}

const INSECURE_WARNING =
  "Kubernetes default value is insecure, Knative may default this to secure in a future release: " +
  "spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation, spec.template.spec.containers[0].securityContext.capabilities, " +
  "spec.template.spec.containers[0].securityContext.runAsNonRoot, spec.template.spec.containers[0].securityContext.seccompProfile";

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function check(args: string[], stdin = ""): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = { write: (t) => void (stdout += t), error: (t) => void (stderr += t), readStdin: async () => stdin };
  const code = await runCheck(args, io);
  return { code, stdout, stderr };
}

describe("duckbill check: CREATE as kubectl apply would do it", () => {
  it("allows a valid Service, printing kubectl's created line and the webhook's warning", async () => {
    const r = await check(["-f", fixture("valid-service.yaml")]);
    expect(r).toEqual({ code: 0, stdout: "service.serving.knative.dev/hello created\n", stderr: `Warning: ${INSECURE_WARNING}\n` });
  });

  it("prints nothing on stderr for a Service without warnings, in its own namespace", async () => {
    const r = await check([fixture("secure-service.yaml")]);
    expect(r).toEqual({ code: 0, stdout: "service.serving.knative.dev/secure created\n", stderr: "" });
  });

  it.each([
    {
      name: "validation denial (multi-line message)",
      file: "reserved-port.yaml",
      line:
        'Error from server (BadRequest): error when creating "test/fixtures/check/reserved-port.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort\n8012 is a reserved port, please use a different value",
      warned: true,
    },
    {
      // Knative 1.24's Go names the embedded structs (envelope/wrong-type-timeout-as-string/defaulting).
      name: "defaulting denial (Go decode error)",
      file: "bad-type.yaml",
      line:
        'Error from server (BadRequest): error when creating "test/fixtures/check/bad-type.yaml": admission webhook "webhook.serving.knative.dev" denied the request: ' +
        "mutation failed: cannot decode incoming new object: json: cannot unmarshal string into Go struct field RevisionSpec.spec.ConfigurationSpec.template.spec.timeoutSeconds of type int64",
      warned: false,
    },
    {
      name: "feature-gated field",
      file: "affinity.yaml",
      line:
        'Error from server (BadRequest): error when creating "test/fixtures/check/affinity.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: must not set the field(s): spec.template.spec.affinity",
      warned: true,
    },
  ])("prints kubectl's error line byte for byte and exits 1: $name", async ({ file, line, warned }) => {
    const r = await check(["-f", fixture(file)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe((warned ? `Warning: ${INSECURE_WARNING}\n` : "") + line + "\n");
  });

  it("checks every document of a multi-document file, skips non-Knative ones with a note, and prints the errors last", async () => {
    const r = await check(["-f", fixture("multi-doc.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("route.serving.knative.dev/web created\n");
    const lines = r.stderr.split("\n");
    expect(lines[0]).toBe(
      'note: test/fixtures/check/multi-doc.yaml:3: skipped v1 ConfigMap "app-settings": the config webhook only sees ConfigMaps labelled app.kubernetes.io/name=knative-serving with a Knative component',
    );
    expect(lines[1]).toBe(`Warning: ${INSECURE_WARNING}`);
    expect(lines.slice(2)).toEqual([
      'Error from server (BadRequest): error when creating "test/fixtures/check/multi-doc.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: validation failed: missing field(s): spec.template.spec.containers[0].image',
      expect.stringMatching(/^Error from server \(BadRequest\): error when creating "test\/fixtures\/check\/multi-doc\.yaml": admission webhook "config\.webhook\.serving\.knative\.dev" denied the request: validation failed: .*"maybe"/),
      "",
    ]);
  });

  it("prints each warning text once per run, as kubectl's deduplicating warning writer does", async () => {
    const r = await check([fixture("valid-service.yaml"), fixture("dir/a-service.yaml")]);
    expect(r.stdout).toBe("service.serving.knative.dev/hello created\nservice.serving.knative.dev/from-dir created\n");
    expect(r.stderr).toBe(`Warning: ${INSECURE_WARNING}\n`);
  });

  it("flattens List documents and gives generateName objects a generated name", async () => {
    const results = await runDocs(fixture("list.json"));
    expect(results.map((r) => [r.line, r.outcome])).toEqual([
      [5, "created"],
      [11, "denied"],
      [17, "created"],
    ]);
    expect(results[1]?.message).toContain("8013 is a reserved port");
    expect(results[2]?.name).toMatch(/^gen-ok-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(results[2]?.ref).toBe(`service.serving.knative.dev/${results[2]?.name}`);
  });

  it("reads directories as kubectl does: manifest extensions only, subdirectories with -R", async () => {
    const flat = await check(["-f", fixture("dir")]);
    expect(flat.code).toBe(1);
    expect(flat.stdout).toBe("service.serving.knative.dev/from-dir created\n");
    expect(flat.stderr).toContain('error when creating "test/fixtures/check/dir/b-reserved.yml"');
    const deep = await check(["-R", "-f", fixture("dir")]);
    expect(deep.stdout).toBe("service.serving.knative.dev/from-dir created\nservice.serving.knative.dev/nested created\n");
  });

  it("reads - from stdin and names it STDIN in kubectl's error line", async () => {
    const text = await import("node:fs/promises").then((fs) => fs.readFile(fixture("reserved-port.yaml"), "utf8"));
    const r = await check(["-f", "-"], text);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (BadRequest): error when creating "STDIN": admission webhook');
  });

  it("uses --user for the creator annotations and --namespace for objects without one", async () => {
    const r = await check(["--print-defaulted", "--user", "alice@example.com", "-n", "shop", fixture("valid-service.yaml")]);
    expect(r.code).toBe(0);
    const svc = parseYaml(r.stdout) as PrintedService;
    expect(svc.metadata).toEqual({
      name: "hello",
      namespace: "shop",
      annotations: { "serving.knative.dev/creator": "alice@example.com", "serving.knative.dev/lastModifier": "alice@example.com" },
    });
    expect(svc.spec.template.spec.containers[0]?.name).toBe("user-container");
    expect(svc.spec.traffic).toEqual([{ latestRevision: true, percent: 100 }]);
  });

  it("--print-defaulted writes one YAML document per allowed object and no created lines", async () => {
    const r = await check(["--print-defaulted", fixture("valid-service.yaml"), fixture("reserved-port.yaml"), fixture("secure-service.yaml")]);
    expect(r.code).toBe(1);
    const docs = r.stdout.split(/^---$/m).map((d) => parseYaml(d) as PrintedService);
    expect(docs.map((d) => d.metadata.name)).toEqual(["hello", "secure"]);
    expect(r.stdout).not.toContain("kubectl.kubernetes.io/last-applied-configuration");
    expect(r.stderr).toContain("8012 is a reserved port");
  });

  it("-o json reports every document with outcome, message, warnings and kubectl's line", async () => {
    const r = await check(["-o", "json", fixture("multi-doc.yaml")]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { results: CheckResult[]; summary: Record<string, number> };
    expect(out.results.map((x) => [x.kind, x.name, x.line, x.outcome])).toEqual([
      ["ConfigMap", "app-settings", 3, "skipped"],
      ["Route", "web", 10, "created"],
      ["Configuration", "broken", 19, "denied"],
      ["ConfigMap", "config-autoscaler", 30, "denied"],
    ]);
    expect(out.results[2]).toMatchObject({
      operation: "CREATE",
      webhook: "validation.webhook.serving.knative.dev",
      message: "validation failed: missing field(s): spec.template.spec.containers[0].image",
      warnings: [INSECURE_WARNING],
    });
    expect(out.summary).toEqual({ documents: 4, denied: 2, skipped: 1, allowed: 1, unreadable: 0 });
  });

  it("applies --config-dir: a flag enabled there allows the field it gates", async () => {
    expect((await check([fixture("affinity.yaml")])).code).toBe(1);
    const r = await check(["--config-dir", fixture("config-affinity"), fixture("affinity.yaml")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("service.serving.knative.dev/pinned created\n");
  });
});

describe("duckbill check: usage and parse errors exit 2", () => {
  it.each([
    { name: "YAML syntax error, with file and line", args: [fixture("syntax-error.yaml")], stderr: /^duckbill check: test\/fixtures\/check\/syntax-error\.yaml:10:\d+: / },
    { name: "no manifests", args: [], stderr: /no manifests given/ },
    { name: "unknown option", args: ["--frobnicate", fixture("valid-service.yaml")], stderr: /--frobnicate/ },
    { name: "bad output format", args: ["-o", "yaml", fixture("valid-service.yaml")], stderr: /--output must be text, json, junit, github, got "yaml"/ },
    { name: "missing file", args: [fixture("nope.yaml")], stderr: /nope\.yaml: the path does not exist/ },
    { name: "bad config dir", args: ["--config-dir", fixture("nope"), fixture("valid-service.yaml")], stderr: /must be an existing directory/ },
  ])("$name", async ({ args, stderr }) => {
    const r = await check(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(stderr);
  });

  it("reports documents without apiVersion or kind at their line", () => {
    expect(() => parseManifests("x.yaml", "a: 1\n---\n\n# comment\nkind: Service\n")).toThrow(new ManifestError("x.yaml", 1, 1, "apiVersion not set, kind not set"));
    try {
      parseManifests("x.yaml", "apiVersion: v1\nkind: A\n---\n\n# comment\nkind: Service\n");
    } catch (e) {
      expect((e as Error).message).toBe("x.yaml:6:1: apiVersion not set");
    }
  });

  it("refuses a document whose metadata is not an object, as kubectl's accessors do", () => {
    expect(() => parseManifests("m.yaml", "apiVersion: v1\nkind: A\nmetadata: [x]\n")).toThrow("m.yaml:1:1: metadata must be an object");
  });

  it("parses YAML the way kubectl's go-yaml v2 does: yes and n are booleans, timestamps stay strings", () => {
    const [doc] = parseManifests("x.yaml", "apiVersion: v1\nkind: A\nb: yes\nt: 2024-05-14T09:30:00Z\nnil: null\nn: 1\nmode: 0644\n");
    expect(doc?.object).toEqual({ apiVersion: "v1", kind: "A", b: true, t: "2024-05-14T09:30:00Z", nil: null, false: 1, mode: 420 });
  });

  it("prints usage for --help", async () => {
    const r = await check(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: duckbill check/);
  });
});

describe("duckbill check: UPDATE against --old", () => {
  const LIVE = fixture("update/live-hello.yaml");

  it("sends kubectl's three-way merge patch and reports configured", async () => {
    const r = await check(["--old", LIVE, "--user", "bob@example.com", fixture("update/hello-new-image.yaml")]);
    expect(r).toMatchObject({ code: 0, stdout: "service.serving.knative.dev/hello configured\n" });
  });

  it("reports an unchanged Service as configured, as kubectl does: the merge patch always carries the containers list", async () => {
    const r = await check(["--old", LIVE, fixture("update/hello-same.yaml")]);
    expect(r).toMatchObject({ code: 0, stdout: "service.serving.knative.dev/hello configured\n" });
  });

  it("prints kubectl's applying-patch error with the exact patch, the object and the webhook's message", async () => {
    const r = await check(["--old", LIVE, fixture("update/hello-steal-creator.yaml")]);
    expect(r.code).toBe(1);
    const lastApplied =
      '{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"annotations":{"serving.knative.dev/creator":"mallory@example.com"},"name":"hello","namespace":"default"},' +
      '"spec":{"template":{"spec":{"containers":[{"image":"ghcr.io/knative/helloworld-go:latest"}]}}}}\n';
    const patch = JSON.stringify({
      metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied, "serving.knative.dev/creator": "mallory@example.com" } },
      spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go:latest" }] } } },
    });
    const src = '"test/fixtures/check/update/hello-steal-creator.yaml"';
    expect(r.stderr).toBe(
      `Warning: ${INSECURE_WARNING}\n` +
        `Error from server (BadRequest): error when applying patch:\n${patch}\nto:\n` +
        'Resource: "serving.knative.dev/v1, Resource=services", GroupVersionKind: "serving.knative.dev/v1, Kind=Service"\n' +
        'Name: "hello", Namespace: "default"\n' +
        `for: ${src}: error when patching ${src}: admission webhook "validation.webhook.serving.knative.dev" denied the request: ` +
        "validation failed: annotation value is immutable: metadata.annotations.serving.knative.dev/creator\n",
    );
  });

  it("reports unchanged, without asking the webhook, when the patch is empty", async () => {
    // The old manifest is stored through the CREATE pipeline first; applying it again changes nothing.
    const route = "apiVersion: serving.knative.dev/v1\nkind: Route\nmetadata:\n  name: web\nspec:\n  traffic:\n    - configurationName: web\n      latestRevision: true\n      percent: 100\n";
    const dir = await mkdtemp(join(tmpdir(), "duckbill-check-"));
    try {
      await writeFile(join(dir, "route.yaml"), route);
      const r = await check(["--old", join(dir, "route.yaml"), join(dir, "route.yaml")]);
      expect(r).toEqual({ code: 0, stdout: "route.serving.knative.dev/web unchanged\n", stderr: "" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("warns like kubectl when the live object lacks the last-applied annotation", async () => {
    const docs = await readManifests([LIVE], async () => "");
    const live = structuredClone(docs[0]!.object) as unknown as PrintedService;
    delete live.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"];
    const opts = { deps: defaultDeps(), config: defaultSnapshot(), namespace: "default", user: "bob" };
    const old = await readOldObjects([{ source: "live", line: 1, object: live as unknown as Record<string, unknown> }], opts);
    const [result] = await checkDocuments(await readManifests([fixture("update/hello-new-image.yaml")], async () => ""), { ...opts, old });
    expect(result?.outcome).toBe("configured");
    expect(result?.clientWarnings).toEqual([
      "Warning: resource services/hello is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. " +
        "kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. " +
        "The missing annotation will be patched automatically.",
    ]);
  });

  it("refuses an --old manifest that could never have been created", async () => {
    const r = await check(["--old", fixture("reserved-port.yaml"), fixture("valid-service.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reserved-port\.yaml:2:1: the --old object would be denied when created/);
  });
});

async function runDocs(...files: string[]): Promise<CheckResult[]> {
  const docs = await readManifests(files, async () => "");
  return checkDocuments(docs, { deps: defaultDeps(), config: defaultSnapshot(), namespace: "default", user: "duckbill-check" });
}

describe("duckbill check answers exactly what the HTTPS server answers", () => {
  let server: TestWebhook;
  let affinityServer: TestWebhook;
  beforeAll(async () => {
    server = await startTestWebhook();
    affinityServer = await startTestWebhook({ "config-dir": fixture("config-affinity") });
  });
  afterAll(async () => {
    await server?.stop();
    await affinityServer?.stop();
  });

  /** Sends each review to the HTTPS server, and checks that the in-process answer to the same body is identical. */
  function viaHttps(webhook: TestWebhook, configDir?: string): ReviewTransport {
    return async (path, body) => {
      const remote = await httpsCall(webhook.port, webhook.ca, { path, body });
      const config = configDir === undefined ? defaultSnapshot() : await loadConfigDir(configDir);
      const local = await answerReview(path, body, defaultDeps(), { config });
      expect(remote.headers["content-type"]).toMatch(/^application\/json|^text\/plain/);
      expect(JSON.parse(remote.body)).toEqual(JSON.parse(local.body));
      return { status: remote.status, body: remote.body };
    };
  }

  const FILES = ["valid-service.yaml", "secure-service.yaml", "reserved-port.yaml", "bad-type.yaml", "affinity.yaml", "multi-doc.yaml", "list.json"];

  it.each([
    { name: "default configuration", configDir: undefined },
    { name: "config-features from a directory", configDir: fixture("config-affinity") },
  ])("same outcomes, messages and warnings: $name", async ({ configDir }) => {
    const docs = await readManifests(FILES.map(fixture), async () => "");
    const config = configDir === undefined ? defaultSnapshot() : await loadConfigDir(configDir);
    const opts = { deps: defaultDeps(), config, namespace: "default", user: "alice@example.com" };
    const local = await checkDocuments(docs, opts);
    const remote = await checkDocuments(docs, { ...opts, transport: viaHttps(configDir === undefined ? server : affinityServer, configDir) });
    const view = (r: CheckResult) => [r.source, r.line, r.outcome, r.webhook, r.message, r.warnings, r.error?.replace(/gen-[a-z0-9]{5}/, "gen-XXXXX")];
    expect(remote.map(view)).toEqual(local.map(view));
    expect(local.filter((r) => r.outcome === "denied").length).toBeGreaterThan(0);
  });

  it("the UPDATE pipeline too", async () => {
    const opts = { deps: defaultDeps(), config: defaultSnapshot(), namespace: "default", user: "bob@example.com" };
    const old = await readOldObjects(await readManifests([fixture("update/live-hello.yaml")], async () => ""), opts);
    const docs = await readManifests([fixture("update/hello-new-image.yaml"), fixture("update/hello-steal-creator.yaml")], async () => "");
    const local = await checkDocuments(docs, { ...opts, old });
    const remote = await checkDocuments(docs, { ...opts, old, transport: viaHttps(server) });
    expect(remote.map((r) => [r.outcome, r.message, r.warnings, r.error])).toEqual(local.map((r) => [r.outcome, r.message, r.warnings, r.error]));
    expect(local.map((r) => r.outcome)).toEqual(["configured", "denied"]);
  });

  it("a denial reaches the server as a 200 AdmissionReview with Knative's status", async () => {
    const seen: string[] = [];
    const transport: ReviewTransport = async (path, body) => {
      const remote = await httpsCall(server.port, server.ca, { path, body, headers: { "Content-Type": JSON_CONTENT_TYPE } });
      seen.push(`${path} ${remote.status} ${JSON.parse(remote.body).response.allowed}`);
      return remote;
    };
    const docs = await readManifests([fixture("reserved-port.yaml")], async () => "");
    await checkDocuments(docs, { deps: defaultDeps(), config: defaultSnapshot(), namespace: "default", user: "u", transport });
    expect(seen).toEqual(["/defaulting 200 true", "/resource-validation 200 false"]);
  });
});

describe("duckbill check: speed", () => {
  it("checks a 100-document file (pre-commit sized) in one run", async () => {
    const doc = (i: number) =>
      `apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: svc-${i}\n  labels:\n    app: demo\nspec:\n  template:\n    metadata:\n      annotations:\n        autoscaling.knative.dev/target: "50"\n    spec:\n      containers:\n        - image: ghcr.io/knative/helloworld-go:latest\n          ports:\n            - containerPort: ${i % 10 === 0 ? 8012 : 8080}\n          env:\n            - name: TARGET\n              value: "World ${i}"\n          resources:\n            requests:\n              cpu: 100m\n              memory: 64Mi\n`;
    const dir = await mkdtemp(join(tmpdir(), "duckbill-check-"));
    try {
      const file = join(dir, "hundred.yaml");
      await writeFile(file, Array.from({ length: 100 }, (_, i) => doc(i)).join("---\n"));
      const r = await check(["-o", "json", file]);
      const out = JSON.parse(r.stdout) as { summary: Record<string, number> };
      expect(out.summary).toEqual({ documents: 100, denied: 10, skipped: 0, allowed: 90, unreadable: 0 });
      // Its speed is a measurement, not a test (docs/cli.md, "Speed").
      expect(r.code).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("duckbill main dispatch", () => {
  it("routes check to the check command", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await main(["check", "--help"])).toBe(0);
      expect(String(write.mock.calls[0]?.[0])).toMatch(/^Usage: duckbill check/);
    } finally {
      write.mockRestore();
    }
  });
});

describe("reading manifests: the fast block-YAML reader agrees with the yaml library", () => {
  function library(text: string): unknown[] | "error" {
    const docs = parseAllDocuments(text, { version: "1.1", customTags: kubectlTags, prettyErrors: false });
    if (!Array.isArray(docs)) return [];
    if (docs.some((d) => d.errors.length > 0)) return "error";
    return docs.filter((d) => d.contents !== null).map((d) => d.toJS() as unknown).filter((v) => v !== null);
  }

  it.each([
    { name: "scalars of every YAML 1.1 type", fast: true, text: "a: 1\nb: yes\nc: 0777\nd: ~\ne: 'it''s'\nf: \"tab\\there \\u00e9\"\ng: -1.5e3\nh: .inf\ni: 0x1F\nj: null\nk: http://x:80/a#b\nl: on\n" },
    { name: "keys that are booleans and numbers", fast: true, text: "n: 1\non: 3\n1.0: 4\n\"quoted key\": 5\n'single': 6\n" },
    { name: "keys that collide once resolved (an error)", fast: false, text: "y: 1\non: 2\n" },
    { name: "flow collections on one line", fast: true, text: "a: [1, \"two\", {x: y, z: [3]}]\nb: {}\nc: []\nd: [a, b, ]\n" },
    { name: "literal block scalars and chomping", fast: true, text: "a: |\n  one\n\n  two\n\n\nb: |-\n  x\n    indented\nc: |+\n  kept\n\nd: 1\n" },
    { name: "sequences at the key's indentation and compact mappings", fast: true, text: "spec:\n  containers:\n  - name: a\n    image: x\n  -   name: b\n      args:\n        - --flag\n        - \"--other\"\n" },
    { name: "comments, markers and empty documents", fast: true, text: "# head\n---\n# only a comment\n--- # marker comment\na: 1 # trailing\nb: \"x\" # trailing\n---\n---\nc:\n  # inside\n  d: e\n" },
    { name: "a sequence as the root", fast: true, text: "- a\n- b: c\n  d: e\n-\n  - f\n" },
    { name: "folded scalar", fast: false, text: "a: >\n  folded\n  text\n" },
    { name: "anchors and aliases", fast: false, text: "a: &x 1\nb: *x\n" },
    { name: "merge keys", fast: false, text: "base: &b {x: 1}\nc:\n  <<: *b\n" },
    { name: "multi-line plain scalar", fast: false, text: "a: one\n  two\n" },
    { name: "multi-line flow", fast: false, text: "a: [1,\n  2]\n" },
    { name: "tags", fast: false, text: "a: !!str 1\n" },
    { name: "duplicate keys (an error)", fast: false, text: "a: 1\na: 2\n" },
    { name: "tab indentation (an error)", fast: false, text: "a:\n\tb: 1\n" },
    { name: "nested mapping in a compact value (an error)", fast: false, text: "a: b: c\n" },
    { name: "bad indentation (an error)", fast: false, text: "a:\n    b: 1\n  c: 2\n" },
    { name: "JSON", fast: false, text: '{"apiVersion": "v1", "kind": "A"}\n' },
    { name: "CRLF line ends", fast: false, text: "a: 1\r\nb: 2\r\n" },
  ])("$name", ({ text, fast }) => {
    const got = parseSimpleYaml(text, kubectlTags);
    expect(got !== undefined).toBe(fast);
    if (got !== undefined) expect(got.map((d) => d.value)).toEqual(library(text));
  });

  it("reads the conformance vectors' objects, rendered as YAML several ways, exactly as the library does", { timeout: 120_000 }, () => {
    let texts = 0;
    let fast = 0;
    const seen = new Set<string>();
    for (const file of readdirSync(VECTORS)) {
      for (const line of readFileSync(join(VECTORS, file), "utf8").split("\n")) {
        if (line === "") continue;
        const object = (JSON.parse(line) as { review?: { request?: { object?: unknown } } }).review?.request?.object;
        if (object === undefined || object === null) continue;
        for (const options of [{}, { defaultStringType: "QUOTE_DOUBLE" as const }, { defaultStringType: "QUOTE_SINGLE" as const, indentSeq: false }]) {
          const text = stringifyYaml(object, options);
          if (seen.has(text)) continue;
          seen.add(text);
          texts++;
          const got = parseSimpleYaml(text, kubectlTags);
          if (got === undefined) continue;
          fast++;
          expect(got.map((d) => d.value)).toEqual(library(text));
        }
      }
    }
    expect(texts).toBeGreaterThan(1000);
    // Only folded and multi-line strings should need the library.
    expect(fast / texts).toBeGreaterThan(0.9);
  });

  it("gives List items their own lines on both paths", () => {
    const yaml =
      "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: A\n  # between\n  - apiVersion: v1\n    kind: B\n";
    expect(parseManifests("l.yaml", yaml).map((d) => [d.line, d.object.kind])).toEqual([
      [4, "A"],
      [7, "B"],
    ]);
    // An anchor sends the same text to the library.
    expect(parseManifests("l.yaml", yaml.replace("kind: B", "kind: &k B")).map((d) => [d.line, d.object.kind])).toEqual([
      [4, "A"],
      [7, "B"],
    ]);
  });
});

describe("kubectl apply's client side", () => {
  it("encodes JSON as Go does: sorted keys, HTML-safe escapes", () => {
    expect(goJson({ b: 1, a: ["<&>", "\u2028"], c: { z: null, y: true } })).toBe('{"a":["\\u003c\\u0026\\u003e","\\u2028"],"b":1,"c":{"y":true,"z":null}}');
  });

  it("stores the manifest as last-applied configuration, with an empty annotation map when it had none", () => {
    const sent = withLastApplied({ apiVersion: "v1", kind: "A", metadata: { name: "x" } });
    expect(sent.metadata).toEqual({
      name: "x",
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": '{"apiVersion":"v1","kind":"A","metadata":{"annotations":{},"name":"x"}}\n' },
    });
  });

  it.each([
    {
      name: "a field dropped from the manifest is deleted",
      original: { spec: { a: 1, b: 2 } },
      modified: { spec: { a: 1 } },
      current: { spec: { a: 1, b: 2, defaulted: 3 } },
      patch: { spec: { b: null } },
    },
    {
      name: "fields the server added are kept, changed ones sent",
      original: { spec: { a: 1 } },
      modified: { spec: { a: 2 } },
      current: { spec: { a: 1, defaulted: 3 }, status: { x: 1 } },
      patch: { spec: { a: 2 } },
    },
    {
      name: "lists are replaced whole",
      original: { l: [{ image: "a" }] },
      modified: { l: [{ image: "a" }] },
      current: { l: [{ image: "a", name: "defaulted" }] },
      patch: { l: [{ image: "a" }] },
    },
    { name: "nothing to do", original: { a: 1 }, modified: { a: 1 }, current: { a: 1, b: 2 }, patch: {} },
  ])("three-way merge patch: $name", ({ original, modified, current, patch }) => {
    const p = threeWayMergePatch(original, modified, current);
    expect(p).toEqual(patch);
  });

  it("applies RFC 7386 merge patches", () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: null, e: { f: null, g: 1 } }, d: [2] })).toEqual({ a: { c: 2, e: { g: 1 } }, d: [2] });
  });

  it("keeps warnings as the API server does: deduplicated, control characters dropped, truncated past 4096 runes", () => {
    const w = new ResponseWarnings();
    w.add("one");
    w.add("one");
    w.add("");
    w.add("tab\there");
    expect(w.texts()).toEqual(["one"]);
    const long = new ResponseWarnings();
    long.add("x".repeat(4000));
    long.add("y".repeat(300));
    expect(long.texts()).toEqual(["x".repeat(256), "y".repeat(256)]);
  });

  it("prints each warning text once per run, like kubectl's warning writer", () => {
    const p = new WarningPrinter();
    expect([p.line("a"), p.line("b"), p.line("a")]).toEqual(["Warning: a", "Warning: b", undefined]);
  });
});
