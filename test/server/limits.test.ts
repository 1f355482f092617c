import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

/** A TLS connection to the webhook and everything it has received so far. */
interface Conn {
  readonly socket: TLSSocket;
  text(): string;
  closed(): boolean;
  /** Resolves once `pred` holds for what was received, or the connection closed. */
  until(pred: (text: string) => boolean): Promise<string>;
}

function open(wh: TestWebhook): Promise<Conn> {
  return new Promise((resolve, reject) => {
    let text = "";
    let closed = false;
    const waiters: Array<() => void> = [];
    const wake = (): void => waiters.splice(0).forEach((w) => w());
    const socket = tlsConnect({ host: "127.0.0.1", port: wh.port, ca: wh.ca, servername: "localhost" }, () =>
      resolve({
        socket,
        text: () => text,
        closed: () => closed,
        until: (pred) =>
          new Promise((r) => {
            const check = (): void => {
              if (pred(text) || closed) r(text);
              else waiters.push(check);
            };
            check();
          }),
      }),
    );
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1");
      wake();
    });
    socket.on("close", () => {
      closed = true;
      wake();
    });
    socket.on("error", (e) => (closed ? undefined : reject(e)));
  });
}

/** Waits until `pred` holds (checked every 10 ms): an order of events, not a time bound. */
async function until(pred: () => boolean): Promise<void> {
  while (!pred()) await new Promise((r) => setTimeout(r, 10));
}

const head = (path: string, length: number): string => `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

function request(body: string, path = "/defaulting"): string {
  return head(path, Buffer.byteLength(body)) + body;
}

describe("--max-buffered-bytes", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ "max-buffered-bytes": "3Mi" });
  });
  afterAll(async () => wh.stop());

  it("answers 429 with Retry-After to the body arriving longest when a newer one needs the room, and serves the newer one", async () => {
    const stalled = await open(wh);
    stalled.socket.write(head("/defaulting", 3 * 1024 * 1024 - 1) + " ".repeat(2 * 1024 * 1024));
    // The server holds the stalled body's first 2 MiB before the next body starts.
    await until(() => (wh.running.server.bodyBudget?.used ?? 0) >= 2 * 1024 * 1024);
    const review = JSON.stringify(serviceReview({ uid: "newer" }));
    const newer = await open(wh);
    newer.socket.write(head("/defaulting", 2 * 1024 * 1024) + review + " ".repeat(2 * 1024 * 1024 - review.length));
    const answer = await newer.until((t) => t.includes('"uid":"newer"'));
    expect(answer).toMatch(/^HTTP\/1.1 200 OK/);
    const refused = await stalled.until((t) => t.includes("retry later"));
    expect(refused).toMatch(/^HTTP\/1.1 429/);
    expect(refused.toLowerCase()).toContain("retry-after: 1");
    expect(refused.toLowerCase()).toContain("connection: close");
    stalled.socket.destroy();
    newer.socket.destroy();
    expect(wh.running.server.bodyBudget?.evictions).toBeGreaterThan(0);
    // Everything is given back.
    await until(() => wh.running.server.bodyBudget?.used === 0);
  });

  it("refuses --max-buffered-bytes below one maximal body at startup", async () => {
    await expect(startTestWebhook({ "max-buffered-bytes": "1Mi" })).rejects.toThrow(/at least 3Mi/);
  });
});

describe("--max-connections", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ "max-connections": "2" });
  });
  afterAll(async () => wh.stop());

  it("closes the longest-idle keep-alive connection for a new client instead of locking it out", async () => {
    const idle = [await open(wh), await open(wh)];
    for (const [i, c] of idle.entries()) {
      c.socket.write(request(JSON.stringify(serviceReview({ uid: `idle-${i}` }))));
      await c.until((t) => t.includes(`"uid":"idle-${i}"`));
    }
    const r = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid: "third" })) });
    expect(r.status).toBe(200);
    await idle[0]?.until(() => false);
    expect(idle[0]?.closed()).toBe(true);
    expect(wh.running.server.connectionTable?.evicted).toBeGreaterThan(0);
    for (const c of idle) c.socket.destroy();
  });

  it("refuses a new connection when every open one has a request in flight", async () => {
    const busy = [await open(wh), await open(wh)];
    for (const c of busy) c.socket.write(head("/defaulting", 100) + "{");
    // Both requests are in flight (their first body byte is held).
    await until(() => wh.running.server.bodyBudget?.used === 2);
    await expect(httpsCall(wh.port, wh.ca, { path: "/defaulting", body: "{}" })).rejects.toThrow();
    expect(wh.running.server.connectionTable?.refused).toBeGreaterThan(0);
    for (const c of busy) c.socket.destroy();
    await until(() => wh.running.server.connectionTable?.size === 0);
    const r = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid: "after" })) });
    expect(r.status).toBe(200);
  });
});
