/**
 * Label values from requests are bounded: what a client sends can neither grow a series' labels nor the number of
 * series past MAX_SERIES_PER_METRIC, on Duckbill's series and on Knative's.
 */
import { describe, expect, it } from "vitest";
import type { AdmittedSummary } from "../admission/http.js";
import type { AdmissionRequest } from "../admission/review.js";
import { admissionRequest } from "../../test/support/admission-request.js";
import { LabelBounds, MAX_SERIES_PER_METRIC, OTHER } from "./metric-labels.js";
import { WebhookMetrics } from "./metrics.js";

const request = admissionRequest;

function answered(r: AdmissionRequest, allowed: boolean): AdmittedSummary {
  return { request: r, response: { uid: r.uid, allowed } as AdmittedSummary["response"], type: "validation" };
}

describe("LabelBounds", () => {
  const bounds = new LabelBounds();

  it("keeps what the webhook serves as sent: Knative's kinds and resources, ConfigMaps, the four operations, status, namespaces", () => {
    expect(bounds.of(request())).toEqual({
      group: "serving.knative.dev",
      version: "v1",
      kind: "Service",
      resourceGroup: "serving.knative.dev",
      resourceVersion: "v1",
      resource: "services",
      subresource: "",
      operation: "CREATE",
      namespace: "default",
    });
    const cm = bounds.of(
      request({ kind: { group: "", version: "v1", kind: "ConfigMap" }, resource: { group: "", version: "v1", resource: "configmaps" }, operation: "UPDATE", namespace: "knative-serving" }),
    );
    expect([cm.group, cm.version, cm.kind, cm.resource, cm.operation, cm.namespace]).toEqual(["", "v1", "ConfigMap", "configmaps", "UPDATE", "knative-serving"]);
    const status = bounds.of(request({ kind: { group: "networking.internal.knative.dev", version: "v1alpha1", kind: "Ingress" }, subResource: "status", namespace: "" }));
    expect([status.group, status.version, status.kind, status.subresource, status.namespace]).toEqual(["networking.internal.knative.dev", "v1alpha1", "Ingress", "status", ""]);
  });

  it("counts anything else as other: unknown kinds, groups, versions, resources, operations, subresources, names that are no namespace", () => {
    const l = bounds.of(
      request({
        kind: { group: "evil.example.com", version: "v9", kind: "K".repeat(1 << 20) },
        resource: { group: "x", version: "v0", resource: "r".repeat(300) },
        subResource: "scale",
        operation: "create",
        namespace: "n".repeat(64),
      }),
    );
    expect(Object.values(l)).toEqual(Array<string>(9).fill(OTHER));
    expect(bounds.of(request({ namespace: "Default" })).namespace).toBe(OTHER);
    expect(bounds.of(request({ namespace: "n".repeat(63) })).namespace).toBe("n".repeat(63));
  });
});

describe("WebhookMetrics under hostile label values", () => {
  for (const knative of ["opencensus", "opentelemetry"] as const) {
    it(`${knative}: 2,000 unique kinds and 8 kinds of 256 KiB add one series; 5,000 unique namespaces stop at the series bound`, async () => {
      const m = new WebhookMetrics({ processMetrics: false, knative });
      m.observeAdmission(answered(request(), true), 0.001, "/defaulting");
      const base = (await m.registry.metrics()).length;
      for (let i = 0; i < 2000; i++) m.observeAdmission(answered(request({ kind: { group: "serving.knative.dev", version: "v1", kind: `Kind${i}` } }), i % 2 === 0), 0.001, "/defaulting");
      for (let i = 0; i < 8; i++) m.observeAdmission(answered(request({ kind: { group: "g", version: "v", kind: String(i).repeat(256 * 1024) } }), false), 0.001, "/defaulting");
      const text = await m.registry.metrics();
      // One series of kind "other" per outcome beside the Service's, per metric: a few kilobytes more, not megabytes.
      expect(text.length).toBeLessThan(base * 4);
      expect(text).toMatch(/kind="other"/);
      expect(text).not.toMatch(/Kind\d/);
      expect(Math.max(...text.split("\n").map((l) => l.length))).toBeLessThan(1000);

      for (let i = 0; i < 5000; i++) m.observeAdmission(answered(request({ namespace: `ns-${i}` }), true), 0.001, "/defaulting");
      const after = await m.registry.metrics();
      // Duckbill's series carry no namespace; Knative 1.17's do, and stop at the bound plus the overflow series.
      const countLines = after.split("\n").filter((l) => l.startsWith("webhook_request_count{"));
      if (knative === "opencensus") {
        expect(countLines.length).toBe(MAX_SERIES_PER_METRIC + 1);
        expect(countLines.some((l) => l.includes('resource_namespace="other"'))).toBe(true);
        expect(after.length).toBeLessThan(40 * 1024 * 1024);
      } else {
        // No namespace label: the same series, bigger counts.
        expect(after.split("\n").length).toBe(text.split("\n").length);
      }
    });
  }

  it("duckbill_* series stop at the bound too: new label sets share the overflow series", async () => {
    const m = new WebhookMetrics({ processMetrics: false, knative: false });
    // Label values are bounded, but their product is not small: types × kinds × operations × outcomes.
    const kinds = ["Service", "Configuration", "Route", "Revision", "DomainMapping", "ConfigMap"];
    const versions = ["v1", "v1beta1", "v1alpha1"];
    const groups = ["", "serving.knative.dev", "autoscaling.internal.knative.dev", "networking.internal.knative.dev"];
    let n = 0;
    for (const kind of kinds) for (const version of versions) for (const group of groups) for (const operation of ["CREATE", "UPDATE", "DELETE", "CONNECT", "X"]) for (const subResource of ["", "status", "scale"]) {
      for (const allowed of [true, false]) m.observeAdmission(answered(request({ kind: { group, version, kind }, operation, subResource }), allowed), 0.001, "/defaulting");
      n += 2;
    }
    expect(n).toBeGreaterThan(MAX_SERIES_PER_METRIC);
    const counts = (await m.registry.metrics()).split("\n").filter((l) => l.startsWith("duckbill_admission_duration_seconds_count{"));
    // The overflow series keeps the webhook type and the outcome: one for allowed, one for denied.
    expect(counts.length).toBe(MAX_SERIES_PER_METRIC + 2);
    const total = counts.reduce((s, l) => s + Number(l.split(" ").at(-1)), 0);
    expect(total).toBe(n);
  });
});

describe("duckbill_admission_duration_seconds", () => {
  it("counts a value at a bound in that bucket, cumulatively, and prints le first as prom-client's Histogram does", async () => {
    const m = new WebhookMetrics({ processMetrics: false, knative: false });
    for (const seconds of [0.005, 0.005, 0.02, 100]) m.observeAdmission(answered(request(), true), seconds, "/defaulting");
    const lines = (await m.registry.metrics()).split("\n").filter((l) => l.startsWith("duckbill_admission_duration_seconds"));
    const series = 'type="validation",group="serving.knative.dev",version="v1",kind="Service",subresource="",operation="CREATE",status="success"';
    expect(lines).toContain(`duckbill_admission_duration_seconds_bucket{le="0.005",${series}} 2`);
    expect(lines).toContain(`duckbill_admission_duration_seconds_bucket{le="0.01",${series}} 2`);
    expect(lines).toContain(`duckbill_admission_duration_seconds_bucket{le="0.025",${series}} 3`);
    expect(lines).toContain(`duckbill_admission_duration_seconds_bucket{le="+Inf",${series}} 4`);
    expect(lines).toContain(`duckbill_admission_duration_seconds_sum{${series}} 100.03`);
    expect(lines).toContain(`duckbill_admission_duration_seconds_count{${series}} 4`);
  });
});

describe("duckbill_feature_scope_denials_total", () => {
  it("counts scope denials by flag, a flag the table does not know as other", async () => {
    const m = new WebhookMetrics({ processMetrics: false, knative: false });
    const denied = (flags: readonly string[]): AdmittedSummary => ({ ...answered(request(), false), scopeDenials: flags });
    m.observeAdmission(denied(["kubernetes.podspec-affinity"]), 0.001, "/resource-validation");
    m.observeAdmission(denied(["kubernetes.podspec-affinity", "kubernetes.podspec-runtimeclassname"]), 0.001, "/resource-validation");
    m.observeAdmission(denied(["x".repeat(10_000)]), 0.001, "/resource-validation");
    m.observeAdmission(answered(request(), false), 0.001, "/resource-validation");
    const lines = (await m.registry.metrics()).split("\n").filter((l) => l.startsWith("duckbill_feature_scope_denials_total{"));
    expect(lines.sort()).toEqual([
      'duckbill_feature_scope_denials_total{flag="kubernetes.podspec-affinity"} 2',
      'duckbill_feature_scope_denials_total{flag="kubernetes.podspec-runtimeclassname"} 1',
      'duckbill_feature_scope_denials_total{flag="other"} 1',
    ]);
  });
});
