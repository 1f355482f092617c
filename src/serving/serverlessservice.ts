/**
 * ServerlessService (networking.internal.knative.dev/v1alpha1): validation (knative.dev/networking
 * pkg/apis/networking/v1alpha1/serverlessservice_validation.go: the `networking.knative.dev` annotation keys, then the
 * spec); no defaults.
 */
import { also, errInvalidValue, errMissingField, type FieldError, CURRENT_FIELD } from "../apis/field-error.js";
import { goTypeOf } from "../apis/knative-types.js";
import { isGoZero } from "./field-mask.js";
import type { RequestContext } from "./context.js";
import { NETWORKING_ANNOTATIONS } from "../config/profile.js";
import { stringMap, validateNetworkingAnnotations } from "./annotations.js";
import { asObject, metadataOf, type KObject } from "./kobject.js";
import { labelKeyValidator, validateNamespacedObjectReference, validateProtocolType } from "./object-reference.js";

const SPEC_TYPE = goTypeOf("networking.ServerlessServiceSpec");

export function validateServerlessService(sks: KObject, ctx?: RequestContext): FieldError | undefined {
  return also(
    // The path is `annotations`, not `metadata.annotations`, as Knative names it.
    validateNetworkingAnnotations(stringMap(metadataOf(sks).annotations), NETWORKING_ANNOTATIONS)?.viaField("annotations"),
    validateSpec(asObject(sks.spec), ctx === undefined ? undefined : labelKeyValidator(ctx.config.profile))?.viaField("spec"),
  );
}

function validateSpec(spec: KObject | undefined, labelKey: ((v: string) => string[]) | undefined): FieldError | undefined {
  if (spec === undefined || isGoZero(spec, SPEC_TYPE, true)) return errMissingField(CURRENT_FIELD);
  let errs: FieldError | undefined;
  const mode = typeof spec.mode === "string" ? spec.mode : "";
  if (mode === "") errs = errMissingField("mode");
  else if (mode !== "Proxy" && mode !== "Serve") errs = errInvalidValue(mode, "mode");
  const activators = typeof spec.numActivators === "number" ? spec.numActivators : 0;
  if (activators < 0) errs = also(errs, errInvalidValue(activators, "numActivators"));
  return also(
    errs,
    validateNamespacedObjectReference(asObject(spec.objectRef), labelKey)?.viaField("objectRef"),
    validateProtocolType(spec.protocolType)?.viaField("protocolType"),
  );
}
