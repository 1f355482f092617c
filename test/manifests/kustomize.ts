/**
 * Renders a kustomization under manifests/ with `kubectl kustomize` (kustomize as built into kubectl, the same code
 * `kubectl apply -k` and `kubectl delete -k` run). kubectl is on every machine of this project's kind (Debian's
 * `kubectl` package); KUBECTL names another binary, e.g. the e2e harness's (test/e2e/build-cluster.sh).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parseAllDocuments } from "yaml";

export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are read as loose JSON

export const MANIFESTS = join(import.meta.dirname, "..", "..", "manifests");

/**
 * The objects `kubectl apply -k manifests/<dir>` applies, in the order it applies them; with `components`
 * (manifests/components/<name>), those of a user's kustomization that adds them to the install, as docs/install.md
 * shows.
 */
export function render(dir: string, components: readonly string[] = []): Obj[] {
  if (components.length === 0) return renderAt(join(MANIFESTS, dir), `manifests/${dir}`);
  const user = mkdtempSync(join(tmpdir(), "duckbill-kustomization-"));
  try {
    // kustomize refuses absolute paths: the user's kustomization names the install and components relatively.
    const lines = ["resources:", `  - ${relative(user, join(MANIFESTS, dir))}`, "components:", ...components.map((c) => `  - ${relative(user, join(MANIFESTS, "components", c))}`)];
    writeFileSync(join(user, "kustomization.yaml"), lines.join("\n") + "\n");
    return renderAt(user, `manifests/${dir} with ${components.join(", ")}`);
  } finally {
    rmSync(user, { recursive: true, force: true });
  }
}

function renderAt(path: string, what: string): Obj[] {
  const kubectl = process.env.KUBECTL ?? "kubectl";
  let text: string;
  try {
    text = execFileSync(kubectl, ["kustomize", path], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { code?: string; stderr?: string };
    if (e.code === "ENOENT") throw new Error(`${kubectl} not found: the overlay tests render manifests/ with \`kubectl kustomize\` (install Debian's kubectl, or set KUBECTL)`);
    throw new Error(`kubectl kustomize ${what} failed: ${e.stderr ?? String(err)}`);
  }
  return parseAllDocuments(text).map((d) => d.toJSON() as Obj).filter((o) => o !== null);
}

/** `Kind/name`, or `Kind/namespace/name` for a namespaced object. */
export function key(o: Obj): string {
  const ns = o.metadata?.namespace as string | undefined;
  return ns === undefined ? `${o.kind}/${o.metadata.name}` : `${o.kind}/${ns}/${o.metadata.name}`;
}
