import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { beforeAll, describe, expect, it } from "vitest";
import { freePort, getText } from "../support/metrics-scrape.js";
import { httpsCall, serviceReview } from "../support/webhook.js";

const root = new URL("../../", import.meta.url).pathname;
const bin = join(root, "bin/duckbill");

beforeAll(() => {
  // `npm test` builds first; a bare `vitest run` on a fresh clone builds here.
  if (!existsSync(join(root, "dist/cli/index.js"))) {
    const r = spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" });
    if (r.status !== 0) throw new Error("npm run build failed");
  }
}, 120_000);

function run(args: string[], input: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [bin, ...args], { input, encoding: "utf8", env: { ...process.env, ...env } });
}

describe("duckbill admit", () => {
  it("answers one review from stdin with an AdmissionReview on stdout", () => {
    const r = run(["admit", "--path", "/defaulting"], JSON.stringify(serviceReview({ uid: "cli-1" })));
    expect(r.status).toBe(0);
    const review = JSON.parse(r.stdout);
    expect(review.response.uid).toBe("cli-1");
    expect(review.response.allowed).toBe(true);
  });

  it("answers every batch line in the vector format, with HTTP statuses and bodies", () => {
    const lines = [
      { name: "a", path: "/resource-validation", review: serviceReview({ uid: "b-1" }) },
      { name: "b", path: "/nope", review: serviceReview() },
      { name: "c", path: "/defaulting", contentType: "", review: serviceReview() },
      { name: "d", path: "/config-validation" },
      { name: "e", path: "/defaulting?x=1", review: serviceReview({ kind: "Widget" }) },
    ];
    const r = run(["admit", "--batch"], lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(r.status).toBe(0);
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(out.map((o) => [o.name, o.httpStatus])).toEqual([["a", 200], ["b", 400], ["c", 415], ["d", 400], ["e", 200]]);
    expect(out[0].review.response.uid).toBe("b-1");
    expect(out[1].body.trim()).toBe("no controller registered for: /nope");
    expect(out[3].body.trim()).toBe("could not decode body:EOF");
    expect(out[4].review.response.status.message).toBe("mutation failed: unhandled kind: serving.knative.dev/v1, Kind=Widget");
  });

  it("sends a batch line's review with its integers as written (int64s beyond 2^53 stay exact)", () => {
    const review = JSON.stringify(serviceReview({ uid: "big-1" })).replace('"containers":[', '"timeoutSeconds":9223372036854775807,"containers":[');
    expect(review).toContain("9223372036854775807");
    const r = run(["admit", "--batch"], `{"name":"big","path":"/resource-validation","review":${review}}\n`);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as { review: { response: { status?: { message: string } } } };
    expect(out.review.response.status?.message).toContain("expected 0 <= 9223372036854775807 <= 600: spec.template.spec.timeoutSeconds");
  });

  it("reports unreadable batch lines and exits 2", () => {
    const r = run(["admit", "--batch"], "not json\n");
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim()).error).toMatch(/^line 1: /);
  });

  it("rejects an unknown --path", () => {
    const r = run(["admit", "--path", "/validate"], "{}");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--path must be/);
  });
});

describe("duckbill serve", () => {
  it("serves HTTPS with generated certificates, exposes metrics, and drains on SIGTERM", async () => {
    const dir = await mkdtemp(join(tmpdir(), "duckbill-serve-"));
    const metricsPortWanted = await freePort();
    const child = spawn(process.execPath, [bin, "serve"], {
      env: { ...process.env, WEBHOOK_PORT: "0", DUCKBILL_HOST: "127.0.0.1", DUCKBILL_METRICS_PORT: String(metricsPortWanted), DUCKBILL_METRICS_HOST: "127.0.0.1", DUCKBILL_GENERATED_CERT_DIR: dir, DUCKBILL_DRAIN_TIMEOUT: "200ms", DUCKBILL_LOG_LEVEL: "info", DUCKBILL_CONFIG_SOURCE: "defaults" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const logs: Record<string, unknown>[] = [];
      const ready = new Promise<{ port: number; metricsPort: number }>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on("line", (line) => {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry.message === "duckbill webhook serving") resolve({ port: entry.port as number, metricsPort: entry.metricsPort as number });
        });
        child.once("exit", (code) => reject(new Error(`serve exited early with ${code}`)));
      });
      const { port, metricsPort } = await ready;
      expect(metricsPort).toBe(metricsPortWanted);
      const ca = await readFile(join(dir, "ca.crt"), "utf8");
      const r = await httpsCall(port, ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ uid: "srv-1" })) });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).response.uid).toBe("srv-1");

      const metrics = await getText(metricsPort);
      expect(metrics).toContain('duckbill_admission_duration_seconds_bucket{le="0.005",type="defaulting",group="serving.knative.dev",version="v1",kind="Service",subresource="",operation="CREATE",status="success"}');
      expect(metrics).toContain('duckbill_admission_duration_seconds_count{type="defaulting",group="serving.knative.dev",version="v1",kind="Service",subresource="",operation="CREATE",status="success"} 1');
      expect(metrics).toMatch(/process_resident_memory_bytes/);

      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      // Knative's lines (knative.dev/pkg webhook/admission.go: admissionHandler), the decision on the audit line.
      const admission = logs.find((l) => l.message === "remote admission controller audit annotations=map[string]string(nil)");
      expect(admission).toMatchObject({ severity: "info", logger: "webhook", "admissionreview/uid": "srv-1", webhook: "defaulting", "knative.dev/kind": "serving.knative.dev/v1, Kind=Service", "knative.dev/namespace": "default", "knative.dev/name": "hello", "knative.dev/operation": "CREATE", "knative.dev/userinfo": "alice@example.com", "admissionreview/allowed": true, "admissionreview/result": "nil" });
      expect(typeof admission?.latencyMicros).toBe("number");
      expect(logs.some((l) => typeof l.message === "string" && l.message.startsWith("Webhook ServeHTTP request=&http.Request{"))).toBe(true);
    } finally {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
