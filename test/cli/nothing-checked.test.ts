/**
 * A command that checks nothing says so and fails (kubectl apply: "error: no objects passed to apply"), and a file
 * that cannot be read does not stop the others from being checked: check, upgrade-check and features impact alike.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCheck } from "../../src/cli/check/check-command.js";
import { runFeatures } from "../../src/cli/features/features-command.js";
import { runUpgradeCheck } from "../../src/cli/upgrade/upgrade-check.js";
import { runCaptured } from "../support/cli-io.js";

const SERVICE = "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: hello\n  namespace: default\nspec:\n  template:\n    spec:\n      containers:\n        - image: ghcr.io/knative/helloworld-go\n";
const BROKEN = "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: [unclosed\n";

const COMMANDS = [
  { name: "check", prefix: "check", run: (args: string[]) => runCaptured((io) => runCheck(args, io)) },
  { name: "upgrade-check", prefix: "upgrade-check", run: (args: string[]) => runCaptured((io) => runUpgradeCheck(["--from", "1.17", "--to", "1.24", ...args], io)) },
  { name: "features impact", prefix: "features", run: (args: string[]) => runCaptured((io) => runFeatures(["impact", "--disable", "kubernetes.podspec-affinity", ...args], io)) },
] as const;

describe.each(COMMANDS)("duckbill $name", ({ name, prefix, run }) => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-nothing-"));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("exits 2 on a directory without manifests, and says -R reads its subdirectories", async () => {
    await mkdir(join(dir, "app"));
    await writeFile(join(dir, "app", "service.yaml"), SERVICE);
    const r = await run(["-f", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`duckbill ${prefix}: no objects passed to ${name}: ${dir} has subdirectories, which are read only with -R (--recursive)\n`);
    expect(r.stdout).toBe("");
  });

  it("exits 2 on files that hold no object", async () => {
    await writeFile(join(dir, "empty.yaml"), "# nothing yet\n");
    const r = await run(["-f", join(dir, "empty.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`duckbill ${prefix}: no objects passed to ${name}\n`);
  });

  it("checks the readable files past a broken one, names the broken one, and exits 2", async () => {
    await writeFile(join(dir, "a-broken.yaml"), BROKEN);
    await writeFile(join(dir, "b-service.yaml"), SERVICE);
    const r = await run(["-f", dir, "-o", "json"]);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    // The JSON names it (with its line), as the text output does on stderr.
    expect(out.errors).toEqual([expect.objectContaining({ source: join(dir, "a-broken.yaml"), line: 4 })]);
    const objects = (name === "check" ? out.results : out.objects) as { name: string }[];
    expect(objects.map((o) => o.name)).toContain("hello");
  });
});
