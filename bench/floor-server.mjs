#!/usr/bin/env node
// The floor: a bare Node HTTPS server with the same certificate, TLS settings and keep-alive as duckbill serve,
// that reads and parses the body and answers a canned AdmissionReview (allowed, uid echoed). What is left between
// it and duckbill is the framework, the admission logic, metrics and logging.
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { join } from "node:path";

const dir = process.env.FLOOR_CERT_DIR ?? "certs";
const server = createServer(
  { key: readFileSync(join(dir, "tls.key")), cert: readFileSync(join(dir, "tls.crt")), minVersion: "TLSv1.3", keepAliveTimeout: 75_000 },
  (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let uid = "";
      try {
        uid = JSON.parse(Buffer.concat(chunks).toString("utf8"))?.request?.uid ?? "";
      } catch {
        res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("could not decode body\n");
        return;
      }
      const body = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, allowed: true } });
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
    });
  },
);
server.listen(Number(process.env.FLOOR_PORT ?? 8443), process.env.FLOOR_HOST ?? "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
