/**
 * Decoding an object's JSON into an unstructured.Unstructured, as Knative's validation callbacks get it
 * (knative.dev/pkg webhook/resourcesemantics/validation/validation_admit.go: callback, `json.Unmarshal(toDecode,
 * unstruct)`): k8s.io/apimachinery pkg/apis/meta/v1/unstructured/unstructured.go UnmarshalJSON →
 * helpers.go unstructuredJSONScheme.Decode, which fails with runtime.NewMissingKindErr when the object has no Kind.
 */

/**
 * schema.ParseGroupVersion's verdict (pkg/runtime/schema/group_version.go): "" and "/" are the empty version, one
 * slash at most otherwise.
 */
function parsesAsGroupVersion(apiVersion: string): boolean {
  if (apiVersion === "" || apiVersion === "/") return true;
  return apiVersion.indexOf("/") === apiVersion.lastIndexOf("/");
}

/**
 * The error of decoding `object` (a JSON object that decoded into its Go type) into an Unstructured, or undefined.
 * Unstructured.GroupVersionKind reads `kind` and `apiVersion` exactly so spelt (map keys, not struct fields), as
 * strings (anything else reads as ""), and has no Kind when `apiVersion` does not parse: then the error is
 * `Object 'Kind' is missing in '<the object's JSON as sent>'` (pkg/runtime/error.go: missingKindErr), `text` giving
 * that JSON.
 */
export function unstructuredDecodeError(object: Record<string, unknown>, text: () => string): string | undefined {
  const kind = Object.hasOwn(object, "kind") ? object.kind : undefined;
  const apiVersion = Object.hasOwn(object, "apiVersion") ? object.apiVersion : undefined;
  const hasKind = typeof kind === "string" && kind !== "" && (typeof apiVersion !== "string" || parsesAsGroupVersion(apiVersion));
  return hasKind ? undefined : `Object 'Kind' is missing in '${text()}'`;
}
