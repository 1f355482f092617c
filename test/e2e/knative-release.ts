/**
 * An existing Knative Serving install for the replacement's tests: the files of Knative Serving 1.17's
 * `serving-core.yaml` that make up its webhook (config/core of the knative.dev/serving module, the version
 * reference/knative-1.17 builds), with the namespace, ServiceAccount and ConfigMaps they live with. Read from the Go
 * module cache (`go mod download`), so nothing of Knative's is copied into this repository; the CRDs, controllers
 * and the rest of serving-core.yaml are left out (nothing here runs them).
 */
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "./harness.js";

export const KNATIVE_SERVING_MODULE = "knative.dev/serving@v0.44.1";

/** In apply order: ConfigMaps before the webhook configurations (which would then validate them, failing closed). */
const FILES = [
  "100-namespace.yaml",
  "200-serviceaccount.yaml",
  "configmaps/*",
  "webhooks/secret.yaml",
  "deployments/webhook.yaml",
  "deployments/webhook-hpa.yaml",
  "webhooks/defaulting.yaml",
  "webhooks/resource-validation.yaml",
  "webhooks/configmap-validation.yaml",
];

/** The text of that subset of serving-core.yaml, as one multi-document YAML file. */
export async function knativeServingCore(): Promise<string> {
  const r = await run("go", ["mod", "download", "-json", KNATIVE_SERVING_MODULE], { cwd: tmpdir(), timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`go mod download ${KNATIVE_SERVING_MODULE} failed (${r.code}): ${r.stderr}${r.stdout}`);
  const core = join((JSON.parse(r.stdout) as { Dir: string }).Dir, "config", "core");
  const paths = FILES.flatMap((f) =>
    f.endsWith("/*")
      ? readdirSync(join(core, f.slice(0, -2)))
          .filter((n) => n.endsWith(".yaml"))
          .sort()
          .map((n) => join(core, f.slice(0, -2), n))
      : [join(core, f)],
  );
  return paths.map((p) => readFileSync(p, "utf8").trim()).join("\n---\n") + "\n";
}
