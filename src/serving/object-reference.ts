/**
 * `ValidateNamespacedObjectReference` (knative.dev/serving pkg/apis/serving/k8s_validation.go and
 * knative.dev/networking pkg/apis/networking/k8s_validation.go): PodAutoscaler `scaleTargetRef` and ServerlessService
 * `objectRef`; `ProtocolType.Validate` (knative.dev/networking pkg/apis/networking/generic_types.go).
 */
import { also, errInvalidValue, errMissingField, type FieldError, CURRENT_FIELD } from "../apis/field-error.js";
import type { KnativeProfile } from "../config/profile.js";
import { isCIdentifier, isDNS1123Label, isLabelKey, isQualifiedName } from "../go/apimachinery/validation.js";
import { checkDisallowedFields, defineMask } from "./field-mask.js";
import type { KObject } from "./kobject.js";

const OBJECT_REFERENCE_MASK = defineMask("core.ObjectReference", ["apiVersion", "kind", "name"]);

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function checked(value: string, field: string, validate: (v: string) => string[]): FieldError | undefined {
  if (value === "") return errMissingField(field);
  const msgs = validate(value);
  return msgs.length === 0 ? undefined : errInvalidValue(msgs.join(", "), field);
}

/** Paths relative to the reference. */
export function validateNamespacedObjectReference(ref: KObject | undefined, labelKey: (v: string) => string[] = isQualifiedName): FieldError | undefined {
  const r = ref ?? {};
  return also(
    checkDisallowedFields(r, OBJECT_REFERENCE_MASK),
    checked(str(r.apiVersion), "apiVersion", labelKey),
    checked(str(r.kind), "kind", isCIdentifier),
    checked(str(r.name), "name", isDNS1123Label),
  );
}

/** The label-key check of the release: validation.IsQualifiedName, or from serving v0.49.0 content.IsLabelKey's wording. */
export function labelKeyValidator(profile: KnativeProfile): (v: string) => string[] {
  return profile.labelKeyWording ? isLabelKey : isQualifiedName;
}

/** `net.ProtocolType.Validate`: `http1` or `h2c`; path relative to the field. */
export function validateProtocolType(p: unknown): FieldError | undefined {
  const v = str(p);
  if (v === "http1" || v === "h2c") return undefined;
  return v === "" ? errMissingField(CURRENT_FIELD) : errInvalidValue(v, CURRENT_FIELD);
}
