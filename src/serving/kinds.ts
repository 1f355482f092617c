import { validateCertificate } from "./certificate.js";
import { setConfigurationDefaults, validateConfiguration } from "./configuration.js";
import { setDomainMappingDefaults, validateDomainMapping } from "./domainmapping.js";
import { setIngressDefaults, validateIngress } from "./ingress.js";
import { validateMetric } from "./metric.js";
import { setPodAutoscalerDefaults, validatePodAutoscaler } from "./podautoscaler.js";
import { validateConfigurationDryRun, validateServiceDryRun } from "./podspec-dryrun.js";
import { KindRegistry, type KindRules } from "./registry.js";
import { setRevisionDefaults, validateRevision } from "./revision.js";
import { setRouteDefaults, validateRoute } from "./route.js";
import { validateServerlessService } from "./serverlessservice.js";
import { setServiceDefaults, validateService } from "./service.js";

const serving = "serving.knative.dev";
const autoscaling = "autoscaling.internal.knative.dev";
const networking = "networking.internal.knative.dev";

/**
 * The GVKs Knative Serving's webhook registers (knative.dev/serving cmd/webhook/main.go: the `types` map), in the
 * order of docs/knative-behavior.md#registered-kinds, each with
 * its SetDefaults and Validate. Kinds without defaults only get the Go round trip. Service and Configuration
 * have Knative's validation callback, the PodSpec dry run (docs/knative-behavior.md#podspec-dry-run).
 */
export const KNATIVE_KINDS: readonly KindRules[] = [
  { gvk: { group: serving, version: "v1", kind: "Revision" }, plural: "revisions", setDefaults: setRevisionDefaults, validate: validateRevision },
  { gvk: { group: serving, version: "v1", kind: "Configuration" }, plural: "configurations", setDefaults: setConfigurationDefaults, validate: validateConfiguration, callback: validateConfigurationDryRun },
  { gvk: { group: serving, version: "v1", kind: "Route" }, plural: "routes", setDefaults: setRouteDefaults, validate: validateRoute },
  { gvk: { group: serving, version: "v1", kind: "Service" }, plural: "services", setDefaults: setServiceDefaults, validate: validateService, callback: validateServiceDryRun },
  { gvk: { group: serving, version: "v1beta1", kind: "DomainMapping" }, plural: "domainmappings", setDefaults: setDomainMappingDefaults, validate: validateDomainMapping },
  { gvk: { group: autoscaling, version: "v1alpha1", kind: "PodAutoscaler" }, plural: "podautoscalers", setDefaults: setPodAutoscalerDefaults, validate: validatePodAutoscaler },
  { gvk: { group: autoscaling, version: "v1alpha1", kind: "Metric" }, plural: "metrics", validate: validateMetric },
  { gvk: { group: networking, version: "v1alpha1", kind: "Certificate" }, plural: "certificates", validate: validateCertificate },
  { gvk: { group: networking, version: "v1alpha1", kind: "Ingress" }, plural: "ingresses", setDefaults: setIngressDefaults, validate: validateIngress },
  { gvk: { group: networking, version: "v1alpha1", kind: "ServerlessService" }, plural: "serverlessservices", validate: validateServerlessService },
];

export function knativeRegistry(): KindRegistry {
  return new KindRegistry(KNATIVE_KINDS);
}
