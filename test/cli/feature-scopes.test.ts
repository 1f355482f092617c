/**
 * config-features-scopes in the CLI with --config-dir: `duckbill features` shows the scopes and, with -n, a
 * namespace's states; `features explain --namespace`; `check --namespace` denies outside a scope with the scope named.
 */
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/cli/check/check-command.js";
import { runFeatures } from "../../src/cli/features/features-command.js";
import { runCaptured } from "../support/cli-io.js";

const CONFIG = "test/fixtures/scopes/config";
const AFFINITY = "kubernetes.podspec-affinity";
const env = { ...process.env, DUCKBILL_KNATIVE_VERSION: "1.24" };

function features(args: string[]): ReturnType<typeof runCaptured> {
  return runCaptured((io) => runFeatures([...args, "--knative-version", "1.24"], io));
}

describe("duckbill features with config-features-scopes", () => {
  it("shows each flag's scope", async () => {
    const r = await features(["--config-dir", CONFIG]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^FLAG\s+STATE\s+DEFAULT\s+TYPE\s+SCOPE\s+GATES$/);
    expect(lines.find((l) => l.startsWith(AFFINITY))).toMatch(/^kubernetes\.podspec-affinity\s+Allowed\s+Disabled\s+extension\s+selector tenant=platform; namespaces platform-tools\s+node and pod affinity$/);
    expect(lines.find((l) => l.startsWith("multi-container "))).toMatch(/\s-\s/);
  });

  it("keeps Knative's table when there is no config-features-scopes", async () => {
    const r = await features(["--config-dir", "test/fixtures/check/config-affinity"]);
    expect(r.stdout.split("\n")[0]).toMatch(/^FLAG\s+STATE\s+DEFAULT\s+TYPE\s+GATES$/);
  });

  it("shows a namespace's states beside the cluster-wide ones", async () => {
    const outside = await features(["--config-dir", CONFIG, "-n", "team-b", "--namespace-labels", "tenant=b"]);
    expect(outside.stdout.split("\n")[0]).toMatch(/^FLAG\s+STATE\s+CLUSTER-WIDE\s+DEFAULT\s+TYPE\s+SCOPE\s+GATES$/);
    expect(outside.stdout.split("\n").find((l) => l.startsWith(AFFINITY))).toMatch(/^kubernetes\.podspec-affinity\s+Disabled\s+Allowed\s+Disabled\s+extension\s+outside: selector tenant=platform/);
    const inside = await features(["--config-dir", CONFIG, "-n", "web", "--namespace-labels", "tenant=platform", "-o", "json"]);
    const json = JSON.parse(inside.stdout) as { namespace: string; flags: Array<{ flag: string; state: string; clusterState: string; scope?: { inside: boolean } }> };
    expect(json.namespace).toBe("web");
    const affinity = json.flags.find((f) => f.flag === AFFINITY);
    expect(affinity).toMatchObject({ state: "Allowed", clusterState: "Allowed", scope: { inside: true } });
    expect(json.flags.find((f) => f.flag === "kubernetes.podspec-runtimeclassname")).toMatchObject({ state: "Disabled", clusterState: "Allowed", scope: { inside: false } });
  });

  it("notes a namespace whose labels are unknown", async () => {
    const r = await features(["--config-dir", CONFIG, "-n", "team-b"]);
    expect(r.stderr).toContain("note: the labels of namespace team-b are unknown (give --namespace-labels): only scopes that name it take it in");
  });

  it("explains a field as a namespace sees it", async () => {
    const r = await features(["explain", "spec.template.spec.affinity", "--config-dir", CONFIG, "--namespace", "team-b"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("With this configuration (dir:test/fixtures/scopes/config, namespace team-b): denied");
    expect(r.stdout).toContain("  Scope (config-features-scopes): selector tenant=platform; namespaces platform-tools; Disabled in every other namespace.\n");
    expect(r.stdout).toContain("  In namespace team-b: Disabled (outside its scope; the namespace's labels are unknown).\n");
    const inside = await features(["explain", AFFINITY, "--config-dir", CONFIG, "--namespace", "platform-tools"]);
    expect(inside.stdout).toContain("  In namespace platform-tools: Allowed (inside its scope).\n");
  });
});

describe("duckbill check with config-features-scopes", () => {
  it("admits inside the scope and denies outside it, naming the scope and the namespace", async () => {
    const inside = await runCaptured((io) => runCheck(["-f", "test/fixtures/check/affinity.yaml", "--config-dir", CONFIG, "-n", "web", "--namespace-labels", "tenant=platform"], io, undefined, env));
    expect(inside.code).toBe(0);
    const outside = await runCaptured((io) => runCheck(["-f", "test/fixtures/check/affinity.yaml", "--config-dir", CONFIG, "-n", "team-b"], io, undefined, env));
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain("must not set the field(s): spec.template.spec.affinity\n");
    expect(outside.stderr).toContain(
      'feature kubernetes.podspec-affinity is Allowed cluster-wide but Disabled in namespace "team-b": the namespace is outside its scope in ConfigMap config-features-scopes (selector tenant=platform; namespaces platform-tools)',
    );
  });
});
