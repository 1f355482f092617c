import { formatGvk, type GroupVersionKind } from "../apis/gvk.js";
import { generationOf } from "../duck/generational.js";
import { createBoundedPatch, MAX_PATCH_OPERATIONS } from "../duck/patch.js";
import type { RequestContext } from "../serving/context.js";
import { podSpecOf } from "../duck/podspecable.js";
import { exceedsContainerBound } from "../serving/podspec.js";
import type { AdmissionDeps, RequestEnv } from "./deps.js";
import { generationPatch, nextGeneration, readGenerational, specOf, withGeneration } from "./generation.js";
import { decodeObject } from "./objects.js";
import { overflowsFloat64 } from "../go/encoding/json/index.js";
import { mayHoldNumberLiterals } from "../go/encoding/json/go-strings.js";
import { ALLOWED, deny, type Decision } from "./response.js";
import type { AdmissionRequest } from "./review.js";

/**
 * /defaulting (knative.dev/pkg webhook/resourcesemantics/defaulting/defaulting.go: (*reconciler).Admit, mutate;
 * docs/knative-behavior.md#defaulting-pipeline). The patch is one diff from the object
 * as sent to the object after the Go round trip and SetDefaults (docs/adr/0002-json-patch.md), plus the
 * `spec.generation` bump for kinds named generational (admission/generation.ts, docs/adr/0005-duck-types.md).
 */
export function admitDefaulting(req: AdmissionRequest, deps: AdmissionDeps, env: RequestEnv): Decision {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return ALLOWED;
  const rules = deps.kinds.lookup(req.kind);
  const generational = isGenerational(deps, req.kind);
  if (rules === undefined) {
    return generational ? admitGenerationalOnly(req) : deny(`mutation failed: unhandled kind: ${formatGvk(req.kind)}`);
  }

  // Over the container bound validation enforces, the object is rejected whatever it holds, and defaulting it
  // would cost the most of any request: every container gains the fields of the Go round trip, so a 900 KB
  // Service with 300,000 empty containers would get a 70 MB patch after 0.5 GB of allocation, enough to have the
  // pod OOM-killed. It goes on unchanged, for validation to reject (SECURITY.md, "Bounded work").
  if (exceedsContainerBound(podSpecOf(req.kind.kind, req.object)?.spec)) return ALLOWED;

  const decodedNew = decodeObject(rules, req.object, "new", env.config.profile);
  if (!decodedNew.ok) return deny(`mutation failed: ${decodedNew.error}`);
  const decodedOld = decodeObject(rules, req.oldObject, "old", env.config.profile);
  if (!decodedOld.ok) return deny(`mutation failed: ${decodedOld.error}`);
  // roundTripPatch reads the object as sent once more, into interface{} (the profile's roundTripNumbers).
  // Only a body with long integers or exponents can hold such a number (mayHoldNumberLiterals): others skip the walk.
  if (env.config.profile.roundTripNumbers === "float64" && decodedNew.value !== undefined && mayHoldNumberLiterals(req.object) && overflowsFloat64(req.object)) {
    return deny("mutation failed: cannot create patch for round tripped newBytes: invalid JSON Document");
  }
  let obj = decodedNew.value;
  // Knative dereferences the missing object and crashes; Duckbill says what is wrong instead.
  if (obj === undefined) return deny("mutation failed: the new object may not be nil");

  // The old object is defaulted first with a bare context (no create/update marker, no user), so that
  // Duckbill never rejects or re-stamps its own earlier defaults (knative.dev/pkg
  // webhook/resourcesemantics/defaulting/defaulting.go: mutate, the baseline of apis.WithinUpdate).
  const old = decodedOld.value;
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
  rules.setDefaults?.(obj, ctx);
  if (generational) {
    // The Go round trip drops spec.generation (Knative's types no longer have it): read it from the
    // request, compare the defaulted specs, and put the result on the final object.
    const read = readGenerational(req.object, req.oldObject);
    if (!read.ok) return deny(`mutation failed: ${read.error}`);
    const before = read.old === undefined ? undefined : { generation: generationOf(read.old), spec: old?.spec };
    obj = withGeneration(obj, nextGeneration(before, obj.spec, ctx.subResource));
  }
  const patch = createBoundedPatch(req.object, obj);
  // Past the bound Knative answers with a patch of megabytes (a million list entries: 114 MB) that the API server
  // could not store; Duckbill says so instead of building it (docs/adr/0009-bounded-work.md).
  if (patch === undefined) return deny(`mutation failed: ${patchTooLargeMessage()}`);
  return { allowed: true, patch };
}

/** Why an object whose defaults would change more than MAX_PATCH_OPERATIONS places is refused. */
export function patchTooLargeMessage(): string {
  return `defaulting would change more than ${MAX_PATCH_OPERATIONS} fields (a JSON Patch of that size cannot be applied to an object the API server stores)`;
}

function isGenerational(deps: AdmissionDeps, kind: GroupVersionKind): boolean {
  const kinds = deps.generational;
  return kinds !== undefined && kinds.size > 0 && kinds.has(formatGvk(kind));
}

/**
 * A generational kind Duckbill has no Go type for: no round trip and no defaults, only the generation,
 * written through the Generational duck so that nothing else in the object can change.
 */
function admitGenerationalOnly(req: AdmissionRequest): Decision {
  if (req.object === undefined) return deny("mutation failed: the new object may not be nil");
  const read = readGenerational(req.object, req.oldObject);
  if (!read.ok) return deny(`mutation failed: ${read.error}`);
  const before = read.old === undefined ? undefined : { generation: generationOf(read.old), spec: specOf(req.oldObject) };
  const target = nextGeneration(before, specOf(req.object), read.old === undefined ? "" : req.subResource);
  return { allowed: true, patch: generationPatch(read.now, target) };
}
