import type { AdmittedSummary } from "../admission/http.js";

/**
 * The fields of the per-request log lines, each cut to a bound so every request leaves a line of bounded size:
 * a 3 MiB name once made a 3.1 MB line, and a 53 MB denial line was dropped whole by the log backlog bound,
 * leaving no trace of the request. A cut value ends with `…` and the line says `truncated: true`.
 */
export const MAX_LOGGED_NAME_CHARS = 256;
/** The denial text: long enough for every real denial (a few lines), bounded for the hostile ones. */
export const MAX_LOGGED_MESSAGE_CHARS = 4096;

/** `s` cut to `max` UTF-16 units (not inside a surrogate pair) and marked, or `s`. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${s.slice(0, end)}… (${s.length} chars)`;
}

function clipped(s: string | undefined, max: number, cut: { any: boolean }): string | undefined {
  if (s === undefined || s.length <= max) return s;
  cut.any = true;
  return clip(s, max);
}

/** The `admission` line: uid, webhook, kind, namespace/name, operation, user, decision, latency. */
export function admissionLogFields(a: AdmittedSummary, latencyMicros: number): Record<string, unknown> {
  const rq = a.request;
  const cut = { any: false };
  const fields: Record<string, unknown> = {
    uid: clipped(rq.uid, MAX_LOGGED_NAME_CHARS, cut),
    webhook: a.type,
    kind: clipped(`${rq.kind.group}/${rq.kind.version}/${rq.kind.kind}`, MAX_LOGGED_NAME_CHARS, cut),
    namespace: clipped(rq.namespace, MAX_LOGGED_NAME_CHARS, cut),
    name: clipped(rq.name, MAX_LOGGED_NAME_CHARS, cut),
    operation: clipped(rq.operation, MAX_LOGGED_NAME_CHARS, cut),
    subresource: clipped(rq.subResource || undefined, MAX_LOGGED_NAME_CHARS, cut),
    user: clipped(rq.userInfo.username, MAX_LOGGED_NAME_CHARS, cut),
    allowed: a.response.allowed,
    denial: clipped(a.response.status?.message, MAX_LOGGED_MESSAGE_CHARS, cut),
    warnings: a.response.warnings?.length,
    latencyMicros,
  };
  if (cut.any) fields.truncated = true;
  return fields;
}

/** The `rejected` line of an HTTP-level refusal (400, 413, 415, 429, 500). */
export function rejectionLogFields(path: string, status: number, body: string, latencyMicros: number | undefined): Record<string, unknown> {
  const cut = { any: false };
  const fields: Record<string, unknown> = { path: clipped(path, MAX_LOGGED_NAME_CHARS, cut), status, reason: clipped(body.trimEnd(), MAX_LOGGED_MESSAGE_CHARS, cut), latencyMicros };
  if (cut.any) fields.truncated = true;
  return fields;
}
