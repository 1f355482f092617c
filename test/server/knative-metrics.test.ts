/**
 * Knative's own webhook series on /metrics (src/server/knative-metrics.ts), scraped after real reviews through the
 * HTTPS server: the names, label sets and values of the release answered as, beside duckbill_*.
 */
import { Agent } from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import { OPENCENSUS_LATENCY_BUCKETS, OPENTELEMETRY_DURATION_BUCKETS } from "../../src/server/knative-metrics.js";
import { capturedLogger, eventually } from "../config/store-harness.js";
import { CLUSTER_NS, useClusterServe } from "../support/cluster-serve.js";
import { BUILTIN_RESOURCES, configMap, CONFIGMAPS, CUSTOM_RESOURCE_DEFINITIONS as CRDS } from "../support/fake-apiserver.js";
import { freePort, getText, samplesOf } from "../support/metrics-scrape.js";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

/** The Service CREATE as /defaulting leaves it (traffic to the latest revision): /resource-validation allows it. */
function defaultedServiceReview(): Record<string, unknown> {
  const review = serviceReview({ uid: "3f1c2d9e-0000-4000-8000-000000000002" });
  const request = review.request as { object: { spec: Record<string, unknown> } };
  request.object.spec.traffic = [{ latestRevision: true, percent: 100 }];
  return review;
}

async function admit(port: number, ca: string, path: string, review: Record<string, unknown>): Promise<boolean> {
  const r = await httpsCall(port, ca, { path, body: JSON.stringify(review) });
  expect(r.status).toBe(200);
  return (JSON.parse(r.body) as { response: { allowed: boolean } }).response.allowed;
}

/**
 * Two allowed reviews (/defaulting, /resource-validation), one denied (/resource-validation of a Service without
 * traffic: "Traffic targets sum to 0"), one body that is not a review.
 */
async function traffic(port: number, ca: string): Promise<void> {
  expect(await admit(port, ca, "/defaulting", serviceReview())).toBe(true);
  expect(await admit(port, ca, "/resource-validation", defaultedServiceReview())).toBe(true);
  expect(await admit(port, ca, "/resource-validation", serviceReview())).toBe(false);
  expect((await httpsCall(port, ca, { path: "/defaulting", body: "{not json" })).status).toBe(400);
}

const SERVICE_CREATE_OC = {
  desired_api_version: "",
  kind_group: "serving.knative.dev",
  kind_kind: "Service",
  kind_version: "v1",
  request_operation: "CREATE",
  resource_group: "serving.knative.dev",
  resource_namespace: "default",
  resource_resource: "services",
  resource_version: "v1",
  result_code: "",
  result_reason: "",
  result_status: "",
};

const SERVICE_CREATE_OTEL = {
  kn_webhook_operation_type: "CREATE",
  kn_webhook_resource_group: "serving.knative.dev",
  kn_webhook_resource_kind: "Service",
  kn_webhook_resource_version: "v1",
  kn_webhook_subresource: "",
  kn_webhook_type: "admission",
  otel_scope_name: "knative.dev/pkg/webhook",
  otel_scope_schema_url: "",
  otel_scope_version: "",
};

const KNATIVE_NAMES = /^(webhook_request_|kn_webhook_)/m;

describe("Knative's webhook series on /metrics", () => {
  let wh: TestWebhook | undefined;
  async function stopWebhook(): Promise<void> {
    await wh?.stop();
    wh = undefined;
  }
  afterEach(stopWebhook);

  async function serveAndScrape(overrides: Record<string, string>): Promise<string> {
    const metricsPort = await freePort();
    wh = await startTestWebhook({ "metrics-port": String(metricsPort), "metrics-host": "127.0.0.1", ...overrides });
    await traffic(wh.port, wh.ca);
    return getText(metricsPort);
  }

  it("answering as 1.17: webhook_request_count and webhook_request_latencies (OpenCensus), one series per admission_allowed", async () => {
    const text = await serveAndScrape({ "knative-version": "1.17" });
    expect(text).toContain("# HELP webhook_request_count The number of requests that are routed to webhook\n# TYPE webhook_request_count counter\n");
    expect(text).toContain("# HELP webhook_request_latencies The response time in milliseconds\n# TYPE webhook_request_latencies histogram\n");
    // The webhook type is no label: /defaulting and /resource-validation of the same request share a series.
    expect(samplesOf(text, "webhook_request_count")).toEqual([
      { name: "webhook_request_count", labels: { admission_allowed: "true", ...SERVICE_CREATE_OC }, value: 2 },
      { name: "webhook_request_count", labels: { admission_allowed: "false", ...SERVICE_CREATE_OC }, value: 1 },
    ]);
    for (const [allowed, n] of [["true", 2], ["false", 1]] as const) {
      const labels = { admission_allowed: allowed, ...SERVICE_CREATE_OC };
      const buckets = samplesOf(text, "webhook_request_latencies_bucket").filter((s) => s.labels.admission_allowed === allowed);
      expect(buckets.map((b) => b.labels)).toEqual([...OPENCENSUS_LATENCY_BUCKETS.map(String), "+Inf"].map((le) => ({ ...labels, le })));
      const counts = buckets.map((b) => b.value);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(counts.at(-2)).toBe(n); // everything took less than 100 s
      expect(counts.at(-1)).toBe(n);
      expect(samplesOf(text, "webhook_request_latencies_count").filter((s) => s.labels.admission_allowed === allowed)).toEqual([{ name: "webhook_request_latencies_count", labels, value: n }]);
      const [sum] = samplesOf(text, "webhook_request_latencies_sum").filter((s) => s.labels.admission_allowed === allowed);
      expect(Number.isInteger(sum?.value)).toBe(true); // whole milliseconds, as d.Milliseconds()
    }
    expect(text).not.toMatch(/^kn_webhook_/m);
    // Duckbill's own series stay.
    expect(samplesOf(text, "duckbill_admission_duration_seconds_count")).toHaveLength(3);
  });

  for (const version of ["1.23", "1.24"]) {
    it(`answering as ${version}: kn_webhook_handler_duration_seconds (OpenTelemetry), per route and status`, async () => {
      const text = await serveAndScrape({ "knative-version": version, "knative-metrics": "true" });
      expect(text).toContain("# HELP kn_webhook_handler_duration_seconds The duration of task execution.\n# TYPE kn_webhook_handler_duration_seconds histogram\n");
      const series = [
        { http_route: "/defaulting", kn_webhook_operation_status: "success", ...SERVICE_CREATE_OTEL },
        { http_route: "/resource-validation", kn_webhook_operation_status: "success", ...SERVICE_CREATE_OTEL },
        { http_route: "/resource-validation", kn_webhook_operation_status: "failure", ...SERVICE_CREATE_OTEL },
      ];
      expect(samplesOf(text, "kn_webhook_handler_duration_seconds_count")).toEqual(series.map((labels) => ({ name: "kn_webhook_handler_duration_seconds_count", labels, value: 1 })));
      for (const labels of series) {
        const buckets = samplesOf(text, "kn_webhook_handler_duration_seconds_bucket").filter((s) => s.labels.http_route === labels.http_route && s.labels.kn_webhook_operation_status === labels.kn_webhook_operation_status);
        expect(buckets.map((b) => b.labels)).toEqual([...OPENTELEMETRY_DURATION_BUCKETS.map(String), "+Inf"].map((le) => ({ ...labels, le })));
        expect(buckets.at(-1)?.value).toBe(1);
      }
      expect(text).not.toMatch(/^webhook_request_/m);
    });
  }

  it("--knative-metrics auto (the default) without config-observability: shown as 1.17 (metrics.backend-destination defaults to prometheus), hidden as 1.23 and 1.24 (metrics-protocol defaults to none)", async () => {
    expect(samplesOf(await serveAndScrape({ "knative-version": "1.17" }), "webhook_request_count")).toHaveLength(2);
    await stopWebhook();
    for (const version of ["1.23", "1.24"]) {
      const text = await serveAndScrape({ "knative-version": version });
      expect(text).not.toMatch(KNATIVE_NAMES);
      expect(samplesOf(text, "duckbill_admission_duration_seconds_count")).toHaveLength(3);
      await stopWebhook();
    }
  });

  it("--knative-metrics false: duckbill_* only", async () => {
    const text = await serveAndScrape({ "knative-version": "1.17", "knative-metrics": "false" });
    expect(text).not.toMatch(KNATIVE_NAMES);
    expect(samplesOf(text, "duckbill_admission_duration_seconds_count")).toHaveLength(3);
  });

  it("reviews of 2,000 unique kinds and 8 kinds of 256 KiB leave the scrape small: request values the webhook does not serve count as other", async () => {
    const metricsPort = await freePort();
    wh = await startTestWebhook({ "metrics-port": String(metricsPort), "metrics-host": "127.0.0.1", "knative-version": "1.17" });
    const { port, ca } = wh;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const kinds = [...Array.from({ length: 2000 }, (_, i) => `Kind${i}`), ...Array.from({ length: 8 }, (_, i) => String(i).repeat(256 * 1024))];
      for (let i = 0; i < kinds.length; i += 16) {
        await Promise.all(kinds.slice(i, i + 16).map((kind) => httpsCall(port, ca, { path: "/defaulting", body: JSON.stringify(serviceReview({ kind })), tls: { agent } }).then((r) => expect(r.status).toBe(200))));
      }
    } finally {
      agent.destroy();
    }
    const text = await getText(metricsPort);
    expect(text.length).toBeLessThan(2 * 1024 * 1024);
    expect(text).not.toMatch(/Kind\d|0{1000}/);
    const counts = samplesOf(text, "webhook_request_count");
    expect(counts).toEqual([{ name: "webhook_request_count", labels: { admission_allowed: "false", ...SERVICE_CREATE_OC, kind_kind: "other" }, value: 2008 }]);
    expect(samplesOf(text, "duckbill_admission_duration_seconds_count").map((s) => [s.labels.kind, s.value])).toEqual([["other", 2008]]);
  });

  it("refuses a --knative-metrics that is not a boolean", async () => {
    await expect(startTestWebhook({ "knative-metrics": "maybe" })).rejects.toThrow('--knative-metrics (DUCKBILL_KNATIVE_METRICS) must be auto, true or false, got "maybe"');
  });
});

describe("Knative's webhook series under --knative-version auto", () => {
  const cluster = useClusterServe({ resources: [...BUILTIN_RESOURCES, CRDS] });
  const crd = (version: string): { apiVersion: string; kind: string; metadata: Record<string, unknown> } => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "services.serving.knative.dev", labels: { "app.kubernetes.io/name": "knative-serving", "app.kubernetes.io/version": version } },
  });

  it("switches family when the cluster's release changes: the old release's series go, the new one's start empty", async () => {
    cluster.fake.create(CRDS, crd("1.17.0"));
    // 1.17 exports to Prometheus by default and ignores metrics-protocol; 1.23 exports because of it.
    cluster.fake.create(CONFIGMAPS, configMap(CLUSTER_NS, "config-observability", { "metrics-protocol": "prometheus" }));
    const { logger, lines } = capturedLogger();
    logger.level = "info";
    const metricsPort = await freePort();
    const running = await cluster.serve(logger, { "disable-ha": "true", "tls-source": "generated", "reconcile-webhooks": "false", "metrics-port": String(metricsPort), "metrics-host": "127.0.0.1" });
    expect(await admit(running.port, running.tls.ca, "/defaulting", serviceReview())).toBe(true);
    let text = await getText(metricsPort);
    expect(samplesOf(text, "webhook_request_count").map((s) => s.value)).toEqual([1]);
    expect(text).not.toMatch(/^kn_webhook_/m);

    cluster.fake.apply(CRDS, crd("1.23.1"));
    await eventually(() => lines.some((l) => l.msg === "the cluster's Knative release changed (was answering as 1.17)") || undefined, "the release change");
    text = await getText(metricsPort);
    expect(text).not.toMatch(KNATIVE_NAMES);
    expect(await admit(running.port, running.tls.ca, "/defaulting", serviceReview())).toBe(true);
    text = await getText(metricsPort);
    expect(samplesOf(text, "kn_webhook_handler_duration_seconds_count")).toEqual([
      { name: "kn_webhook_handler_duration_seconds_count", labels: { http_route: "/defaulting", kn_webhook_operation_status: "success", ...SERVICE_CREATE_OTEL }, value: 1 },
    ]);
    expect(text).not.toMatch(/^webhook_request_/m);
  });

  it("--knative-metrics auto follows config-observability live: Knative's series shown while it exports to Prometheus", async () => {
    cluster.fake.create(CRDS, crd("1.24.0"));
    const { logger, lines } = capturedLogger();
    logger.level = "info";
    const metricsPort = await freePort();
    const running = await cluster.serve(logger, { "disable-ha": "true", "tls-source": "generated", "reconcile-webhooks": "false", "metrics-port": String(metricsPort), "metrics-host": "127.0.0.1" });
    expect(await admit(running.port, running.tls.ca, "/defaulting", serviceReview())).toBe(true);
    expect(await getText(metricsPort)).not.toMatch(KNATIVE_NAMES);

    cluster.fake.create(CONFIGMAPS, configMap(CLUSTER_NS, "config-observability", { "metrics-protocol": " prometheus " }));
    await eventually(() => lines.some((l) => l.msg === "Knative's metrics series shown: config-observability exports to Prometheus") || undefined, "shown");
    expect(await admit(running.port, running.tls.ca, "/defaulting", serviceReview())).toBe(true);
    expect(samplesOf(await getText(metricsPort), "kn_webhook_handler_duration_seconds_count").map((s) => s.value)).toEqual([1]);

    // A value Knative rejects keeps the exporter (and the series) as they are.
    cluster.fake.apply(CONFIGMAPS, configMap(CLUSTER_NS, "config-observability", { "metrics-protocol": "carrier-pigeon" }));
    await eventually(() => lines.some((l) => l.msg === "config-observability: not a metrics exporter Knative accepts; Knative's series stay as they are") || undefined, "the warning");
    expect(samplesOf(await getText(metricsPort), "kn_webhook_handler_duration_seconds_count").map((s) => s.value)).toEqual([1]);

    cluster.fake.apply(CONFIGMAPS, configMap(CLUSTER_NS, "config-observability", { "metrics-protocol": "none" }));
    await eventually(() => lines.some((l) => l.msg === "Knative's metrics series hidden: config-observability does not export to Prometheus") || undefined, "hidden");
    expect(await getText(metricsPort)).not.toMatch(KNATIVE_NAMES);
  });
});
