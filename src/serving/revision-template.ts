/**
 * `RevisionTemplateSpec.Validate` for Service and Configuration `spec.template` (knative.dev/serving
 * pkg/apis/serving/v1/revision_validation.go; docs/knative-behavior.md#revision-templates; v0.44.2: no
 * networking-annotation allow-list), and the two update rules built on kmp.ShortDiff: BYO revision names
 * (`(*RevisionTemplateSpec).VerifyNameChange`) and Revision spec immutability (`(*Revision).Validate`).
 */
import { also, errDisallowedFields, errInvalidValue, errOutOfBoundsValue, FieldError } from "../apis/field-error.js";
import { goFloat64 } from "../go/fmt/print.js";
import { goQuote } from "../go/strconv/quote.js";
import { parseFloat } from "../go/strconv/strconv.js";
import { goStringList, nameIsDNS1035Label } from "../go/apimachinery/validation.js";
import { parseQuantity } from "../go/apimachinery/quantity.js";
import { firstPresentKey, stringMap, stringValue, validateNetworkingAnnotations, validateProgressDeadline } from "./annotations.js";
import { validateAutoscalingAnnotations } from "./autoscaling-annotations.js";
import type { RequestContext } from "./context.js";
import { shortDiff } from "./kmp-diff.js";
import { validateRevisionSpec } from "./podspec.js";
import { asJsonObject } from "../go/encoding/json/json-value.js";

const QUEUE_SIDECAR_PREFIX = "queue.sidecar.serving.knative.dev/";
const RESOURCE_PERCENTAGE = [
  "queue.sidecar.serving.knative.dev/resource-percentage",
  "queue.sidecar.serving.knative.dev/resourcePercentage",
] as const;
const RESOURCE_QUANTITY_KEYS = [
  "queue.sidecar.serving.knative.dev/cpu-resource-request",
  "queue.sidecar.serving.knative.dev/cpu-resource-limit",
  "queue.sidecar.serving.knative.dev/memory-resource-request",
  "queue.sidecar.serving.knative.dev/memory-resource-limit",
  "queue.sidecar.serving.knative.dev/ephemeral-storage-resource-request",
  "queue.sidecar.serving.knative.dev/ephemeral-storage-resource-limit",
] as const;
const RESOURCE_PERCENTAGE_DEPRECATED =
  "Queue proxy resource percentage annotation is deprecated. Please use the available annotations to explicitly set resource values per service";

const EMPTY_SPEC: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * `RevisionTemplateSpec.Validate`; paths are relative to the template (the caller adds `spec.template`).
 * `parentMeta` is the Service's or Configuration's metadata (Knative's `apis.ParentMeta`).
 */
export function validateRevisionTemplate(
  template: Record<string, unknown> | undefined,
  parentMeta: Record<string, unknown> | undefined,
  ctx: RequestContext,
): FieldError | undefined {
  const meta = asJsonObject(template?.metadata);
  const annotations = stringMap(meta?.annotations);
  const spec = asJsonObject(template?.spec) ?? (EMPTY_SPEC as Record<string, unknown>);
  return also(
    validateRevisionSpec(spec, ctx)?.viaField("spec"),
    validateAutoscalingAnnotations(annotations, ctx)?.viaField("metadata.annotations"),
    validateRevisionName(stringValue(meta?.name), stringValue(meta?.generateName), parentMeta),
    validateQueueSidecarAnnotations(annotations)?.viaField("metadata.annotations"),
    validateProgressDeadline(annotations)?.viaField("metadata.annotations"),
    validateNetworkingAnnotations(annotations, ctx.config.profile.templateNetworkingAnnotations)?.viaField("metadata.annotations"),
  );
}

/** BYO revision names: `name` and `generateName` must be DNS-1035, and `name` prefixed by the parent's. */
function validateRevisionName(name: string, generateName: string, parentMeta: Record<string, unknown> | undefined): FieldError | undefined {
  if (generateName !== "") {
    const msgs = nameIsDNS1035Label(generateName, true);
    if (msgs.length > 0) return errInvalidValue("not a DNS 1035 label prefix: " + goStringList(msgs), "metadata.generateName");
  }
  if (name === "") return undefined;
  const msgs = nameIsDNS1035Label(name, false);
  if (msgs.length > 0) return errInvalidValue("not a DNS 1035 label: " + goStringList(msgs), "metadata.name");
  const parentName = stringValue(parentMeta?.name);
  // Bringing your own name is not possible while the parent's own name is still to be generated.
  if (parentName === "" && stringValue(parentMeta?.generateName) !== "") return errDisallowedFields("metadata.name");
  const prefix = parentName + "-";
  if (!name.startsWith(prefix)) return errInvalidValue(`${goQuote(name)} must have prefix ${goQuote(prefix)}`, "metadata.name");
  return undefined;
}

/**
 * Queue-proxy resource annotations: the deprecated percentage (always a warning, plus range errors) and
 * the resource quantities. Paths are bracketed keys (`ViaKey`, docs/knative-behavior.md#paths).
 */
function validateQueueSidecarAnnotations(annotations: Record<string, string> | undefined): FieldError | undefined {
  if (annotations === undefined || !hasKeyWithPrefix(annotations, QUEUE_SIDECAR_PREFIX)) return undefined;
  let errs: FieldError | undefined;
  const k = firstPresentKey(annotations, RESOURCE_PERCENTAGE);
  if (k !== undefined) {
    errs = new FieldError({ message: RESOURCE_PERCENTAGE_DEPRECATED, level: "Warning" });
    const v = annotations[k] as string;
    const r = parseFloat(v);
    if (!r.ok) errs = also(errs, errInvalidValue(v, "").viaKey(k));
    else if (r.value < 0.1 || r.value > 100) errs = also(errs, errOutOfBoundsValue(goFloat64(r.value), 0.1, 100, "").viaKey(k));
  }
  for (const key of RESOURCE_QUANTITY_KEYS) {
    if (!Object.hasOwn(annotations, key)) continue;
    const v = annotations[key] as string;
    if (!parseQuantity(v).ok) errs = also(errs, errInvalidValue(v, "").viaKey(key));
  }
  return errs;
}

/**
 * `VerifyNameChange`: a template that keeps its (non-empty) BYO name must not change at all. Paths are
 * relative to the template (`metadata.name`); the caller adds `spec.template`.
 */
export function verifyTemplateNameChange(
  newTemplate: Record<string, unknown> | undefined,
  oldTemplate: Record<string, unknown> | undefined,
): FieldError | undefined {
  const name = stringValue(asJsonObject(newTemplate?.metadata)?.name);
  if (name === "" || name !== stringValue(asJsonObject(oldTemplate?.metadata)?.name)) return undefined;
  const diff = shortDiff("*v1.RevisionTemplateSpec", oldTemplate ?? {}, newTemplate ?? {});
  if (diff === "") return undefined;
  return new FieldError({ message: "Saw the following changes without a name change (-old +new)", paths: ["metadata.name"], details: diff });
}

/** Revision updates: `spec` is immutable. The path is `spec`, relative to the Revision. */
export function verifyRevisionSpecImmutable(newSpec: unknown, oldSpec: unknown): FieldError | undefined {
  const diff = shortDiff("v1.RevisionSpec", oldSpec, newSpec);
  if (diff === "") return undefined;
  return new FieldError({ message: "Immutable fields changed (-old +new)", paths: ["spec"], details: diff });
}

function hasKeyWithPrefix(m: Record<string, string>, prefix: string): boolean {
  for (const k in m) if (Object.hasOwn(m, k) && k.startsWith(prefix)) return true;
  return false;
}

