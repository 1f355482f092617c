import { stringifyJson } from "../go/encoding/json/json-bigint.js";

/**
 * admission.k8s.io AdmissionResponse as Knative builds it (knative.dev/pkg webhook/admission.go: MakeErrorStatus).
 */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: DenialStatus;
  /** Base64 of an RFC 6902 JSON Patch. */
  patch?: string;
  patchType?: "JSONPatch";
  warnings?: string[];
}

/** metav1.Status as produced by apierrors.NewBadRequest(msg).Status(). */
export interface DenialStatus {
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: "BadRequest";
  code: 400;
}

/** What a controller decides, before the envelope adds the uid and splits warnings. */
export interface Decision {
  allowed: boolean;
  message?: string;
  patch?: unknown[];
  warnings?: string[];
  /** The flags whose scope (config-features-scopes) caused a denial, for the metrics; absent otherwise. */
  scopeDenials?: readonly string[];
}

export const ALLOWED: Decision = Object.freeze({ allowed: true }) as Decision;

export function deny(message: string, warnings?: string[]): Decision {
  return warnings === undefined ? { allowed: false, message } : { allowed: false, message, warnings };
}

/** The decision's JSON patch as text (its values may hold exactly read integers, bigints, which JSON.stringify cannot write). */
export function patchTextOf(d: Decision): string | undefined {
  return d.patch === undefined ? undefined : stringifyJson(d.patch);
}

/**
 * Builds the response the webhook server writes: uid echoed, denial status in Knative's shape,
 * patch base64-encoded with patchType JSONPatch, every warning split on newlines (knative.dev/pkg
 * webhook/admission.go: admissionHandler).
 */
export function toAdmissionResponse(uid: string, d: Decision, patchText: string | undefined = patchTextOf(d)): AdmissionResponse {
  const r: AdmissionResponse = { uid, allowed: d.allowed };
  if (!d.allowed) {
    r.status = { metadata: {}, status: "Failure", message: d.message ?? "", reason: "BadRequest", code: 400 };
  }
  if (patchText !== undefined) {
    r.patch = Buffer.from(patchText).toString("base64");
    r.patchType = "JSONPatch";
  }
  if (d.warnings !== undefined && d.warnings.length > 0) {
    const split: string[] = [];
    for (const w of d.warnings) {
      if (w.includes("\n")) split.push(...w.split("\n"));
      else split.push(w);
    }
    r.warnings = split;
  }
  return r;
}

/**
 * `JSON.stringify({kind, apiVersion, response})` of an answer, as Knative's json.Encoder writes the AdmissionReview
 * (its TypeMeta copied, empty strings omitted), without the newline; byte for byte what JSON.stringify writes, in
 * toAdmissionResponse's member order. Written by hand because the base64 patch, most of an answer, needs no
 * escaping: JSON.stringify would scan it character by character.
 */
export function encodeReviewAnswer(kind: string, apiVersion: string, r: AdmissionResponse): string {
  let out = "{";
  if (kind !== "") out += '"kind":' + jsonString(kind) + ",";
  if (apiVersion !== "") out += '"apiVersion":' + jsonString(apiVersion) + ",";
  out += '"response":{"uid":' + jsonString(r.uid) + (r.allowed ? ',"allowed":true' : ',"allowed":false');
  if (r.status !== undefined) out += ',"status":' + JSON.stringify(r.status);
  if (r.patch !== undefined) {
    // Base64 ([A-Za-z0-9+/=]) is written as it is.
    out += ',"patch":"' + r.patch + '"';
  }
  if (r.patchType !== undefined) out += ',"patchType":"' + r.patchType + '"';
  if (r.warnings !== undefined) {
    out += ',"warnings":[';
    for (let i = 0; i < r.warnings.length; i++) out += (i === 0 ? "" : ",") + jsonString(r.warnings[i] as string);
    out += "]";
  }
  return out + "}}";
}

/** What JSON.stringify escapes in a string: `"`, `\`, control characters, and (lone) surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what this matches
const JSON_ESCAPED = /[\x00-\x1f"\\\ud800-\udfff]/;

/** JSON.stringify of a string; one that needs no escape is only quoted (a regex test costs less than the call). */
function jsonString(s: string): string {
  return JSON_ESCAPED.test(s) ? JSON.stringify(s) : '"' + s + '"';
}
