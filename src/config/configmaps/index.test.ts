import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { admitConfigMap } from "../../admission/config-validation.js";
import type { AdmissionDeps } from "../../admission/deps.js";
import { decodeAdmissionReview } from "../../admission/review.js";
import { knativeRegistry } from "../../serving/kinds.js";
import { RELEASES } from "../../../test/conformance/paths.js";
import { PROFILES } from "../profile.js";
import { defaultSnapshot } from "../snapshot.js";
import { ConfigMapValidators, guardedValidator } from "../validators.js";
import { OTHER_CONFIGMAP_PARSERS } from "./index.js";

interface Vector {
  name: string;
  review: { request?: { object?: { metadata?: { name?: string } } } };
  expect: { response: { allowed: boolean; status?: { message: string } } };
}

const deps: AdmissionDeps = {
  kinds: knativeRegistry(),
  configMaps: new ConfigMapValidators(OTHER_CONFIGMAP_PARSERS.map(([n, p]) => [n, guardedValidator(p)] as const)),
};
const OURS = new Set(OTHER_CONFIGMAP_PARSERS.map(([n]) => n));

/** The release's config_validation vectors of the ConfigMaps these parsers validate. */
function vectorsIn(dir: string): Vector[] {
  return readFileSync(join(dir, "config_validation.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Vector)
    .filter((v) => OURS.has(v.review.request?.object?.metadata?.name ?? ""));
}

describe("OTHER_CONFIGMAP_PARSERS", () => {
  it("covers every ConfigMap Knative 1.17 validates besides features, defaults and autoscaler", () => {
    expect([...OURS].sort()).toEqual([
      "config-certmanager",
      "config-deployment",
      "config-domain",
      "config-gc",
      "config-leader-election",
      "config-logging",
      "config-network",
      "config-observability",
      "config-tracing",
    ]);
  });
});

// Each release's vectors, answered as that release answers (its profile in the request's snapshot).
describe.each(RELEASES.map((r) => [r.version, r] as const))("OTHER_CONFIGMAP_PARSERS as Knative %s", (version, { dir }) => {
  const vectors = vectorsIn(dir);
  const env = { config: defaultSnapshot(PROFILES[version]) };

  it("has config_validation vectors to check against", () => {
    expect(vectors.length).toBeGreaterThan(40);
  });

  it.each(vectors.map((v) => [v.name, v] as const))("answers %s like Knative", (_name, v) => {
    const decoded = decodeAdmissionReview(v.review);
    if (!decoded.ok || decoded.review.request === undefined) throw new Error("vector review does not decode");
    const decision = admitConfigMap(decoded.review.request, deps, env);
    expect({ allowed: decision.allowed, message: decision.message }).toEqual({
      allowed: v.expect.response.allowed,
      message: v.expect.response.status?.message,
    });
  });
});
