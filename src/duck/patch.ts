import { diffJson } from "./json-diff.js";

/** One RFC 6902 operation, as sent in AdmissionResponse.patch. */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

/**
 * The RFC 6902 patch that turns `before` into `after` (knative/pkg duck.CreatePatch). Paths are rooted at
 * the object and escaped (`~0`, `~1`); arrays are diffed index-wise. Only members that differ appear, so a
 * field nobody changed is never touched by the API server (docs/adr/0002-json-patch.md). The operations are
 * fast-json-patch's `compare(before, after)`, but their values are `after`'s members, not copies (json-diff.ts).
 */
export function createPatch(before: unknown, after: unknown): JsonPatchOperation[] {
  return diffJson(before as object, after as object);
}
