import { connect as http2Connect } from "node:http2";
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

/** Raw HTTP/1.1 over TLS: what the API server's keep-alive client and hostile clients look like on the wire. */
function rawExchange(wh: TestWebhook, write: (send: (s: string | Buffer) => void) => void | Promise<void>, until: (text: string) => boolean): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port: wh.port, ca: wh.ca, servername: "localhost" }, () => {
      void write((s) => socket.write(s));
    });
    let text = "";
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ text, closed });
    };
    socket.on("data", (d: Buffer) => {
      text += d.toString("utf8");
      if (until(text)) setTimeout(() => finish(socket.destroyed), 50);
    });
    socket.on("close", () => finish(true));
    socket.on("error", (e) => (settled ? undefined : reject(e)));
  });
}

function post(path: string, body: string, extra = ""): string {
  return `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
}

const count = (text: string, s: string): number => text.split(s).length - 1;

/** What the server writes back to plain (not TLS) bytes, until it closes the connection. */
function plainExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

const GO_PLAIN_HTTP_ANSWER = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

for (const http2 of [false, true]) {
  describe(`plain HTTP on the HTTPS port${http2 ? " (--http2)" : ""}`, () => {
    let wh: TestWebhook;
    beforeAll(async () => {
      wh = await startTestWebhook(http2 ? { http2: "true" } : {});
    });
    afterAll(async () => wh.stop());

    it.each([
      ["GET /", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"],
      ["POST /defaulting", post("/defaulting", "{}")],
      ["HEAD /", "HEAD / HTTP/1.1\r\n\r\n"],
      ["PUT /", "PUT / HTTP/1.1\r\n\r\n"],
    ])("answers %s as Go's server does: 400, Client sent an HTTP request to an HTTPS server.", async (_what, bytes) => {
      expect(await plainExchange(wh.port, bytes)).toBe(GO_PLAIN_HTTP_ANSWER);
    });

    it("closes on other bytes that are not TLS without an answer, and keeps serving", async () => {
      expect(await plainExchange(wh.port, "\x00\x01garbage\r\n\r\n")).toBe("");
      const r = await rawExchange(wh, (send) => send(post("/defaulting", JSON.stringify(serviceReview({ uid: "after" })))), (t) => t.includes('"uid":"after"'));
      expect(r.text).toMatch(http2 ? /HTTP\/1.1 200 OK/ : /^HTTP\/1.1 200 OK/);
    });
  });
}

describe("admission transport (HTTP/1.1)", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook();
  });
  afterAll(async () => wh.stop());

  it("answers pipelined requests on one keep-alive connection, in order", async () => {
    const uids = ["p-1", "p-2", "p-3"];
    const { text } = await rawExchange(
      wh,
      (send) => send(uids.map((uid) => post("/defaulting", JSON.stringify(serviceReview({ uid })))).join("")),
      (t) => count(t, '"uid":"p-') === 3,
    );
    expect(count(text, "HTTP/1.1 200 OK")).toBe(3);
    const seen = [...text.matchAll(/"uid":"(p-\d)"/g)].map((m) => m[1]);
    expect(seen).toEqual(uids);
  });

  it("answers a percent-encoded admission path as Go's mux does (decoded), through the same admission code", async () => {
    const { text } = await rawExchange(wh, (send) => send(post("/%64efaulting", JSON.stringify(serviceReview({ uid: "enc" })))), (t) => t.includes('"uid":"enc"'));
    expect(text).toMatch(/^HTTP\/1.1 200 OK/);
    expect(text).toContain('"patchType":"JSONPatch"');
  });

  it("reads a body trickled in small pieces", async () => {
    const body = JSON.stringify(serviceReview({ uid: "trickle" }));
    const { text } = await rawExchange(
      wh,
      async (send) => {
        send(`POST /resource-validation?timeout=10s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
        for (let i = 0; i < body.length; i += 97) {
          send(body.slice(i, i + 97));
          await new Promise((r) => setTimeout(r, 2));
        }
      },
      (t) => t.includes('"uid":"trickle"'),
    );
    expect(text).toMatch(/^HTTP\/1.1 200 OK/);
  });
});

/**
 * A body over 3 MiB, as the release answers it: Knative 1.24 (the default without a cluster) reads the body through
 * http.MaxBytesReader and answers 400 (envelope/body-over-3mib/defaulting); 1.17 had no limit, and Duckbill answers
 * 413. Either way the answer comes as soon as the body is over the limit, and the connection is closed after it.
 */
const OVER_LIMIT_STATUS = [
  ["1.24", 400],
  ["1.17", 413],
] as const;

describe.each(OVER_LIMIT_STATUS)("admission transport (HTTP/1.1): a body over 3 MiB as Knative %s answers it (%i)", (version, status) => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ "knative-version": version });
  });
  afterAll(async () => wh.stop());
  const statusLine = new RegExp(`^HTTP/1.1 ${status} `);

  it("answers at once to a chunked body over 3 MiB as soon as it is over, reads and drops the rest, then closes that connection", async () => {
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let answeredBeforeEnd = false;
    const { text, closed } = await rawExchange(
      wh,
      async (send) => {
        send("POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (let i = 0; i < 16; i++) send(`${chunk.length.toString(16)}\r\n${chunk.toString("latin1")}\r\n`);
        await new Promise((r) => setTimeout(r, 200));
        answeredBeforeEnd = true;
        send("0\r\n\r\n");
      },
      () => false,
    );
    expect(answeredBeforeEnd).toBe(true);
    expect(text).toMatch(statusLine);
    expect(text).toContain("request body too large");
    expect(text.toLowerCase()).toContain("connection: close");
    expect(closed).toBe(true);
  });

  it("lets a client that writes a whole over-limit body read the answer: the connection is not reset under its writes", async () => {
    for (const mib of [3.1, 8]) {
      const length = Math.round(mib * 1024 * 1024);
      const outcome = await new Promise<{ text: string; error: string | undefined }>((resolve) => {
        let text = "";
        let error: string | undefined;
        const socket = tlsConnect({ host: "127.0.0.1", port: wh.port, ca: wh.ca, servername: "localhost" }, () => {
          socket.write(`POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
          // Written in 64 KiB pieces as a client streams a body, whatever the server answers meanwhile.
          const piece = Buffer.alloc(64 * 1024, 0x20);
          let left = length;
          const more = (): void => {
            while (left > 0) {
              const n = Math.min(left, piece.length);
              left -= n;
              if (!socket.write(n === piece.length ? piece : piece.subarray(0, n))) return void socket.once("drain", more);
            }
          };
          more();
        });
        socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
        socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
        socket.on("close", () => resolve({ text, error }));
      });
      expect(outcome.error, `${mib} MiB`).toBeUndefined();
      expect(outcome.text).toMatch(statusLine);
      expect(outcome.text).toContain("could not decode body:http: request body too large\n");
    }
  });

  it("answers at once when Content-Length announces more than 3 MiB", async () => {
    const { text } = await rawExchange(
      wh,
      (send) => send(`POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n{`),
      (t) => t.includes("request body too large"),
    );
    expect(text).toMatch(statusLine);
  });
});

/** One HTTP/2 request on a session of its own; a stream the server resets after answering still resolves. */
function h2(wh: TestWebhook, headers: Record<string, string>, body?: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`https://localhost:${wh.port}`, { ca: wh.ca, host: "127.0.0.1" } as never);
    session.on("error", reject);
    const stream = session.request(headers);
    let status = 0;
    let text = "";
    const done = (): void => {
      session.close();
      resolve({ status, body: text });
    };
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.on("data", (d: Buffer) => (text += d.toString("utf8")));
    stream.on("end", done);
    stream.on("error", (e) => (status !== 0 ? done() : reject(e)));
    stream.end(body);
  });
}

describe("admission transport (HTTP/2, --http2)", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ http2: "true" });
  });
  afterAll(async () => wh.stop());

  it("answers an admission request over HTTP/2", async () => {
    const r = await h2(wh, { ":method": "POST", ":path": "/defaulting", "content-type": "application/json" }, JSON.stringify(serviceReview({ uid: "h2-uid" })));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).response.uid).toBe("h2-uid");
  });

  it("answers kubelet probes and envelope rejections over HTTP/2", async () => {
    expect((await h2(wh, { ":method": "GET", ":path": "/", "user-agent": "kube-probe/1.31" })).status).toBe(200);
    const r = await h2(wh, { ":method": "POST", ":path": "/defaulting", "content-type": "text/plain" }, "{}");
    expect(r.status).toBe(415);
  });
});

describe.each(OVER_LIMIT_STATUS)("admission transport (HTTP/2): a body over 3 MiB as Knative %s answers it (%i)", (version, status) => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ http2: "true", "knative-version": version });
  });
  afterAll(async () => wh.stop());

  it("answers with the release's status, whether Content-Length announces the size or not, and the session keeps serving", async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    const announced: Record<string, string>[] = [{ "content-length": String(big.length) }, {}];
    for (const headers of announced) {
      const r = await h2(wh, { ":method": "POST", ":path": "/defaulting", "content-type": "application/json", ...headers }, big);
      expect(r.status).toBe(status);
      expect(r.body).toBe("could not decode body:http: request body too large\n");
    }
    const next = await h2(wh, { ":method": "POST", ":path": "/defaulting", "content-type": "application/json" }, JSON.stringify(serviceReview({ uid: "after-big" })));
    expect(next.status).toBe(200);
  });
});
