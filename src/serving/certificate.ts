/**
 * Certificate (networking.internal.knative.dev/v1alpha1): validation (knative.dev/networking
 * pkg/apis/networking/v1alpha1/certificate_validation.go: (*CertificateSpec).Validate); no defaults.
 */
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
  // Only against dnsNames there are: without any, the missing dnsNames is the error.
  if (domain !== "" && dnsNames.length !== 0 && !dnsNames.some((n) => n === domain || (typeof n === "string" && n.endsWith(`.${domain}`)))) {
    // Knative puts the explanation where the path goes (docs/knative-behavior.md#internal-kinds).
    errs = also(errs, errInvalidValue("domain", "domain must be a suffix of, or match exactly, at least one entry in dnsNames"));
  }
  return errs;
}
