import { KindRegistry, type KindRules } from "./registry.js";

const serving = "serving.knative.dev";
const autoscaling = "autoscaling.internal.knative.dev";
const networking = "networking.internal.knative.dev";

/**
 * The GVKs Knative Serving's webhook registers (spec §1.1), in the order of the spec's table.
 * Per-kind defaulting and validation rules are attached by their own modules (issues [2] and [3]);
 * a kind without rules is still "handled": it decodes, round-trips and is allowed.
 */
export const KNATIVE_KINDS: readonly KindRules[] = [
  { gvk: { group: serving, version: "v1", kind: "Revision" }, plural: "revisions" },
  { gvk: { group: serving, version: "v1", kind: "Configuration" }, plural: "configurations" },
  { gvk: { group: serving, version: "v1", kind: "Route" }, plural: "routes" },
  { gvk: { group: serving, version: "v1", kind: "Service" }, plural: "services" },
  { gvk: { group: serving, version: "v1beta1", kind: "DomainMapping" }, plural: "domainmappings" },
  { gvk: { group: autoscaling, version: "v1alpha1", kind: "PodAutoscaler" }, plural: "podautoscalers" },
  { gvk: { group: autoscaling, version: "v1alpha1", kind: "Metric" }, plural: "metrics" },
  { gvk: { group: networking, version: "v1alpha1", kind: "Certificate" }, plural: "certificates" },
  { gvk: { group: networking, version: "v1alpha1", kind: "Ingress" }, plural: "ingresses" },
  { gvk: { group: networking, version: "v1alpha1", kind: "ServerlessService" }, plural: "serverlessservices" },
];

export function knativeRegistry(): KindRegistry {
  return new KindRegistry(KNATIVE_KINDS);
}
