/**
 * Fault injection, shutdown side: SIGTERM's drain (running.shutdown(), what the CLI's signal handler calls) of
 * `duckbill serve` in cluster mode under a steady admission load over keep-alive connections. A wall-clock test
 * (the `timing` project): the load is paced, and the drain's quiet period must outlast the machine's pauses.
 *
 * Proved elsewhere, not repeated here:
 * - test/server/drain.test.ts: probes fail at once with "shutting down", a few sequential requests during the drain
 *   succeed and push the close back; test/cli/cli.test.ts: a real SIGTERM to `duckbill serve` exits 0.
 */
import { Agent, request as httpsRequest } from "node:https";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CERT_SECRET_KEYS } from "../../src/certs/cert-secret.js";
import type { FakeApiServer } from "../support/fake-apiserver.js";
import { PAUSE_MS } from "../support/timing.js";
import { serviceReview } from "../support/webhook.js";
import { affinityDecision, probe, SERVERNAME, secretData, startClusterWebhook, startFaultyCluster, stopFaultyCluster, until, type ClusterWebhook, type FaultyProxy } from "./fault-support.js";

/** A shared 2-core machine: a run starved of CPU may retry. */
const TIMING_SENSITIVE = { retry: 1 } as const;

describe("SIGTERM drain under steady admission load", TIMING_SENSITIVE, () => {
  let api: FakeApiServer;
  let proxy: FaultyProxy;
  let wh: ClusterWebhook | undefined;

  beforeEach(async () => {
    ({ api, proxy } = await startFaultyCluster({ emptySecret: true }));
  });
  afterEach(async () => {
    await stopFaultyCluster({ api, proxy }, wh);
    wh = undefined;
  });

  it("answers every request sent at 200 req/s over keep-alive through the drain; probes say shutting down from its start", async () => {
    // Longer than a pause (test/support/timing.ts), which would otherwise end the drain between two requests.
    const QUIET_MS = PAUSE_MS + 500;
    const RATE_PER_MS = 0.2; // 200 requests per second
    wh = await startClusterWebhook(proxy, { "drain-timeout": `${QUIET_MS}ms` });
    const w = wh;
    await until(async () => (await probe(w.port)).status === 200, "readiness");
    const ca = await until(() => secretData(api)[CERT_SECRET_KEYS.caCert], "the filled Secret");
    await until(() => affinityDecision(w.port, "tls", ca).then(() => true, () => false), "the Secret's certificate");

    const agent = new Agent({ keepAlive: true, maxSockets: 8, ca, servername: SERVERNAME });
    const failures: string[] = [];
    let sent = 0;
    let answered = 0;
    let lastAnsweredAt = 0;
    let inFlight = 0;
    const sockets = new Set<unknown>();
    const send = (n: number): void => {
      const uid = `load-${n}`;
      const body = JSON.stringify(serviceReview({ uid }));
      inFlight++;
      const done = (problem?: string): void => {
        inFlight--;
        if (problem !== undefined) failures.push(`${uid}: ${problem}`);
      };
      const req = httpsRequest({ host: "127.0.0.1", port: w.port, path: "/defaulting", method: "POST", agent, headers: { "Content-Type": "application/json" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          answered++;
          lastAnsweredAt = performance.now();
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) return done(`HTTP ${res.statusCode}: ${text}`);
          const response = (JSON.parse(text) as { response?: { uid?: string; allowed?: boolean } }).response;
          done(response?.uid === uid && response.allowed === true ? undefined : `unexpected answer ${text.slice(0, 200)}`);
        });
        res.on("error", (err) => done(err.message));
      });
      req.on("socket", (s) => sockets.add(s));
      req.on("error", (err) => done(err.message));
      req.end(body);
    };
    const started = performance.now();
    const ticker = setInterval(() => {
      const due = Math.floor((performance.now() - started) * RATE_PER_MS);
      while (sent < due) send(sent++);
    }, 5);

    try {
      await new Promise((r) => setTimeout(r, 500));
      const beforeDrain = sent;
      const drainStarted = performance.now();
      let stoppedAt = 0;
      const stopped = w.running.shutdown().then(() => (stoppedAt = performance.now()));
      // Probes fail from the first moment of the drain, with the reason.
      const probes = [await probe(w.port)];
      for (let i = 0; i < 10; i++) {
        await new Promise((r) => setTimeout(r, 100));
        probes.push(await probe(w.port));
      }
      expect(probes.every((p) => p.status === 503 && p.body === "shutting down\n")).toBe(true);
      // The drain does not end while requests keep arriving.
      expect(stoppedAt).toBe(0);

      clearInterval(ticker);
      const lastSentAt = performance.now();
      const duringDrain = sent - beforeDrain;
      await until(() => inFlight === 0, "the last answers");
      await stopped;
      // Closed one quiet period after the last request, not before.
      expect(stoppedAt - lastSentAt).toBeGreaterThanOrEqual(QUIET_MS - 50);
      expect(stoppedAt - drainStarted).toBeGreaterThanOrEqual(1000 + QUIET_MS - 50);
      console.info(
        `drain under load: ${sent} requests sent (${beforeDrain} before the drain, ${duringDrain} during it, over ${sockets.size} keep-alive connections), ` +
          `${answered} answered, ${failures.length} failed; closed ${Math.round(stoppedAt - lastAnsweredAt)} ms after the last answer`,
      );
      expect(failures).toEqual([]);
      expect(answered).toBe(sent);
      expect(duringDrain).toBeGreaterThanOrEqual(150);
      expect(sockets.size).toBeLessThanOrEqual(8);
      expect(w.lines.some((l) => l.msg === "stopped")).toBe(true);
      await expect(probe(w.port)).rejects.toThrow(/ECONNREFUSED|ECONNRESET|socket hang up/);
    } finally {
      clearInterval(ticker);
      agent.destroy();
    }
  });
});
