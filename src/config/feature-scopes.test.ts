import { describe, expect, it } from "vitest";
import { FEATURE_GATES } from "../serving/feature-gates.js";
import { DEFAULT_FEATURES, parseFeaturesConfig } from "./features.js";
import { describeScope, featuresInNamespace, inScope, narrowingScopes, parseFeatureScopes, scopeDenialLine, UNSCOPABLE_FLAGS, type FeatureScopes } from "./feature-scopes.js";
import { PROFILES } from "./profile.js";
import { snapshotFrom } from "./snapshot.js";

function scopes(data: Record<string, string>): FeatureScopes {
  const r = parseFeatureScopes(data);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const RUNTIME = "kubernetes.podspec-runtimeclassname";

describe("parseFeatureScopes", () => {
  it.each<[Record<string, string>, string | undefined]>([
    [{}, undefined],
    [{ _example: "anything: [broken" }, undefined],
    [{ [RUNTIME]: "selector:\n  tenant: platform" }, undefined],
    [{ [RUNTIME]: "namespaces: [a, b]" }, undefined],
    [{ [RUNTIME]: "selector: {tenant: platform}\nnamespaces: [tools]" }, undefined],
    [{ "kubernetes.podspec-nope": "namespaces: [a]" }, 'unknown feature flag "kubernetes.podspec-nope": the key must be a config-features flag'],
    [{ "secure-pod-defaults": "namespaces: [a]" }, 'feature flag "secure-pod-defaults" cannot be scoped: the webhook gates no pod-spec field with it'],
    [{ [RUNTIME]: "" }, 'invalid scope for "kubernetes.podspec-runtimeclassname": expected a selector or namespaces'],
    [{ [RUNTIME]: "selector: {}" }, 'invalid scope for "kubernetes.podspec-runtimeclassname": expected a selector or namespaces'],
    [
      { [RUNTIME]: "selector: 5" },
      'failed to parse "kubernetes.podspec-runtimeclassname": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field featureScope.selector of type map[string]string',
    ],
    [
      { [RUNTIME]: "namespaces: a" },
      'failed to parse "kubernetes.podspec-runtimeclassname": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field featureScope.namespaces of type []string',
    ],
    [
      { [RUNTIME]: "namespaces: [Team_A]" },
      `invalid namespaces for "kubernetes.podspec-runtimeclassname": namespaces[0]: Invalid value: "Team_A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
    [{ [RUNTIME]: 'selector: {"bad key!": x}' }, expect.stringMatching(/^invalid selector for "kubernetes.podspec-runtimeclassname": key: Invalid value: "bad key!": /) as unknown as string],
  ])("%j → %s", (data, error) => {
    const r = parseFeatureScopes(data);
    expect(r.ok ? undefined : r.error).toEqual(error);
  });

  it("knows a flag only in the releases that have it", () => {
    const data = { "kubernetes.podspec-volumes-ephemeral": "namespaces: [a]" };
    expect(parseFeatureScopes(data, PROFILES["1.17"]).ok).toBe(false);
    expect(parseFeatureScopes(data, PROFILES["1.24"]).ok).toBe(true);
  });

  it("refuses kubernetes.podspec-dryrun where the release has it", () => {
    const r = parseFeatureScopes({ "kubernetes.podspec-dryrun": "namespaces: [a]" }, PROFILES["1.17"]);
    expect(r.ok ? "" : r.error).toBe('feature flag "kubernetes.podspec-dryrun" cannot be scoped: the webhook gates no pod-spec field with it');
  });

  it("reports the first error in key order", () => {
    const r = parseFeatureScopes({ "z-unknown": "namespaces: [a]", "a-unknown": "namespaces: [a]" });
    expect(r.ok ? "" : r.error).toContain('"a-unknown"');
  });
});

describe("the unscopable flags", () => {
  it("are exactly the gates that guard no pod-spec field (serving/feature-gates.ts check)", () => {
    const unscopable = FEATURE_GATES.filter((g) => !["mask", "enabled", "mask+enabled"].includes(g.check)).map((g) => g.key);
    expect([...UNSCOPABLE_FLAGS].sort()).toEqual(unscopable.sort());
  });
});

describe("inScope and narrowing", () => {
  const s = scopes({ [RUNTIME]: "selector: {tenant: platform, tier: gold}\nnamespaces: [tools]" });
  const scope = s.get(RUNTIME);
  if (scope === undefined) throw new Error("no scope");
  const labels = (o: Record<string, string>): ReadonlyMap<string, string> => new Map(Object.entries(o));

  it("takes a namespace named, or carrying every label of the selector", () => {
    expect(inScope(scope, "tools", undefined)).toBe(true);
    expect(inScope(scope, "p", labels({ tenant: "platform", tier: "gold", other: "x" }))).toBe(true);
    expect(inScope(scope, "p", labels({ tenant: "platform" }))).toBe(false);
    expect(inScope(scope, "p", undefined)).toBe(false);
  });

  it("disables the flag outside its scope and never raises it", () => {
    const allowed = parseFeaturesConfig({ [RUNTIME]: "Allowed" });
    expect(featuresInNamespace(allowed, s, "elsewhere", labels({})).podSpecRuntimeClassName).toBe("Disabled");
    expect(featuresInNamespace(allowed, s, "tools", undefined)).toBe(allowed);
    expect(featuresInNamespace(DEFAULT_FEATURES, s, "tools", undefined)).toBe(DEFAULT_FEATURES);
    expect(narrowingScopes(DEFAULT_FEATURES, s, "elsewhere", undefined)).toEqual([]);
  });

  it("words the scope and the denial line", () => {
    expect(describeScope(scope)).toBe("selector tenant=platform,tier=gold; namespaces tools");
    expect(scopeDenialLine(scope, "Allowed", "team-b")).toBe(
      'feature kubernetes.podspec-runtimeclassname is Allowed cluster-wide but Disabled in namespace "team-b": the namespace is outside its scope in ConfigMap config-features-scopes (selector tenant=platform,tier=gold; namespaces tools)',
    );
  });
});

describe("the snapshot", () => {
  it("has no scopes without the ConfigMap, and reports one that does not parse", () => {
    expect(snapshotFrom({ "config-features": { [RUNTIME]: "Allowed" } }, "t").featureScopes.size).toBe(0);
    const bad = snapshotFrom({ "config-features-scopes": { nope: "namespaces: [a]" } }, "t");
    expect(bad.featureScopes.size).toBe(0);
    expect(bad.configErrors.get("config-features-scopes")).toBe('unknown feature flag "nope": the key must be a config-features flag');
    expect(snapshotFrom({ "config-features-scopes": { [RUNTIME]: "namespaces: [a]" } }, "t").featureScopes.get(RUNTIME)?.namespaces).toEqual(["a"]);
  });
});
