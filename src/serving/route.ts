/**
 * Route (serving.knative.dev/v1): defaults and validation (docs/knative-behavior.md#route), as serving's
 * `route_defaults.go` and `route_validation.go` at v0.44.2.
 */
import { labelKeyValidator } from "./object-reference.js";
import { also, type FieldError } from "../apis/field-error.js";
import { validateRolloutDuration } from "./annotations.js";
import type { RequestContext } from "./context.js";
import { asObject, ensureObject, hasOwnerReferences, metadataOf, oldObjectOf, type KObject } from "./kobject.js";
import { validateObjectMetadata } from "./object-metadata.js";
import { validateOwnerLabel } from "./owner-labels.js";
import { defaultRouteTraffic } from "./traffic-defaults.js";
import { validateTraffic } from "./traffic.js";
import { setUserInfo, SPEC_TYPES, validateCreatorAndModifier } from "./user-info.js";

const SERVICE_LABEL = "serving.knative.dev/service";

/** (*Route).SetDefaults: per-target traffic defaults; creator/lastModifier for a Route no Service owns. */
export function setRouteDefaults(route: KObject, ctx: RequestContext): void {
  const spec = ensureObject(route, "spec");
  defaultRouteTraffic(spec);
  if (!hasOwnerReferences(route)) {
    const previousSpec = ctx.operation === "UPDATE" ? asObject(oldObjectOf(ctx.oldObject)?.spec) : undefined;
    setUserInfo(route, previousSpec, spec, ctx, SPEC_TYPES.Route);
  }
}

/** (*Route).Validate: fully validated, status updates included. */
export function validateRoute(route: KObject, ctx: RequestContext): FieldError | undefined {
  const meta = metadataOf(route);
  let errs = also(
    validateObjectMetadata(meta, false, ctx),
    validateOwnerLabel(meta, SERVICE_LABEL, "Service")?.viaField("labels"),
    validateRolloutDuration(meta),
  )?.viaField("metadata");
  errs = also(errs, validateTraffic(asObject(route.spec) ?? {}, { serviceContext: false, labelKey: labelKeyValidator(ctx.config.profile) })?.viaField("spec"));
  if (ctx.operation === "UPDATE" && !hasOwnerReferences(route)) {
    errs = also(errs, validateCreatorAndModifier(oldObjectOf(ctx.oldObject) ?? {}, route, ctx, SPEC_TYPES.Route));
  }
  return errs;
}
