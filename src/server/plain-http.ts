import type { TLSSocket } from "node:tls";

/**
 * Go's net/http server (so Knative's webhook) answers a plain HTTP request on its TLS port with a 400 and closes the
 * connection (golang/go src/net/http/server.go: (*conn).serve, on a tls.RecordHeaderError whose header
 * tlsRecordHeaderLooksLikeHTTP). Node's TLS server just closed it, so `curl http://…:8443/` printed an empty reply.
 */
const GO_PLAIN_HTTP_ANSWER = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

/**
 * The server's `tlsClientError` listener. OpenSSL reports a first record that starts with `GET `, `POST `, `HEAD ` or
 * `PUT ` as ERR_SSL_HTTP_REQUEST, what Go's tlsRecordHeaderLooksLikeHTTP sees in "GET /", "POST ", "HEAD " and "PUT /"
 * (it also answers "OPTIO", which OpenSSL does not tell apart from other garbage: such a connection is closed).
 */
export function answerPlainHttp(err: Error & { code?: string }, tlsSocket: TLSSocket): void {
  if (err.code !== "ERR_SSL_HTTP_REQUEST") return;
  const raw = (tlsSocket as TLSSocket & { _parent?: { writable?: boolean; end(text: string): void } })._parent;
  if (raw?.writable === true) raw.end(GO_PLAIN_HTTP_ANSWER);
}
