/**
 * Metric (autoscaling.internal.knative.dev/v1alpha1): validation (knative.dev/serving
 * pkg/apis/autoscaling/v1alpha1/metric_validation.go: (*Metric).Validate); no defaults
 * (docs/knative-behavior.md#internal-kinds-defaults).
 */
import { also, errMissingField, type FieldError, CURRENT_FIELD } from "../apis/field-error.js";
import { goTypeOf } from "../apis/knative-types.js";
import type { RequestContext } from "./context.js";
import { isGoZero } from "./field-mask.js";
import { asObject, metadataOf, type KObject } from "./kobject.js";
import { validateObjectMetadata } from "./object-metadata.js";

const SPEC_TYPE = goTypeOf("autoscaling.MetricSpec");

export function validateMetric(m: KObject, ctx: RequestContext): FieldError | undefined {
  const spec = asObject(m.spec);
  const specErr = spec === undefined || isGoZero(spec, SPEC_TYPE, true) ? errMissingField(CURRENT_FIELD).viaField("spec") : undefined;
  return also(validateObjectMetadata(metadataOf(m), true, ctx)?.viaField("metadata"), specErr);
}
