import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RELEASES } from "../../test/conformance/paths.js";
import { EXAMPLE_EDITED_ERROR, checkExample } from "./example-checksum.js";
import { parseAdmissionConfig } from "./parse.js";
import { PROFILES } from "./profile.js";
import { snapshotFrom } from "./snapshot.js";
import { ConfigMapValidators, knativeConfigMapValidators } from "./validators.js";

interface Vector {
  name: string;
  configs?: Record<string, Record<string, string>>;
  review?: { request?: { operation?: string; kind?: { kind?: string }; object?: unknown } };
  expect: { response?: { allowed?: boolean; status?: { message?: string } } };
}

function vectors(dir: string, file: string): Vector[] {
  return readFileSync(join(dir, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Vector);
}

interface ConfigMapCase {
  readonly name: string;
  readonly configMap: string;
  readonly data: Record<string, string>;
  readonly annotations: Record<string, string>;
  /** The denial text after "validation failed: ", or undefined when allowed. */
  readonly want: string | undefined;
}

const PREFIX = "validation failed: ";

/** config_validation vectors in `dir` that reach a ConfigMap's validator (CREATE/UPDATE of a decodable ConfigMap). */
function configMapCases(dir: string): ConfigMapCase[] {
  const out: ConfigMapCase[] = [];
  for (const v of vectors(dir, "config_validation.jsonl")) {
    const req = v.review?.request;
    if (req?.operation !== "CREATE" && req?.operation !== "UPDATE") continue;
    if (req.kind?.kind !== "ConfigMap") continue;
    const obj = req.object as { metadata?: { name?: string; annotations?: Record<string, string> }; data?: unknown } | undefined;
    const data = obj?.data ?? {};
    if (typeof data !== "object" || data === null || Array.isArray(data) || Object.values(data).some((x) => typeof x !== "string")) continue;
    const message = v.expect.response?.status?.message;
    out.push({
      name: v.name,
      configMap: obj?.metadata?.name ?? "",
      data: data as Record<string, string>,
      annotations: obj?.metadata?.annotations ?? {},
      want: v.expect.response?.allowed === true ? undefined : message?.startsWith(PREFIX) ? message.slice(PREFIX.length) : message,
    });
  }
  return out;
}

const MINE = new Set(["config-features", "config-defaults", "config-autoscaler"]);

describe("knativeConfigMapValidators", () => {
  it("validates exactly the ConfigMaps Knative 1.17 validates (serving v0.44.2 cmd/webhook/main.go, config-tracing included), and Duckbill's config-features-scopes", () => {
    expect(knativeConfigMapValidators().names()).toEqual([
      "config-autoscaler",
      "config-certmanager",
      "config-defaults",
      "config-deployment",
      "config-domain",
      "config-features",
      "config-features-scopes",
      "config-gc",
      "config-leader-election",
      "config-logging",
      "config-network",
      "config-observability",
      "config-tracing",
    ]);
  });
});

// Each release's vectors, validated as that release validates (the profile handed to the validator).
describe.each(RELEASES.map((r) => [r.version, r] as const))("Knative %s", (version, { dir }) => {
  const profile = PROFILES[version];
  const CASES = configMapCases(dir);

  describe("knativeConfigMapValidators against the conformance vectors", () => {
    const validators = knativeConfigMapValidators();

    it.each(CASES.filter((c) => MINE.has(c.configMap)).map((c) => [c.name, c] as const))("%s", (_name, c) => {
      const validator = validators.lookup(c.configMap);
      expect(validator).toBeDefined();
      expect(validator?.(c.data, c.annotations, profile)).toBe(c.want);
    });

    it("covers the vectors of all three ConfigMaps", () => {
      const names = new Set(CASES.filter((c) => MINE.has(c.configMap)).map((c) => c.configMap));
      expect([...names].sort()).toEqual(["config-autoscaler", "config-defaults", "config-features"]);
    });
  });

  describe("the _example guard against every ConfigMap's vectors", () => {
    const withExample = CASES.filter((c) => "_example" in c.data && "knative.dev/example-checksum" in c.annotations && c.configMap !== "");
    it.each(withExample.map((c) => [c.name, c] as const))("%s", (_name, c) => {
      const verdict = checkExample(c.data, c.annotations);
      if (c.want === EXAMPLE_EDITED_ERROR) expect(verdict).toBe(EXAMPLE_EDITED_ERROR);
      else expect(verdict).toBeUndefined();
    });
  });

  describe("ConfigMaps in the vectors' configs", () => {
    // The corpus promises every `configs` value is valid for the webhook's config store.
    const all = readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .flatMap((f) => vectors(dir, f))
      .filter((v) => v.configs !== undefined);
    it.each(all.map((v) => [v.name, v] as const))("%s parses without errors", (_name, v) => {
      const snap = snapshotFrom(v.configs ?? {}, "test", profile);
      expect(snap.configErrors.size).toBe(0);
      const { errors } = parseAdmissionConfig(snap.data, profile);
      expect([...errors]).toEqual([]);
    });
  });
});

describe("ConfigMapValidators", () => {
  it("finds validators by name and lists the names", () => {
    const v = new ConfigMapValidators([["b", () => "no"], ["a", () => undefined]]);
    expect(v.names()).toEqual(["a", "b"]);
    expect(v.lookup("b")?.({}, {})).toBe("no");
    expect(v.lookup("c")).toBeUndefined();
  });

  it("runs the _example guard before the parser", () => {
    const validator = knativeConfigMapValidators().lookup("config-defaults");
    const annotations = { "knative.dev/example-checksum": "deadbeef" };
    expect(validator?.({ _example: "x", "revision-timeout-seconds": "abc" }, annotations)).toBe(EXAMPLE_EDITED_ERROR);
    expect(validator?.({ "revision-timeout-seconds": "abc" }, annotations)).toBe('failed to parse "revision-timeout-seconds": strconv.ParseInt: parsing "abc": invalid syntax');
  });
});
