import type { IncomingHttpHeaders } from "node:http";
import { goHttpError, type HttpAnswer } from "../admission/http.js";
import type { Drainer } from "./drain.js";

/**
 * What Knative's handler chain decides before any body is read, for every request: probes (knative.dev/pkg
 * network/handlers/drain.go: (*Drainer).ServeHTTP), then Content-Type and the mux (knative.dev/pkg
 * webhook/webhook.go: (*Webhook).ServeHTTP; golang/go src/net/http/server.go: ServeMux.Handler). The one onRequest
 * hook of the Fastify app (fastify-app.ts) runs these; a request they let through is an admission request.
 */

/** The request target's path as Go's mux sees it: the query dropped, percent-decoded (as written when it cannot be). */
export function requestPath(url: string): string {
  const q = url.indexOf("?");
  const raw = q === -1 ? url : url.slice(0, q);
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The answer to a probe (any path, any method): 503 while draining or not ready, else an empty 200 (no
 * Content-Type, as Go writes a bare WriteHeader). Undefined: not a probe.
 */
export function probeAnswer(headers: IncomingHttpHeaders, drainer: Drainer, notReadyReason: (() => string | undefined) | undefined): HttpAnswer | undefined {
  const ua = headers["user-agent"];
  if (typeof ua === "string" && ua.startsWith("kube-probe/")) {
    if (drainer.isDraining) return goHttpError(503, "shutting down");
    const reason = notReadyReason?.();
    if (reason !== undefined) return goHttpError(503, reason);
    return { status: 200, contentType: "", body: "" };
  }
  if (headers["k-network-probe"] === "probe") {
    if (drainer.isDraining) return goHttpError(503, "shutting down");
    const hash = headers["k-network-hash"];
    if (typeof hash !== "string" || hash === "") return goHttpError(400, 'a probe request must contain a non-empty "K-Network-Hash" header');
    return { status: 200, contentType: "", body: "", headers: { "K-Network-Hash": hash } };
  }
  return undefined;
}
