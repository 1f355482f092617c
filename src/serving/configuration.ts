/**
 * Configuration (serving.knative.dev/v1): defaults and validation
 * (docs/knative-behavior.md#service-and-configuration), as serving's
 * `configuration_defaults.go` and `configuration_validation.go` at v0.44.2.
 */
import { also, type FieldError } from "../apis/field-error.js";
import { isInStatusUpdate, type RequestContext } from "./context.js";
import { asObject, ensureObject, hasOwnerReferences, metadataOf, oldObjectOf, type KObject } from "./kobject.js";
import { validateObjectMetadata } from "./object-metadata.js";
import { validateOwnerLabel } from "./owner-labels.js";
import { defaultConfigurationSpec } from "./revision-defaults.js";
import { validateRevisionTemplate, verifyTemplateNameChange } from "./revision-template.js";
import { setUserInfo, SPEC_TYPES, validateCreatorAndModifier } from "./user-info.js";

const SERVICE_LABEL = "serving.knative.dev/service";

/** (*Configuration).SetDefaults: template defaults; creator/lastModifier only for a Configuration no Service owns. */
export function setConfigurationDefaults(cfg: KObject, ctx: RequestContext): void {
  const meta = metadataOf(cfg);
  const previousSpec = asObject(oldObjectOf(ctx.oldObject)?.spec);
  const spec = ensureObject(cfg, "spec");
  defaultConfigurationSpec(spec, ctx, meta, previousSpec);
  if (!hasOwnerReferences(cfg)) setUserInfo(cfg, previousSpec, spec, ctx, SPEC_TYPES.Configuration);
}

/** (*Configuration).Validate. */
export function validateConfiguration(cfg: KObject, ctx: RequestContext): FieldError | undefined {
  const meta = metadataOf(cfg);
  const spec = asObject(cfg.spec) ?? {};
  let errs: FieldError | undefined;
  if (!isInStatusUpdate(ctx)) {
    errs = also(validateObjectMetadata(meta, false, ctx), validateOwnerLabel(meta, SERVICE_LABEL, "Service")?.viaField("labels"))?.viaField("metadata");
    errs = also(errs, validateRevisionTemplate(asObject(spec.template), meta, ctx)?.viaField("spec.template"));
  }
  if (ctx.operation === "UPDATE") {
    const original = oldObjectOf(ctx.oldObject) ?? {};
    if (!hasOwnerReferences(cfg)) errs = also(errs, validateCreatorAndModifier(original, cfg, ctx, SPEC_TYPES.Configuration));
    errs = also(errs, verifyTemplateNameChange(asObject(spec.template), asObject(asObject(original.spec)?.template))?.viaField("spec.template"));
  }
  return errs;
}
