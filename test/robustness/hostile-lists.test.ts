import { describe, expect, it } from "vitest";
import { answerReview, type AdmissionPath } from "../../src/admission/http.js";
import { patchTooLargeMessage } from "../../src/admission/defaulting.js";
import { defaultDeps } from "../../src/cli/main.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
// The bodies of issue [13], as the bench builds them: a Service whose one list has a million empty entries.
import { hostileBody } from "../../bench/hostile.mjs";

const deps = defaultDeps();
const env = { config: defaultSnapshot() };

async function answer(list: string, path: AdmissionPath): Promise<{ allowed: boolean; message: string; bytes: number }> {
  const a = await answerReview(path, hostileBody(list), deps, env);
  expect(a.status).toBe(200);
  const r = (JSON.parse(a.body) as { response: { allowed: boolean; status?: { message: string } } }).response;
  return { allowed: r.allowed, message: r.status?.message ?? "", bytes: a.body.length };
}

/**
 * What is served for them (docs/adr/0009-bounded-work.md), not how fast: `node bench/hostile.mjs --server`
 * measures time and memory.
 */
describe("a 3 MiB Service with a million entries in one list", () => {
  for (const list of ["env", "volumeMounts", "ports", "volumes"]) {
    it(`${list}: defaulting refuses a patch past the bound instead of building it`, async () => {
      const r = await answer(list, "/defaulting");
      expect(r).toMatchObject({ allowed: false, message: `mutation failed: ${patchTooLargeMessage()}` });
    });
  }

  for (const list of ["env", "volumeMounts", "volumes"]) {
    it(`${list}: validation denies with the first errors and a count of the rest, in under 1 MB`, async () => {
      const r = await answer(list, "/resource-validation");
      expect(r.allowed).toBe(false);
      expect(r.message).toMatch(/\ntoo many errors: (\d+ more not shown, )?\d+ more list entries not checked$/);
      expect(r.bytes).toBeLessThan(1024 * 1024);
    });
  }

  it("ports: validation answers as Knative does (only the first port is looked at)", async () => {
    const r = await answer("ports", "/resource-validation");
    expect(r.message).toBe(
      "validation failed: Traffic targets sum to 0, want 100: spec.traffic\nmore than one container port is set: spec.template.spec.containers[*].ports\nOnly a single port is allowed across all containers",
    );
  });
});
