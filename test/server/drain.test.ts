import { describe, expect, it } from "vitest";
import { PAUSE_MS } from "../support/timing.js";
import { httpsCall, serviceReview, startTestWebhook } from "../support/webhook.js";

/** The drain's quiet period: longer than a pause (test/support/timing.ts), which would otherwise end the drain between two requests. */
const QUIET_MS = PAUSE_MS + 500;

const probe = { method: "GET", path: "/", headers: { "User-Agent": "kube-probe/1.31" } };

describe("SIGTERM drain", () => {
  it("fails probes at once, keeps answering admission requests, then closes after the quiet period", async () => {
    const wh = await startTestWebhook({ "drain-timeout": `${QUIET_MS}ms` });
    try {
      expect((await httpsCall(wh.port, wh.ca, probe)).status).toBe(200);
      const started = performance.now();
      const stopped = wh.running.shutdown();
      const p = await httpsCall(wh.port, wh.ca, probe);
      expect(p.status).toBe(503);
      expect(p.body).toBe("shutting down\n");
      // Requests during the drain succeed, and each one pushes the close back.
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 150));
        const r = await httpsCall(wh.port, wh.ca, { body: JSON.stringify(serviceReview({ uid: `drain-${i}` })) });
        expect(r.status).toBe(200);
        expect(JSON.parse(r.body).response.uid).toBe(`drain-${i}`);
      }
      await stopped;
      expect(performance.now() - started).toBeGreaterThanOrEqual(600 + QUIET_MS - 50);
      await expect(httpsCall(wh.port, wh.ca, probe)).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/);
    } finally {
      await wh.stop().catch(() => undefined);
    }
  });
});
