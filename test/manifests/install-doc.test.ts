/**
 * docs/install.md's install and uninstall commands, read as a reviewer would: every path they name exists, each
 * uninstall deletes only what its install added, and no command deletes Knative's webhook or its namespace after a
 * replacement. test/e2e/install.test.ts runs the same blocks against a real API server.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commands, INSTALL_DOC, installBlocks } from "./install-doc.js";
import { key, MANIFESTS, render } from "./kustomize.js";

const blocks = installBlocks();
const REPO = join(MANIFESTS, "..");

/** The `-k DIR` and `-f FILE` arguments of a kubectl command. */
function targets(command: string): { kustomizations: string[]; files: string[] } {
  const words = command.split(/\s+/);
  const after = (flag: string): string[] => words.flatMap((w, i) => (w === flag && words[i + 1] !== undefined ? [words[i + 1]!] : []));
  return { kustomizations: after("-k"), files: after("-f") };
}

describe("docs/install.md", () => {
  it("names only kustomizations and files that exist", () => {
    for (const block of Object.values(blocks)) {
      for (const c of commands(block)) {
        const { kustomizations, files } = targets(c);
        for (const k of kustomizations) expect(existsSync(join(REPO, k, "kustomization.yaml")), c).toBe(true);
        // serving-core.yaml is Knative's release manifest, the reader's own file.
        for (const f of files.filter((f) => f !== "serving-core.yaml")) expect(existsSync(join(REPO, f)), c).toBe(true);
      }
    }
  });

  it("installs each mode with its overlay", () => {
    expect(commands(blocks["standalone-install"])).toContain("kubectl apply -k manifests/standalone");
    expect(commands(blocks["replace-install"])).toContain("kubectl apply -k manifests/replace-knative");
  });

  it("uninstalls the standalone install by deleting what it applied, the webhook configurations first", () => {
    const cs = commands(blocks["standalone-uninstall"]);
    expect(cs).toEqual(["kubectl delete -f manifests/standalone/700-webhooks.yaml --ignore-not-found", "kubectl delete -k manifests/standalone --ignore-not-found"]);
    const configurations = render("standalone").filter((o) => String(o.kind).endsWith("WebhookConfiguration"));
    expect(configurations).toHaveLength(3);
  });

  it("uninstalls the replacement without deleting anything Knative has: Knative's webhook back first, then Duckbill's own objects", () => {
    const cs = commands(blocks["replace-uninstall"]);
    expect(cs[0]).toBe("kubectl apply -f serving-core.yaml -l app.kubernetes.io/component=webhook");
    const deletes = cs.filter((c) => c.includes(" delete "));
    expect(deletes).toEqual(["kubectl delete -k manifests/base/rbac"]);
    expect(cs.indexOf(deletes[0]!)).toBeGreaterThan(0);
    // What that deletes is all Duckbill's (named duckbill-webhook*), and all of it came with the replacement.
    const installed = new Set(render("replace-knative").map(key));
    for (const o of render("base/rbac")) {
      expect(o.metadata.name).toMatch(/^duckbill-webhook/);
      expect(installed.has(key(o))).toBe(true);
    }
  });

  it("never tells the reader to delete a directory of manifests, the replacement's overlay or the namespace", () => {
    const text = readFileSync(INSTALL_DOC, "utf8");
    for (const line of text.split("\n").filter((l) => /^\s*kubectl delete/.test(l))) {
      expect(line).not.toMatch(/-f manifests\/?(\s|$)/);
      expect(line).not.toMatch(/-k manifests\/(replace-knative|base)\/?(\s|$)/);
      expect(line).not.toMatch(/\bnamespace\b.*knative-serving/);
    }
  });
});
