/** Certificate (networking.internal.knative.dev/v1alpha1): validation (spec §3.13); no defaults. */
import { also, errInvalidArrayValue, errInvalidValue, errMissingField, type FieldError } from "../apis/field-error.js";
import { asObject, type KObject } from "./kobject.js";

export function validateCertificate(cert: KObject): FieldError | undefined {
  return validateSpec(asObject(cert.spec) ?? {})?.viaField("spec");
}

function validateSpec(spec: KObject): FieldError | undefined {
  let errs: FieldError | undefined;
  const dnsNames = Array.isArray(spec.dnsNames) ? spec.dnsNames : [];
  if (dnsNames.length === 0) errs = errMissingField("dnsNames");
  dnsNames.forEach((n, i) => {
    if (typeof n !== "string" || n === "") errs = also(errs, errInvalidArrayValue("", "dnsNames", i));
  });
  if (typeof spec.secretName !== "string" || spec.secretName === "") errs = also(errs, errMissingField("secretName"));
  const domain = typeof spec.domain === "string" ? spec.domain : "";
  if (domain !== "" && !dnsNames.some((n) => n === domain || (typeof n === "string" && n.endsWith(`.${domain}`)))) {
    // Knative puts the explanation where the path goes (spec §3.13).
    errs = also(errs, errInvalidValue("domain", "domain must be a suffix of, or match exactly, at least one entry in dnsNames"));
  }
  return errs;
}
