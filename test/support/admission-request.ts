import type { AdmissionRequest } from "../../src/admission/review.js";

/** A decoded AdmissionRequest: a Service CREATE in `default`, with `over` replacing members. */
export function admissionRequest(over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: "u1",
    kind: { group: "serving.knative.dev", version: "v1", kind: "Service" },
    resource: { group: "serving.knative.dev", version: "v1", resource: "services" },
    subResource: "",
    name: "hello",
    namespace: "default",
    operation: "CREATE",
    userInfo: { username: "a", uid: "", groups: [], extra: {} },
    object: {},
    oldObject: undefined,
    dryRun: false,
    ...over,
  };
}
