/**
 * The manifests name Duckbill's image in one place, which kustomize's `images:` sets: docs/install.md's overlay
 * ("Where the manifests name the image") renders with the reader's reference in every container.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { INSTALL_DOC } from "./install-doc.js";
import { MANIFESTS, render, type Obj } from "./kustomize.js";

const pkg = JSON.parse(readFileSync(join(MANIFESTS, "..", "package.json"), "utf8")) as { version: string };

function images(objects: Obj[]): string[] {
  return objects.flatMap((o) => ((o.spec?.template?.spec?.containers ?? []) as Obj[]).map((c) => String(c.image)));
}

describe("the image reference", () => {
  it("appears once in manifests/, as duckbill:<package version>", () => {
    const files = (readdirSync(MANIFESTS, { recursive: true }) as string[]).filter((f) => f.endsWith(".yaml"));
    // The CRDs' schemas describe users' containers, not ours.
    const hits = files.filter((f) => !f.startsWith("crds")).flatMap((f) => [...readFileSync(join(MANIFESTS, f), "utf8").matchAll(/^\s*image:\s*(\S+)\s*$/gm)].map((m) => `${f}: ${m[1]}`));
    expect(hits).toEqual([`base/webhook/500-deployment.yaml: duckbill:${pkg.version}`]);
  });

  it.each(["standalone", "replace-knative"])("is the only image %s runs", (dir) => {
    expect(images(render(dir))).toEqual([`duckbill:${pkg.version}`]);
  });

  it("is set by the `images:` of docs/install.md's overlay", () => {
    const doc = readFileSync(INSTALL_DOC, "utf8");
    const block = /```yaml\n(# my-install\/kustomization\.yaml\n[\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    const user = mkdtempSync(join(tmpdir(), "duckbill-images-"));
    try {
      for (const install of ["standalone", "replace-knative"]) {
        writeFileSync(join(user, "kustomization.yaml"), block!.replace(/^resources: .*$/m, `resources: [${relative(user, join(MANIFESTS, install))}]`));
        const objects = render(relative(MANIFESTS, user));
        expect(images(objects), install).toEqual([`registry.example.com/duckbill:${pkg.version}`]);
      }
    } finally {
      rmSync(user, { recursive: true, force: true });
    }
  });
});
