import { formatGvk } from "../apis/gvk.js";
import { createPatch } from "../duck/patch.js";
import type { RequestContext } from "../serving/context.js";
import type { AdmissionDeps, RequestEnv } from "./deps.js";
import { decodeObject } from "./objects.js";
import { ALLOWED, deny, type Decision } from "./response.js";
import type { AdmissionRequest } from "./review.js";

/**
 * /defaulting (knative/pkg resourcesemantics/defaulting, spec §1.5). The patch is one diff from the object
 * as sent to the object after the Go round trip and SetDefaults (docs/adr/0002-json-patch.md).
 */
export function admitDefaulting(req: AdmissionRequest, deps: AdmissionDeps, env: RequestEnv): Decision {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return ALLOWED;
  const rules = deps.kinds.lookup(req.kind);
  if (rules === undefined) return deny(`mutation failed: unhandled kind: ${formatGvk(req.kind)}`);

  const decodedNew = decodeObject(rules, req.object, "new");
  if (!decodedNew.ok) return deny(`mutation failed: ${decodedNew.error}`);
  const decodedOld = decodeObject(rules, req.oldObject, "old");
  if (!decodedOld.ok) return deny(`mutation failed: ${decodedOld.error}`);
  const obj = decodedNew.value;
  // Knative dereferences the missing object and crashes; Duckbill says what is wrong instead.
  if (obj === undefined) return deny("mutation failed: the new object may not be nil");

  // The old object is defaulted first with a bare context (no create/update marker, no user), so that
  // Duckbill never rejects or re-stamps its own earlier defaults (spec §1.5 step 3).
  let old = decodedOld.value;
  if (old !== undefined && rules.setDefaults !== undefined) {
    rules.setDefaults(old, { operation: "", subResource: "", oldObject: undefined, userInfo: undefined, dryRun: false, config: env.config });
  }
  // Knative derives create vs update from the presence of the old object, not from the operation.
  const ctx: RequestContext = {
    operation: old !== undefined ? "UPDATE" : "CREATE",
    subResource: old !== undefined ? req.subResource : "",
    oldObject: old,
    userInfo: req.userInfo,
    dryRun: false,
    config: env.config,
  };
  old = undefined;
  rules.setDefaults?.(obj, ctx);
  return { allowed: true, patch: createPatch(req.object, obj) };
}
