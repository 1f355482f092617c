/**
 * PodAutoscaler (autoscaling.internal.knative.dev/v1alpha1): defaults and validation
 * (docs/knative-behavior.md#internal-kinds), as serving's pkg/apis/autoscaling/v1alpha1 `pa_defaults.go` and
 * `pa_validation.go` at v0.44.2.
 */
import { also, errMissingField, type FieldError, CURRENT_FIELD } from "../apis/field-error.js";
import { goTypeOf } from "../apis/knative-types.js";
import type { RequestContext } from "./context.js";
import { isGoZero, isInt64 } from "./field-mask.js";
import { asObject, ensureObject, metadataOf, type KObject } from "./kobject.js";
import { validateObjectMetadata } from "./object-metadata.js";
import { labelKeyValidator, validateNamespacedObjectReference, validateProtocolType } from "./object-reference.js";
import { validateContainerConcurrency } from "./podspec.js";

const CLASS_ANNOTATION = "autoscaling.knative.dev/class";
const METRIC_ANNOTATION = "autoscaling.knative.dev/metric";
const SPEC_TYPE = goTypeOf("autoscaling.PodAutoscalerSpec");

/** The metric each class uses when none is given. */
function defaultMetric(cls: string): string {
  if (cls === "kpa.autoscaling.knative.dev") return "concurrency";
  if (cls === "hpa.autoscaling.knative.dev") return "cpu";
  return "";
}

/** (*PodAutoscaler).SetDefaults: class from config-autoscaler, then the class's default metric (also on UPDATE). */
export function setPodAutoscalerDefaults(pa: KObject, ctx: RequestContext): void {
  const annotations = ensureObject(ensureObject(pa, "metadata"), "annotations");
  if (!Object.hasOwn(annotations, CLASS_ANNOTATION)) annotations[CLASS_ANNOTATION] = ctx.config.admission.autoscaler.podAutoscalerClass;
  if (!Object.hasOwn(annotations, METRIC_ANNOTATION)) {
    const cls = annotations[CLASS_ANNOTATION];
    annotations[METRIC_ANNOTATION] = defaultMetric(typeof cls === "string" ? cls : "");
  }
}

/** (*PodAutoscaler).Validate: metadata with autoscaling annotations, then the spec. */
export function validatePodAutoscaler(pa: KObject, ctx: RequestContext): FieldError | undefined {
  return also(validateObjectMetadata(metadataOf(pa), true, ctx)?.viaField("metadata"), validateSpec(asObject(pa.spec), ctx)?.viaField("spec"));
}

function validateSpec(spec: KObject | undefined, ctx: RequestContext): FieldError | undefined {
  if (spec === undefined || isGoZero(spec, SPEC_TYPE, true)) return errMissingField(CURRENT_FIELD);
  const cc = isInt64(spec.containerConcurrency) ? spec.containerConcurrency : 0;
  return also(
    validateNamespacedObjectReference(asObject(spec.scaleTargetRef), labelKeyValidator(ctx.config.profile))?.viaField("scaleTargetRef"),
    validateContainerConcurrency(cc, ctx.config.admission.defaults)?.viaField("containerConcurrency"),
    validateProtocolType(spec.protocolType)?.viaField("protocolType"),
  );
}
