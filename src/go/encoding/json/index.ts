/**
 * encoding/json's Unmarshal into a Go type (described by ./types.ts) followed by Marshal: decode with Go's
 * semantics and error texts, and get back what `json.Marshal` of the decoded value writes. The returned value
 * is freshly built and belongs to the caller. The Go types of Kubernetes and Knative are in src/apis.
 */
export { decodeGo, emptyNotNilFields, foldKey, overflowsFloat64, goIntOrString, intOrStringHalves, type GoIntOrString, type IntOrStringHalves, type DecodeOptions, type GoDecodeResult } from "./decode.js";
export type { GoType } from "./types.js";
export { copyJsonValue } from "./json-value.js";
