/**
 * admission.k8s.io/v1 AdmissionReview as encoding/json sees it, the type knative.dev/pkg webhook/admission.go:
 * admissionHandler decodes every request body into: k8s.io/api admission/v1/types.go (AdmissionReview,
 * AdmissionRequest, AdmissionResponse), authentication/v1/types.go (UserInfo) and k8s.io/apimachinery
 * pkg/apis/meta/v1/types.go, group_version.go (Status, ListMeta, StatusDetails, StatusCause, GroupVersionKind,
 * GroupVersionResource), unchanged from v0.31 to v0.36 but for ListMeta.shardInfo (v0.36 only: config/profile.ts
 * `unknownK8sFields` hides it from the releases built with earlier ones). Written from those sources in the table
 * syntax of go/encoding/json/types.ts; meta.TypeMeta comes from k8s-types.ts.
 */
import type { NamedTypeTable, StructTable } from "../go/encoding/json/types.js";

export const admissionStructs: StructTable = {
  "admission.AdmissionReview": ["^ meta.TypeMeta", "request *admission.AdmissionRequest omitempty", "response *admission.AdmissionResponse omitempty"],
  "admission.AdmissionRequest": [
    "uid types.UID",
    "kind meta.GroupVersionKind",
    "resource meta.GroupVersionResource",
    "subResource string omitempty",
    "requestKind *meta.GroupVersionKind omitempty",
    "requestResource *meta.GroupVersionResource omitempty",
    "requestSubResource string omitempty",
    "name string omitempty",
    "namespace string omitempty",
    "operation admission.Operation",
    "userInfo authentication.UserInfo",
    "object runtime.RawExtension omitempty",
    "oldObject runtime.RawExtension omitempty",
    "dryRun *bool omitempty",
    "options runtime.RawExtension omitempty",
  ],
  "admission.AdmissionResponse": [
    "uid types.UID",
    "allowed bool",
    "status *meta.Status omitempty",
    "patch []byte omitempty",
    "patchType *admission.PatchType omitempty",
    "auditAnnotations map[string]string omitempty",
    "warnings []string omitempty",
  ],
  "authentication.UserInfo": ["username string omitempty", "uid string omitempty", "groups []string omitempty", "extra map[string]authentication.ExtraValue omitempty"],
  "meta.GroupVersionKind": ["group string", "version string", "kind string"],
  "meta.GroupVersionResource": ["group string", "version string", "resource string"],
  "meta.Status": [
    "^ meta.TypeMeta",
    "metadata meta.ListMeta omitempty",
    "status string omitempty",
    "message string omitempty",
    "reason meta.StatusReason omitempty",
    "details *meta.StatusDetails omitempty",
    "code int32 omitempty",
  ],
  "meta.ListMeta": ["selfLink string omitempty", "resourceVersion string omitempty", "continue string omitempty", "remainingItemCount *int64 omitempty", "shardInfo *meta.ShardInfo omitempty"],
  "meta.ShardInfo": ["selector string"],
  "meta.StatusDetails": ["name string omitempty", "group string omitempty", "kind string omitempty", "uid types.UID omitempty", "causes []meta.StatusCause omitempty", "retryAfterSeconds int32 omitempty"],
  "meta.StatusCause": ["reason meta.CauseType omitempty", "message string omitempty", "field string omitempty"],
};

export const admissionNamedTypes: NamedTypeTable = {
  "admission.Operation": "string",
  "admission.PatchType": "string",
  "authentication.ExtraValue": "[]string",
  "meta.StatusReason": "string",
  "meta.CauseType": "string",
};
