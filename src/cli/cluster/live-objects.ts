/**
 * Live objects read from a cluster, as the commands that check them (`features impact --kubeconfig`,
 * `upgrade-check --kubeconfig`) name, select and re-apply them.
 */
import { lastAppliedOf } from "../kubectl/kubectl-apply.js";

type JsonMap = Record<string, unknown>;

function metadataOf(obj: JsonMap): JsonMap {
  const m = obj.metadata;
  return typeof m === "object" && m !== null && !Array.isArray(m) ? (m as JsonMap) : {};
}

/** `<namespace>/<name>` of a live object. */
export function liveName(obj: JsonMap): string {
  const meta = metadataOf(obj);
  return `${String(meta.namespace ?? "")}/${String(meta.name ?? "")}`;
}

/** The kinds a Knative Service makes and controls (knative.dev/serving pkg/reconciler/service/resources). */
const SERVICE_CHILDREN = new Set(["Configuration", "Route"]);

/**
 * A Configuration or Route a Service controls has its spec from the Service, and only the Serving controller updates
 * it, after the Service's own update (which is checked, and denied first): it is left out so each workload is
 * counted once.
 */
export function controlledByService(obj: JsonMap): boolean {
  if (!SERVICE_CHILDREN.has(String(obj.kind))) return false;
  const refs = metadataOf(obj).ownerReferences;
  if (!Array.isArray(refs)) return false;
  return refs.some((r: unknown) => {
    const ref = r as { apiVersion?: unknown; kind?: unknown; controller?: unknown } | null;
    return ref?.kind === "Service" && typeof ref.apiVersion === "string" && ref.apiVersion.startsWith("serving.knative.dev/") && ref.controller === true;
  });
}

/** What the API server sets on an object; a manifest never carries it. */
const SERVER_SET_METADATA = ["uid", "resourceVersion", "managedFields", "creationTimestamp", "generation", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"];

/**
 * The manifest the live object's next `kubectl apply` would send; it is checked as an UPDATE of the live object,
 * which is passed as the old object (as `check --old` does). That is its own last-applied-configuration when it
 * has one: what its owner applied, and applying it again goes through kubectl's three-way merge against the live
 * object, then /defaulting and /resource-validation as an UPDATE with the live object as oldObject, which is
 * exactly the request the webhook would judge. Checking the live object as a CREATE instead would answer another
 * question: it carries what defaulting and the server added, and the webhook treats some things differently on
 * UPDATE (the creator annotation, the revision name, what changed). Objects made without client-side apply (kn,
 * server-side apply, controllers) have no last-applied-configuration: for them the manifest is the live object
 * without what the server sets (the metadata above, and status), a re-apply of `kubectl get -o yaml`, which
 * changes no field of the spec and is still validated in full.
 */
export function nextApplyOf(live: JsonMap): JsonMap {
  const applied = lastAppliedOf(live);
  if (applied !== undefined) {
    // kubectl records the namespace it applied to; should it be missing, the object's own is the one meant.
    const meta = metadataOf(applied);
    return meta.namespace === undefined || meta.namespace === "" ? { ...applied, metadata: { ...meta, namespace: metadataOf(live).namespace } } : applied;
  }
  const { status: _status, ...rest } = live;
  const meta: JsonMap = { ...metadataOf(live) };
  for (const k of SERVER_SET_METADATA) delete meta[k];
  return { ...rest, metadata: meta };
}
