/**
 * Checks a manifest object against the Kubernetes OpenAPI shapes (v1.34) as @kubernetes/client-node publishes
 * them (its models are generated from the API server's OpenAPI document): no unknown fields, the right JSON type
 * and integer format for every value. The OpenAPI `required` lists and enums, which the generated models do not
 * keep, come from the small table below (from the API reference of the fields these manifests use).
 */
import * as k8s from "@kubernetes/client-node";

interface Attribute {
  readonly baseName: string;
  readonly type: string;
  readonly format: string;
}

interface Model {
  getAttributeTypeMap(): readonly Attribute[];
}

/** apiVersion/kind → model type name. */
const KINDS: Readonly<Record<string, string>> = {
  "v1/Namespace": "V1Namespace",
  "v1/ServiceAccount": "V1ServiceAccount",
  "v1/Secret": "V1Secret",
  "v1/Service": "V1Service",
  "v1/ConfigMap": "V1ConfigMap",
  "apps/v1/Deployment": "V1Deployment",
  "policy/v1/PodDisruptionBudget": "V1PodDisruptionBudget",
  "autoscaling/v2/HorizontalPodAutoscaler": "V2HorizontalPodAutoscaler",
  "rbac.authorization.k8s.io/v1/Role": "V1Role",
  "rbac.authorization.k8s.io/v1/ClusterRole": "V1ClusterRole",
  "rbac.authorization.k8s.io/v1/RoleBinding": "V1RoleBinding",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "V1ClusterRoleBinding",
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration": "V1MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": "V1ValidatingWebhookConfiguration",
};

/** OpenAPI `required` lists (a top-level object also needs metadata.name: see manifestProblems). */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  V1DeploymentSpec: ["selector", "template"],
  V1PodSpec: ["containers"],
  V1Container: ["name"],
  V1ContainerPort: ["containerPort"],
  V1EnvVar: ["name"],
  V1ObjectFieldSelector: ["fieldPath"],
  V1HTTPGetAction: ["port"],
  V1Volume: ["name"],
  V1VolumeMount: ["name", "mountPath"],
  V1SeccompProfile: ["type"],
  V1ServicePort: ["port"],
  V1LabelSelectorRequirement: ["key", "operator"],
  V1TopologySpreadConstraint: ["maxSkew", "topologyKey", "whenUnsatisfiable"],
  V1WeightedPodAffinityTerm: ["weight", "podAffinityTerm"],
  V1PodAffinityTerm: ["topologyKey"],
  V1PolicyRule: ["verbs"],
  V1RoleRef: ["apiGroup", "kind", "name"],
  V1RoleBinding: ["roleRef"],
  V1ClusterRoleBinding: ["roleRef"],
  RbacV1Subject: ["kind", "name"],
  V1MutatingWebhook: ["name", "clientConfig", "sideEffects", "admissionReviewVersions"],
  V1ValidatingWebhook: ["name", "clientConfig", "sideEffects", "admissionReviewVersions"],
  AdmissionregistrationV1ServiceReference: ["namespace", "name"],
  V2HorizontalPodAutoscalerSpec: ["scaleTargetRef", "maxReplicas"],
  V2CrossVersionObjectReference: ["kind", "name"],
  V2MetricSpec: ["type"],
  V2ResourceMetricSource: ["name", "target"],
  V2MetricTarget: ["type"],
};

/** Enumerations the API server checks (`<model>.<field>` → allowed values). */
const ENUMS: Readonly<Record<string, readonly string[]>> = {
  "V1MutatingWebhook.failurePolicy": ["Fail", "Ignore"],
  "V1ValidatingWebhook.failurePolicy": ["Fail", "Ignore"],
  "V1MutatingWebhook.sideEffects": ["None", "NoneOnDryRun", "Some", "Unknown"],
  "V1ValidatingWebhook.sideEffects": ["None", "NoneOnDryRun", "Some", "Unknown"],
  "V1MutatingWebhook.matchPolicy": ["Exact", "Equivalent"],
  "V1ValidatingWebhook.matchPolicy": ["Exact", "Equivalent"],
  "V1MutatingWebhook.reinvocationPolicy": ["Never", "IfNeeded"],
  "V1RuleWithOperations.scope": ["*", "Cluster", "Namespaced"],
  "V1LabelSelectorRequirement.operator": ["In", "NotIn", "Exists", "DoesNotExist"],
  "V1TopologySpreadConstraint.whenUnsatisfiable": ["DoNotSchedule", "ScheduleAnyway"],
  "V1HTTPGetAction.scheme": ["HTTP", "HTTPS"],
  "V1DeploymentStrategy.type": ["Recreate", "RollingUpdate"],
  "V1SeccompProfile.type": ["Localhost", "RuntimeDefault", "Unconfined"],
  "V1PodDisruptionBudgetSpec.unhealthyPodEvictionPolicy": ["IfHealthyBudget", "AlwaysAllow"],
  "V2MetricSpec.type": ["ContainerResource", "External", "Object", "Pods", "Resource"],
  "V2MetricTarget.type": ["AverageValue", "Utilization", "Value"],
  "V1ServicePort.protocol": ["TCP", "UDP", "SCTP"],
};

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

function modelOf(type: string): Model | undefined {
  const m = (k8s as unknown as Record<string, unknown>)[type];
  const model = m as Partial<Model> | undefined;
  return typeof m === "function" && typeof model?.getAttributeTypeMap === "function" ? (model as Model) : undefined;
}

function jsonKind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Problems with `value` as an instance of `type`, each as `<path>: <what>`. */
export function shapeProblems(value: unknown, type: string, path: string, format = ""): string[] {
  const out: string[] = [];
  check(value, type, format, path, out);
  return out;
}

function check(value: unknown, type: string, format: string, path: string, out: string[]): void {
  if (value === null || value === undefined) return; // YAML null: the field is unset
  const array = ARRAY.exec(type);
  const map = MAP.exec(type);
  if (array !== null) {
    if (!Array.isArray(value)) out.push(`${path}: want an array, got ${jsonKind(value)}`);
    else value.forEach((v, i) => check(v, array[1] ?? "", "", `${path}[${i}]`, out));
    return;
  }
  if (map !== null) {
    if (jsonKind(value) !== "object") out.push(`${path}: want an object, got ${jsonKind(value)}`);
    else for (const [k, v] of Object.entries(value as Record<string, unknown>)) check(v, map[1] ?? "", "", `${path}.${k}`, out);
    return;
  }
  switch (type) {
    case "string":
    case "Date":
      if (typeof value !== "string") out.push(`${path}: want a string, got ${jsonKind(value)}`);
      return;
    case "boolean":
      if (typeof value !== "boolean") out.push(`${path}: want a boolean, got ${jsonKind(value)}`);
      return;
    case "number":
      if (typeof value !== "number") out.push(`${path}: want a number, got ${jsonKind(value)}`);
      else if ((format === "int32" || format === "int64") && !Number.isInteger(value)) out.push(`${path}: want an integer, got ${value}`);
      else if (format === "int32" && Math.abs(value) > 2 ** 31) out.push(`${path}: out of int32 range: ${value}`);
      return;
    case "IntOrString":
      if (!(typeof value === "string" || Number.isInteger(value))) out.push(`${path}: want an integer or a string, got ${jsonKind(value)}`);
      return;
    case "any":
    case "object":
      return;
  }
  const model = modelOf(type);
  if (model === undefined) {
    out.push(`${path}: no model for type ${type}`);
    return;
  }
  if (jsonKind(value) !== "object") {
    out.push(`${path}: want an object (${type}), got ${jsonKind(value)}`);
    return;
  }
  const obj = value as Record<string, unknown>;
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a]));
  for (const [key, v] of Object.entries(obj)) {
    const a = attributes.get(key);
    if (a === undefined) {
      out.push(`${path}.${key}: unknown field (not in ${type})`);
      continue;
    }
    check(v, a.type, a.format, `${path}.${key}`, out);
    const allowed = ENUMS[`${type}.${key}`];
    if (allowed !== undefined && typeof v === "string" && !allowed.includes(v)) out.push(`${path}.${key}: "${v}" is not one of ${allowed.join(", ")}`);
  }
  for (const field of REQUIRED[type] ?? []) if (obj[field] === undefined || obj[field] === null) out.push(`${path}.${field}: required (${type})`);
}

/** The model type of a manifest object, from its apiVersion and kind. */
export function modelTypeOf(obj: Record<string, unknown>): string | undefined {
  return KINDS[`${String(obj.apiVersion)}/${String(obj.kind)}`];
}

/** Every problem of a whole manifest object (top level included). */
export function manifestProblems(obj: Record<string, unknown>, where: string): string[] {
  const type = modelTypeOf(obj);
  if (type === undefined) return [`${where}: no schema for ${String(obj.apiVersion)} ${String(obj.kind)}`];
  const problems = shapeProblems(obj, type, where);
  // kubectl apply needs a name (generateName is for create only).
  const name = (obj.metadata as { name?: unknown } | undefined)?.name;
  if (typeof name !== "string" || name === "") problems.push(`${where}.metadata.name: required to apply`);
  return problems;
}
