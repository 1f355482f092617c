import { errMissingField, type FieldError } from "../apis/field-error.js";
import { asObject, type KObject } from "./kobject.js";

/**
 * serving's `verifyLabelOwnerRef` (pkg/apis/serving/v1/configuration_validation.go), used by the Configuration,
 * Revision and Route label checks: a label naming the owner (e.g.
 * `serving.knative.dev/service: hello`) needs an ownerReference of that kind and name. The path is the
 * label key, relative to `metadata.labels`.
 */
export function validateOwnerLabel(meta: KObject, label: string, ownerKind: string): FieldError | undefined {
  const labels = asObject(meta.labels);
  if (labels === undefined || !Object.hasOwn(labels, label)) return undefined;
  const value = labels[label];
  const refs = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  for (const ref of refs) {
    const r = asObject(ref);
    if (r?.kind === ownerKind && r.name === value) return undefined;
  }
  return errMissingField(label);
}
