import type { IncomingMessage, ServerResponse } from "node:http";
import { constants as http2Constants, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { Logger } from "pino";
import type { AdmissionDeps, GatedUsageView, RequestEnv } from "../admission/deps.js";
import { answerReview, bodyTooLargeRejection, isAdmissionPath, JSON_CONTENT_TYPE, MAX_BODY_BYTES, type AdmissionPath, type HttpAnswer } from "../admission/http.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import type { BodyBudget } from "./body-budget.js";
import type { Drainer } from "./drain.js";
import { releaseAfterBody } from "./heap-release.js";
import { admissionLogFields, rejectionLogFields } from "./log-fields.js";
import type { WebhookMetrics } from "./metrics.js";

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

export interface FastPathOptions {
  readonly deps: AdmissionDeps;
  readonly config: () => ConfigSnapshot;
  readonly logger: Logger;
  readonly metrics?: WebhookMetrics;
  readonly drainer: Drainer;
  /**
   * `--request-timeout` for HTTP/2 bodies: Node applies the server's request timeout to HTTP/1 only, so an
   * HTTP/2 stream whose body trickles forever would otherwise stay open (0: no limit).
   */
  readonly http2RequestTimeoutMs?: number;
  /** `--impact-warnings`: the usage index handed to every request's env (absent: no impact warnings). */
  readonly gatedUsage?: GatedUsageView;
  /** `--max-buffered-bytes`: the bound on body bytes held at once (absent: no bound but each body's). */
  readonly bodyBudget?: BodyBudget;
}

/**
 * After a 413 or 429 answer, the rest of the body is read and discarded, up to this many bytes, before the
 * connection closes: closing a socket the client is still writing to makes the kernel reset it, and the reset
 * can discard the answer before the client reads it (Go's client then reports `write: broken pipe` instead of
 * the 413). Go's server does the same for small remainders and lingers before closing
 * (net/http/server.go: maxPostHandlerReadBytes, closeWriteAndWait).
 */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;

const RETRY_AFTER_SECONDS = 1;

/**
 * The admission path `url` names (its query dropped and, as Go's mux sees it, percent-decoded), or undefined.
 */
export function admissionPathOf(url: string): AdmissionPath | undefined {
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  if (path.includes("%")) {
    try {
      path = decodeURIComponent(path);
    } catch {
      return undefined;
    }
  }
  return isAdmissionPath(path) ? path : undefined;
}

/**
 * The admission requests the API server sends (a POST of JSON to one of the three paths, no probe headers) are
 * answered here, straight from the Node request, without Fastify's routing, hooks and reply objects: they are
 * nearly every request the webhook sees, and that pipeline cost 15-25 % of the CPU per request (bench/README.md,
 * docs/adr/0007). Everything else (probes, envelope rejections, unknown paths) returns false and goes to Fastify.
 */
export class AdmissionFastPath {
  constructor(private readonly o: FastPathOptions) {}

  /** Claims the request when it is a plain admission request; false leaves it to Fastify untouched. */
  tryHandle(req: Req, res: Res): boolean {
    const h = req.headers;
    if (h["content-type"] !== JSON_CONTENT_TYPE || h["k-network-probe"] !== undefined) return false;
    const ua = h["user-agent"];
    if (typeof ua === "string" && ua.startsWith("kube-probe/")) return false;
    const path = admissionPathOf(req.url ?? "");
    if (path === undefined) return false;
    const started = process.hrtime.bigint();
    this.o.drainer.touch();
    const declared = Number(h["content-length"] ?? -1);
    let done = false;
    let discarded = 0;
    let chunks: Buffer[] = [];
    let size = 0;
    const refuse = (answer: HttpAnswer): void => {
      done = true;
      chunks = [];
      this.refuseAndDiscard(req, res, path, answer);
    };
    if (declared > MAX_BODY_BYTES) {
      refuse(bodyTooLargeRejection(this.o.config().profile));
    }
    const reservation = done ? undefined : this.o.bodyBudget?.open(() => {
      if (!done) refuse(busyRejection());
    });
    // Given back once the answer is written or the connection is gone, whichever comes first.
    if (reservation !== undefined) res.once("close", reservation.release);
    const onData = (c: Buffer): void => {
      if (done) {
        // The rest of a refused body: read and dropped, up to a bound (MAX_DISCARDED_BODY_BYTES).
        discarded += c.length;
        if (discarded > MAX_DISCARDED_BODY_BYTES) req.socket?.destroy();
        return;
      }
      size += c.length;
      if (size > MAX_BODY_BYTES) return refuse(bodyTooLargeRejection(this.o.config().profile));
      if (reservation !== undefined && !reservation.grow(c.length)) return refuse(busyRejection());
      chunks.push(c);
    };
    req.on("data", onData);
    const limitMs = this.o.http2RequestTimeoutMs ?? 0;
    const timer =
      limitMs > 0 && req.httpVersionMajor === 2
        ? setTimeout(() => {
            if (done) return;
            done = true;
            this.o.metrics?.observeRejection(path, 408);
            const stream = (res as Http2ServerResponse).stream;
            const body = "request timeout: the body did not arrive within --request-timeout\n";
            (res as Http2ServerResponse).writeHead(408, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body) });
            // Then RST_STREAM(NO_ERROR): the client is told to stop sending the body (RFC 9113 §8.1).
            (res as Http2ServerResponse).end(body, () => stream.close(http2Constants.NGHTTP2_NO_ERROR));
          }, limitMs)
        : undefined;
    req.on("end", () => {
      if (timer !== undefined) clearTimeout(timer);
      if (done) {
        // A refused body has been read to its end: the answer, already written, is complete now.
        if (!res.writableEnded) res.end();
        return;
      }
      done = true;
      reservation?.complete();
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      chunks = [];
      void this.respond(path, body, res, started).then(() => releaseAfterBody(size));
    });
    // A client that goes away mid-body gets no answer; nothing is left behind.
    req.on("error", () => {
      if (timer !== undefined) clearTimeout(timer);
      done = true;
      chunks = [];
      reservation?.release();
    });
    res.on("error", () => undefined);
    return true;
  }

  /** Answers a whole body read for `path`: admission, log line, metric, response. Never rejects. */
  async respond(path: AdmissionPath, body: Buffer, res: Res, started: bigint): Promise<void> {
    const { deps, logger, metrics } = this.o;
    let answer: HttpAnswer;
    try {
      const env: RequestEnv = { config: this.o.config(), gatedUsage: this.o.gatedUsage };
      answer = await answerReview(path, body, deps, env);
    } catch (err) {
      this.internalError(err, path, res);
      return;
    }
    const micros = Number((process.hrtime.bigint() - started) / 1000n);
    // The answer goes out first: the API server is waiting for it, the metric and the log line are not.
    send(res, answer, false);
    const a = answer.admission;
    if (a !== undefined) {
      metrics?.observeAdmission(a, micros / 1e6, path);
      logger.info(admissionLogFields(a, micros), "admission");
    } else {
      metrics?.observeRejection(path, answer.status);
      logger.info(rejectionLogFields(path, answer.status, answer.body, micros), "rejected");
    }
  }

  /**
   * Answers a request whose body is not wanted (413, 429) at once, with `Connection: close`. Over HTTP/1 the
   * answer is written but not ended: the rest of the body is read and dropped (onData) and the response ends,
   * closing the connection, when the body does (or the request timeout ends the connection). HTTP/2 ends the
   * stream at once; the session stays up.
   */
  private refuseAndDiscard(req: Req, res: Res, path: AdmissionPath, answer: HttpAnswer): void {
    this.o.metrics?.observeRejection(path, answer.status);
    this.o.logger.info(rejectionLogFields(path, answer.status, answer.body, undefined), "rejected");
    if (res.headersSent || res.writableEnded || res.destroyed) return;
    const headers: Record<string, string | number> = { "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body) };
    if (answer.status === 429) headers["retry-after"] = RETRY_AFTER_SECONDS;
    if (req.httpVersionMajor !== 1 || req.complete) {
      send(res, answer, true, headers);
      return;
    }
    headers.connection = "close";
    (res as ServerResponse).writeHead(answer.status, headers);
    (res as ServerResponse).write(answer.body);
  }

  private internalError(err: unknown, path: AdmissionPath, res: Res): void {
    this.o.logger.error({ err, path }, "internal error while answering a request");
    this.o.metrics?.observeRejection(path, 500);
    send(res, { status: 500, contentType: "text/plain; charset=utf-8", body: "internal error\n" }, false);
  }
}

/** 429: the server holds as many body bytes as --max-buffered-bytes allows (server/body-budget.ts). */
export function busyRejection(): HttpAnswer {
  return { status: 429, contentType: "text/plain; charset=utf-8", body: "too many request bodies arriving at once: retry later\n" };
}

function send(res: Res, a: HttpAnswer, close: boolean, extraHeaders?: Record<string, string | number>): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const headers: Record<string, string | number> = extraHeaders ?? { "content-type": a.contentType, "content-length": Buffer.byteLength(a.body) };
  // `Connection` is an HTTP/1 header; HTTP/2 ends the stream instead.
  if (close && (res as ServerResponse).req?.httpVersionMajor === 1) headers.connection = "close";
  (res as ServerResponse).writeHead(a.status, headers);
  (res as ServerResponse).end(a.body);
}
