import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The bodies of issue [13], as the bench builds them: a Service whose one list has a million empty entries.
import { hostileBody } from "../../bench/hostile.mjs";
import { within } from "../support/timing.js";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

/**
 * Wall-clock bounds of docs/adr/0009-bounded-work.md, over HTTPS against a real server (the timing project: a slow
 * machine can change the verdict). Each 3 MiB body with a million entries is answered within 2 s and a normal
 * review right after within 1 s (plus the pause allowance of test/support/timing.ts). `node bench/hostile.mjs
 * --server` measures the same bodies with peak RSS.
 */
describe("hostile bodies, timed", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook();
  });
  afterAll(async () => wh.stop());

  for (const list of ["env", "volumeMounts", "ports", "volumes"]) {
    for (const path of ["/defaulting", "/resource-validation"]) {
      it(`${list} on ${path}: answered within 2 s, the next review within 1 s`, async () => {
        const body = hostileBody(list);
        let started = performance.now();
        const r = await httpsCall(wh.port, wh.ca, { path, body });
        const took = performance.now() - started;
        expect(r.status).toBe(200);
        expect(took).toBeLessThan(within(2000));
        started = performance.now();
        const next = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid: "next" })) });
        expect(next.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(within(1000));
      }, 60_000);
    }
  }
});
