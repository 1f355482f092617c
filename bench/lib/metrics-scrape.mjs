import { request } from "node:http";
import { HOST } from "./processes.mjs";

/** A server's Prometheus exposition (each scrape also resets prom-client's event-loop delay histogram). */
export function scrapeMetrics(port) {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path: "/metrics", timeout: 5000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`GET /metrics: HTTP ${res.statusCode}`))));
    });
    req.on("timeout", () => req.destroy(new Error("GET /metrics timed out")));
    req.on("error", reject);
    req.end();
  });
}
