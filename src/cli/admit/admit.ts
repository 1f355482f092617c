import { createInterface } from "node:readline";
import { answerHttp, JSON_CONTENT_TYPE, type HttpAnswer } from "../../admission/http.js";
import type { AdmissionDeps } from "../../admission/deps.js";
import { parseJsonText, stringifyJson } from "../../go/encoding/json/json-bigint.js";
import { lastTopLevelMemberText } from "../../go/encoding/json/raw-member.js";
import { snapshotFrom, type ConfigSnapshot } from "../../config/snapshot.js";

/** One line of `duckbill admit --batch` input: the conformance vectors' request format. */
interface BatchLine {
  name?: unknown;
  path?: unknown;
  configs?: unknown;
  contentType?: unknown;
  review?: unknown;
}

/**
 * The body a line asks for: empty without a `review`, else the review member's JSON text exactly as the line has it
 * (Knative's harness, reference/harness/batch.go answerOne, sends the `json.RawMessage` of the line's last `review`
 * member), so that a review repeating a key, or spelling a value otherwise, reaches both webhooks as the same bytes.
 */
function bodyOf(line: BatchLine, text: string): string {
  if (!Object.prototype.hasOwnProperty.call(line, "review")) return "";
  return lastTopLevelMemberText(text, "review") ?? stringifyJson(line.review);
}

function pathOnly(path: string): string {
  const q = path.indexOf("?");
  return q === -1 ? path : path.slice(0, q);
}

/** Per-request ConfigMaps replace the base snapshot's entries of the same name (vector `configs`). */
class SnapshotCache {
  private readonly cache = new Map<string, ConfigSnapshot>();
  constructor(private readonly base: ConfigSnapshot) {}

  forConfigs(configs: unknown): ConfigSnapshot {
    if (typeof configs !== "object" || configs === null || Array.isArray(configs)) return this.base;
    const key = stringifyJson(configs);
    let snap = this.cache.get(key);
    if (snap === undefined) {
      const merged: Record<string, Record<string, unknown>> = Object.create(null) as Record<string, Record<string, unknown>>;
      for (const [name, data] of this.base.data) merged[name] = data;
      for (const [name, data] of Object.entries(configs as Record<string, unknown>)) {
        if (typeof data === "object" && data !== null) merged[name] = data as Record<string, unknown>;
      }
      snap = snapshotFrom(merged, "request", this.base.profile);
      this.cache.set(key, snap);
    }
    return snap;
  }
}

function outputLine(name: unknown, a: HttpAnswer): string {
  if (a.admission !== undefined) return JSON.stringify({ name, httpStatus: a.status, review: JSON.parse(a.body) as unknown });
  return JSON.stringify({ name, httpStatus: a.status, body: a.body });
}

/**
 * `duckbill admit --batch`: JSON lines `{name, path, configs?, contentType?, review}` in, one line
 * `{name, httpStatus, review}` or `{name, httpStatus, body}` out each, through exactly the code the HTTPS
 * server runs. Returns the number of input lines that could not be read.
 */
export async function admitBatch(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, deps: AdmissionDeps, base: ConfigSnapshot): Promise<number> {
  const snapshots = new SnapshotCache(base);
  const rl = createInterface({ input, crlfDelay: Infinity });
  let bad = 0;
  let lineNo = 0;
  for await (const text of rl) {
    lineNo++;
    if (text.trim() === "") continue;
    let line: BatchLine;
    try {
      // Integers JSON.parse would round are read exactly, so the review sent is the one recorded.
      line = parseJsonText(text) as BatchLine;
      if (typeof line !== "object" || line === null || Array.isArray(line)) throw new Error("a line must be a JSON object");
      if (typeof line.path !== "string") throw new Error('"path" must be a string');
    } catch (e) {
      bad++;
      output.write(JSON.stringify({ line: lineNo, error: `line ${lineNo}: ${(e as Error).message}` }) + "\n");
      continue;
    }
    const contentType = line.contentType === undefined ? JSON_CONTENT_TYPE : line.contentType === "" ? undefined : String(line.contentType);
    const answer = await answerHttp({ path: pathOnly(line.path as string), contentType, body: bodyOf(line, text) }, deps, { config: snapshots.forConfigs(line.configs) });
    output.write(outputLine(line.name, answer) + "\n");
  }
  return bad;
}

/** `duckbill admit`: one AdmissionReview on stdin, the answer on stdout. */
export async function admitOne(body: string, path: string, deps: AdmissionDeps, config: ConfigSnapshot): Promise<HttpAnswer> {
  return answerHttp({ path: pathOnly(path), contentType: JSON_CONTENT_TYPE, body }, deps, { config });
}
