/**
 * The webhook's one request pipeline (docs/adr/0007): a Fastify instance that routes every request of the server
 * app.ts created and listens with (`serverFactory`; Fastify neither listens nor closes it). One onRequest hook
 * answers what Knative's handler chain answers before reading a body (request-checks.ts: probes, client
 * certificates, Content-Type, the mux); the three admission paths are routes whose body comes from the one body
 * reader (body-reader.ts, registered as the `application/json` content-type parser) and whose handler answers
 * the AdmissionReview (admission-answer.ts). No schemas, no other hooks, no Fastify logger.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { METHODS } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { ADMISSION_PATHS, bodyTooLargeRejection, goHttpError, isAdmissionPath, JSON_CONTENT_TYPE, unknownPathRejection, type AdmissionPath, type HttpAnswer, envelopeRejection } from "../admission/http.js";
import type { AdmissionDeps, GatedUsageView, NamespaceLabelsView } from "../admission/deps.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { answerAdmission, sendAnswer } from "./admission-answer.js";
import type { BodyBudget } from "./body-budget.js";
import { BodyRefusal, bodyReader, busyRejection, http2Timeout, refuseAndDiscard, type RawRequest, type ReadBody } from "./body-reader.js";
import type { Drainer } from "./drain.js";
import { rejectionLogFields } from "./log-fields.js";
import type { WebhookMetrics } from "./metrics.js";
import { probeAnswer, requestPath } from "./request-checks.js";
import { CLIENT_CERT_REQUIRED, clientRefusal } from "./tls-policy.js";

export interface WebhookAppOptions {
  readonly server: Server;
  readonly deps: AdmissionDeps;
  /** The configuration snapshot in effect now (its profile: the Knative release answered as). */
  readonly config: () => ConfigSnapshot;
  readonly gatedUsage?: GatedUsageView;
  readonly namespaces?: NamespaceLabelsView;
  readonly drainer: Drainer;
  readonly logger: Logger;
  readonly metrics?: WebhookMetrics;
  readonly notReadyReason?: () => string | undefined;
  /** `--client-ca`: requests without a verified client certificate get 403, probes excepted. */
  readonly clientAuth: boolean;
  readonly bodyBudget?: BodyBudget;
  /** `--request-timeout`, enforced by the body reader for HTTP/2 (0: none). */
  readonly http2RequestTimeoutMs: number;
}

export interface WebhookApp {
  readonly app: FastifyInstance;
  /** Fastify's request handler, for requests of `server`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
}

declare module "fastify" {
  interface FastifyRequest {
    /** performance.now() when the request's headers were read (the onRequest hook), for latencyMicros. */
    startedAt: number;
  }
}

/**
 * A request Node's parser could not read (the server's `clientError`), answered in the form Go's server answers one
 * it cannot read (golang/go src/net/http/server.go: (*conn).serve, errorHeaders): the status line, plain text,
 * `Connection: close`, the status as the body, then the connection closes. 431 for headers over the limit, 408 for
 * headers or a body that did not arrive within the timeouts (Go closes without a word there; a status line says
 * why), 400 for anything else (without the reason Go sometimes appends: Node's parser does not give Go's).
 */
function unreadableRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const status = err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : "400 Bad Request";
  if (socket.writable) socket.write(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`);
  socket.destroy(err);
}

/** The metric label of a request's path: one of the three, or "other" (clients cannot grow the label set). */
function pathLabel(path: string): string {
  return isAdmissionPath(path) ? path : "other";
}

/** Builds the Fastify instance around `server` and readies it. */
export async function buildWebhookApp(o: WebhookAppOptions): Promise<WebhookApp> {
  const { drainer, logger, metrics } = o;
  let handle: WebhookApp["handle"] | undefined;
  const serverFactory = (handler: WebhookApp["handle"]): Server => {
    handle = handler;
    return o.server;
  };
  // No Fastify logger (pino is the webhook's: one line per request, admission-answer.ts) and no request logging.
  const logController = new LogController({ disableRequestLogging: true });
  const app = Fastify({ serverFactory, logController, exposeHeadRoutes: false, clientErrorHandler: unreadableRequest }) as unknown as FastifyInstance;

  // Go's mux matches any method and the handler reads the body whatever the method: every method Node parses has
  // a body here (CONNECT never reaches a request handler).
  for (const method of METHODS) if (method !== "CONNECT") app.addHttpMethod(method, { hasBody: true, overrideExisting: true });

  app.removeAllContentTypeParsers();
  const readBody = bodyReader({ bodyBudget: o.bodyBudget, http2RequestTimeoutMs: o.http2RequestTimeoutMs });
  // Only `application/json` gets this far: the onRequest hook answered every other Content-Type with 415.
  app.addContentTypeParser(JSON_CONTENT_TYPE, (_request, payload, done) => readBody(payload as RawRequest, done as (err: BodyRefusal | null, body?: ReadBody) => void));

  app.decorateRequest("startedAt", 0);
  // Knative's handler chain before the body is read (request-checks.ts), in its order: probes, then the client
  // certificate (--client-ca), then Content-Type and the mux.
  app.addHook("onRequest", (request, reply, done) => {
    request.startedAt = performance.now();
    const headers = request.headers;
    const probe = probeAnswer(headers, drainer, o.notReadyReason);
    if (probe !== undefined) return sendAnswer(reply, probe);
    const path = requestPath(request.url);
    const refused = o.clientAuth && clientRefusal(request.raw.socket);
    // A refused client does not hold the drain open; every other request does, answered or not.
    if (!refused) drainer.touch();
    const rejected = refused ? goHttpError(403, CLIENT_CERT_REQUIRED) : envelopeRejection(headers["content-type"], request.url, path, o.config().profile, request.method);
    if (rejected !== undefined) {
      metrics?.observeRejection(pathLabel(path), rejected.status);
      return sendAnswer(reply, rejected);
    }
    done();
  });

  const answerOptions = { deps: o.deps, config: o.config, gatedUsage: o.gatedUsage, namespaces: o.namespaces, logger, metrics };
  const admit = (path: AdmissionPath, request: FastifyRequest, reply: FastifyReply): void => {
    const body = request.body as ReadBody | undefined;
    void answerAdmission(answerOptions, path, body?.bytes ?? EMPTY, reply, request.startedAt, body?.release ?? NOTHING_HELD);
  };
  for (const path of ADMISSION_PATHS) app.all(path, (request, reply) => admit(path, request, reply));
  // Fastify's router decodes less than Go's mux does; whatever reaches here passed the onRequest hook, which
  // lets through only the three paths as Go's mux sees them.
  app.setNotFoundHandler((request, reply) => {
    const path = requestPath(request.url);
    if (isAdmissionPath(path)) return admit(path, request, reply);
    sendAnswer(reply, unknownPathRejection(path));
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, request, reply) => {
    const path = pathLabel(requestPath(request.url));
    if (err instanceof BodyRefusal) {
      reply.hijack();
      if (err.reason === "aborted") return;
      if (err.reason === "timeout") {
        metrics?.observeRejection(path, 408);
        return http2Timeout(reply.raw);
      }
      // As the release answers it (1.17: 413; 1.23 and later: 400 with http.MaxBytesReader's error).
      const answer = err.reason === "busy" ? busyRejection() : bodyTooLargeRejection(o.config().profile);
      metrics?.observeRejection(path, answer.status);
      logger.info(rejectionLogFields(path, answer.status, answer.body, undefined), "rejected");
      return refuseAndDiscard(request.raw, reply.raw, answer);
    }
    let answer: HttpAnswer;
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      answer = goHttpError(400, `could not decode body:${err.message}`);
    } else {
      logger.error({ err, path }, "internal error while answering a request");
      answer = goHttpError(500, "internal error");
    }
    metrics?.observeRejection(path, answer.status);
    sendAnswer(reply, answer);
  });

  await app.ready();
  if (handle === undefined) throw new Error("Fastify did not call the server factory");
  return { app, handle };
}

const EMPTY = Buffer.alloc(0);
const NOTHING_HELD = (): void => undefined;
