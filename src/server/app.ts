import { createServer as createHttpsServer } from "node:https";
import { createSecureServer, type Http2Session } from "node:http2";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Logger } from "pino";
import type { AdmissionDeps, GatedUsageView, NamespaceLabelsView } from "../admission/deps.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { BodyBudget, DEFAULT_MAX_BUFFERED_BYTES } from "./body-budget.js";
import { ConnectionShed } from "./connection-shed.js";
import { ConnectionTable } from "./connection-table.js";
import { Drainer } from "./drain.js";
import type { WebhookApp } from "./fastify-app.js";
import type { WebhookMetrics } from "./metrics.js";
import { rotatedContextOptions, serverTlsOptions, type TlsOptions } from "./tls-policy.js";
import { answerPlainHttp } from "./plain-http.js";

export type { TlsOptions } from "./tls-policy.js";

export interface WebhookServerOptions {
  tls: TlsOptions;
  deps: AdmissionDeps;
  /** The configuration snapshot in effect now; read once per request. */
  config: () => ConfigSnapshot;
  /** `--impact-warnings` (cluster mode): Services and Configurations using gated fields, for /config-validation. */
  gatedUsage?: GatedUsageView;
  /** `--feature-scopes` (cluster mode): the namespaces' labels, which config-features-scopes selects on. */
  namespaces?: NamespaceLabelsView;
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
  /** Bound on the TLS handshake and on how long the request headers may take to arrive (default 10 s, at most requestTimeoutMs). */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (default 75 s). */
  keepAliveTimeoutMs?: number;
  /** Concurrent connections accepted, idle ones closed first to make room; 0 = no limit (default 0). */
  maxConnections?: number;
  /** Request-body bytes held at once over all connections (default DEFAULT_MAX_BUFFERED_BYTES; 0 = no bound). */
  maxBufferedBytes?: number;
}

export interface WebhookServer {
  readonly drainer: Drainer;
  /** Replaces the serving certificate for new handshakes without dropping connections. */
  setTls(tls: Pick<TlsOptions, "key" | "cert">): void;
  listen(port: number, host: string): Promise<{ port: number }>;
  /** Fails probes at once, waits for the quiet period, then closes (in-flight requests finish). */
  drainAndClose(): Promise<void>;
  close(): Promise<void>;
  /** Connections open now (accepted sockets, whether or not their TLS handshake finished). */
  connections(): Promise<number>;
  /** The bound on buffered request bodies (undefined when off). */
  readonly bodyBudget: BodyBudget | undefined;
  /** `--max-connections` (undefined when off). */
  readonly connectionTable: ConnectionTable | undefined;
  /** Connections given back to the other workers (`--workers`: src/cli/serve/workers.ts rebalances them). */
  readonly connectionShed: ConnectionShed;
}

const TEXT = "text/plain; charset=utf-8";

/**
 * The HTTPS admission server (knative.dev/pkg webhook/webhook.go: (*Webhook).Run, ServeHTTP; knative.dev/pkg
 * network/handlers/drain.go: Drainer; docs/knative-behavior.md#envelope-and-http). A Node HTTPS (or HTTP/2) server
 * created, configured, listened with and closed here, whose every request goes through one Fastify instance
 * (fastify-app.ts, through `serverFactory`). Fastify is built in the background once the server listens (loading
 * it is a third of the webhook's startup): a request that arrives before it is ready waits for it.
 */
export function createWebhookServer(opts: WebhookServerOptions): WebhookServer {
  const { logger } = opts;
  const drainer = new Drainer(opts.drainQuietPeriodMs);
  const requestTimeout = opts.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(opts.headersTimeoutMs ?? 10_000, requestTimeout === 0 ? Infinity : requestTimeout);
  const keepAliveTimeout = opts.keepAliveTimeoutMs ?? 75_000;
  const maxBuffered = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const bodyBudget = maxBuffered > 0 ? new BodyBudget(maxBuffered) : undefined;
  const connectionTable = (opts.maxConnections ?? 0) > 0 ? new ConnectionTable(opts.maxConnections as number) : undefined;
  const connectionShed = new ConnectionShed();
  // As Go's server (tlsHandshakeTimeout): the headers timeout bounds the TLS handshake too (Node's default: 120 s).
  const tlsOptions = { ...serverTlsOptions(opts.tls), ...(headersTimeout > 0 ? { handshakeTimeout: headersTimeout } : {}) };

  let handle: WebhookApp["handle"] | undefined;
  let building: Promise<WebhookApp> | undefined;
  const build = (): Promise<WebhookApp> =>
    (building ??= import("./fastify-app.js")
      .then(({ buildWebhookApp }) =>
        buildWebhookApp({
          server: server as unknown as Server,
          deps: opts.deps,
          config: opts.config,
          gatedUsage: opts.gatedUsage,
          namespaces: opts.namespaces,
          drainer,
          logger,
          metrics: opts.metrics,
          notReadyReason: opts.notReadyReason,
          clientAuth: opts.tls.clientCa !== undefined && opts.tls.clientCa !== "",
          bodyBudget,
          http2RequestTimeoutMs: opts.http2 === true ? requestTimeout : 0,
        }),
      )
      .then((a) => {
        handle = a.handle;
        return a;
      }));

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    connectionTable?.onRequest(req, res);
    connectionShed.onRequest(req, res);
    if (handle !== undefined) return handle(req, res);
    build().then(
      (a) => a.handle(req, res),
      (err: unknown) => {
        logger.error({ err }, "could not start the HTTP router");
        if (!res.headersSent) res.writeHead(500, { "content-type": TEXT }).end("internal error\n");
      },
    );
  };
  const server = opts.http2 === true ? createSecureServer({ ...tlsOptions, allowHTTP1: true }, onRequest as never) : createHttpsServer(tlsOptions, onRequest);
  const s = server as unknown as { requestTimeout?: number; headersTimeout?: number; keepAliveTimeout?: number; maxConnections?: number; connectionsCheckingInterval?: number };
  s.requestTimeout = requestTimeout;
  s.headersTimeout = headersTimeout;
  s.keepAliveTimeout = keepAliveTimeout;
  // Node enforces both timeouts by sweeping the open requests every connectionsCheckingInterval (default 30 s,
  // which a slow client gets on top of the timeout); sweep at a tenth of the shorter one, 50 ms to 1 s. Read at
  // 'listening', so setting it here works for the HTTPS and the HTTP/2 (allowHTTP1) server alike.
  const shortest = Math.min(...[requestTimeout, headersTimeout].filter((t) => t > 0));
  s.connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(shortest / 10)));
  server.on("tlsClientError", answerPlainHttp);
  if (connectionTable !== undefined) {
    // Before TLS starts on the socket: a refused connection costs no handshake.
    server.prependListener("connection", (socket: Socket) => {
      if (!connectionTable.admit(socket)) socket.destroy();
    });
    server.on("secureConnection", (tlsSocket: TLSSocket) => connectionTable.onSecureConnection(tlsSocket));
  }
  // HTTP/2 sessions, to end them on close (an HTTP/1 server closes its idle connections itself).
  const sessions = new Set<Http2Session>();
  if (opts.http2 === true) {
    server.on("session", (session: Http2Session) => {
      sessions.add(session);
      connectionTable?.onSession(session);
      session.once("close", () => sessions.delete(session));
      // Node gives HTTP/2 sessions no idle timeout (an idle one would stay open forever): the keep-alive one, then GOAWAY.
      if (keepAliveTimeout > 0) session.setTimeout(keepAliveTimeout, () => session.close());
    });
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections without a request in flight end now; busy ones after their answer.
      (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      for (const session of sessions) session.close();
      await closed;
      const a = building === undefined ? undefined : await building.catch(() => undefined);
      await a?.app.close();
    })());

  return {
    drainer,
    bodyBudget,
    connectionTable,
    connectionShed,
    setTls(tls) {
      (server as unknown as { setSecureContext(o: object): void }).setSecureContext(rotatedContextOptions(opts.tls, tls));
    },
    async listen(port, host) {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      // Probes come within seconds: have the router ready for them, after the listening socket.
      setImmediate(() => void build().catch((err: unknown) => logger.error({ err }, "could not start the HTTP router")));
      const addr = server.address();
      return { port: typeof addr === "object" && addr !== null ? addr.port : port };
    },
    async drainAndClose() {
      await drainer.drain();
      await close();
    },
    async close() {
      drainer.cancel();
      await close();
    },
    connections() {
      return new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    },
  };
}
