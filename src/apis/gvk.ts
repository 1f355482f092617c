/** Kubernetes group/version/kind, as carried in AdmissionRequest.kind. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Go's schema.GroupVersionKind.String(): `group/version, Kind=Kind` (core group renders as `/v1, Kind=Pod`). */
export function formatGvk(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** `group/version` as in apiVersion (core group: just the version). */
export function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
}
