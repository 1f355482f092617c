/**
 * The Go types of every kind the Knative Serving 1.17 webhook decodes (the `types` map of knative.dev/serving
 * cmd/webhook/main.go), written from knative/serving v0.44 (pkg/apis/serving/v1, v1beta1, autoscaling/v1alpha1),
 * knative/networking (pkg/apis/networking/v1alpha1) and knative.dev/pkg (apis, apis/duck/v1) at the revisions serving
 * pins. Kubernetes types come from k8s-types.ts.
 */
import { GoTypeRegistry, type GoType, type NamedTypeTable, type StructTable } from "../go/encoding/json/types.js";
import { admissionNamedTypes, admissionStructs } from "./admission-types.js";
import { k8sNamedTypes, k8sStructs } from "./k8s-types.js";

const OBJECT_HEAD = ["^ meta.TypeMeta", "metadata meta.ObjectMeta omitempty"] as const;

const knativeStructs: StructTable = {
  // knative.dev/pkg/apis and apis/duck/v1.
  "duck.Status": ["observedGeneration int64 omitempty", "conditions duck.Conditions omitempty", "annotations map[string]string omitempty"],
  "apis.Condition": [
    "type apis.ConditionType",
    "status core.ConditionStatus",
    "severity apis.ConditionSeverity omitempty",
    "lastTransitionTime apis.VolatileTime omitempty",
    "reason string omitempty",
    "message string omitempty",
  ],
  "duck.Addressable": ["name *string omitempty", "url *apis.URL omitempty", "CACerts *string omitempty", "audience *string omitempty"],
  "duck.KReference": [
    "kind string",
    "namespace string omitempty",
    "name string",
    "apiVersion string omitempty",
    "group string omitempty",
    "address *string omitempty",
  ],

  // serving.knative.dev/v1.
  "serving.Service": [...OBJECT_HEAD, "spec serving.ServiceSpec omitempty", "status serving.ServiceStatus omitempty"],
  "serving.ServiceSpec": ["^ serving.ConfigurationSpec", "^ serving.RouteSpec"],
  "serving.ServiceStatus": ["^ duck.Status", "^ serving.ConfigurationStatusFields", "^ serving.RouteStatusFields"],
  "serving.Configuration": [...OBJECT_HEAD, "spec serving.ConfigurationSpec omitempty", "status serving.ConfigurationStatus omitempty"],
  "serving.ConfigurationSpec": ["template serving.RevisionTemplateSpec"],
  "serving.ConfigurationStatus": ["^ duck.Status", "^ serving.ConfigurationStatusFields"],
  "serving.ConfigurationStatusFields": ["latestReadyRevisionName string omitempty", "latestCreatedRevisionName string omitempty"],
  "serving.Revision": [...OBJECT_HEAD, "spec serving.RevisionSpec omitempty", "status serving.RevisionStatus omitempty"],
  "serving.RevisionTemplateSpec": ["metadata meta.ObjectMeta omitempty", "spec serving.RevisionSpec omitempty"],
  "serving.RevisionSpec": [
    "^ core.PodSpec",
    "containerConcurrency *int64 omitempty",
    "timeoutSeconds *int64 omitempty",
    "responseStartTimeoutSeconds *int64 omitempty",
    "idleTimeoutSeconds *int64 omitempty",
  ],
  "serving.RevisionStatus": [
    "^ duck.Status",
    "logUrl string omitempty",
    "containerStatuses []serving.ContainerStatus omitempty",
    "initContainerStatuses []serving.ContainerStatus omitempty",
    "actualReplicas *int32 omitempty",
    "desiredReplicas *int32 omitempty",
  ],
  "serving.ContainerStatus": ["name string omitempty", "imageDigest string omitempty"],
  "serving.Route": [...OBJECT_HEAD, "spec serving.RouteSpec omitempty", "status serving.RouteStatus omitempty"],
  "serving.RouteSpec": ["traffic []serving.TrafficTarget omitempty"],
  "serving.TrafficTarget": [
    "tag string omitempty",
    "revisionName string omitempty",
    "configurationName string omitempty",
    "latestRevision *bool omitempty",
    "percent *int64 omitempty",
    "url *apis.URL omitempty",
  ],
  "serving.RouteStatus": ["^ duck.Status", "^ serving.RouteStatusFields"],
  "serving.RouteStatusFields": ["url *apis.URL omitempty", "address *duck.Addressable omitempty", "traffic []serving.TrafficTarget omitempty"],

  // serving.knative.dev/v1beta1.
  "servingv1beta1.DomainMapping": [
    ...OBJECT_HEAD,
    "spec servingv1beta1.DomainMappingSpec omitempty",
    "status servingv1beta1.DomainMappingStatus omitempty",
  ],
  "servingv1beta1.DomainMappingSpec": ["ref duck.KReference", "tls *servingv1beta1.SecretTLS omitempty"],
  "servingv1beta1.SecretTLS": ["secretName string"],
  "servingv1beta1.DomainMappingStatus": ["^ duck.Status", "url *apis.URL omitempty", "address *duck.Addressable omitempty"],

  // autoscaling.internal.knative.dev/v1alpha1.
  "autoscaling.PodAutoscaler": [...OBJECT_HEAD, "spec autoscaling.PodAutoscalerSpec omitempty", "status autoscaling.PodAutoscalerStatus omitempty"],
  "autoscaling.PodAutoscalerSpec": [
    "containerConcurrency int64 omitempty",
    "scaleTargetRef core.ObjectReference",
    "reachability autoscaling.ReachabilityType omitempty",
    "protocolType net.ProtocolType",
  ],
  "autoscaling.PodAutoscalerStatus": [
    "^ duck.Status",
    "serviceName string",
    "metricsServiceName string",
    "desiredScale *int32 omitempty",
    "actualScale *int32 omitempty",
  ],
  "autoscaling.Metric": [...OBJECT_HEAD, "spec autoscaling.MetricSpec omitempty", "status autoscaling.MetricStatus omitempty"],
  "autoscaling.MetricSpec": ["stableWindow time.Duration", "panicWindow time.Duration", "scrapeTarget string"],
  "autoscaling.MetricStatus": ["^ duck.Status"],

  // networking.internal.knative.dev/v1alpha1.
  "networking.Certificate": [...OBJECT_HEAD, "spec networking.CertificateSpec omitempty", "status networking.CertificateStatus omitempty"],
  "networking.CertificateSpec": ["dnsNames []string", "domain string omitempty", "secretName string"],
  "networking.CertificateStatus": [
    "^ duck.Status",
    "notAfter *meta.Time omitempty",
    "http01Challenges []networking.HTTP01Challenge omitempty",
  ],
  "networking.HTTP01Challenge": [
    "url *apis.URL omitempty",
    "serviceName string omitempty",
    "serviceNamespace string omitempty",
    "servicePort intstr.IntOrString omitempty",
  ],
  "networking.Ingress": [...OBJECT_HEAD, "spec networking.IngressSpec omitempty", "status networking.IngressStatus omitempty"],
  "networking.IngressSpec": [
    "tls []networking.IngressTLS omitempty",
    "rules []networking.IngressRule omitempty",
    "httpOption networking.HTTPOption omitempty",
  ],
  "networking.IngressTLS": ["hosts []string omitempty", "secretName string omitempty", "secretNamespace string omitempty"],
  "networking.IngressRule": [
    "hosts []string omitempty",
    "visibility networking.IngressVisibility omitempty",
    "http *networking.HTTPIngressRuleValue omitempty",
  ],
  "networking.HTTPIngressRuleValue": ["paths []networking.HTTPIngressPath"],
  "networking.HTTPIngressPath": [
    "path string omitempty",
    "rewriteHost string omitempty",
    "headers map[string]networking.HeaderMatch omitempty",
    "splits []networking.IngressBackendSplit",
    "appendHeaders map[string]string omitempty",
  ],
  "networking.HeaderMatch": ["exact string"],
  "networking.IngressBackendSplit": ["^ networking.IngressBackend", "percent int omitempty", "appendHeaders map[string]string omitempty"],
  "networking.IngressBackend": ["serviceNamespace string", "serviceName string", "servicePort intstr.IntOrString"],
  "networking.IngressStatus": [
    "^ duck.Status",
    "publicLoadBalancer *networking.LoadBalancerStatus omitempty",
    "privateLoadBalancer *networking.LoadBalancerStatus omitempty",
  ],
  "networking.LoadBalancerStatus": ["ingress []networking.LoadBalancerIngressStatus omitempty"],
  "networking.LoadBalancerIngressStatus": [
    "ip string omitempty",
    "domain string omitempty",
    "domainInternal string omitempty",
    "meshOnly bool omitempty",
  ],
  "networking.ServerlessService": [
    ...OBJECT_HEAD,
    "spec networking.ServerlessServiceSpec omitempty",
    "status networking.ServerlessServiceStatus omitempty",
  ],
  "networking.ServerlessServiceSpec": [
    "mode networking.ServerlessServiceOperationMode omitempty",
    "objectRef core.ObjectReference",
    "protocolType net.ProtocolType",
    "numActivators int32 omitempty",
  ],
  "networking.ServerlessServiceStatus": ["^ duck.Status", "serviceName string omitempty", "privateServiceName string omitempty"],
};

const knativeNamedTypes: NamedTypeTable = {
  "duck.Conditions": "[]apis.Condition",
  "apis.ConditionType": "string",
  "apis.ConditionSeverity": "string",
  "core.ConditionStatus": "string",
  "autoscaling.ReachabilityType": "string",
  "net.ProtocolType": "string",
  "networking.HTTPOption": "string",
  "networking.IngressVisibility": "string",
  "networking.ServerlessServiceOperationMode": "string",
  "time.Duration": "int64",
};

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

const registry = new GoTypeRegistry({ ...k8sStructs, ...admissionStructs, ...knativeStructs }, { ...k8sNamedTypes, ...admissionNamedTypes, ...knativeNamedTypes }, PACKAGES);

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
