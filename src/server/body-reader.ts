import type { IncomingMessage, ServerResponse } from "node:http";
import { constants as http2Constants, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import { goHttpError, MAX_BODY_BYTES, type HttpAnswer } from "../admission/http.js";
import type { BodyBudget } from "./body-budget.js";

export type RawRequest = IncomingMessage | Http2ServerRequest;
export type RawResponse = ServerResponse | Http2ServerResponse;

/** A request body read to its end, and the `--max-buffered-bytes` bytes it holds until its answer is written. */
export interface ReadBody {
  readonly bytes: Buffer;
  /** Gives the body's bytes back to the budget (idempotent). */
  readonly release: () => void;
}

/** Why a body was not read to its end; the error handler answers each (refusalAnswer), or not at all (aborted). */
export type BodyRefusalReason = "too-large" | "busy" | "timeout" | "aborted";

export class BodyRefusal extends Error {
  readonly code = "DUCKBILL_BODY_REFUSED";
  constructor(readonly reason: BodyRefusalReason) {
    super(`request body refused: ${reason}`);
  }
}

export interface BodyReaderOptions {
  /** `--max-buffered-bytes`: the bound on body bytes held at once (absent: no bound but each body's). */
  readonly bodyBudget?: BodyBudget;
  /**
   * `--request-timeout` for HTTP/2 bodies: Node applies the server's request timeout to HTTP/1 only, so an HTTP/2
   * stream whose body trickles forever would otherwise stay open (0: no limit).
   */
  readonly http2RequestTimeoutMs: number;
}

const NO_RESERVATION = (): void => undefined;

/**
 * The one body reader (Fastify's content-type parser for `application/json`, fastify-app.ts): the body in
 * Buffers up to MAX_BODY_BYTES (knative.dev/pkg webhook/webhook.go: http.MaxBytesReader), each chunk counted
 * against the `--max-buffered-bytes` budget as it arrives, which may evict it (429) for a newer body. Fastify's
 * own `parseAs: 'buffer'` reader sees the body only once it is whole, too late for the budget.
 */
export function bodyReader(o: BodyReaderOptions): (req: RawRequest, done: (err: BodyRefusal | null, body?: ReadBody) => void) => void {
  const { bodyBudget, http2RequestTimeoutMs } = o;
  return (req, done) => {
    if (Number(req.headers["content-length"] ?? -1) > MAX_BODY_BYTES) return done(new BodyRefusal("too-large"));
    let finished = false;
    let chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (err: BodyRefusal | null, body?: ReadBody): void => {
      if (finished) return;
      finished = true;
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("error", onError);
      if (timer !== undefined) clearTimeout(timer);
      chunks = [];
      if (err !== null) reservation?.release();
      done(err, body);
    };
    const reservation = bodyBudget?.open(() => finish(new BodyRefusal("busy")));
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > MAX_BODY_BYTES) return finish(new BodyRefusal("too-large"));
      if (reservation !== undefined && !reservation.grow(c.length)) return finish(new BodyRefusal("busy"));
      chunks.push(c);
    };
    const onEnd = (): void => {
      reservation?.complete();
      const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      finish(null, { bytes, release: reservation?.release ?? NO_RESERVATION });
    };
    // A client that goes away mid-body gets no answer; nothing is left behind.
    const onError = (): void => finish(new BodyRefusal("aborted"));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    if (http2RequestTimeoutMs > 0 && req.httpVersionMajor === 2) timer = setTimeout(() => finish(new BodyRefusal("timeout")), http2RequestTimeoutMs);
  };
}

/**
 * After a 413, 400 (too large) or 429 answer, the rest of the body is read and discarded, up to this many bytes,
 * before the connection closes: closing a socket the client is still writing to makes the kernel reset it, and
 * the reset can discard the answer before the client reads it (Go's client then reports `write: broken pipe`
 * instead of the answer). Go's server does the same for small remainders and lingers before closing
 * (net/http/server.go: maxPostHandlerReadBytes, closeWriteAndWait).
 */
export const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;

const RETRY_AFTER_SECONDS = 1;

/** 429: the server holds as many body bytes as --max-buffered-bytes allows (server/body-budget.ts). */
export function busyRejection(): HttpAnswer {
  return goHttpError(429, "too many request bodies arriving at once: retry later");
}

/**
 * Answers a request whose body is not wanted at once, with `Connection: close`. Over HTTP/1 the answer is written
 * but not ended: the rest of the body is read and dropped, and the response ends, closing the connection, when the
 * body does (or the request timeout ends the connection). HTTP/2 ends the stream at once; the session stays up.
 */
export function refuseAndDiscard(req: RawRequest, res: RawResponse, answer: HttpAnswer): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const headers: Record<string, string | number> = { ...answer.headers, "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body) };
  if (answer.status === 429) headers["retry-after"] = RETRY_AFTER_SECONDS;
  if (req.httpVersionMajor === 1) headers.connection = "close";
  (res as ServerResponse).writeHead(answer.status, headers);
  if (req.httpVersionMajor !== 1 || req.complete || req.readableEnded) {
    (res as ServerResponse).end(answer.body);
    return;
  }
  (res as ServerResponse).write(answer.body);
  let discarded = 0;
  req.on("data", (c: Buffer) => {
    discarded += c.length;
    if (discarded > MAX_DISCARDED_BODY_BYTES) req.socket?.destroy();
  });
  // The refused body has been read to its end: the answer, already written, is complete now.
  req.on("end", () => {
    if (!res.writableEnded) res.end();
  });
}

/**
 * 408 for an HTTP/2 body that did not arrive within `--request-timeout`, then RST_STREAM(NO_ERROR): the client is
 * told to stop sending the body (RFC 9113 §8.1).
 */
export function http2Timeout(res: RawResponse): void {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const h2 = res as Http2ServerResponse;
  const body = "request timeout: the body did not arrive within --request-timeout\n";
  h2.writeHead(408, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body) });
  h2.end(body, () => h2.stream.close(http2Constants.NGHTTP2_NO_ERROR));
}
