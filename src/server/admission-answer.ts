import type { FastifyReply } from "fastify";
import type { Logger } from "pino";
import type { AdmissionDeps, GatedUsageView, NamespaceLabelsView, RequestEnv } from "../admission/deps.js";
import { answerReview, goHttpError, type AdmissionPath, type HttpAnswer } from "../admission/http.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { releaseAfterBody } from "./heap-release.js";
import { logAdmissionKnative, logServeHttp, type HttpRequestSummary } from "./knative-request-log.js";
import { admissionLogFields, rejectionLogFields } from "./log-fields.js";
import { zapFormatOf } from "./logging.js";
import type { WebhookMetrics } from "./metrics.js";

export interface AnswerOptions {
  readonly deps: AdmissionDeps;
  readonly config: () => ConfigSnapshot;
  /** `--impact-warnings`: the usage index handed to every request's env (absent: no impact warnings). */
  readonly gatedUsage?: GatedUsageView;
  /** `--feature-scopes`: the namespaces' labels handed to every request's env (absent: scopes match by name only). */
  readonly namespaces?: NamespaceLabelsView;
  readonly logger: Logger;
  readonly metrics?: WebhookMetrics;
}

/** Writes an answer: its status, Location, other headers and Content-Type (none when empty), and body. */
export function sendAnswer(reply: FastifyReply, a: HttpAnswer): void {
  if (a.location !== undefined) void reply.header("location", a.location);
  if (a.headers !== undefined) void reply.headers(a.headers);
  if (a.contentType !== "") void reply.type(a.contentType);
  void reply.code(a.status).send(a.body === "" ? undefined : a.body);
}

function httpSummary(reply: FastifyReply, contentLength: number): HttpRequestSummary {
  const rq = reply.request;
  const socket = rq.raw.socket as { remoteAddress?: string; remotePort?: number } | undefined;
  const addr = socket?.remoteAddress ?? "";
  return {
    method: rq.method,
    url: rq.url,
    proto: `HTTP/${rq.raw.httpVersion}`,
    host: rq.headers.host ?? rq.headers[":authority"]?.toString(),
    remoteAddr: `${addr.includes(":") ? `[${addr}]` : addr}:${socket?.remotePort ?? 0}`,
    contentLength,
  };
}

/**
 * Answers a whole body sent to one of the three paths (knative.dev/pkg webhook/admission.go: admissionHandler):
 * admission with the configuration snapshot in effect now, the answer, then the metric and the log line (the API
 * server is waiting for the answer, not for them). `startedAt` is performance.now() when the request's headers
 * arrived; `release` gives the body's bytes back to the --max-buffered-bytes budget once the answer is written.
 * Never rejects.
 */
export async function answerAdmission(o: AnswerOptions, path: AdmissionPath, body: Buffer, reply: FastifyReply, startedAt: number, release: () => void): Promise<void> {
  let answer: HttpAnswer;
  const knativeLines = zapFormatOf(o.logger) !== undefined;
  const env: RequestEnv = { config: o.config(), gatedUsage: o.gatedUsage, namespaces: o.namespaces };
  if (knativeLines) logServeHttp(o.logger, httpSummary(reply, body.length));
  try {
    answer = await answerReview(path, body, o.deps, env);
  } catch (err) {
    o.logger.error({ err, path }, "internal error while answering a request");
    o.metrics?.observeRejection(path, 500);
    sendAnswer(reply, goHttpError(500, "internal error"));
    release();
    return;
  }
  const micros = Math.round((performance.now() - startedAt) * 1000);
  // The body is a string, not a Buffer: Node writes the head and a string body as one piece, a Buffer apart.
  sendAnswer(reply, answer);
  release();
  const a = answer.admission;
  if (a !== undefined) {
    o.metrics?.observeAdmission(a, micros / 1e6, path);
    if (knativeLines) logAdmissionKnative(o.logger, a, micros, env.config.profile);
    else o.logger.info(admissionLogFields(a, micros), "admission");
  } else {
    o.metrics?.observeRejection(path, answer.status);
    o.logger.info(rejectionLogFields(path, answer.status, answer.body, micros), "rejected");
  }
  releaseAfterBody(body.length);
}
