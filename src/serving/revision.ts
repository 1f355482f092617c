/**
 * Revision (serving.knative.dev/v1): defaults and validation (docs/knative-behavior.md#revision), as serving's
 * `revision_defaults.go` and `revision_validation.go` at v0.44.2.
 */
import { also, type FieldError } from "../apis/field-error.js";
import type { RequestContext } from "./context.js";
import { asObject, ensureObject, metadataOf, oldObjectOf, type KObject } from "./kobject.js";
import { validateObjectMetadata } from "./object-metadata.js";
import { validateOwnerLabel } from "./owner-labels.js";
import { validateRevisionSpec } from "./podspec.js";
import { defaultRevisionSpec } from "./revision-defaults.js";
import { verifyRevisionSpecImmutable } from "./revision-template.js";

const CONFIGURATION_LABEL = "serving.knative.dev/configuration";

/**
 * (*Revision).SetDefaults: the spec is immutable, so nothing is defaulted on UPDATE; no parent, so name templates see
 * no name.
 */
export function setRevisionDefaults(rev: KObject, ctx: RequestContext): void {
  if (ctx.operation === "UPDATE") return;
  defaultRevisionSpec(ensureObject(rev, "spec"), ctx, undefined);
}

/** (*Revision).Validate: metadata with autoscaling annotations; on UPDATE only the immutability of `spec` counts. */
export function validateRevision(rev: KObject, ctx: RequestContext): FieldError | undefined {
  const meta = metadataOf(rev);
  const errs = also(validateObjectMetadata(meta, true, ctx), validateOwnerLabel(meta, CONFIGURATION_LABEL, "Configuration")?.viaField("labels"))?.viaField(
    "metadata",
  );
  if (ctx.operation === "UPDATE") {
    const immutable = verifyRevisionSpecImmutable(rev.spec, oldObjectOf(ctx.oldObject)?.spec);
    return immutable ?? errs;
  }
  return also(errs, validateRevisionSpec(asObject(rev.spec) ?? {}, ctx)?.viaField("spec"));
}
