import type { IncomingMessage, ServerResponse } from "node:http";
import { constants as http2Constants, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import type { Logger } from "pino";
import type { AdmissionDeps, RequestEnv } from "../admission/deps.js";
import { answerReview, bodyTooLargeRejection, isAdmissionPath, JSON_CONTENT_TYPE, MAX_BODY_BYTES, type AdmissionPath, type HttpAnswer } from "../admission/http.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import type { GatedUsageView } from "../serving/gated-usage.js";
import type { Drainer } from "./drain.js";
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
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    if (!isAdmissionPath(path)) return false;
    const started = process.hrtime.bigint();
    this.o.drainer.touch();
    const declared = Number(h["content-length"] ?? -1);
    if (declared > MAX_BODY_BYTES) {
      this.tooLarge(req, res, path);
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (c: Buffer): void => {
      if (done) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        this.tooLarge(req, res, path);
        return;
      }
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
      if (done) return;
      done = true;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      void this.respond(path, body, res, started);
    });
    // A client that goes away mid-body gets no answer; nothing is left behind.
    req.on("error", () => {
      if (timer !== undefined) clearTimeout(timer);
      done = true;
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
      metrics?.observeAdmission(a, micros / 1e6);
      const rq = a.request;
      logger.info(
        {
          uid: rq.uid,
          webhook: a.type,
          kind: `${rq.kind.group}/${rq.kind.version}/${rq.kind.kind}`,
          namespace: rq.namespace,
          name: rq.name,
          operation: rq.operation,
          subresource: rq.subResource || undefined,
          user: rq.userInfo.username,
          allowed: a.response.allowed,
          denial: a.response.status?.message,
          warnings: a.response.warnings?.length,
          latencyMicros: micros,
        },
        "admission",
      );
    } else {
      metrics?.observeRejection(path, answer.status);
      logger.info({ path, status: answer.status, reason: answer.body.trimEnd(), latencyMicros: micros }, "rejected");
    }
  }

  private tooLarge(req: Req, res: Res, path: AdmissionPath): void {
    this.o.metrics?.observeRejection(path, 413);
    // The rest of the body is not read: answer and close the connection instead of buffering it.
    send(res, bodyTooLargeRejection(), true);
    req.pause();
  }

  private internalError(err: unknown, path: AdmissionPath, res: Res): void {
    this.o.logger.error({ err, path }, "internal error while answering a request");
    this.o.metrics?.observeRejection(path, 500);
    send(res, { status: 500, contentType: "text/plain; charset=utf-8", body: "internal error\n" }, false);
  }
}

function send(res: Res, a: HttpAnswer, close: boolean): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const headers: Record<string, string | number> = { "content-type": a.contentType, "content-length": Buffer.byteLength(a.body) };
  // `Connection` is an HTTP/1 header; HTTP/2 ends the stream instead.
  if (close && (res as ServerResponse).req?.httpVersionMajor === 1) headers.connection = "close";
  (res as ServerResponse).writeHead(a.status, headers);
  (res as ServerResponse).end(a.body);
}
