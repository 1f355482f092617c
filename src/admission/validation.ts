import { formatGvk } from "../apis/gvk.js";
import { unstructuredDecodeError } from "../go/apimachinery/unstructured.js";
import { stringifyJson } from "../go/encoding/json/json-bigint.js";
import type { RequestContext } from "../serving/context.js";
import type { KObject } from "../serving/registry.js";
import type { AdmissionDeps, RequestEnv } from "./deps.js";
import { decodeObject } from "./objects.js";
import { ALLOWED, deny, type Decision } from "./response.js";
import type { AdmissionRequest } from "./review.js";
import { configForNamespace, scopesDenying } from "./scoped-config.js";

const NONE: readonly never[] = [];

/**
 * /resource-validation (knative.dev/pkg webhook/resourcesemantics/validation/validation_admit.go:
 * (*reconciler).Admit; docs/knative-behavior.md#validation-pipeline).
 */
export async function admitValidation(req: AdmissionRequest, deps: AdmissionDeps, env: RequestEnv): Promise<Decision> {
  const rules = deps.kinds.lookup(req.kind);
  if (rules === undefined) return deny(`decoding request failed: unhandled kind: ${formatGvk(req.kind)}`);
  const decodedNew = decodeObject(rules, req.object, "new", env.config.profile);
  if (!decodedNew.ok) return deny(`decoding request failed: ${decodedNew.error}`);
  const decodedOld = decodeObject(rules, req.oldObject, "old", env.config.profile);
  if (!decodedOld.ok) return deny(`decoding request failed: ${decodedOld.error}`);

  // DELETE decodes the old object (a decode failure still denies) and is then let through; so is
  // anything that is not CREATE or UPDATE (docs/knative-behavior.md#operations-and-subresources).
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return ALLOWED;
  const obj = decodedNew.value;
  if (obj === undefined) return deny("validation failed: the new object may not be nil");

  // Feature scopes (config-features-scopes): outside a flag's scope the rules see it Disabled. Without the
  // ConfigMap the request takes the snapshot as it is, with no await.
  const scoped = env.config.featureScopes.size === 0 ? { config: env.config, narrowed: NONE } : await configForNamespace(env, req.namespace);
  const ctx: RequestContext = {
    operation: req.operation,
    subResource: req.operation === "UPDATE" ? req.subResource : "",
    oldObject: req.operation === "UPDATE" ? decodedOld.value : undefined,
    userInfo: req.userInfo,
    dryRun: req.dryRun,
    config: scoped.config,
    podDryRun: deps.podDryRun,
  };
  const result = rules.validate?.(obj, ctx);
  let warnings: string[] | undefined;
  if (result !== undefined) {
    // Go's result.Filter(apis.WarningLevel).WrappedErrors() and Filter(apis.ErrorLevel), rendered without building
    // the filtered trees.
    warnings = result.wrappedErrorTextsAt("Warning");
    const text = result.errorAt("Error");
    if (text !== undefined) {
      const message = `validation failed: ${text}`;
      if (scoped.narrowed.length === 0) return deny(message, warnings);
      // A scope narrowed a flag: the denial names the scopes that changed the answer (one line each).
      const validate = rules.validate;
      const by = scopesDenying(scoped, env.config, req.namespace, text, (config) => validate?.(obj, { ...ctx, config })?.errorAt("Error"));
      if (by.keys.length === 0) return deny(message, warnings);
      return { ...deny([message, ...by.lines].join("\n"), warnings), scopeDenials: by.keys };
    }
  }
  if (rules.callback !== undefined) {
    // knative.dev/pkg validation_admit.go callback: the callback gets request.object decoded as an Unstructured,
    // which needs a Kind.
    const undecodable = unstructuredDecodeError(req.object as Record<string, unknown>, () => req.objectText?.() ?? stringifyJson(req.object));
    if (undecodable !== undefined) return deny(`validation callback failed: cannot decode incoming new object: ${undecodable}`, warnings);
    const failure = await rules.callback(obj, ctx, req.object as KObject);
    if (failure !== undefined) return deny(`validation callback failed: ${failure}`, warnings);
  }
  return warnings === undefined ? ALLOWED : { allowed: true, warnings };
}
