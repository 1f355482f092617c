import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsCall, startTestWebhook, type TestWebhook } from "../support/webhook.js";

function widgetReview(operation: string, object: unknown, oldObject?: unknown): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "gen-1",
      kind: { group: "example.com", version: "v1", kind: "Widget" },
      resource: { group: "example.com", version: "v1", resource: "widgets" },
      operation,
      userInfo: { username: "alice" },
      object,
      oldObject,
    },
  });
}

function patchOf(body: string): unknown[] {
  const response = JSON.parse(body).response as { allowed: boolean; patch?: string };
  expect(response.allowed).toBe(true);
  return response.patch === undefined ? [] : (JSON.parse(Buffer.from(response.patch, "base64").toString()) as unknown[]);
}

describe("duckbill serve --generational", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({ generational: "example.com/v1/Widget" });
  });
  afterAll(async () => wh.stop());

  it("sets spec.generation to 1 on CREATE of a named kind, touching nothing else", async () => {
    const object = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 3, extra: { keep: true } } };
    const r = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: widgetReview("CREATE", object) });
    expect(patchOf(r.body)).toEqual([{ op: "add", path: "/spec/generation", value: 1 }]);
  });

  it("bumps on a spec change and restores the old value otherwise", async () => {
    const old = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 3, generation: 4 } };
    const changed = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: widgetReview("UPDATE", { ...old, spec: { size: 5, generation: 4 } }, old) });
    expect(patchOf(changed.body)).toEqual([{ op: "replace", path: "/spec/generation", value: 5 }]);
    const reset = await httpsCall(wh.port, wh.ca, { path: "/defaulting", body: widgetReview("UPDATE", { ...old, spec: { size: 3, generation: 1 } }, old) });
    expect(patchOf(reset.body)).toEqual([{ op: "replace", path: "/spec/generation", value: 4 }]);
  });

  it("still denies kinds that are neither Knative's nor named", async () => {
    const r = await httpsCall(wh.port, wh.ca, {
      path: "/defaulting",
      body: widgetReview("CREATE", { spec: {} }).replace('"kind":"Widget"', '"kind":"Gadget"'),
    });
    expect(JSON.parse(r.body).response.status.message).toBe("mutation failed: unhandled kind: example.com/v1, Kind=Gadget");
  });
});
