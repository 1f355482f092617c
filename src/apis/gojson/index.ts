/**
 * Knative's Go type model for admission objects: decode with encoding/json's semantics and error texts,
 * and get back what `json.Marshal` of the decoded struct writes (spec §1.3, §1.5 step 2). The returned
 * value is freshly built and belongs to the caller.
 */
export { decodeGo, type GoDecodeResult } from "./decode.js";
export type { GoType } from "./go-types.js";
export { configMapType, goTypeOf, knativeTypes } from "./knative-types.js";
export { copyJsonValue } from "./json-value.js";
