/**
 * Ingress (networking.internal.knative.dev/v1alpha1): defaults and validation
 * (docs/knative-behavior.md#internal-kinds), as knative.dev/networking's pkg/apis/networking/v1alpha1
 * `ingress_defaults.go` and `ingress_validation.go`.
 */
import { also, errInvalidValue, errMissingField, FieldError, CURRENT_FIELD } from "../apis/field-error.js";
import { goTypeOf } from "../apis/knative-types.js";
import { isGoZero, isInt64 } from "./field-mask.js";
import { asObject, metadataOf, type KObject } from "./kobject.js";

const SPEC_TYPE = goTypeOf("networking.IngressSpec");
const RULE_TYPE = goTypeOf("networking.IngressRule");
const PATH_TYPE = goTypeOf("networking.HTTPIngressPath");
const SPLIT_TYPE = goTypeOf("networking.IngressBackendSplit");
const BACKEND_TYPE = goTypeOf("networking.IngressBackend");
const TLS_TYPE = goTypeOf("networking.IngressTLS");

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * (*Ingress).SetDefaults: rules default to ExternalIP visibility; a path with a single split of 0 % gets 100 %.
 * (Knative's defaulter dereferences a rule without `http` and crashes; Duckbill leaves such a rule to validation.)
 */
export function setIngressDefaults(ing: KObject): void {
  for (const r of list(asObject(ing.spec)?.rules)) {
    const rule = asObject(r);
    if (rule === undefined) continue;
    if (str(rule.visibility) === "") rule.visibility = "ExternalIP";
    for (const p of list(asObject(rule.http)?.paths)) {
      const splits = list(asObject(p)?.splits);
      const only = asObject(splits[0]);
      if (splits.length === 1 && only !== undefined && (only.percent === undefined || only.percent === 0)) only.percent = 100;
    }
  }
}

/** (*Ingress).Validate: the service namespace of every backend must be the Ingress's own. */
export function validateIngress(ing: KObject): FieldError | undefined {
  return validateSpec(asObject(ing.spec), str(metadataOf(ing).namespace))?.viaField("spec");
}

function validateSpec(spec: KObject | undefined, namespace: string): FieldError | undefined {
  if (spec === undefined || isGoZero(spec, SPEC_TYPE, true)) return errMissingField(CURRENT_FIELD);
  let errs: FieldError | undefined;
  const rules = list(spec.rules);
  if (rules.length === 0) errs = errMissingField("rules");
  rules.forEach((r, i) => (errs = also(errs, validateRule(asObject(r), namespace)?.viaFieldIndex("rules", i))));
  list(spec.tls).forEach((t, i) => (errs = also(errs, validateTls(asObject(t))?.viaFieldIndex("tls", i))));
  const option = str(spec.httpOption);
  if (option !== "" && option !== "Enabled" && option !== "Redirected") errs = also(errs, errInvalidValue(option, "httpOption"));
  return errs;
}

function validateRule(rule: KObject | undefined, namespace: string): FieldError | undefined {
  if (rule === undefined || isGoZero(rule, RULE_TYPE, true)) return errMissingField(CURRENT_FIELD);
  const http = asObject(rule.http);
  if (http === undefined) return errMissingField("http");
  const paths = list(http.paths);
  if (paths.length === 0) return errMissingField("paths").viaField("http");
  let errs: FieldError | undefined;
  paths.forEach((p, i) => (errs = also(errs, validatePath(asObject(p), namespace)?.viaFieldIndex("paths", i))));
  return errs?.viaField("http");
}

function validatePath(path: KObject | undefined, namespace: string): FieldError | undefined {
  if (path === undefined || isGoZero(path, PATH_TYPE, true)) return errMissingField(CURRENT_FIELD);
  const splits = list(path.splits);
  if (splits.length === 0) return errMissingField("splits");
  let total = 0;
  for (let i = 0; i < splits.length; i++) {
    const split = asObject(splits[i]);
    // The first invalid split is the whole answer for this path.
    const err = validateSplit(split, namespace);
    if (err !== undefined) return err.viaFieldIndex("splits", i);
    total += typeof split?.percent === "number" ? split.percent : 0;
  }
  // A single split may leave the percentage out: it means 100.
  if ((splits.length !== 1 || total !== 0) && total !== 100) {
    return new FieldError({ message: `traffic split percentage must total to 100, but was ${total}`, paths: ["splits"] });
  }
  return undefined;
}

function validateSplit(split: KObject | undefined, namespace: string): FieldError | undefined {
  if (split === undefined || isGoZero(split, SPLIT_TYPE, true)) return errMissingField(CURRENT_FIELD);
  const percent = isInt64(split.percent) ? split.percent : 0;
  const errs = percent < 0 || percent > 100 ? errInvalidValue(percent, "percent") : undefined;
  return also(errs, validateBackend(split, namespace));
}

function validateBackend(b: KObject, namespace: string): FieldError | undefined {
  const backend = { serviceNamespace: b.serviceNamespace, serviceName: b.serviceName, servicePort: b.servicePort };
  if (isGoZero(backend, BACKEND_TYPE, true)) return errMissingField(CURRENT_FIELD);
  let errs: FieldError | undefined;
  const ns = str(b.serviceNamespace);
  if (ns === "") errs = errMissingField("serviceNamespace");
  else if (ns !== namespace) errs = new FieldError({ message: "service namespace must match ingress namespace", paths: ["serviceNamespace"] });
  if (str(b.serviceName) === "") errs = also(errs, errMissingField("serviceName"));
  if (b.servicePort === undefined || b.servicePort === 0) errs = also(errs, errMissingField("servicePort"));
  return errs;
}

function validateTls(tls: KObject | undefined): FieldError | undefined {
  if (tls === undefined || isGoZero(tls, TLS_TYPE, true)) return errMissingField(CURRENT_FIELD);
  return also(str(tls.secretName) === "" ? errMissingField("secretName") : undefined, str(tls.secretNamespace) === "" ? errMissingField("secretNamespace") : undefined);
}
