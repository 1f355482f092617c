/**
 * Object metadata rules shared by the Knative kinds (docs/knative-behavior.md#object-metadata): serving's
 * `ValidateObjectMetadata` (pkg/apis/serving/metadata_validation.go), i.e. knative.dev/pkg
 * apis/metadata_validation.go: ValidateObjectMetadata (names) plus the autoscaling-annotation rule for the kind.
 */
import { also, errInvalidKeyName, FieldError } from "../apis/field-error.js";
import { goStringList, nameIsDNS1035Label } from "../go/apimachinery/validation.js";
import { stringMap, stringValue } from "./annotations.js";
import { validateAutoscalingAnnotations } from "./autoscaling-annotations.js";
import type { RequestContext } from "./context.js";

/**
 * `autoscaling.GroupName`'s user-facing prefix, matched as a plain string prefix (knative.dev/serving
 * pkg/apis/serving/metadata_validation.go: ValidateHasNoAutoscalingAnnotation).
 */
const AUTOSCALING_PREFIX = "autoscaling.knative.dev";
const MISPLACED_AUTOSCALING_DETAIL = 'autoscaling annotations must be put under "spec.template.metadata.annotations" to work';

/**
 * Paths are relative to `metadata` (the caller adds it). With `allowAutoscalingAnnotations` (Revision,
 * PodAutoscaler, Metric) the autoscaling annotations are validated
 * (docs/knative-behavior.md#autoscaling-annotations); without it (Service,
 * Configuration, Route) any `autoscaling.knative.dev*` key is an error.
 */
export function validateObjectMetadata(
  meta: Record<string, unknown> | undefined,
  allowAutoscalingAnnotations: boolean,
  ctx: RequestContext,
): FieldError | undefined {
  const errs = validateNames(meta);
  const annotations = stringMap(meta?.annotations);
  const annotationErrs = allowAutoscalingAnnotations
    ? validateAutoscalingAnnotations(annotations, ctx)
    : validateHasNoAutoscalingAnnotation(annotations);
  return also(errs, annotationErrs?.viaField("annotations"));
}

/**
 * knative.dev/pkg apis/metadata_validation.go: ValidateObjectMetadata: only the first of its three errors is
 * returned.
 */
function validateNames(meta: Record<string, unknown> | undefined): FieldError | undefined {
  const name = stringValue(meta?.name);
  const generateName = stringValue(meta?.generateName);
  if (generateName !== "") {
    const msgs = nameIsDNS1035Label(generateName, true);
    if (msgs.length > 0) return pathError(`not a DNS 1035 label prefix: ${goStringList(msgs)}`, "generateName");
  }
  if (name !== "") {
    const msgs = nameIsDNS1035Label(name, false);
    if (msgs.length > 0) return pathError(`not a DNS 1035 label: ${goStringList(msgs)}`, "name");
  }
  if (name === "" && generateName === "") return pathError("name or generateName is required", "name");
  return undefined;
}

/** serving's `ValidateHasNoAutoscalingAnnotation`: one error per offending key, at the annotations map. */
function validateHasNoAutoscalingAnnotation(annotations: Record<string, string> | undefined): FieldError | undefined {
  if (annotations === undefined) return undefined;
  let errs: FieldError | undefined;
  for (const key in annotations) {
    if (Object.hasOwn(annotations, key) && key.startsWith(AUTOSCALING_PREFIX)) {
      errs = also(errs, errInvalidKeyName(key, "", MISPLACED_AUTOSCALING_DETAIL));
    }
  }
  return errs;
}

function pathError(message: string, path: string): FieldError {
  return new FieldError({ message, paths: [path] });
}
