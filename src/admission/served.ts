import { knativeRegistry } from "../serving/kinds.js";
import type { KindRegistry } from "../serving/registry.js";

/** One resource the webhook serves: its kind and the resource the API server names in a review. */
export interface ServedResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resource: string;
}

/**
 * What the webhook configurations send to Duckbill: the registered Knative kinds (knative.dev/serving
 * cmd/webhook/main.go: the `types` map) on /defaulting and /resource-validation, and core v1 ConfigMaps on
 * /config-validation (knative.dev/pkg webhook/configmaps). Reviews of anything else are answered, but nothing about
 * them is worth a metric series of its own.
 */
export function servedResources(kinds: KindRegistry = knativeRegistry()): readonly ServedResource[] {
  return [
    ...kinds.all().map((k) => ({ group: k.gvk.group, version: k.gvk.version, kind: k.gvk.kind, resource: k.plural })),
    { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps" },
  ];
}
