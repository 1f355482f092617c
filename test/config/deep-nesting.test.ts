/**
 * Deeply nested ConfigMap values answered as Knative answers them, through /config-validation and through the
 * configuration store at startup: YAML nesting up to gopkg.in/yaml.v2's max depth of 10,000 (scannerc.go
 * max_flow_level, max_indents) decodes, one level more is Go's "exceeded max depth of 10000"; a
 * container-name-template with nested parentheses parses at any depth with Knative 1.17's Go 1.23, and up to
 * text/template's maxStackDepth of 10,000 (parse.go term) with the Go 1.26 of 1.23 and 1.24 (the webhook's default
 * profile), one more being "max expression depth exceeded". None of them is a 500, a RangeError or a readiness
 * stuck at 503.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDefaultsConfig } from "../../src/config/defaults.js";
import { PROFILES } from "../../src/config/profile.js";
import { configMapReview, httpsCall, startTestWebhook, type TestWebhook } from "../support/webhook.js";

const NS = "knative-serving";

interface Answer {
  allowed: boolean;
  status?: { message?: string };
}

const nested = (open: string, close: string, n: number): string => open.repeat(n) + close.repeat(n);
const parens = (n: number, inner = ".Name"): string => "{{" + "(".repeat(n) + inner + ")".repeat(n) + "}}";

describe("deeply nested ConfigMap values", () => {
  let wh: TestWebhook;
  let dir: string;

  async function validate(name: string, data: Record<string, string>): Promise<Answer> {
    const r = await httpsCall(wh.port, wh.ca, { path: "/config-validation", body: configMapReview({ name, namespace: NS, operation: "CREATE", data }) });
    expect(r.status).toBe(200);
    return (JSON.parse(r.body) as { response: Answer }).response;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-deep-"));
    // The template the probe found rejected by the store at startup ("Maximum call stack size exceeded").
    await writeFile(join(dir, "config-defaults.yaml"), `container-name-template: '${parens(2000)}'\n`);
    wh = await startTestWebhook({ "config-dir": dir });
  });
  afterAll(async () => {
    await wh.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("takes a container-name-template with 2,000 nested parentheses at startup and is ready", async () => {
    const probe = await httpsCall(wh.port, wh.ca, { path: "/", method: "GET", headers: { "User-Agent": "kube-probe/1.31" } });
    expect(probe.status).toBe(200);
  });

  describe("config-domain (sigs.k8s.io/yaml into domainInternalConfig)", () => {
    const ARRAY = "validation failed: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type config.domainInternalConfig";
    const MAP_KEY = "validation failed: error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{}";
    const TOO_DEEP = "validation failed: error converting YAML to JSON: yaml: exceeded max depth of 10000";

    it.each([
      ["[", "]", 2000, ARRAY],
      ["[", "]", 10000, ARRAY],
      ["[", "]", 10001, TOO_DEEP],
      ["{", "}", 2000, MAP_KEY],
      ["{", "}", 10000, MAP_KEY],
      ["{", "}", 10001, TOO_DEEP],
    ])("%s…%s nested %i deep is answered as Go answers", async (open, close, n, message) => {
      expect(await validate("config-domain", { "example.com": nested(open, close, n) })).toMatchObject({ allowed: false, status: { message } });
    });

    it("block sequences nested 10,000 deep decode, one more is Go's depth error", async () => {
      expect(await validate("config-domain", { "example.com": "- ".repeat(10000) + "x" })).toMatchObject({ allowed: false, status: { message: ARRAY } });
      expect(await validate("config-domain", { "example.com": "- ".repeat(10001) + "x" })).toMatchObject({ allowed: false, status: { message: TOO_DEEP } });
    });

    it("a selector nested 9,999 deep reaches encoding/json's type error", async () => {
      const message = "validation failed: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field domainInternalConfig.selector of type map[string]string";
      expect(await validate("config-domain", { "example.com": "selector: " + nested("[", "]", 9999) })).toMatchObject({ allowed: false, status: { message } });
    });
  });

  describe("config-defaults container-name-template (text/template)", () => {
    it.each([2000, 10000])("%i nested parentheses are admitted", async (n) => {
      expect(await validate("config-defaults", { "container-name-template": parens(n) })).toEqual(expect.objectContaining({ allowed: true }));
      expect(await validate("config-defaults", { "container-name-template": parens(n, "print .Namespace") })).toEqual(expect.objectContaining({ allowed: true }));
    });

    it("10,001 are Go 1.26's max expression depth", async () => {
      const message = "validation failed: template: container-template:1: max expression depth exceeded";
      expect(await validate("config-defaults", { "container-name-template": parens(10001) })).toMatchObject({ allowed: false, status: { message } });
    });

    it("Knative 1.17 (Go 1.23, no maxStackDepth) takes 10,001 and 20,000", () => {
      for (const n of [10001, 20000]) expect(parseDefaultsConfig({ "container-name-template": parens(n) }, PROFILES["1.17"]).ok).toBe(true);
      const r = parseDefaultsConfig({ "container-name-template": parens(10001) }, PROFILES["1.24"]);
      expect(r).toEqual({ ok: false, error: "template: container-template:1: max expression depth exceeded" });
    });

    it("the parsed template names containers", () => {
      const r = parseDefaultsConfig({ "container-name-template": parens(10000, 'printf "%s-c" .Name') });
      expect(r.ok && r.value.userContainerName({ name: "hello" })).toBe("hello-c");
    });
  });
});
