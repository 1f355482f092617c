// Open-loop, evenly paced HTTPS/1.1 keep-alive load at a fixed rate, with sub-millisecond latencies.
//
// Why not autocannon for this part: its rate limit lets every connection send its whole per-second quota back to
// back at the start of each second, so "1,000 req/s" arrives as a burst of up to 64 concurrent requests once a
// second, and its histogram has 1 ms resolution. Here requests are due every 1/rate s, dispatched on idle
// keep-alive connections; a request that waits for a free connection is timed from when it was due, so server
// stalls show in the percentiles (no coordinated omission).
import { connect } from "node:tls";
import { performance } from "node:perf_hooks";
import { CLIENT_TLS } from "./client-tls.mjs";
import { frameResponse } from "./http-response.mjs";
import { latencySummary, round } from "./stats.mjs";

const MAX_RECONNECTS = 20;

/** The bytes of one keep-alive POST, built once per mix entry. */
export function requestBytes(host, port, path, body) {
  const b = Buffer.from(body);
  const head = `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\nConnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), b]);
}

/** One keep-alive TLS connection with at most one request in flight; responses framed by frameResponse. */
class Connection {
  constructor(opts, onDone) {
    this.opts = opts;
    this.onDone = onDone;
    this.buf = Buffer.alloc(0);
    this.busy = false;
    this.started = 0;
    this.closed = false;
    this.failures = 0;
    this.open();
  }

  open() {
    const socket = connect({ host: this.opts.host, port: this.opts.port, ca: this.opts.ca, servername: this.opts.servername, ...CLIENT_TLS });
    this.socket = socket;
    this.ready = new Promise((resolve, reject) => {
      socket.once("secureConnect", resolve);
      socket.once("error", reject);
    });
    this.ready.catch(() => undefined);
    socket.setNoDelay(true);
    // Events of a socket this connection has already replaced are ignored.
    socket.on("data", (chunk) => socket === this.socket && this.onData(chunk));
    socket.on("error", (err) => socket === this.socket && this.fail(err));
    socket.on("close", () => socket === this.socket && !this.closed && this.fail(new Error("connection closed by the server")));
  }

  send(bytes, started, index) {
    this.busy = true;
    this.started = started;
    this.index = index;
    this.socket.write(bytes);
  }

  onData(chunk) {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    let response;
    try {
      response = frameResponse(this.buf);
    } catch (err) {
      return this.fail(err);
    }
    if (response === undefined) return;
    const rest = this.buf.subarray(response.length);
    this.buf = rest.length === 0 ? Buffer.alloc(0) : Buffer.from(rest);
    this.busy = false;
    this.onDone(this, response.status, null, response.body);
  }

  fail(err) {
    if (this.closed) return;
    const wasBusy = this.busy;
    this.busy = false;
    this.buf = Buffer.alloc(0);
    this.socket.destroy();
    // Reconnect (a bounded number of times) so one dropped connection does not shrink the pool for the phase.
    if (++this.failures <= MAX_RECONNECTS) this.open();
    else this.closed = true;
    if (wasBusy) this.onDone(this, 0, err);
  }

  close() {
    this.closed = true;
    this.socket.end();
    this.socket.destroy();
  }
}

/**
 * Sends `rate` requests per second for `durationMs`, cycling through `requests` (Buffers from requestBytes) on a
 * pool of `connections` keep-alive TLS connections. Latencies of responses to requests due during the phase
 * are reported; requests still pending `graceMs` after the end count as errors. With `check(index, body)`, each
 * 200 answer's body (a Buffer) is checked against `requests[index]`: a returned string is an error (a wrong
 * answer). `errorsByKind` splits the errors: transport (connection failed), status (not 200), check, unanswered.
 */
export async function pacedLoad({ host, port, ca, servername, requests, rate, durationMs, connections = 64, graceMs = 2000, check }) {
  const samples = [];
  const statuses = {};
  let errors = 0;
  let firstError;
  const errorsByKind = { transport: 0, status: 0, check: 0, unanswered: 0 };
  const idle = [];
  const queue = []; // due times of requests waiting for a free connection
  let next = 0;
  let inFlight = 0;
  let measuring = true;

  const onDone = (conn, status, err, body) => {
    inFlight--;
    if (measuring) {
      if (err !== null) {
        errors++;
        errorsByKind.transport++;
        firstError ??= err.message;
      } else {
        statuses[status] = (statuses[status] ?? 0) + 1;
        const wrong = status === 200 && check !== undefined ? check(conn.index, body) : undefined;
        if (status === 200 && wrong === undefined) samples.push(performance.now() - conn.started);
        else if (status !== 200) {
          errors++;
          errorsByKind.status++;
          firstError ??= `HTTP ${status}`;
        } else {
          errors++;
          errorsByKind.check++;
          firstError ??= wrong;
        }
      }
    }
    if (conn.closed) return;
    if (queue.length > 0) dispatch(conn, queue.shift());
    else idle.push(conn);
  };
  const pool = Array.from({ length: connections }, () => new Connection({ host, port, ca, servername }, onDone));
  await Promise.all(pool.map((c) => c.ready));
  idle.push(...pool);

  function dispatch(conn, started) {
    inFlight++;
    conn.send(requests[next], started, next);
    next = next + 1 === requests.length ? 0 : next + 1;
  }

  const intervalMs = 1000 / rate;
  const t0 = performance.now();
  const total = Math.floor((durationMs / 1000) * rate);
  let issued = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      // Requests due by now; timed from now (the client's timer jitter is not the server's latency) unless they
      // then wait for a connection.
      const due = Math.min(total, Math.floor((now - t0) / intervalMs) + 1);
      for (; issued < due; issued++) {
        const conn = idle.shift();
        if (conn === undefined) queue.push(now);
        else dispatch(conn, now);
      }
      if (issued >= total) resolve();
      else setTimeout(tick, Math.max(0, Math.min(1, t0 + issued * intervalMs - performance.now())));
    };
    tick();
  });
  const sendEnd = performance.now();
  const graceEnd = sendEnd + graceMs;
  while ((inFlight > 0 || queue.length > 0) && performance.now() < graceEnd) await new Promise((r) => setTimeout(r, 5));
  measuring = false;
  const unanswered = inFlight + queue.length;
  errors += unanswered;
  errorsByKind.unanswered = unanswered;
  for (const c of pool) c.close();
  const elapsed = (sendEnd - t0) / 1000;
  const lat = latencySummary(samples);
  return {
    targetRate: rate,
    achievedRate: Math.round(samples.length / elapsed),
    requests: issued,
    errors,
    errorsByKind,
    firstError,
    statuses,
    latencyMs: { p50: round(lat.p50), p90: round(lat.p90), p99: round(lat.p99), max: round(lat.max) },
  };
}
