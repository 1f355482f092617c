/**
 * Service (serving.knative.dev/v1): defaults and validation (docs/knative-behavior.md#service-and-configuration), as
 * serving's
 * `service_defaults.go` and `service_validation.go` at v0.44.2.
 */
import { labelKeyValidator } from "./object-reference.js";
import { also, type FieldError } from "../apis/field-error.js";
import { validateRolloutDuration } from "./annotations.js";
import { isInStatusUpdate, type RequestContext } from "./context.js";
import { asObject, ensureObject, metadataOf, oldObjectOf, type KObject } from "./kobject.js";
import { validateObjectMetadata } from "./object-metadata.js";
import { defaultConfigurationSpec } from "./revision-defaults.js";
import { validateRevisionTemplate, verifyTemplateNameChange } from "./revision-template.js";
import { defaultServiceTraffic } from "./traffic-defaults.js";
import { validateTraffic } from "./traffic.js";
import { setUserInfo, SPEC_TYPES, validateCreatorAndModifier } from "./user-info.js";

/** (*Service).SetDefaults: template defaults (within the Service as parent), traffic, then creator/lastModifier. */
export function setServiceDefaults(svc: KObject, ctx: RequestContext): void {
  const meta = metadataOf(svc);
  const previousSpec = asObject(oldObjectOf(ctx.oldObject)?.spec);
  const spec = ensureObject(svc, "spec");
  defaultConfigurationSpec(spec, ctx, meta, previousSpec);
  defaultServiceTraffic(spec);
  setUserInfo(svc, previousSpec, spec, ctx, SPEC_TYPES.Service);
}

/**
 * (*Service).Validate: metadata and spec unless this is a status update; creator/lastModifier and BYO names on
 * UPDATE.
 */
export function validateService(svc: KObject, ctx: RequestContext): FieldError | undefined {
  const meta = metadataOf(svc);
  const spec = asObject(svc.spec) ?? {};
  let errs: FieldError | undefined;
  if (!isInStatusUpdate(ctx)) {
    errs = also(validateObjectMetadata(meta, false, ctx), validateRolloutDuration(meta))?.viaField("metadata");
    errs = also(
      errs,
      validateRevisionTemplate(asObject(spec.template), meta, ctx)?.viaField("spec.template"),
      validateTraffic(spec, { serviceContext: true, labelKey: labelKeyValidator(ctx.config.profile) })?.viaField("spec"),
    );
  }
  if (ctx.operation === "UPDATE") {
    const original = oldObjectOf(ctx.oldObject) ?? {};
    errs = also(
      errs,
      validateCreatorAndModifier(original, svc, ctx, SPEC_TYPES.Service),
      verifyTemplateNameChange(asObject(spec.template), asObject(asObject(original.spec)?.template))?.viaField("spec.template"),
    );
  }
  return errs;
}
