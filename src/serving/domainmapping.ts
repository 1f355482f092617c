/**
 * DomainMapping (serving.knative.dev/v1beta1): defaults and validation (docs/knative-behavior.md#domainmapping), as
 * serving's `domainmapping_defaults.go` and `domainmapping_validation.go` at v0.44.2.
 */
import { also, errDisallowedFields, errGeneric, errMissingField, FieldError } from "../apis/field-error.js";
import { goQuote } from "../go/strconv/quote.js";
import { isFullyQualifiedDomainName } from "../go/apimachinery/validation.js";
import type { RequestContext } from "./context.js";
import { asObject, ensureObject, metadataOf, oldObjectOf, type KObject } from "./kobject.js";
import { setUserInfo, SPEC_TYPES, validateCreatorAndModifier } from "./user-info.js";

/** Knative reads the cluster domain from resolv.conf; Duckbill's fixed default matches a standard cluster. */
export const CLUSTER_DOMAIN = "cluster.local";

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * (*DomainMapping).SetDefaults: `spec.ref.namespace` defaults to the DomainMapping's namespace; creator/lastModifier
 * always.
 */
export function setDomainMappingDefaults(dm: KObject, ctx: RequestContext): void {
  const spec = ensureObject(dm, "spec");
  const ref = ensureObject(spec, "ref");
  if (str(ref.namespace) === "") {
    const ns = str(metadataOf(dm).namespace);
    if (ns !== "") ref.namespace = ns;
  }
  const previousSpec = ctx.operation === "UPDATE" ? asObject(oldObjectOf(ctx.oldObject)?.spec) : undefined;
  setUserInfo(dm, previousSpec, spec, ctx, SPEC_TYPES.DomainMapping);
}

/** (*DomainMapping).Validate. */
export function validateDomainMapping(dm: KObject, ctx: RequestContext): FieldError | undefined {
  const meta = metadataOf(dm);
  let errs = validateMetadata(meta)?.viaField("metadata");
  errs = also(errs, validateRef(asObject(asObject(dm.spec)?.ref), str(meta.namespace))?.viaField("spec.ref"));
  if (ctx.operation === "UPDATE") errs = also(errs, validateCreatorAndModifier(oldObjectOf(ctx.oldObject) ?? {}, dm, ctx, SPEC_TYPES.DomainMapping));
  return errs;
}

/** The name is the domain: a fully qualified name outside the cluster-local domain; no generateName. */
function validateMetadata(meta: KObject): FieldError | undefined {
  const name = str(meta.name);
  let errs: FieldError | undefined;
  if (str(meta.generateName) !== "") errs = errDisallowedFields("generateName");
  const fqdn = isFullyQualifiedDomainName(name, "name");
  if (fqdn.length > 0) {
    // field.ErrorList.ToAggregate(): one error prints as itself, several as "[a, b]".
    const aggregate = fqdn.length === 1 ? fqdn[0] : `[${fqdn.join(", ")}]`;
    errs = also(errs, errGeneric(`invalid name ${goQuote(name)}: ${aggregate}`, "name"));
  }
  if (name.endsWith(`.${CLUSTER_DOMAIN}`)) {
    errs = also(errs, errGeneric(`invalid name ${goQuote(name)}: must not be a subdomain of cluster local domain ${goQuote(CLUSTER_DOMAIN)}`, "name"));
  }
  return errs;
}

/** KReference.Validate (knative/pkg) without the group feature: name, apiVersion, kind required; same namespace. */
function validateRef(ref: KObject | undefined, parentNamespace: string): FieldError | undefined {
  if (ref === undefined) return also(errMissingField("name"), errMissingField("apiVersion"), errMissingField("kind"));
  let errs: FieldError | undefined;
  if (str(ref.name) === "") errs = also(errs, errMissingField("name"));
  if (str(ref.group) !== "") errs = also(errs, errDisallowedFields("group"));
  if (str(ref.apiVersion) === "") errs = also(errs, errMissingField("apiVersion"));
  if (str(ref.kind) === "") errs = also(errs, errMissingField("kind"));
  const ns = str(ref.namespace);
  if (ns !== "" && parentNamespace !== "" && ns !== parentNamespace) {
    errs = also(
      errs,
      new FieldError({ message: "mismatched namespaces", paths: ["namespace"], details: `parent namespace: ${goQuote(parentNamespace)} does not match ref: ${goQuote(ns)}` }),
    );
  }
  return errs;
}
