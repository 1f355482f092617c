// Summarises a V8 .cpuprofile (node --cpu-prof): where the samples land, by function and by file.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_DIR } from "./paths.mjs";
import { originalPosition } from "./source-map.mjs";

/** `file:line` of a frame; compiled dist/ code is mapped back to its src/*.ts line. */
function where(frame) {
  const url = frame.url ?? "";
  if (url === "") return "";
  if (!url.startsWith("file://")) return `${url}:${frame.lineNumber + 1}`;
  const file = fileURLToPath(url);
  // V8's lineNumber and columnNumber are 0-based.
  const original = originalPosition(file, frame.lineNumber, frame.columnNumber);
  if (original !== undefined) return `${relative(REPO_DIR, original.file)}:${original.line}`;
  return `${relative(REPO_DIR, file)}:${frame.lineNumber + 1}`;
}

/** "name file:line" of a V8 call frame (CPU and heap profiles alike): dist/ code mapped back to its src/*.ts line. */
export function label(frame) {
  const name = frame.functionName === "" ? "(anonymous)" : frame.functionName;
  return frame.url === "" ? name : `${name} ${where(frame)}`;
}

/**
 * The stages of one admission request, by the source file a frame is in (after source maps), the first found from
 * the sampled frame outwards deciding. Knative's own code the stages mirror: knative.dev/pkg webhook/admission.go
 * (admissionHandler: decode, admit, encode, log), resourcesemantics/defaulting (SetDefaults, duck.CreatePatch),
 * resourcesemantics/validation (Validate, apis.FieldError.Error).
 */
const STAGE_RULES = [
  ["logging (Knative-format lines, pino, sonic-boom)", /^src\/server\/(logging|knative-request-log|zap-format|log-fields)\.ts$|node_modules\/(pino|sonic-boom|on-exit-leak-free)\//],
  ["metrics (duckbill_* and Knative's series)", /^src\/server\/(metrics|metric-labels|knative-metrics|explicit-histogram)\.ts$|node_modules\/prom-client\//],
  ["body decode (JSON with Go's semantics)", /^src\/go\/encoding\/json\/(stream|json-bigint|go-strings|raw-member)\.ts$/],
  ["AdmissionReview envelope checks", /^src\/admission\/review\.ts$/],
  ["typed decode of the object (Go structs)", /^src\/go\/encoding\/json\/(decode|types)\.ts$/],
  ["duck diff and JSON patch", /^src\/duck\/(json-diff|patch|json-equal)\.ts$/],
  ["FieldError rendering", /^src\/apis\/field-error\.ts$/],
  ["@admit", /^src\/(serving|config|apis|duck|go)\/|^src\/admission\/(defaulting|validation|config-validation|generation|objects|decode-options|served)\.ts$/],
  ["response encoding (AdmissionResponse, JSON)", /^src\/admission\/(response|http)\.ts$/],
  ["HTTP answer write (Fastify reply, TLS, socket)", /^src\/server\/admission-answer\.ts#sendAnswer$|node_modules\/fastify\/lib\/reply\.js$/],
];

/** Frames no stage above claims: Node's and Fastify's request handling. */
const TRANSPORT = ["HTTP request read, parse and routing; TLS and sockets (Node, Fastify)", /^src\/server\/|node_modules\/|^node:/];

const ADMIT_STAGES = new Map([
  ["admitDefaulting", "defaulting (SetDefaults)"],
  ["admitValidation", "validation (Validate)"],
  ["admitConfigMap", "ConfigMap validation"],
]);

/**
 * CPU per stage of the admission path: each sample goes to the stage of the innermost frame a rule names (an
 * `@admit` frame to the admit* function it runs under); V8's own buckets (GC, idle, program) stay apart.
 * `requests` (answered during the profile) turns shares into µs per request.
 */
export function stagesOfProfile(file, requests) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fileOf = new Map();
  const frameFile = (frame) => {
    const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}`;
    let f = fileOf.get(key);
    if (f === undefined) {
      f = frame.url === "" ? "" : where(frame).replace(/:\d+$/, "");
      fileOf.set(key, f);
    }
    return f;
  };
  const stageOfNode = new Map();
  const stageOf = (id) => {
    let s = stageOfNode.get(id);
    if (s !== undefined) return s;
    const top = byId.get(id).callFrame;
    if (top.url === "" && top.functionName.startsWith("(")) s = top.functionName === "(garbage collector)" ? "garbage collector" : top.functionName === "(idle)" ? "idle" : "V8 and native code (program)";
    let transport = false;
    for (let cur = id; s === undefined && cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur).callFrame;
      const f = frameFile(frame);
      if (f === "") continue;
      const named = `${f}#${frame.functionName}`;
      const rule = STAGE_RULES.find(([, re]) => re.test(f) || re.test(named));
      if (rule === undefined) {
        transport ||= TRANSPORT[1].test(f);
        continue;
      }
      if (rule === undefined) continue;
      if (rule[0] !== "@admit") {
        s = rule[0];
        break;
      }
      for (let up = cur; up !== undefined; up = parent.get(up)) {
        const name = byId.get(up).callFrame.functionName;
        if (ADMIT_STAGES.has(name)) {
          s = ADMIT_STAGES.get(name);
          break;
        }
      }
      s ??= "other admission code";
    }
    s ??= transport ? TRANSPORT[0] : "other";
    stageOfNode.set(id, s);
    return s;
  };
  const counts = new Map();
  for (const id of profile.samples) {
    const s = stageOf(id);
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const durationUs = profile.endTime - profile.startTime;
  const usPerSample = durationUs / total;
  const busy = total - (counts.get("idle") ?? 0);
  const stages = [...counts]
    .filter(([name]) => name !== "idle")
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => ({ name, busyPercent: Math.round((n / busy) * 1000) / 10, usPerRequest: requests > 0 ? Math.round(((n * usPerSample) / requests) * 10) / 10 : undefined }));
  return { requests, busyUsPerRequest: requests > 0 ? Math.round(((busy * usPerSample) / requests) * 10) / 10 : undefined, stages };
}

/** Top functions by self time, files by self time and functions by inclusive time, as shares of all samples. */
export function summariseProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const byFunction = new Map();
  const byFile = new Map();
  for (const [id, n] of hits) {
    const frame = byId.get(id).callFrame;
    const key = label(frame);
    byFunction.set(key, (byFunction.get(key) ?? 0) + n);
    const fileKey = frame.url === "" ? frame.functionName : where(frame).replace(/:\d+$/, "");
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + n);
  }
  // Inclusive time: a sample counts once for every distinct function on its stack.
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map();
  for (const [id, n] of hits) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur).callFrame;
      if (frame.url === "" && frame.functionName.startsWith("(")) continue;
      seen.add(label(frame));
    }
    for (const key of seen) inclusive.set(key, (inclusive.get(key) ?? 0) + n);
  }
  const rank = (m, n = top) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, n]) => ({ name, selfPercent: Math.round((n / total) * 1000) / 10 }));
  return { samples: total, durationMs: Math.round((profile.endTime - profile.startTime) / 1000), functions: rank(byFunction), files: rank(byFile), inclusive: rank(inclusive, 2 * top) };
}
