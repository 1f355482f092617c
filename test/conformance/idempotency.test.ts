/**
 * Defaulting is idempotent: the API server re-invokes mutating webhooks (`reinvocationPolicy: IfNeeded`)
 * with the already-patched object, and a second pass must change nothing. For every allowed /defaulting
 * vector, apply Duckbill's own patch, send the result through /defaulting again, and expect no operation.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import jsonpatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { answerHttp } from "../../src/admission/http.js";
import { defaultDeps } from "../../src/cli/main.js";
import { snapshotFrom } from "../../src/config/snapshot.js";
import { VECTORS_DIR } from "./paths.js";

interface Line {
  name: string;
  path: string;
  configs?: Record<string, Record<string, string>>;
  contentType?: string;
  review?: { apiVersion?: string; request?: { object?: unknown } & Record<string, unknown> };
}

const deps = defaultDeps();

function defaultingLines(): Line[] {
  const out: Line[] = [];
  for (const f of readdirSync(VECTORS_DIR).filter((n) => n.endsWith(".jsonl")).sort()) {
    for (const text of readFileSync(join(VECTORS_DIR, f), "utf8").split("\n")) {
      if (text.trim() === "") continue;
      const line = JSON.parse(text) as Line;
      if (line.path === "/defaulting" && line.contentType === undefined && typeof line.review?.request?.object === "object") out.push(line);
    }
  }
  return out;
}

async function defaultOnce(line: Line, object: unknown): Promise<{ allowed: boolean; ops: jsonpatch.Operation[] }> {
  const review = { ...line.review, request: { ...line.review!.request, object } };
  const config = snapshotFrom(line.configs ?? {}, "vector");
  const a = await answerHttp({ path: "/defaulting", contentType: "application/json", body: JSON.stringify(review) }, deps, { config });
  const response = (JSON.parse(a.body) as { response: { allowed: boolean; patch?: string } }).response;
  const ops = response.patch === undefined ? [] : (JSON.parse(Buffer.from(response.patch, "base64").toString("utf8")) as jsonpatch.Operation[]);
  return { allowed: response.allowed, ops };
}

describe("defaulting is idempotent", () => {
  it("a second /defaulting pass over every defaulted vector object yields no patch operation", async () => {
    const lines = defaultingLines();
    const notIdempotent: string[] = [];
    let checked = 0;
    for (const line of lines) {
      const original = line.review!.request!.object;
      const first = await defaultOnce(line, original);
      if (!first.allowed) continue;
      const defaulted = jsonpatch.applyPatch(structuredClone(original), first.ops, true, false).newDocument;
      const second = await defaultOnce(line, defaulted);
      checked++;
      if (second.ops.length > 0) notIdempotent.push(`${line.name}: ${JSON.stringify(second.ops).slice(0, 300)}`);
    }
    expect(checked).toBeGreaterThan(600);
    expect(notIdempotent).toEqual([]);
  });
});
