/**
 * The HTTP side of the differential suite (`npm run test:differential`, opt-in): what the batch-mode comparison of
 * differential.test.ts cannot see. Knative's webhook in server mode (reference/harness/serve.go: knative.dev/pkg's
 * Webhook.Run) and Duckbill's HTTPS server answer the same requests (probes, the mux's redirects and 400s, the
 * Content-Type check, decode errors, admission answers) for each release; status, headers (but Date, Connection,
 * Keep-Alive) and bodies must be equal. Admission answers are compared by their headers and the newline that ends
 * them: their JSON is the conformance referee's (a patch may list its operations in another order).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, type KnativeRelease } from "../../scripts/reference-build.mjs";
import { RELEASES, type ReleaseVectors } from "../conformance/paths.js";
import { freePort } from "../support/metrics-scrape.js";
import { startTestWebhook, type TestWebhook } from "../support/webhook.js";

const ONLY = process.env.RELEASE?.split(",").map((s) => s.trim());
const J = { "content-type": "application/json" };

interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(port: number, ca: string, method: string, path: string, headers: Record<string, string>, body: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, ca, servername: "localhost", method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = { ...res.headers };
        for (const k of ["date", "connection", "keep-alive"]) delete h[k];
        resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function untilProbed(port: number, ca: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the reference exited (${child.exitCode})`);
    try {
      if ((await call(port, ca, "GET", "/", { "user-agent": "kube-probe/1.30" }, "")).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the reference did not answer its probe");
}

function firstReview(r: ReleaseVectors): { path: string; body: string } {
  const line = readFileSync(join(r.dir, "envelope.jsonl"), "utf8").split("\n")[0] as string;
  const v = JSON.parse(line) as { path: string; review: unknown };
  return { path: v.path, body: JSON.stringify(v.review) };
}

for (const vectors of RELEASES.filter((r) => ONLY === undefined || ONLY.includes(r.version))) {
  const release = vectors.version as KnativeRelease;
  describe(`HTTP exchanges, Knative ${release}`, () => {
    let duckbill: TestWebhook;
    let knative: ChildProcess;
    let knativePort = 0;
    beforeAll(async () => {
      duckbill = await startTestWebhook({ "knative-version": release });
      knativePort = await freePort();
      knative = spawn(await ensureBuilt(release), ["--serve", "--port", String(knativePort), "--cert-dir", duckbill.certDir, "--log-level", "fatal"], { stdio: "ignore" });
      await untilProbed(knativePort, duckbill.ca, knative);
    });
    afterAll(async () => {
      knative?.kill("SIGKILL");
      await duckbill?.stop();
    });

    const review = firstReview(vectors);
    const cases: [string, string, Record<string, string>, string][] = [
      ["POST", review.path, J, review.body],
      ["POST", "/resource-validation?timeout=10s", J, review.body],
      ["POST", "/nope", J, "{}"],
      ["POST", "/%3Cb%3E", J, "{}"],
      ["POST", "/defaulting", J, "{"],
      ["POST", "/defaulting", J, "[1]"],
      ["POST", "/defaulting", { "content-type": "text/plain" }, "{}"],
      ["PUT", "/defaulting", { "content-type": "application/json; charset=utf-8" }, "{}"],
      ["POST", "/defaulting/", J, "{}"],
      ["POST", "//defaulting", J, "{}"],
      ["POST", "//defaulting?x=1&y=%41", J, "{}"],
      ["HEAD", "//defaulting", J, ""],
      ["GET", "/a/../defaulting", J, ""],
      ["GET", "//x?a=%3Cb%3E&c=%22", J, ""],
      ["POST", "//d%C3%A9faulting", J, "{}"],
      ["POST", "//a%2Fb?q=%41", J, "{}"],
      ["POST", "/a%2F..%2Fdefaulting", J, "{}"],
      ["POST", "/%2Fdefaulting", J, "{}"],
      ["GET", "/", { "user-agent": "kube-probe/1.30" }, ""],
      ["GET", "/anything", { "k-network-probe": "probe" }, ""],
      ["GET", "/", { "k-network-probe": "probe", "k-network-hash": "abc" }, ""],
    ];
    it.each(cases)("%s %s %j", async (method, path, headers, body) => {
      const [d, k] = [await call(duckbill.port, duckbill.ca, method, path, headers, body), await call(knativePort, duckbill.ca, method, path, headers, body)];
      if (k.status === 200 && k.body.startsWith("{")) {
        expect(d.body.endsWith("}\n")).toBe(true);
        expect(k.body.endsWith("}\n")).toBe(true);
        delete d.headers["content-length"];
        delete k.headers["content-length"];
        expect({ status: d.status, headers: d.headers }).toEqual({ status: k.status, headers: k.headers });
      } else {
        expect(d).toEqual(k);
      }
    });
  });
}
