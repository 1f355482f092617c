import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";
import { within } from "../support/timing.js";

/** A defaulted-enough Service that sets `affinity`, which config-features gates (kubernetes.podspec-affinity). */
function affinityReview(uid: string): Record<string, unknown> {
  const review = serviceReview({ uid });
  const object = (review.request as { object: { spec: Record<string, unknown> } }).object;
  object.spec = {
    template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go" }], affinity: { nodeAffinity: {} } } },
    traffic: [{ latestRevision: true, percent: 100 }],
  };
  return review;
}

async function decision(wh: TestWebhook, uid: string): Promise<{ allowed: boolean; message?: string }> {
  const r = await httpsCall(wh.port, wh.ca, { path: "/resource-validation", body: JSON.stringify(affinityReview(uid)) });
  const response = JSON.parse(r.body).response as { allowed: boolean; status?: { message: string } };
  return { allowed: response.allowed, message: response.status?.message };
}

async function eventually(check: () => Promise<boolean>, ms = within(15_000)): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("duckbill serve with --config-dir", () => {
  let dir: string;
  let wh: TestWebhook;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-config-"));
    await writeFile(join(dir, "config-features.yaml"), "kubernetes.podspec-affinity: disabled\n");
    wh = await startTestWebhook({ "config-source": "dir", "config-dir": dir });
  });
  afterAll(async () => {
    await wh.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("applies the directory's config-features to admission decisions, and follows edits", async () => {
    expect(await decision(wh, "cfg-1")).toEqual({ allowed: false, message: "validation failed: must not set the field(s): spec.template.spec.affinity" });
    await writeFile(join(dir, "config-features.yaml"), "kubernetes.podspec-affinity: enabled\n");
    await eventually(async () => (await decision(wh, "cfg-2")).allowed);
  });
});
