/**
 * Everything the admission fast path does not claim (docs/adr/0007): kubelet and Knative network probes,
 * Content-Type and unknown-path rejections, body errors, and admission requests the fast path leaves alone
 * (a percent-encoded path, which Go's mux decodes too). A Fastify instance that routes requests of the server
 * app.ts created and listens with; it is built after the server listens (see createWebhookServer), because
 * loading Fastify is a third of the webhook's startup and none of it is needed to answer an AdmissionReview.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { ADMISSION_PATHS, bodyTooLargeRejection, contentTypeRejection, isAdmissionPath, MAX_BODY_BYTES, redirectOfUncleanPath, unknownPathRejection, type HttpAnswer } from "../admission/http.js";
import { DEFAULT_KNATIVE_VERSION, PROFILES, type KnativeProfile } from "../config/profile.js";
import type { AdmissionFastPath } from "./admission-fast-path.js";
import type { Drainer } from "./drain.js";
import type { WebhookMetrics } from "./metrics.js";

export interface FallbackOptions {
  readonly server: Server;
  readonly fastPath: AdmissionFastPath;
  readonly drainer: Drainer;
  readonly logger: Logger;
  readonly metrics?: WebhookMetrics;
  readonly notReadyReason?: () => string | undefined;
  /** The Knative release answered as now (for the envelope: ServeMux's redirect status). */
  readonly profile?: () => KnativeProfile;
}

export interface FallbackApp {
  readonly app: FastifyInstance;
  /** Fastify's request handler, for requests of `server`. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
}

const START = Symbol("duckbill.start");
type TimedRequest = FastifyRequest & { [START]?: bigint };

function pathOf(url: string): string {
  const q = url.indexOf("?");
  const raw = q === -1 ? url : url.slice(0, q);
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function send(reply: FastifyReply, a: HttpAnswer): FastifyReply {
  if (a.location !== undefined) void reply.header("location", a.location);
  return reply.code(a.status).type(a.contentType).send(a.body);
}

const TEXT = "text/plain; charset=utf-8";

/** Builds the Fastify instance around `server` (which it neither listens with nor closes) and readies it. */
export async function buildFallbackApp(o: FallbackOptions): Promise<FallbackApp> {
  const { drainer, fastPath, logger, metrics } = o;
  let handle: FallbackApp["handle"] | undefined;
  const serverFactory = (handler: FallbackApp["handle"]): Server => {
    handle = handler;
    return o.server;
  };
  const app = Fastify({ serverFactory, bodyLimit: MAX_BODY_BYTES }) as unknown as FastifyInstance;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));

  // Probes and envelope checks run before the body is read (Knative's handler chain order: knative.dev/pkg
  // webhook/webhook.go: (*Webhook).Run; docs/knative-behavior.md#handler-chain).
  app.addHook("onRequest", (request: TimedRequest, reply, done) => {
    request[START] = process.hrtime.bigint();
    const ua = request.headers["user-agent"];
    if (typeof ua === "string" && ua.startsWith("kube-probe/")) {
      if (drainer.isDraining) return void send(reply, { status: 503, contentType: TEXT, body: "shutting down\n" });
      const reason = o.notReadyReason?.();
      if (reason !== undefined) return void send(reply, { status: 503, contentType: TEXT, body: `${reason}\n` });
      return void reply.code(200).send();
    }
    if (request.headers["k-network-probe"] === "probe") {
      if (drainer.isDraining) return void send(reply, { status: 503, contentType: TEXT, body: "shutting down\n" });
      const hash = request.headers["k-network-hash"];
      if (typeof hash !== "string" || hash === "") {
        return void send(reply, { status: 400, contentType: TEXT, body: 'a probe request must contain a non-empty "K-Network-Hash" header\n' });
      }
      return void reply.code(200).header("K-Network-Hash", hash).send();
    }
    drainer.touch();
    const path = pathOf(request.url);
    const rejected =
      contentTypeRejection(request.headers["content-type"]) ??
      (isAdmissionPath(path) ? undefined : (redirectOfUncleanPath(path, o.profile?.() ?? PROFILES[DEFAULT_KNATIVE_VERSION]) ?? unknownPathRejection(path)));
    if (rejected !== undefined) {
      metrics?.observeRejection(isAdmissionPath(path) ? path : "other", rejected.status);
      return void send(reply, rejected);
    }
    done();
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, request, reply) => {
    const path = pathOf(request.url);
    let answer: HttpAnswer;
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") answer = bodyTooLargeRejection();
    else if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      answer = { status: 400, contentType: TEXT, body: `could not decode body:${err.message}\n` };
    } else {
      logger.error({ err, path }, "internal error while answering a request");
      answer = { status: 500, contentType: TEXT, body: "internal error\n" };
    }
    metrics?.observeRejection(isAdmissionPath(path) ? path : "other", answer.status);
    void send(reply, answer);
  });

  // Admission requests the fast path did not claim: the body is read by Fastify, the answer written by the same code.
  const handler = async (request: TimedRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const path = pathOf(request.url);
    if (!isAdmissionPath(path)) return send(reply, unknownPathRejection(path));
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    reply.hijack();
    await fastPath.respond(path, body, reply.raw, request[START] ?? process.hrtime.bigint());
    return reply;
  };
  // Go's mux matches any method; the body decides.
  for (const url of ADMISSION_PATHS) app.route({ method: ["POST", "PUT", "PATCH", "GET", "DELETE"], url, handler });
  app.setNotFoundHandler((request, reply) => {
    void send(reply, unknownPathRejection(pathOf(request.url)));
  });

  await app.ready();
  if (handle === undefined) throw new Error("Fastify did not call the server factory");
  return { app, handle };
}
