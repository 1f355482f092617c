import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { Logger } from "pino";
import type { AdmissionDeps } from "../admission/deps.js";
import { answerReview, bodyTooLargeRejection, isAdmissionPath, JSON_CONTENT_TYPE, MAX_BODY_BYTES, type AdmissionPath, type HttpAnswer } from "../admission/http.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
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
    req.on("end", () => {
      if (done) return;
      done = true;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      void this.respond(path, body, res, started);
    });
    // A client that goes away mid-body gets no answer; nothing is left behind.
    req.on("error", () => {
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
      answer = await answerReview(path, body, deps, { config: this.o.config() });
    } catch (err) {
      this.internalError(err, path, res);
      return;
    }
    const micros = Number((process.hrtime.bigint() - started) / 1000n);
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
    send(res, answer, false);
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
