import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2Session } from "node:http2";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";

/**
 * `--max-connections` with idle connections closed first. Node's `server.maxConnections` drops every connection
 * past the limit, so 100 idle keep-alive connections locked every other client out of a `--max-connections 100`
 * server, silently. Here a connection past the limit closes the connection that has been idle longest (no
 * request in flight, HTTP/1 keep-alive or an HTTP/2 session without streams), which a client reopens at no cost
 * (Go's transport retries a request on a kept-alive connection the server closed); only when every connection
 * has a request in flight is the new one refused.
 */
export class ConnectionTable {
  /** Open TCP connections, oldest first. */
  readonly #open = new Set<Socket>();
  /** Connections (TLS sockets or HTTP/2 sessions) that answered a request and have none in flight, idle longest first. */
  readonly #idle = new Map<object, () => void>();
  /** Requests in flight per TLS socket. */
  readonly #busy = new WeakMap<object, number>();
  #refused = 0;
  #evicted = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.#open.size;
  }

  /** Connections refused so far because every open one was busy. */
  get refused(): number {
    return this.#refused;
  }

  /** Idle connections closed so far to make room. */
  get evicted(): number {
    return this.#evicted;
  }

  /** A new TCP connection: false when it must be refused (the caller destroys it). */
  admit(socket: Socket): boolean {
    if (this.#open.size >= this.max && !this.#evictIdle()) {
      this.#refused++;
      return false;
    }
    this.#open.add(socket);
    socket.once("close", () => this.#open.delete(socket));
    return true;
  }

  /** A TLS connection that will speak HTTP/1: idle until its first request. */
  onSecureConnection(tlsSocket: TLSSocket): void {
    if (tlsSocket.alpnProtocol === "h2") return;
    this.#idle.set(tlsSocket, () => tlsSocket.destroy());
    tlsSocket.once("close", () => this.#idle.delete(tlsSocket));
  }

  /** An HTTP/1 request on `req.socket`: busy until its answer is finished, then idle. */
  onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    if ((req.httpVersionMajor ?? 1) !== 1) return;
    this.#idle.delete(socket);
    this.#busy.set(socket, (this.#busy.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const n = (this.#busy.get(socket) ?? 1) - 1;
      this.#busy.set(socket, n);
      if (n === 0 && !socket.destroyed) {
        this.#idle.set(socket, () => socket.destroy());
        socket.once("close", () => this.#idle.delete(socket));
      }
    });
  }

  /** An HTTP/2 session: idle whenever it has no open stream. */
  onSession(session: Http2Session): void {
    let streams = 0;
    const close = (): void => session.close();
    this.#idle.set(session, close);
    session.on("stream", (stream) => {
      streams++;
      this.#idle.delete(session);
      stream.once("close", () => {
        streams--;
        if (streams === 0 && !session.closed && !session.destroyed) this.#idle.set(session, close);
      });
    });
    session.once("close", () => this.#idle.delete(session));
  }

  #evictIdle(): boolean {
    for (const [conn, close] of this.#idle) {
      this.#idle.delete(conn);
      this.#evicted++;
      close();
      return true;
    }
    return false;
  }
}
