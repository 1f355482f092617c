/** Live Knative objects for the CLI's cluster tests, stored in the fake API server (fake-apiserver.ts). */
import { checkDocuments } from "../../src/cli/check/check.js";
import { defaultDeps } from "../../src/cli/deps.js";
import { LAST_APPLIED_ANNOTATION } from "../../src/cli/kubectl/kubectl-apply.js";
import type { ConfigSnapshot } from "../../src/config/snapshot.js";
import type { FakeApiServer, KubeObject, ResourceType } from "./fake-apiserver.js";

const deps = defaultDeps();

/**
 * Stores `manifest` as `kubectl apply` would have created it under `config`: through the webhook (defaulted, with
 * kubectl's last-applied annotation), then the fake server adds uid, creationTimestamp, resourceVersion.
 * `lastApplied: false` drops the annotation, as for objects made with kn or server-side apply.
 */
export async function storeApplied(api: FakeApiServer, rt: ResourceType, manifest: Record<string, unknown>, config: ConfigSnapshot, lastApplied = true): Promise<KubeObject> {
  const [r] = await checkDocuments([{ source: "setup.yaml", line: 1, object: manifest }], { deps, config, namespace: "default", user: "setup" });
  if (r?.outcome !== "created") throw new Error(`setup: the webhook does not create the object: ${r?.error ?? r?.note ?? ""}`);
  const obj = structuredClone(r.defaulted!) as KubeObject;
  delete obj.metadata.uid;
  delete obj.metadata.creationTimestamp;
  obj.metadata.generation = 1;
  if (!lastApplied) delete obj.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  obj.status = { observedGeneration: 1, conditions: [{ type: "Ready", status: "True" }] };
  return api.create(rt, obj);
}
