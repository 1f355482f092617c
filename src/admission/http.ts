import { markGoStrings, mayHoldNumberLiterals, mayRepeatKeys } from "../go/encoding/json/go-strings.js";
import { rawMemberText } from "../go/encoding/json/raw-member.js";
import { decodeFirstJsonValue } from "../go/encoding/json/stream.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile } from "../config/profile.js";
import { muxCleanPath } from "../go/net/http/clean-path.js";
import { pathQueryString, requestEscapedPath } from "../go/net/url/url.js";
import { admitConfigMap } from "./config-validation.js";
import { admitDefaulting } from "./defaulting.js";
import type { AdmissionDeps, RequestEnv } from "./deps.js";
import type { Decision } from "./response.js";
import { encodeReviewAnswer, patchTextOf, toAdmissionResponse, type AdmissionResponse } from "./response.js";
import { decodeAdmissionReview, type AdmissionRequest } from "./review.js";
import { admitValidation } from "./validation.js";

/** The webhook's three controllers (knative.dev/serving cmd/webhook/main.go), by HTTP path. */
export const ADMISSION_PATHS = ["/defaulting", "/resource-validation", "/config-validation"] as const;
export type AdmissionPath = (typeof ADMISSION_PATHS)[number];
export type WebhookType = "defaulting" | "validation" | "admission";

/** Knative's http.MaxBytesHandler limit (knative.dev/pkg webhook/webhook.go, Knative 1.23 and later). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const JSON_CONTENT_TYPE = "application/json";

/**
 * The Content-Type of an AdmissionReview answer. Knative sets none (knative.dev/pkg webhook/admission.go:
 * admissionHandler encodes the review straight to the ResponseWriter), so Go's net/http sniffs the first bytes
 * (golang/go src/net/http/sniff.go: DetectContentType), and JSON sniffs as text.
 */
export const REVIEW_CONTENT_TYPE = "text/plain; charset=utf-8";

export function isAdmissionPath(path: string): path is AdmissionPath {
  return path === "/defaulting" || path === "/resource-validation" || path === "/config-validation";
}

/** The metrics label Knative uses for each controller (`kn.webhook.type`, knative.dev/pkg webhook/metrics.go). */
export function webhookTypeOf(path: AdmissionPath): WebhookType {
  return path === "/defaulting" ? "defaulting" : path === "/resource-validation" ? "validation" : "admission";
}

/** An answer in HTTP terms, shared by the HTTPS server and `duckbill admit` so both say exactly the same. */
export interface HttpAnswer {
  status: number;
  /** `text/plain; charset=utf-8` for AdmissionReview answers (REVIEW_CONTENT_TYPE) and errors (Go's http.Error). */
  contentType: string;
  body: string;
  /** A redirect's target (the Location header). */
  location?: string;
  /** Other response headers (http.Error's X-Content-Type-Options). */
  headers?: Readonly<Record<string, string>>;
  /** Present when an AdmissionReview was answered: what the logs and metrics report. */
  admission?: AdmittedSummary;
}

export interface AdmittedSummary {
  readonly request: AdmissionRequest;
  readonly response: AdmissionResponse;
  readonly type: WebhookType;
  /** The JSON patch as text, before its base64 encoding in `response.patch` (the log lines quote it). */
  readonly patchText?: string;
  /** The flags whose scope caused the denial (Decision.scopeDenials), for the metrics. */
  readonly scopeDenials?: readonly string[];
}

const TEXT = "text/plain; charset=utf-8";
const NOSNIFF: Readonly<Record<string, string>> = Object.freeze({ "x-content-type-options": "nosniff" });

/** Go's http.Error (golang/go src/net/http/server.go): the message and a newline, as text, with nosniff. */
export function goHttpError(status: number, message: string): HttpAnswer {
  return { status, contentType: TEXT, body: `${message}\n`, headers: NOSNIFF };
}

/** Go's html.EscapeString, used by Knative when echoing an unknown path. */
export function escapeHtml(s: string): string {
  return s.replace(/[&'<>"]/g, (c) => (c === "&" ? "&amp;" : c === "'" ? "&#39;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#34;"));
}

/**
 * 415 unless the header is exactly `application/json` (knative.dev/pkg webhook/webhook.go: (*Webhook).ServeHTTP);
 * undefined when it is.
 */
export function contentTypeRejection(contentType: string | undefined): HttpAnswer | undefined {
  if (contentType === JSON_CONTENT_TYPE) return undefined;
  return goHttpError(415, "invalid Content-Type, want `application/json`");
}

/**
 * Go's ServeMux answers a request whose escaped path it would clean (`//defaulting`, `/a/../defaulting`) with a
 * redirect to the clean path, the query kept, before any handler runs (golang/go src/net/http/server.go:
 * ServeMux.findHandler, Redirect, hexEscapeNonASCII): a GET or HEAD gets `text/html`, a GET also a one-link
 * body, any other method neither. `target` is the request-target as sent (path and query, still escaped).
 * Undefined when the path is clean.
 */
export function redirectOfUncleanPath(target: string, profile: KnativeProfile, method = "POST"): HttpAnswer | undefined {
  const q = target.indexOf("?");
  const escaped = requestEscapedPath(q === -1 ? target : target.slice(0, q));
  const clean = muxCleanPath(escaped);
  if (clean === escaped) return undefined;
  const status = profile.toolchain.cleanPathRedirectStatus;
  // Redirect cleans the URL's path again, which a clean path survives unchanged.
  const url = pathQueryString(clean, q === -1 ? "" : target.slice(q + 1));
  // hexEscapeNonASCII: each byte from 0x80 as `%` and its lowercase hex (strconv.AppendInt base 16).
  const location = url.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
  if (method !== "GET" && method !== "HEAD") return { status, contentType: "", body: "", location };
  const body = method === "GET" ? `<a href="${escapeHtml(url)}">${status === 301 ? "Moved Permanently" : "Temporary Redirect"}</a>.\n\n` : "";
  return { status, contentType: "text/html; charset=utf-8", body, location };
}

export function unknownPathRejection(path: string): HttpAnswer {
  return goHttpError(400, `no controller registered for: ${escapeHtml(path)}`);
}

/**
 * A body over MAX_BODY_BYTES. Knative 1.17 had no limit: Duckbill answers 413, which says it precisely; from 1.23
 * knative.dev/pkg's webhook reads the body through http.MaxBytesReader and answers 400 with the decode error.
 */
export function bodyTooLargeRejection(profile: KnativeProfile = PROFILES[DEFAULT_KNATIVE_VERSION]): HttpAnswer {
  return goHttpError(profile.bodyTooLargeStatus, "could not decode body:http: request body too large");
}

/** The request part of the HTTP exchange: path without query, Content-Type header, raw body. */
export interface HttpInput {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: Buffer | string;
}

/**
 * Everything Knative's webhook does with one HTTP request after probe handling: Content-Type check, body
 * limit, path mux, decode, admit, encode (knative.dev/pkg webhook/webhook.go: (*Webhook).ServeHTTP,
 * webhook/admission.go: admissionHandler; docs/knative-behavior.md#envelope-and-http).
 */
export async function answerHttp(input: HttpInput, deps: AdmissionDeps, env: RequestEnv): Promise<HttpAnswer> {
  const rejected = envelopeRejection(input.contentType, input.path, input.path, env.config.profile, "POST");
  if (rejected !== undefined) return rejected;
  if (Buffer.byteLength(input.body) > MAX_BODY_BYTES) return bodyTooLargeRejection(env.config.profile);
  return answerReview(input.path as AdmissionPath, input.body, deps, env);
}

/**
 * What Knative's webhook answers before reading a body, once probes are answered: Content-Type (415), then Go's
 * mux on the path (a path ServeMux would clean is redirected, any other unknown one is Knative's 400). `url` is the
 * request target as sent (the redirect keeps its query), `path` its path as the mux sees it. The server's onRequest
 * hook (server/request-checks.ts) and `admit` (answerHttp) both ask this; undefined lets the request through to an
 * admission path.
 */
export function envelopeRejection(contentType: string | undefined, url: string, path: string, profile: KnativeProfile, method: string): HttpAnswer | undefined {
  return contentTypeRejection(contentType) ?? (isAdmissionPath(path) ? undefined : (redirectOfUncleanPath(url, profile, method) ?? unknownPathRejection(path)));
}

const REQUEST_OBJECT = ["request", "object"] as const;

/** Decodes and answers an AdmissionReview body sent to one of the three admission paths. */
export async function answerReview(path: AdmissionPath, body: Buffer | string, deps: AdmissionDeps, env: RequestEnv): Promise<HttpAnswer> {
  const parsed = decodeFirstJsonValue(body);
  if (!parsed.ok) return goHttpError(400, `could not decode body:${parsed.error}`);
  const decoded = decodeAdmissionReview(parsed.value, env.config.profile, () => rawMemberText(body, REQUEST_OBJECT));
  if (!decoded.ok) return goHttpError(400, `could not decode body:${decoded.error}`);
  const review = decoded.review;
  if (review.request === undefined) {
    // Knative dereferences the missing request and drops the connection; a clear 400 serves callers better.
    return goHttpError(400, "could not decode body:AdmissionReview.request must be set");
  }
  const request = review.request;
  // decodeFirstJsonValue already gave every string Go's decoding: the object decoders need not check again; nor look
  // for repeated keys where the body repeats none.
  const repeatedKeys = mayRepeatKeys(parsed.value);
  const numberLiterals = mayHoldNumberLiterals(parsed.value);
  markGoStrings(request.object, repeatedKeys, numberLiterals);
  markGoStrings(request.oldObject, repeatedKeys, numberLiterals);
  const type = webhookTypeOf(path);
  let decision: Decision;
  if (path === "/defaulting") decision = admitDefaulting(request, deps, env);
  else if (path === "/resource-validation") decision = await admitValidation(request, deps, env);
  else decision = admitConfigMap(request, deps, env);
  const patchText = patchTextOf(decision);
  const response = toAdmissionResponse(request.uid, decision, patchText);
  // TypeMeta is copied verbatim; Go omits empty strings (omitempty). json.Encoder.Encode ends the value with a newline.
  const answer = encodeReviewAnswer(review.kind, review.apiVersion, response) + "\n";
  const admission: AdmittedSummary = decision.scopeDenials === undefined ? { request, response, type, patchText } : { request, response, type, patchText, scopeDenials: decision.scopeDenials };
  return { status: 200, contentType: REVIEW_CONTENT_TYPE, body: answer, admission };
}
