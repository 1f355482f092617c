// Hostile transport against the real HTTPS server: slow, stuck, idle, abrupt and wrong-protocol clients. Each
// attack must end within a bound the server sets, and a normal AdmissionReview from another client must be
// answered promptly while it goes on and right after; every connection the attack opened must be gone afterwards.
// (Pipelining, a trickled body that completes and the over-limit cases are in test/server/transport.test.ts.)
import { connect as http2Connect } from "node:http2";
import { connect as netConnect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { Duplex } from "node:stream";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { within } from "../support/timing.js";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

// Server timeouts above the pauses a throttled machine takes (test/support/timing.ts): a pause longer than the
// headers timeout would end handshakes the test expects to complete, since Node runs the server's timeout sweep
// before the socket reads that waited behind the pause.
const HEADERS_MS = 1500;
const REQUEST_MS = 2500;
const KEEP_ALIVE_MS = 2000;
/** Node 20.20 closes an idle keep-alive socket 1 s after the `Keep-Alive: timeout=N` it advertises. */
const KEEP_ALIVE_MARGIN_MS = 1000;
/** Node sweeps timed-out requests every connectionsCheckingInterval (app.ts: a tenth of the shorter timeout). */
const SWEEP_SLACK_MS = 100;
/** A normal review's round trip (new TLS connection included) on a shared 2-core machine; ~10 ms when quiet. */
const PROMPT_MS = within(1000);
/** How long `ending` waits before it calls a connection left open: past every timeout above, pauses included. */
const LEFT_OPEN_MS = within(REQUEST_MS + 2500);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A normal AdmissionReview from a fresh client: answered 200 with its uid; resolves to the round-trip ms. */
async function normalReview(wh: TestWebhook, uid: string): Promise<number> {
  const t0 = performance.now();
  const r = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid })) });
  const ms = performance.now() - t0;
  expect(r.status).toBe(200);
  expect((JSON.parse(r.body) as { response: { uid: string } }).response.uid).toBe(uid);
  return ms;
}

async function expectPromptAnswer(wh: TestWebhook, uid: string): Promise<void> {
  expect(await normalReview(wh, uid)).toBeLessThan(PROMPT_MS);
}

/** Polls the server's open-connection count until it is at most `n`; fails with the last count after `withinMs`. */
async function connectionsDropTo(wh: TestWebhook, n: number, withinMs = within(2000)): Promise<void> {
  const deadline = performance.now() + withinMs;
  let count = await wh.running.server.connections();
  while (count > n && performance.now() < deadline) {
    await sleep(20);
    count = await wh.running.server.connections();
  }
  expect(count).toBeLessThanOrEqual(n);
}

/**
 * A TLS connection, resolved once the handshake is done. Errors after that are recorded, not thrown. The socket
 * goes into `track` at once, so that a test that fails mid-handshake can still destroy it.
 */
function openTls(wh: TestWebhook, track?: TLSSocket[]): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port: wh.port, ca: wh.ca, servername: "localhost", ALPNProtocols: ["http/1.1"] }, () => {
      socket.off("error", reject);
      socket.on("error", () => undefined);
      // Flowing: what the server sends is read, so its FIN is seen and 'close' comes.
      socket.resume();
      resolve(socket);
    });
    socket.once("error", reject);
    track?.push(socket);
  });
}

interface Ending {
  /** ms from `since` to the socket's close. */
  readonly afterMs: number;
  /** Everything the server sent. */
  readonly text: string;
}

/** Resolves when the server ends `socket` (it closes); rejects when it is still open after `withinMs`. */
function ending(socket: Socket, since: number, withinMs: number): Promise<Ending> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("error", () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server left the connection open for ${withinMs} ms`));
    }, withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ afterMs: performance.now() - since, text });
    });
  });
}

/** Opens `n` TLS connections, `batch` at a time (a burst of hundreds of handshakes is its own test); `track` as in openTls. */
async function openMany(wh: TestWebhook, n: number, batch = 50, track?: TLSSocket[]): Promise<TLSSocket[]> {
  const out: TLSSocket[] = [];
  while (out.length < n) out.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - out.length) }, () => openTls(wh, track)))));
  return out;
}

function reviewRequest(uid: string): string {
  const body = JSON.stringify(serviceReview({ uid }));
  return `POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** The bytes of a real TLS 1.3 ClientHello (what the client writes first), captured from Node's own client. */
function clientHello(): Promise<Buffer> {
  return new Promise((resolve) => {
    let done = false;
    const wire = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        if (!done) {
          done = true;
          resolve(Buffer.from(chunk));
          setImmediate(() => tls.destroy());
        }
        cb();
      },
    });
    const tls = tlsConnect({ socket: wire, servername: "localhost" });
    tls.on("error", () => undefined);
  });
}

describe(`hostile transport (HTTP/1.1; headers ${HEADERS_MS} ms, request ${REQUEST_MS} ms, keep-alive ${KEEP_ALIVE_MS} ms)`, () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ "headers-timeout": `${HEADERS_MS}ms`, "request-timeout": `${REQUEST_MS}ms`, "keep-alive-timeout": `${KEEP_ALIVE_MS}ms` });
    await normalReview(wh, "warm-up");
  });
  afterAll(async () => wh.stop());

  it("ends a slowloris (a header line every 100 ms, never finished) with 408 after the headers timeout", async () => {
    // Timed from the connect: the server's timer starts when it accepts the connection, before the handshake ends.
    const t0 = performance.now();
    const socket = await openTls(wh);
    const ended = ending(socket, t0, LEFT_OPEN_MS);
    socket.write("POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n");
    let i = 0;
    const drip = setInterval(() => socket.writable && socket.write(`X-Slow-${i++}: ${"x".repeat(10)}\r\n`), 100);
    try {
      await expectPromptAnswer(wh, "during-slowloris");
      const { afterMs, text } = await ended;
      expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(afterMs).toBeLessThan(within(HEADERS_MS + SWEEP_SLACK_MS + 400));
      expect(text).toMatch(/^HTTP\/1.1 408 /);
      expect(i).toBeGreaterThanOrEqual(3);
    } finally {
      clearInterval(drip);
    }
    await expectPromptAnswer(wh, "after-slowloris");
    await connectionsDropTo(wh, 0);
  });

  it("ends the same slowloris on a keep-alive connection after an answered request (timed from the new request)", async () => {
    const socket = await openTls(wh);
    const first = new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.write(reviewRequest("keep-alive-first"));
    await first;
    const t0 = performance.now();
    const ended = ending(socket, t0, LEFT_OPEN_MS);
    socket.write("POST /defaulting HTTP/1.1\r\nHost: localhost\r\n");
    const drip = setInterval(() => socket.writable && socket.write("X-Slow: x\r\n"), 100);
    try {
      const { afterMs } = await ended;
      expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(afterMs).toBeLessThan(within(HEADERS_MS + SWEEP_SLACK_MS + 400));
    } finally {
      clearInterval(drip);
    }
    await connectionsDropTo(wh, 0);
  });

  /**
   * Sends `head`, then `piece` every 50 ms forever; the server must end the request with 408 after the request
   * timeout (give or take its sweep), answering `during` (if given) meanwhile.
   */
  async function expectTrickleEnded(head: string, piece: string, during?: () => Promise<void>): Promise<void> {
    // Timed from the connect: the server's timer starts when it accepts the connection, before the handshake ends.
    const t0 = performance.now();
    const socket = await openTls(wh);
    const ended = ending(socket, t0, LEFT_OPEN_MS);
    socket.write(head);
    const drip = setInterval(() => socket.writable && socket.write(piece), 50);
    try {
      await during?.();
      const { afterMs, text } = await ended;
      expect(afterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(afterMs).toBeLessThan(within(REQUEST_MS + SWEEP_SLACK_MS + 400));
      expect(text).toMatch(/^HTTP\/1.1 408 /);
    } finally {
      clearInterval(drip);
    }
  }

  it("ends a body trickled forever (a byte every 50 ms of 100,000 announced) with 408 after the request timeout", async () => {
    await expectTrickleEnded(
      `POST /resource-validation HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"apiVersion":`,
      " ",
      () => expectPromptAnswer(wh, "during-trickle"),
    );
    await expectPromptAnswer(wh, "after-trickle");
    await connectionsDropTo(wh, 0);
  });

  it("ends a chunked body trickled forever after the request timeout too", async () => {
    await expectTrickleEnded("POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", "1\r\n \r\n");
    await connectionsDropTo(wh, 0);
  });

  it("closes a TLS connection that never sends a request after the headers timeout, and an idle keep-alive one after the keep-alive timeout", async () => {
    const t0 = performance.now();
    const silent = await openTls(wh);
    const silentEnded = ending(silent, t0, LEFT_OPEN_MS);
    const used = await openTls(wh);
    const answered = new Promise<string>((resolve) => used.once("data", (d: Buffer) => resolve(d.toString("latin1"))));
    used.write(reviewRequest("then-idle"));
    expect(await answered).toMatch(new RegExp(`\r\nkeep-alive: timeout=${KEEP_ALIVE_MS / 1000}\r\n`, "i"));
    const t1 = performance.now();
    const usedEnded = ending(used, t1, LEFT_OPEN_MS);
    const s = await silentEnded;
    expect(s.afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(s.afterMs).toBeLessThan(within(HEADERS_MS + SWEEP_SLACK_MS + 400));
    const u = await usedEnded;
    expect(u.afterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    expect(u.afterMs).toBeLessThan(within(KEEP_ALIVE_MS + KEEP_ALIVE_MARGIN_MS + 400));
    expect(u.text).toBe("");
    await connectionsDropTo(wh, 0);
  });

  it("keeps serving when clients vanish mid-headers, mid-body, and right after a whole request, and leaves nothing open", async () => {
    const body = JSON.stringify(serviceReview({ uid: "vanish" }));
    const head = `POST /defaulting HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const cuts: Array<[string, (s: TLSSocket) => Promise<void>]> = [
      ["mid-headers", async (s) => void s.write(head.slice(0, 40), () => s.destroy())],
      ["mid-body", async (s) => void s.write(head + body.slice(0, 60), () => s.destroy())],
      // Flushed to the kernel, then gone before the answer: the server answers a socket that is closed.
      ["after the request", async (s) => void s.write(head + body, () => s.destroy())],
      ["after the request, half-closed", async (s) => void s.end(head + body)],
    ];
    for (const [what, cut] of cuts) {
      // 20 at once, so some land while the server is mid-parse or mid-answer.
      const sockets = await Promise.all(Array.from({ length: 20 }, () => openTls(wh)));
      const closed = sockets.map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once("close", () => resolve()))));
      await Promise.all(sockets.map(cut));
      await expectPromptAnswer(wh, `after-${what.replace(/\W+/g, "-")}`);
      await Promise.all(closed);
      await connectionsDropTo(wh, 0, within(1000));
    }
  });

  it("ends a TLS handshake stalled half way (ClientHello sent, nothing more) after the headers timeout", async () => {
    const hello = await clientHello();
    const t0 = performance.now();
    const raw = netConnect({ host: "127.0.0.1", port: wh.port }, () => raw.write(hello));
    const { afterMs, text } = await ending(raw, t0, LEFT_OPEN_MS);
    // The server's first flight came back; the handshake was then left unfinished.
    expect(text.length).toBeGreaterThan(0);
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(afterMs).toBeLessThan(within(HEADERS_MS + 400));
    await connectionsDropTo(wh, 0);
  });

  it("ends a TCP connection that never starts TLS after the headers timeout", async () => {
    const t0 = performance.now();
    const raw = netConnect({ host: "127.0.0.1", port: wh.port });
    const { afterMs, text } = await ending(raw, t0, LEFT_OPEN_MS);
    expect(text).toBe("");
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(afterMs).toBeLessThan(within(HEADERS_MS + 400));
    await connectionsDropTo(wh, 0);
  });

  it("survives handshakes aborted half way: part of a ClientHello, and a whole one dropped once the server answers", async () => {
    const hello = await clientHello();
    const aborts: Array<Promise<void>> = [];
    for (let i = 0; i < 20; i++) {
      aborts.push(
        new Promise<void>((resolve) => {
          const raw = netConnect({ host: "127.0.0.1", port: wh.port }, () => {
            if (i % 2 === 0) raw.write(hello.subarray(0, 1 + ((i * 37) % (hello.length - 1))), () => raw.destroy());
            else raw.write(hello);
          });
          raw.once("data", () => raw.destroy());
          raw.on("error", () => undefined);
          raw.once("close", () => resolve());
        }),
      );
    }
    await Promise.all(aborts);
    await expectPromptAnswer(wh, "after-aborted-handshakes");
    await connectionsDropTo(wh, 0);
  });

  it("closes at once a connection that speaks plain HTTP to the TLS port (with Go's 400), and one that sends garbage", async () => {
    for (const bytes of [reviewRequest("plain-http"), "\x16\x03\x01\x00\x05hello", Buffer.alloc(4096, 0xff)]) {
      const t0 = performance.now();
      const raw = netConnect({ host: "127.0.0.1", port: wh.port }, () => raw.write(bytes));
      const { afterMs, text } = await ending(raw, t0, LEFT_OPEN_MS);
      // Rejected by the TLS layer on the first record, well before any timeout; plain HTTP gets the one clear-text
      // answer Go's server gives (src/server/plain-http.ts), garbage no HTTP answer.
      expect(afterMs).toBeLessThan(HEADERS_MS);
      if (typeof bytes === "string" && bytes.startsWith("POST ")) expect(text).toBe("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n");
      else expect(text).not.toMatch(/HTTP\/1/); // at most a TLS alert
    }
    await expectPromptAnswer(wh, "after-plain-http");
    await connectionsDropTo(wh, 0);
  });
});

/**
 * Idle timeouts long enough that opening the connections ends well before: 50 handshakes take 0.1 s on a quiet
 * 2-core machine and up to 2.8 s on a throttled one (measured), and the silent half must still be open after that.
 */
const IDLE_TIMEOUT_MS = 12_000;
const IDLE_CONNECTIONS = 200;

describe(`many idle TLS connections (no limit; headers and keep-alive ${IDLE_TIMEOUT_MS} ms)`, () => {
  let wh: TestWebhook;
  const opened: TLSSocket[] = [];
  beforeAll(async () => {
    wh = await startTestWebhook({ "headers-timeout": `${IDLE_TIMEOUT_MS}ms`, "keep-alive-timeout": `${IDLE_TIMEOUT_MS}ms` });
  });
  afterAll(async () => wh.stop());

  it(`answers normal reviews promptly with ${IDLE_CONNECTIONS} idle connections open (half never sent a request, half sent one), then closes them all`, async () => {
    const t0 = performance.now();
    /** Each stage bounded on its own, so a failure names the stage and how long the ones before it took. */
    const marks: string[] = [];
    const stage = async <T>(what: string, work: Promise<T>, limitMs: number): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not done within ${limitMs} ms (before it: ${marks.join(", ") || "nothing"})`)), limitMs);
      });
      try {
        return await Promise.race([work, late]);
      } finally {
        clearTimeout(timer);
        marks.push(`${what} at ${Math.round(performance.now() - t0)} ms`);
      }
    };
    const sockets = await stage(`opening ${IDLE_CONNECTIONS} connections`, openMany(wh, IDLE_CONNECTIONS, 50, opened), IDLE_TIMEOUT_MS);
    const used = sockets.slice(0, IDLE_CONNECTIONS / 2);
    await stage(
      `${used.length} answers`,
      Promise.all(
        used.map((s, i) => {
          const answered = new Promise<void>((resolve, reject) => {
            s.once("data", () => resolve());
            s.once("close", () => reject(new Error(`idle-${i}: closed before its answer, ${Math.round(performance.now() - t0)} ms after the first connection`)));
          });
          s.write(reviewRequest(`idle-${i}`));
          return answered;
        }),
      ),
      IDLE_TIMEOUT_MS,
    );
    const closed = sockets.map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once("close", () => resolve()))));
    // All still open: the setup took less than the timeouts (otherwise the test proves nothing, and says so).
    expect(performance.now() - t0, `setting up ${IDLE_CONNECTIONS} connections (${marks.join(", ")})`).toBeLessThan(IDLE_TIMEOUT_MS);
    expect(await wh.running.server.connections()).toBeGreaterThanOrEqual(IDLE_CONNECTIONS);
    for (let i = 0; i < 5; i++) await stage(`normal review ${i}`, expectPromptAnswer(wh, `among-idle-${i}`), within(5000));
    // The server, not the client, ends every one of them.
    await stage(`the server closing all ${IDLE_CONNECTIONS}`, Promise.all(closed), within(IDLE_TIMEOUT_MS + 3000));
    await connectionsDropTo(wh, 0);
    await stage("a review afterwards", expectPromptAnswer(wh, "after-idle"), within(5000));
  }, 90_000);
  afterEach(() => {
    // A failed run leaves its sockets open; the server's stop would wait for them.
    for (const s of opened.splice(0)) s.destroy();
  });
});

describe("--max-connections 20", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ "max-connections": "20" });
  });
  afterAll(async () => wh.stop());

  it("closes the longest-idle connections for new clients over the limit, promptly, so a full table locks nobody out", async () => {
    await expectPromptAnswer(wh, "below-limit");
    await connectionsDropTo(wh, 0);
    const held = await openMany(wh, 20);
    expect(await wh.running.server.connections()).toBe(20);
    // Twenty idle connections (handshaken, no request): a new client's review is answered at once, and the
    // connection that had waited longest is closed to make room (src/server/connection-table.ts).
    await expectPromptAnswer(wh, "over-limit");
    // (Which one is oldest depends on the order the twenty handshakes finished in: one of them, and only one.)
    const closed = (): number => held.filter((s) => s.destroyed).length;
    const deadline = performance.now() + within(2000);
    while (closed() === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(closed()).toBe(1);
    for (const s of held) s.destroy();
    await connectionsDropTo(wh, 0);
  });
});

/**
 * The HTTP/2 server's keep-alive outlasts its request timeout. Incoming DATA counts as session activity (measured:
 * a body trickled for 5 s against a 1 s keep-alive got its 408, and GOAWAY came 1 s after), but a whole-process
 * pause longer than the keep-alive would make the trickling session idle, and it could not serve the review this
 * block sends after the 408.
 */
const H2_KEEP_ALIVE_MS = REQUEST_MS + 1000;

describe(`hostile transport (--http2; headers ${HEADERS_MS} ms, request ${REQUEST_MS} ms, keep-alive ${H2_KEEP_ALIVE_MS} ms)`, () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ http2: "true", "headers-timeout": `${HEADERS_MS}ms`, "request-timeout": `${REQUEST_MS}ms`, "keep-alive-timeout": `${H2_KEEP_ALIVE_MS}ms` });
  });
  afterAll(async () => wh.stop());

  it("ends an HTTP/1.1 slowloris after the headers timeout on the HTTP/2 server too", async () => {
    // Timed from the connect: the server's timer starts when it accepts the connection, before the handshake ends.
    const t0 = performance.now();
    const socket = await openTls(wh);
    const ended = ending(socket, t0, LEFT_OPEN_MS);
    socket.write("POST /defaulting HTTP/1.1\r\nHost: localhost\r\n");
    const drip = setInterval(() => socket.writable && socket.write("X-Slow: x\r\n"), 100);
    try {
      const { afterMs, text } = await ended;
      expect(afterMs).toBeLessThan(within(HEADERS_MS + SWEEP_SLACK_MS + 400));
      expect(text).toMatch(/^HTTP\/1.1 408 /);
    } finally {
      clearInterval(drip);
    }
    await expectPromptAnswer(wh, "h2-after-slowloris");
    await connectionsDropTo(wh, 0);
  });

  it("answers 408 to an HTTP/2 request whose body trickles forever, after the request timeout, and keeps the session serving", async () => {
    const session = http2Connect(`https://localhost:${wh.port}`, { ca: wh.ca, host: "127.0.0.1" } as never);
    session.on("error", () => undefined);
    try {
      const stream = session.request({ ":method": "POST", ":path": "/defaulting", "content-type": "application/json", "content-length": "100000" });
      stream.on("error", () => undefined);
      const t0 = performance.now();
      stream.write('{"apiVersion":');
      const drip = setInterval(() => stream.writable && stream.write(" "), 50);
      // What happened when, for the failure message.
      const seen: string[] = [];
      const mark = (what: string): void => void seen.push(`${what} ${Math.round(performance.now() - t0)} ms`);
      session.on("goaway", (code: number) => mark(`GOAWAY(${code})`));
      // The answer is timed at its end (END_STREAM), when a client has it. It used to be timed at the stream's
      // close, which follows the server's RST_STREAM(NO_ERROR) at once in every isolated run, but came with the
      // keep-alive GOAWAY (≈ 6 s) in 2 of 9 full timing-project runs, for a reason not found; the marks above
      // say what happened when, should the answer itself ever be late.
      const answer = await new Promise<{ status: number; body: string; afterMs: number }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to the trickled HTTP/2 body within ${LEFT_OPEN_MS} ms (${seen.join(", ")})`)), LEFT_OPEN_MS);
        let status = 0;
        let body = "";
        stream.on("response", (h) => {
          status = Number(h[":status"]);
          mark(`response ${status}`);
        });
        stream.setEncoding("utf8").on("data", (d: string) => (body += d));
        const done = (): void => {
          clearTimeout(timer);
          resolve({ status, body, afterMs: performance.now() - t0 });
        };
        stream.once("end", done);
        stream.once("close", done);
      }).finally(() => clearInterval(drip));
      // Having its final answer, the client stops sending.
      stream.close();
      expect(answer.status).toBe(408);
      expect(answer.body).toBe("request timeout: the body did not arrive within --request-timeout\n");
      expect(answer.afterMs, seen.join(", ")).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(answer.afterMs, seen.join(", ")).toBeLessThan(within(REQUEST_MS + 1000));
      // The same session still answers a normal review.
      const ok = session.request({ ":method": "POST", ":path": "/defaulting", "content-type": "application/json" });
      const status = await new Promise<number>((resolve, reject) => {
        let code = 0;
        const timer = setTimeout(() => reject(new Error(`the session did not answer a normal review within ${LEFT_OPEN_MS} ms after the 408`)), LEFT_OPEN_MS);
        ok.on("error", () => undefined);
        ok.on("response", (h) => (code = Number(h[":status"])));
        ok.resume().on("close", () => {
          clearTimeout(timer);
          resolve(code);
        });
        ok.end(JSON.stringify(serviceReview({ uid: "h2-after-trickle" })));
      });
      expect(status).toBe(200);
    } finally {
      // close() waits for open streams; a failed run may leave the trickled one open, or the session already closed.
      if (!session.closed && !session.destroyed) await new Promise<void>((resolve) => {
        const timer = setTimeout(() => session.destroy(), within(2000));
        session.close(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await connectionsDropTo(wh, 0);
  });

  it("closes an idle HTTP/2 session after the keep-alive timeout", async () => {
    const session = http2Connect(`https://localhost:${wh.port}`, { ca: wh.ca, host: "127.0.0.1" } as never);
    session.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      session.once("connect", () => resolve());
      session.once("error", reject);
    });
    const t0 = performance.now();
    const closedAfter = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`idle HTTP/2 session still open after ${LEFT_OPEN_MS} ms`)), LEFT_OPEN_MS);
      session.once("close", () => {
        clearTimeout(timer);
        resolve(performance.now() - t0);
      });
    });
    expect(closedAfter).toBeGreaterThanOrEqual(H2_KEEP_ALIVE_MS - 50);
    expect(closedAfter).toBeLessThan(within(H2_KEEP_ALIVE_MS + 1000));
    await connectionsDropTo(wh, 0);
  });
});
