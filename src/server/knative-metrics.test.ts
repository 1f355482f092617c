/**
 * Knative's webhook series, compared line by line with what Knative's own code prints for the same requests:
 * test/fixtures/knative-metrics/*.prom are the output of reference/metrics-probe (knative.dev/pkg's reporter and
 * exporters, as each release wires them).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { AdmittedSummary } from "../admission/http.js";
import { admissionRequest } from "../../test/support/admission-request.js";
import { PROFILES } from "../config/profile.js";
import { KnativeWebhookMetrics } from "./knative-metrics.js";
import { LabelBounds } from "./metric-labels.js";

const FIXTURES = join(import.meta.dirname, "../../test/fixtures/knative-metrics");

function fixtureLines(file: string): string[] {
  return readFileSync(join(FIXTURES, file), "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

const REQUEST = admissionRequest();

const LABELS = new LabelBounds().of(REQUEST);

function answered(allowed: boolean): AdmittedSummary {
  return { request: REQUEST, response: { uid: "u1", allowed } as AdmittedSummary["response"], type: allowed ? "defaulting" : "validation" };
}

async function lines(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split("\n").filter((l) => l !== "");
}

describe("Knative 1.17's series (OpenCensus)", () => {
  it("equal knative.dev/pkg's for the same requests: names, labels, Buckets125 bounds counted as OpenCensus counts", async () => {
    const registry = new Registry();
    const m = new KnativeWebhookMetrics(registry, PROFILES["1.17"].webhookMetrics);
    // The probe's requests: allowed in 0, 1, 1.5, 2 and 5 ms, denied in 0 ms.
    for (const seconds of [0, 0.001, 0.0015, 0.002, 0.005]) m.observe(answered(true), LABELS, seconds, "/defaulting");
    m.observe(answered(false), LABELS, 0, "/resource-validation");
    const ours = await lines(registry);
    expect([...ours].sort()).toEqual(fixtureLines("knative-1.17.prom").sort());
    // 1 ms is below 2 but not below 1: OpenCensus's `v < bound`, not Prometheus's `<=`.
    expect(ours).toContainEqual(expect.stringMatching(/^webhook_request_latencies_bucket\{admission_allowed="true",.*,le="1"\} 1$/));
    expect(ours).toContainEqual(expect.stringMatching(/^webhook_request_latencies_bucket\{admission_allowed="true",.*,le="2"\} 3$/));
  });

  it("records whole milliseconds, truncated as time.Duration.Milliseconds truncates", async () => {
    const registry = new Registry();
    const m = new KnativeWebhookMetrics(registry, "opencensus");
    for (const seconds of [0.000999, 0.007, 0.009, 0.019999]) m.observe(answered(true), LABELS, seconds, "/defaulting");
    expect(await lines(registry)).toContainEqual(expect.stringMatching(/^webhook_request_latencies_sum\{.*\} 35$/));
  });
});

describe("Knative 1.23 and 1.24's series (OpenTelemetry)", () => {
  it("equal knative.dev/pkg's for the same requests, the measured durations (sums) aside; target_info is not exposed", async () => {
    const registry = new Registry();
    const m = new KnativeWebhookMetrics(registry, PROFILES["1.24"].webhookMetrics);
    // The probe's requests: two allowed on /defaulting, one denied on /resource-validation, each within 5 ms.
    m.observe(answered(true), LABELS, 0.000002, "/defaulting");
    m.observe(answered(true), LABELS, 0.000001, "/defaulting");
    m.observe(answered(false), LABELS, 0.000003, "/resource-validation");
    const withoutSums = (ls: string[]): string[] => ls.map((l) => (/_sum\{/.test(l) ? l.replace(/ \S+$/, " <sum>") : l)).sort();
    const knative = fixtureLines("knative-1.23.prom").filter((l) => !l.includes("target_info"));
    expect(withoutSums(await lines(registry))).toEqual(withoutSums(knative));
  });
});

describe("KnativeWebhookMetrics.setRelease", () => {
  it("drops the old family's series and registers the new one's", async () => {
    const registry = new Registry();
    const m = new KnativeWebhookMetrics(registry, "opencensus");
    m.observe(answered(true), LABELS, 0.001, "/defaulting");
    m.setRelease(PROFILES["1.17"]);
    expect((await lines(registry)).filter((l) => l.startsWith("webhook_request_count"))).toHaveLength(1);
    m.setRelease(PROFILES["1.23"]);
    expect(m.family).toBe("opentelemetry");
    expect(await lines(registry)).toEqual([
      "# HELP kn_webhook_handler_duration_seconds The duration of task execution.",
      "# TYPE kn_webhook_handler_duration_seconds histogram",
    ]);
    m.setRelease(PROFILES["1.17"]);
    expect((await lines(registry)).filter((l) => !l.startsWith("#"))).toEqual([]);
  });
});
