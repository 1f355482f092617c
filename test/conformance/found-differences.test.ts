/**
 * The differences the differential suite found (test/differential/, issue [11]) and Duckbill no longer has: for each
 * cause once listed in known-differences.md, its shrunk example and a few neighbours, as vector lines per release
 * (found-differences/knative-<release>.jsonl; names `<row id>/<case>`). Each `expect` is the answer of that release's
 * Knative webhook (`bin/knative-reference --knative-version <release> --batch`), turned into a vector's `expect`
 * as test/differential/answerers.ts expectFrom does; Duckbill answers through admitBatch with the release's profile
 * and is judged by the conformance rules (compare.ts), with no known failures.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROFILES } from "../../src/config/profile.js";
import { answerThroughBatch } from "./batch-runner.js";
import { judge, type Vector } from "./compare.js";
import { CONFORMANCE_DIR, RELEASES } from "./paths.js";

describe.each(RELEASES.map((r) => r.version))("differences found against Knative %s, fixed", (version) => {
  const text = readFileSync(join(CONFORMANCE_DIR, "found-differences", `knative-${version}.jsonl`), "utf8");
  const lines = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => ({ text: l, vector: JSON.parse(l) as Vector }));

  it.each(lines.map((l) => [l.vector.name, l] as const))("%s", async (_name, l) => {
    const batch = await answerThroughBatch([{ name: l.vector.name, text: l.text }], PROFILES[version]);
    expect(judge(l.vector, batch.answers.get(l.vector.name))).toBeUndefined();
  });
});
