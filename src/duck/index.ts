/**
 * Duck typing as a library (knative.dev/pkg apis/duck/ABOUT.md, "Knative Duck Typing";
 * docs/knative-behavior.md#duck-types-and-generations): read any resource through a partial
 * schema, write by diffing two views into an RFC 6902 patch, and check by round trip that a kind
 * implements a duck. docs/adr/0005-duck-types.md.
 */
export { defineDuck, type DuckType } from "./duck-type.js";
export { readAs, type DuckRead } from "./read.js";
export { createPatch, type JsonPatchOperation } from "./patch.js";
export { verifyType, type KindSample, type VerifyResult } from "./verify.js";
export { isEmptyJson, jsonSemanticEqual, jsonSemanticEqualExcept } from "./json-equal.js";
export { Conditions, KResource, type Condition, type ConditionsView, type KResourceView, type StatusView } from "./kresource.js";
export { Generational, generationOf, type GenerationalView } from "./generational.js";
export { WithPod, type ContainerView, type PodSpecable, type PodSpecView, type WithPodView } from "./podspecable.js";
export type { ObjectMetaView, ResourceView } from "./object-meta.js";
export type { DuckSchema } from "./schema.js";
