import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Connections a worker gives back to node:cluster's round robin when it holds more than its share
 * (src/cli/serve/workers.ts: the primary's rebalancing rounds). Keep-alive clients stay on the connections they have, so
 * after a worker is replaced every connection would stay on the survivor, and its crash would drop them all at
 * once. The next `count` answers, each on its own connection, end their connection gently: an HTTP/1 answer says
 * `Connection: close` and Node closes the connection after it (as Go's server does when it stops keeping a
 * connection alive), an HTTP/2 session gets a GOAWAY once the answer is sent. No request is cut short and no idle
 * connection is closed under a client that may be writing to it; the client opens a new connection, which the
 * primary hands to a worker in turn.
 */
export class ConnectionShed {
  #left = 0;
  #until = 0;
  /** Connections already told to close (an HTTP/2 session answers several streams before it goes). */
  readonly #ending = new WeakSet<object>();
  #shed = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Connections ended so far to even the spread out. */
  get shed(): number {
    return this.#shed;
  }

  /** The next `count` answers within `forMs` close their connections; replaces what an earlier call asked. */
  request(count: number, forMs: number): void {
    this.#left = Math.max(0, Math.floor(count));
    this.#until = this.now() + forMs;
  }

  /** Called for every request before its answer: closes the connection after it when connections are to go. */
  onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (this.#left === 0) return;
    if (this.now() > this.#until) {
      this.#left = 0;
      return;
    }
    const session = (req as { stream?: { session?: { close(): void } } }).stream?.session;
    const connection: object = session ?? req.socket;
    if (this.#ending.has(connection)) return;
    this.#ending.add(connection);
    this.#left--;
    this.#shed++;
    if (session !== undefined) res.once("finish", () => session.close());
    else res.setHeader("Connection", "close");
  }
}
