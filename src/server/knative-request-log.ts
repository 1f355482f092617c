/**
 * The lines Knative's webhook writes for one admission request, in Knative's format (src/server/logging.ts), at
 * Knative's levels and with its messages: knative.dev/pkg webhook/admission.go: admissionHandler (the request dump,
 * the audit-annotations line with the decision, the patch at debug), resourcesemantics/defaulting/defaulting.go:
 * Admit (the patch at info), resourcesemantics/validation/validation_admit.go: validate (the failed validation),
 * configmaps/configmaps.go: Admit (an operation let through). docs/adr/0017-knative-log-format.md.
 */
import type { Logger } from "pino";
import type { AdmittedSummary } from "../admission/http.js";
import type { KnativeProfile } from "../config/profile.js";
import { CALLER } from "./logging.js";
import { clip, MAX_LOGGED_MESSAGE_CHARS, MAX_LOGGED_NAME_CHARS } from "./log-fields.js";

const ADMISSION_HANDLER = "webhook/admission.go:admissionHandler";
const DEFAULTING_ADMIT = "defaulting/defaulting.go:Admit";
const VALIDATION_VALIDATE = "validation/validation_admit.go:validate";
const CONFIGMAPS_ADMIT = "configmaps/configmaps.go:Admit";

/** What the request line shows of the HTTP request. */
export interface HttpRequestSummary {
  readonly method: string;
  readonly url: string;
  readonly proto: string;
  readonly host: string | undefined;
  readonly remoteAddr: string;
  readonly contentLength: number;
}

/**
 * `Webhook ServeHTTP request=%#v`: Go's dump of the *http.Request holds pointers and the server's internal state, so
 * the line carries its message and the fields of it that mean something outside the process, in the dump's syntax.
 */
export function logServeHttp(logger: Logger, r: HttpRequestSummary): void {
  if (!logger.isLevelEnabled("info")) return;
  const url = JSON.stringify(clip(r.url, MAX_LOGGED_NAME_CHARS));
  const host = JSON.stringify(clip(r.host ?? "", MAX_LOGGED_NAME_CHARS));
  logger.info({ [CALLER]: ADMISSION_HANDLER }, `Webhook ServeHTTP request=&http.Request{Method:${JSON.stringify(r.method)}, URL:${url}, Proto:${JSON.stringify(r.proto)}, ContentLength:${r.contentLength}, Host:${host}, RemoteAddr:${JSON.stringify(r.remoteAddr)}}`);
}

/** metav1.GroupVersionKind.String (k8s.io/apimachinery pkg/apis/meta/v1/group_version.go). */
function kindString(k: { group: string; version: string; kind: string }): string {
  return `${k.group}/${k.version}, Kind=${k.kind}`;
}

/** metav1.GroupVersionResource.String. */
function resourceString(r: { group: string; version: string; resource: string }): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

/**
 * (*metav1.Status).String (generated.pb.go) of the response's result: "nil" when allowed; ListMeta has ShardInfo
 * from apimachinery v0.36 (Knative 1.24), whose fields the profile lists as known.
 */
export function statusString(a: AdmittedSummary, profile: KnativeProfile): string {
  const st = a.response.status;
  if (st === undefined) return "nil";
  const shard = profile.unknownK8sFields["meta.ListMeta"]?.includes("shardInfo") === true ? "" : "ShardInfo:nil,";
  return `&Status{ListMeta:ListMeta{SelfLink:,ResourceVersion:,Continue:,RemainingItemCount:nil,${shard}},Status:${st.status},Message:${clip(st.message, MAX_LOGGED_MESSAGE_CHARS)},Reason:${st.reason},Details:nil,Code:${st.code},}`;
}

const VALIDATION_FAILED = "validation failed: ";

/**
 * The request's lines after the dump: the admission controller's own, then admissionHandler's `remote admission
 * controller audit annotations=…` at info with the request's fields (logger.With: knative.dev/kind … userinfo,
 * then admissionreview/uid, allowed, result) and Duckbill's (webhook type, latency, warnings, truncated), and the
 * patch at debug. Every value from the request is clipped (log-fields.ts).
 */
export function logAdmissionKnative(logger: Logger, a: AdmittedSummary, latencyMicros: number, profile: KnativeProfile): void {
  if (!logger.isLevelEnabled("info")) return;
  const rq = a.request;
  let truncated = false;
  const c = (s: string, max = MAX_LOGGED_NAME_CHARS): string => {
    if (s.length <= max) return s;
    truncated = true;
    return clip(s, max);
  };
  const kind = c(kindString(rq.kind));
  const fields: Record<string | symbol, unknown> = {
    "knative.dev/kind": kind,
    "knative.dev/namespace": c(rq.namespace),
    "knative.dev/name": c(rq.name),
    "knative.dev/operation": c(rq.operation),
    "knative.dev/resource": c(resourceString(rq.resource)),
    "knative.dev/subresource": c(rq.subResource),
    "knative.dev/userinfo": c(rq.userInfo.username),
  };
  const handled = rq.operation === "CREATE" || rq.operation === "UPDATE";
  // The text the response's base64 was made from, not decoded back (only the lines that quote it clip it).
  const patch = (): string | undefined => (a.patchText === undefined ? undefined : c(a.patchText, MAX_LOGGED_MESSAGE_CHARS));
  // `fields` is handed to the lines as it is (not copied) where a line adds nothing but its caller (a symbol key,
  // which the line's fields do not list): the lines are serialized when logged.
  if (a.type === "defaulting" || a.type === "admission") {
    const caller = a.type === "defaulting" ? DEFAULTING_ADMIT : CONFIGMAPS_ADMIT;
    fields[CALLER] = caller;
    if (!handled) logger.info(fields, `Unhandled webhook operation, letting it through ${c(rq.operation)}`);
    else if (a.type === "defaulting" && a.response.allowed) logger.info(fields, `Kind: ${JSON.stringify(kind)} PatchBytes: ${patch() ?? "null"}`);
  } else if (!handled && rq.operation !== "DELETE") {
    fields[CALLER] = VALIDATION_VALIDATE;
    logger.info(fields, `Unhandled webhook validation operation, letting it through ${c(rq.operation)}`);
  } else if (a.response.status?.message.startsWith(VALIDATION_FAILED) === true) {
    // 1.23 on name the object (knative.dev/pkg 2025: zap.String name, namespace, kind before zap.Error).
    const extra = profile.version === "1.17" ? {} : { name: c(rq.name), namespace: c(rq.namespace), kind: c(rq.kind.kind) };
    logger.info({ ...fields, ...extra, error: c(a.response.status.message.slice(VALIDATION_FAILED.length), MAX_LOGGED_MESSAGE_CHARS), [CALLER]: VALIDATION_VALIDATE }, "Failed the resource specific validation");
  }
  fields[CALLER] = ADMISSION_HANDLER;
  fields["admissionreview/uid"] = c(rq.uid);
  fields["admissionreview/allowed"] = a.response.allowed;
  fields["admissionreview/result"] = statusString(a, profile);
  const debug = logger.isLevelEnabled("debug") ? { ...fields } : undefined;
  // Duckbill's own fields end the audit line (undefined ones are not written).
  fields.webhook = a.type;
  fields.latencyMicros = latencyMicros;
  fields.warnings = a.response.warnings?.length;
  fields.truncated = truncated ? true : undefined;
  logger.info(fields, "remote admission controller audit annotations=map[string]string(nil)");
  if (debug !== undefined) logger.debug(debug, `AdmissionReview patch={ type: ${a.response.patchType ?? ""}, body: ${patch() ?? ""} }`);
}
