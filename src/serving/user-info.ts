/**
 * The creator / lastModifier annotations (docs/knative-behavior.md#creator-and-lastmodifier): set while defaulting
 * (knative.dev/serving pkg/apis/serving/metadata_validation.go: SetUserInfo) and checked on UPDATE validation
 * (knative.dev/pkg apis/metadata_validation.go: ValidateCreatorAndModifier). Which kinds take part
 * (Service and DomainMapping always, Configuration and Route only without ownerReferences) is the
 * caller's decision.
 */
import { errInvalidValue, FieldError, also } from "../apis/field-error.js";
import type { GoType } from "../go/encoding/json/index.js";
import { goTypeOf } from "../apis/knative-types.js";
import type { RequestContext } from "./context.js";
import { semanticEqual } from "../duck/semantic-equal.js";
import { isJsonObject, type JsonObject } from "../go/encoding/json/json-value.js";

export const CREATOR_ANNOTATION = "serving.knative.dev/creator";
export const UPDATER_ANNOTATION = "serving.knative.dev/lastModifier";


/**
 * SetUserInfo on the whole object `obj`. CREATE stamps both annotations with the request's username
 * (overwriting what the client sent); UPDATE stamps lastModifier only when the defaulted spec differs
 * semantically from the baseline's; the baseline pass (operation "", no user) changes nothing. `specType` is the
 * spec's Go type: the one of the kind the request names (SPEC_TYPES), whatever the object's own `kind` says, as Knative
 * decodes `request.object` into the type of `request.kind`.
 */
export function setUserInfo(obj: JsonObject, oldSpec: unknown, newSpec: unknown, ctx: RequestContext, specType: GoType): void {
  const user = ctx.userInfo;
  if (user === undefined || ctx.operation === "") return;
  if (ctx.operation === "UPDATE") {
    if (semanticEqual(oldSpec, newSpec, specType)) return;
    annotationsOf(obj)[UPDATER_ANNOTATION] = user.username;
    return;
  }
  const annotations = annotationsOf(obj);
  annotations[CREATOR_ANNOTATION] = user.username;
  annotations[UPDATER_ANNOTATION] = user.username;
}

/**
 * ValidateCreatorAndModifier on UPDATE, with paths from the object root
 * (`metadata.annotations.serving.knative.dev/…`): the creator may never change, and lastModifier may
 * change only together with the spec. `oldObj` is the old object as stored (not defaulted); `specType` as for
 * setUserInfo.
 */
export function validateCreatorAndModifier(oldObj: unknown, newObj: unknown, ctx: RequestContext, specType: GoType): FieldError | undefined {
  if (ctx.operation !== "UPDATE") return undefined;
  const oldAnnotations = readAnnotations(oldObj);
  const newAnnotations = readAnnotations(newObj);
  let errs: FieldError | undefined;
  if (annotation(oldAnnotations, CREATOR_ANNOTATION) !== annotation(newAnnotations, CREATOR_ANNOTATION)) {
    errs = new FieldError({ message: "annotation value is immutable", paths: [CREATOR_ANNOTATION] });
  }
  const newModifier = annotation(newAnnotations, UPDATER_ANNOTATION);
  if (annotation(oldAnnotations, UPDATER_ANNOTATION) !== newModifier) {
    if (semanticEqual(specOf(oldObj), specOf(newObj), specType)) errs = also(errs, errInvalidValue(newModifier, UPDATER_ANNOTATION));
  }
  return errs?.viaField("metadata.annotations");
}


function specOf(obj: unknown): unknown {
  return isJsonObject(obj) ? obj["spec"] : undefined;
}

function readAnnotations(obj: unknown): JsonObject | undefined {
  const metadata = isJsonObject(obj) ? obj["metadata"] : undefined;
  const annotations = isJsonObject(metadata) ? metadata["annotations"] : undefined;
  return isJsonObject(annotations) ? annotations : undefined;
}

/** A missing key reads as "", as a Go map lookup does. */
function annotation(annotations: JsonObject | undefined, key: string): string {
  const v = annotations?.[key];
  return typeof v === "string" ? v : "";
}

/** metadata.annotations, created when absent (Go allocates the map before writing). */
function annotationsOf(obj: JsonObject): JsonObject {
  let metadata = obj["metadata"];
  if (!isJsonObject(metadata)) {
    metadata = {};
    obj["metadata"] = metadata;
  }
  const meta = metadata as JsonObject;
  let annotations = meta["annotations"];
  if (!isJsonObject(annotations)) {
    annotations = {};
    meta["annotations"] = annotations;
  }
  return annotations as JsonObject;
}

/** The spec types of the kinds that take part (knative.dev/serving pkg/apis/serving/v1, v1beta1). */
export const SPEC_TYPES = {
  Service: goTypeOf("serving.ServiceSpec"),
  Configuration: goTypeOf("serving.ConfigurationSpec"),
  Route: goTypeOf("serving.RouteSpec"),
  DomainMapping: goTypeOf("servingv1beta1.DomainMappingSpec"),
} as const;
