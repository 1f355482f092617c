/**
 * Helpers for calls made with @kubernetes/client-node's generated API classes: an abortable request option
 * and a one-line description of a failure.
 * Shared by the config store's ConfigMap watch, leader election and the certificate controller.
 */
import { Observable, type ConfigurationOptions, type ObservableMiddleware, type RequestContext, type ResponseContext } from "@kubernetes/client-node";

/** The HTTP status of a client-node ApiException (or a Status-like error), if any. */
export function statusCodeOf(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { statusCode?: unknown; code?: unknown };
  if (typeof e.statusCode === "number") return e.statusCode;
  return typeof e.code === "number" ? e.code : undefined;
}

/** One line for logs: `HTTP <code>: <Status message>` for API errors, the error's text otherwise. */
export function describeApiError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = statusCodeOf(err);
  if (code === undefined) return err.message;
  // client-node's ApiException carries the response body (a Status) and a multi-line message with all headers.
  const body = (err as { body?: unknown }).body;
  let detail = body === undefined ? err.message : typeof body === "string" ? body : JSON.stringify(body);
  try {
    const status = (typeof body === "string" ? JSON.parse(body) : body) as { message?: unknown } | null;
    if (typeof status?.message === "string") detail = status.message;
  } catch {
    // not JSON: keep the raw text
  }
  return `HTTP ${code}: ${detail.length > 300 ? `${detail.slice(0, 300)}…` : detail}`;
}

/** Request options that make a generated-client call abortable (the signal reaches the fetch). */
export function withSignal(signal: AbortSignal): ConfigurationOptions {
  const middleware: ObservableMiddleware = {
    pre: (ctx: RequestContext) => {
      ctx.setSignal(signal);
      return new Observable(Promise.resolve(ctx));
    },
    post: (ctx: ResponseContext) => new Observable(Promise.resolve(ctx)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" };
}
