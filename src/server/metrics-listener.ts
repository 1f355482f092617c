import { createServer as createHttpServer, type Server } from "node:http";
import type { Logger } from "pino";

/** What the listener serves: a Prometheus text exposition, collected per scrape. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** The plain-HTTP `GET /metrics` listener (one process, or the --workers primary with the summed registry). */
export function listenMetrics(source: MetricsSource, port: number, host: string, logger: Logger): Promise<Server> {
  const server = createHttpServer((req, res) => {
    if (req.method === "GET" && (req.url === "/metrics" || req.url?.startsWith("/metrics?") === true)) {
      source.metrics().then(
        (text) => {
          res.writeHead(200, { "Content-Type": source.contentType });
          res.end(text);
        },
        (err: unknown) => {
          logger.error({ err }, "metrics collection failed");
          res.writeHead(500).end();
        },
      );
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found: metrics are at GET /metrics\n");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
