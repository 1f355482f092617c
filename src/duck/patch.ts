import { diffJson, type JsonPatchOperation } from "./json-diff.js";

export type { JsonPatchOperation } from "./json-diff.js";

/**
 * The RFC 6902 patch that turns `before` into `after` (knative/pkg duck.CreatePatch). Paths are rooted at
 * the object and escaped (`~0`, `~1`); arrays are diffed index-wise. Only members that differ appear, so a
 * field nobody changed is never touched by the API server (docs/adr/0002-json-patch.md). The operations are
 * fast-json-patch's `compare(before, after)`, but their values are `after`'s members, not copies (json-diff.ts).
 */
export function createPatch(before: unknown, after: unknown): JsonPatchOperation[] {
  return diffJson(before as object, after as object);
}

/**
 * Defaulting never changes more than this many places in a real object (a Service's defaults add a few dozen
 * operations, one pod spec at most a few per container); Knative's answer for an object past it is a patch of
 * megabytes that the API server could not store (docs/adr/0009-bounded-work.md).
 */
export const MAX_PATCH_OPERATIONS = 100_000;

/** `createPatch`, or undefined when the patch would have more than MAX_PATCH_OPERATIONS operations. */
export function createBoundedPatch(before: unknown, after: unknown): JsonPatchOperation[] | undefined {
  return diffJson(before as object, after as object, MAX_PATCH_OPERATIONS);
}
