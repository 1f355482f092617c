import { createServer as createHttpsServer } from "node:https";
import { createSecureServer } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import {
  ADMISSION_PATHS,
  bodyTooLargeRejection,
  contentTypeRejection,
  isAdmissionPath,
  MAX_BODY_BYTES,
  unknownPathRejection,
  type HttpAnswer,
} from "../admission/http.js";
import type { AdmissionDeps } from "../admission/deps.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { AdmissionFastPath } from "./admission-fast-path.js";
import { Drainer } from "./drain.js";
import type { WebhookMetrics } from "./metrics.js";
import { rotatedContextOptions, serverTlsOptions, type TlsOptions } from "./tls-policy.js";

export type { TlsOptions } from "./tls-policy.js";

export interface WebhookServerOptions {
  tls: TlsOptions;
  deps: AdmissionDeps;
  /** The configuration snapshot in effect now; read once per request. */
  config: () => ConfigSnapshot;
  logger: Logger;
  metrics?: WebhookMetrics;
  /** Quiet period before closing after SIGTERM (Knative: 45 s). */
  drainQuietPeriodMs: number;
  /** HTTP/2 with HTTP/1.1 fallback; off by default as in Knative. */
  http2?: boolean;
  /** Undefined when ready; otherwise why not (readiness probes then get 503 with that text). */
  notReadyReason?: () => string | undefined;
  /** Bound on how long one request (headers and body) may take to arrive (default 30 s). */
  requestTimeoutMs?: number;
  /** Bound on how long the request headers may take to arrive (default 10 s, at most requestTimeoutMs). */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (default 75 s). */
  keepAliveTimeoutMs?: number;
  /** Concurrent connections accepted; 0 = no limit (default 0). */
  maxConnections?: number;
}

export interface WebhookServer {
  readonly app: FastifyInstance;
  readonly drainer: Drainer;
  /** Replaces the serving certificate for new handshakes without dropping connections. */
  setTls(tls: Pick<TlsOptions, "key" | "cert">): void;
  listen(port: number, host: string): Promise<{ port: number }>;
  /** Fails probes at once, waits for the quiet period, then closes (in-flight requests finish). */
  drainAndClose(): Promise<void>;
  close(): Promise<void>;
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
  return reply.code(a.status).type(a.contentType).send(a.body);
}

/** The HTTPS admission server (spec §1.2, §1.10): probes, Content-Type, body limit, mux, drain. */
export function createWebhookServer(opts: WebhookServerOptions): WebhookServer {
  const { deps, logger, metrics } = opts;
  const drainer = new Drainer(opts.drainQuietPeriodMs);
  const requestTimeout = opts.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(opts.headersTimeoutMs ?? 10_000, requestTimeout === 0 ? Infinity : requestTimeout);
  const keepAliveTimeout = opts.keepAliveTimeoutMs ?? 75_000;
  const fastPath = new AdmissionFastPath({ deps, config: opts.config, logger, metrics, drainer });
  const tlsOptions = serverTlsOptions(opts.tls);
  // Fastify owns the server's life cycle and everything but plain admission requests, which the fast path answers
  // before Fastify's routing (docs/adr/0007).
  const serverFactory = (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      if (!fastPath.tryHandle(req, res)) handler(req, res);
    };
    const server = opts.http2 === true ? createSecureServer({ ...tlsOptions, allowHTTP1: true }, onRequest as never) : createHttpsServer(tlsOptions, onRequest);
    const s = server as unknown as { requestTimeout?: number; headersTimeout?: number; keepAliveTimeout?: number; maxConnections?: number };
    s.requestTimeout = requestTimeout;
    s.headersTimeout = headersTimeout;
    s.keepAliveTimeout = keepAliveTimeout;
    if ((opts.maxConnections ?? 0) > 0) s.maxConnections = opts.maxConnections;
    return server as unknown as import("node:http").Server;
  };
  const app = Fastify({ serverFactory, bodyLimit: MAX_BODY_BYTES, requestTimeout, keepAliveTimeout }) as unknown as FastifyInstance;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));

  // Probes and envelope checks run before the body is read (Knative's handler chain order, spec §1.2).
  app.addHook("onRequest", (request: TimedRequest, reply, done) => {
    request[START] = process.hrtime.bigint();
    const ua = request.headers["user-agent"];
    if (typeof ua === "string" && ua.startsWith("kube-probe/")) {
      if (drainer.isDraining) return void send(reply, { status: 503, contentType: "text/plain; charset=utf-8", body: "shutting down\n" });
      const reason = opts.notReadyReason?.();
      if (reason !== undefined) return void send(reply, { status: 503, contentType: "text/plain; charset=utf-8", body: `${reason}\n` });
      return void reply.code(200).send();
    }
    if (request.headers["k-network-probe"] === "probe") {
      if (drainer.isDraining) return void send(reply, { status: 503, contentType: "text/plain; charset=utf-8", body: "shutting down\n" });
      const hash = request.headers["k-network-hash"];
      if (typeof hash !== "string" || hash === "") {
        return void send(reply, { status: 400, contentType: "text/plain; charset=utf-8", body: 'a probe request must contain a non-empty "K-Network-Hash" header\n' });
      }
      return void reply.code(200).header("K-Network-Hash", hash).send();
    }
    drainer.touch();
    const path = pathOf(request.url);
    const rejected = contentTypeRejection(request.headers["content-type"]) ?? (isAdmissionPath(path) ? undefined : unknownPathRejection(path));
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
      answer = { status: 400, contentType: "text/plain; charset=utf-8", body: `could not decode body:${err.message}\n` };
    } else {
      logger.error({ err, path }, "internal error while answering a request");
      answer = { status: 500, contentType: "text/plain; charset=utf-8", body: "internal error\n" };
    }
    metrics?.observeRejection(isAdmissionPath(path) ? path : "other", answer.status);
    void send(reply, answer);
  });

  // Reached only by admission requests the fast path did not claim (e.g. a percent-encoded path, which Go's mux
  // decodes too): the body is read by Fastify, the answer written by the same code.
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

  return {
    app,
    drainer,
    setTls(tls) {
      (app.server as unknown as { setSecureContext(o: object): void }).setSecureContext(rotatedContextOptions(opts.tls, tls));
    },
    async listen(port, host) {
      await app.listen({ port, host });
      const addr = app.server.address();
      return { port: typeof addr === "object" && addr !== null ? addr.port : port };
    },
    async drainAndClose() {
      await drainer.drain();
      await app.close();
    },
    async close() {
      drainer.cancel();
      await app.close();
    },
  };
}
