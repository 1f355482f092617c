/**
 * `duckbill features --kubeconfig` with `--knative-version auto` (the default) answers as the release the cluster
 * runs (src/kube/knative-release.ts) and says so on stderr; an explicit release is taken as given.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runFeatures } from "../../src/cli/features/features-command.js";
import { runCaptured, type CapturedRun } from "../support/cli-io.js";
import { BUILTIN_RESOURCES, CUSTOM_RESOURCE_DEFINITIONS as CRDS, FakeApiServer, NAMESPACES } from "../support/fake-apiserver.js";

// A volume flag Knative 1.23 added (knative.dev/serving pkg/apis/config/features.go): listed for 1.23 and 1.24 only.
const CSI = "kubernetes.podspec-volumes-csi";

describe("duckbill features --kubeconfig, the release", () => {
  let api: FakeApiServer;
  let dir: string;
  let kubeconfig: string;
  beforeEach(async () => {
    api = await FakeApiServer.start({ resources: [...BUILTIN_RESOURCES, CRDS] });
    dir = await mkdtemp(join(tmpdir(), "duckbill-features-release-"));
    kubeconfig = join(dir, "config");
    await writeFile(kubeconfig, api.kubeconfigYaml());
  });
  afterEach(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  const features = (args: string[]): Promise<CapturedRun> => runCaptured((io) => runFeatures(args, io));

  function labelCrd(version: string): void {
    api.create(CRDS, { metadata: { name: "services.serving.knative.dev", labels: { "app.kubernetes.io/version": version } } });
  }

  it("lists the flags of the release the Serving CRDs are labelled with", async () => {
    labelCrd("1.17.3");
    const r = await features(["--kubeconfig", kubeconfig]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("note: answering as Knative 1.17: 1.17.3, from the Serving CRDs' label; pin one with --knative-version\n");
    expect(r.stdout).toContain("kubernetes.podspec-affinity");
    expect(r.stdout).not.toContain(CSI);
  });

  it("falls back to the namespace's label, then to 1.24, saying which", async () => {
    api.create(NAMESPACES, { metadata: { name: "knative-serving", labels: { "app.kubernetes.io/version": "1.23.0" } } });
    const fromNamespace = await features(["--kubeconfig", kubeconfig]);
    expect(fromNamespace.stderr).toBe("note: answering as Knative 1.23: 1.23.0, from the knative-serving namespace's label; pin one with --knative-version\n");
    expect(fromNamespace.stdout).toContain(CSI);
    api.delete(NAMESPACES, "knative-serving");
    const fallback = await features(["--kubeconfig", kubeconfig]);
    expect(fallback.stderr).toBe("note: answering as Knative 1.24: no release label found in the cluster; pin one with --knative-version\n");
    expect(fallback.stdout).toContain(CSI);
  });

  it("takes an explicit --knative-version without asking the cluster", async () => {
    labelCrd("1.24.0");
    const r = await features(["--kubeconfig", kubeconfig, "--knative-version", "1.17"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toContain(CSI);
    expect(api.count({ plural: "customresourcedefinitions" })).toBe(0);
  });
});
