/**
 * The Go types of every kind Knative Serving's webhook decodes (the `types` map of knative.dev/serving
 * cmd/webhook/main.go), of the AdmissionReview knative.dev/pkg webhook/admission.go decodes every request into, and
 * of the Kubernetes types they reach: the generated model of go-types.generated.ts (reflected from each pinned
 * release's knative.dev/serving, knative.dev/networking, knative.dev/pkg, k8s.io/api and k8s.io/apimachinery; the
 * union of the releases, with absentFields saying which fields a release lacks).
 */
import { GoTypeRegistry, type GoType } from "../go/encoding/json/types.js";
import { goNamedTypes, goStructs } from "./go-types.generated.js";

/** Table package alias → Go package name (the prefix of type names in Go's error messages). */
const PACKAGES = {
  admission: "v1",
  authentication: "v1",
  core: "v1",
  meta: "v1",
  types: "types",
  duck: "v1",
  apis: "apis",
  serving: "v1",
  servingv1beta1: "v1beta1",
  autoscaling: "v1alpha1",
  networking: "v1alpha1",
  net: "networking",
  time: "time",
} as const;

const registry = new GoTypeRegistry(goStructs, goNamedTypes, PACKAGES);

const KINDS: ReadonlyArray<readonly [gvk: string, type: string]> = [
  ["serving.knative.dev/v1, Kind=Service", "serving.Service"],
  ["serving.knative.dev/v1, Kind=Configuration", "serving.Configuration"],
  ["serving.knative.dev/v1, Kind=Revision", "serving.Revision"],
  ["serving.knative.dev/v1, Kind=Route", "serving.Route"],
  ["serving.knative.dev/v1beta1, Kind=DomainMapping", "servingv1beta1.DomainMapping"],
  ["autoscaling.internal.knative.dev/v1alpha1, Kind=PodAutoscaler", "autoscaling.PodAutoscaler"],
  ["autoscaling.internal.knative.dev/v1alpha1, Kind=Metric", "autoscaling.Metric"],
  ["networking.internal.knative.dev/v1alpha1, Kind=Certificate", "networking.Certificate"],
  ["networking.internal.knative.dev/v1alpha1, Kind=Ingress", "networking.Ingress"],
  ["networking.internal.knative.dev/v1alpha1, Kind=ServerlessService", "networking.ServerlessService"],
];

/**
 * The Go type of each kind the resource webhooks decode, keyed `group/version, Kind=Kind` (knative.dev/serving
 * cmd/webhook/main.go: the `types` map).
 */
export const knativeTypes: ReadonlyMap<string, GoType> = new Map(KINDS.map(([gvk, type]) => [gvk, registry.struct(type)]));

/** core/v1 ConfigMap, decoded by /config-validation. */
export const configMapType: GoType = registry.struct("core.ConfigMap");

/** Any table type by expression (e.g. `core.Container`), for tests and callers that decode fragments. */
export function goTypeOf(expr: string): GoType {
  return registry.type(expr);
}

/** The struct types of k8s.io/api and k8s.io/apimachinery (packages `core` and `meta` of the model). */
export const kubernetesStructNames: readonly string[] = Object.keys(goStructs).filter((name) => name.startsWith("core.") || name.startsWith("meta."));
