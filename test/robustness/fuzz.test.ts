/**
 * Fuzzing the admission handler with hostile bodies (SECURITY.md, "What the tests prove"): mutated conformance
 * vectors, random reviews and hand-made extremes, in process through answerReview (the function the server calls
 * with the raw body) and, fewer of them, over HTTPS against a real server.
 *
 * Properties, for every body:
 * - answering never throws;
 * - the answer is a well-formed AdmissionReview (HTTP 200) carrying the request's uid, or a 4xx with a message;
 * - nothing leaks between requests: Object.prototype and friends gain no keys, and canary requests are answered
 *   byte for byte as before the hostile ones;
 * - the time per request is bounded (the maximum is printed).
 *
 * Bounded by default (a fixed seed; ~30 s on 2 shared cores). `npm run fuzz -- --runs 1000000 [--seed N]`
 * (test/robustness/fuzz-run.mjs) sets FUZZ_RUNS / FUZZ_SEED for long runs.
 */
import { Agent, request as httpsRequest } from "node:https";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMISSION_PATHS, answerReview, MAX_BODY_BYTES, type AdmissionPath, type HttpAnswer } from "../../src/admission/http.js";
import { defaultDeps } from "../../src/cli/main.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
import { within } from "../support/timing.js";
import { startTestWebhook, type TestWebhook } from "../support/webhook.js";
import { extremeCases, mutatedVectorArb, randomReviewArb, rawText, toRaw, vectorRequests, type FuzzCase } from "./arbitraries.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const HTTPS_RUNS = Math.max(50, Math.round(RUNS / 12));
/**
 * Per-request bounds: generous for a shared 2-core machine, plus the pause allowance (test/support/timing.ts); the
 * real maxima are printed and are far lower on a quiet machine. They catch work that grows faster than the body
 * (quadratic work on a 3 MB body takes hours), not a slow runner (on throttled ones: a 2.9 MiB string 5.4 s,
 * 500,000 duplicate keys in a 7 MB body 10.2 s).
 */
const MAX_MS = { generated: within(1500), extreme: within(20_000) } as const;
/** Per-test budget, scaled for long runs. */
const TIMEOUT_MS = 60_000 + RUNS * 40;

const deps = defaultDeps();
const env = { config: defaultSnapshot() };

// ---------------------------------------------------------------------------------------------
// What every answer must look like.

const RESPONSE_KEYS = new Set(["uid", "allowed", "status", "patch", "patchType", "warnings"]);
const PATCH_OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/** Throws (via expect) unless `a` is a well-formed answer to `c`. */
function checkAnswer(c: Pick<FuzzCase, "expectedUid" | "label">, a: Pick<HttpAnswer, "status" | "contentType" | "body">): void {
  const where = `${c.label}: HTTP ${a.status} ${a.body.slice(0, 200)}`;
  if (a.status !== 200) {
    // Knative 1.24 (the default release) refuses with 400, a body over 3 MiB too.
    expect(a.status, where).toBe(400);
    expect(a.contentType, where).toMatch(/^text\/plain/);
    expect(a.body, where).toMatch(/^could not decode body:.+\n$/s);
    return;
  }
  // Knative's Content-Type (Go sniffs its unlabelled JSON as text) and json.Encoder's newline.
  expect(a.contentType, where).toBe("text/plain; charset=utf-8");
  expect(a.body.endsWith("}\n"), where).toBe(true);
  const review = JSON.parse(a.body) as Record<string, unknown>;
  expect(typeof review, where).toBe("object");
  for (const k of ["kind", "apiVersion"]) if (k in review) expect(typeof review[k], where).toBe("string");
  const r = review.response as Record<string, unknown>;
  expect(typeof r, where).toBe("object");
  for (const k of Object.keys(r)) expect(RESPONSE_KEYS.has(k), `${where}: unexpected response.${k}`).toBe(true);
  expect(typeof r.uid, where).toBe("string");
  if (c.expectedUid !== undefined) expect(r.uid, where).toBe(c.expectedUid);
  expect(typeof r.allowed, where).toBe("boolean");
  if (r.allowed === false) {
    const s = r.status as Record<string, unknown>;
    expect(s, where).toMatchObject({ status: "Failure", reason: "BadRequest", code: 400 });
    expect(typeof s.message, where).toBe("string");
  } else expect(r.status, where).toBeUndefined();
  if (r.patch !== undefined) {
    expect(r.patchType, where).toBe("JSONPatch");
    const ops = JSON.parse(Buffer.from(r.patch as string, "base64").toString("utf8")) as unknown;
    expect(Array.isArray(ops), where).toBe(true);
    for (const op of ops as Record<string, unknown>[]) {
      expect(PATCH_OPS.has(op.op as string), where).toBe(true);
      expect(typeof op.path, where).toBe("string");
    }
  }
  if (r.warnings !== undefined) for (const w of r.warnings as unknown[]) expect(typeof w, where).toBe("string");
}

// ---------------------------------------------------------------------------------------------
// State that must not change.

const PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype } as const;
const pristine = Object.fromEntries(Object.entries(PROTOTYPES).map(([n, p]) => [n, Reflect.ownKeys(p).map(String).sort()]));

function checkPrototypes(where: string): void {
  for (const [name, proto] of Object.entries(PROTOTYPES)) expect(Reflect.ownKeys(proto).map(String).sort(), `${name}.prototype after ${where}`).toEqual(pristine[name]);
  expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
  expect(([] as unknown as Record<string, unknown>).polluted, where).toBeUndefined();
  expect(Object.getPrototypeOf({}), where).toBe(Object.prototype);
}

/** Vectors answered under the default configuration, spread over all files: their answers must never change. */
const CANARIES = vectorRequests()
  .filter((v) => !v.hasConfigs)
  .filter((_, i, all) => i % Math.ceil(all.length / 24) === 0)
  .map((v) => ({ name: v.name, path: v.path, body: rawText(toRaw(v.review)) }));
const baseline = new Map<string, string>();

async function answerCanary(i: number): Promise<{ name: string; body: string }> {
  const c = CANARIES[i % CANARIES.length]!;
  return { name: c.name, body: (await answerReview(c.path, c.body, deps, env)).body };
}

// ---------------------------------------------------------------------------------------------
// Timing.

const slowest = { generated: { ms: 0, label: "" }, extreme: { ms: 0, label: "" }, https: { ms: 0, label: "" } };
const counts = { generated: 0, extreme: 0, https: 0, rejected: 0 };

function record(kind: keyof typeof slowest, ms: number, label: string): void {
  if (ms > slowest[kind].ms) slowest[kind] = { ms, label };
}

/** Answers one case in process and checks everything; the canary number rotates through CANARIES. */
async function fuzzOne(c: FuzzCase, kind: "generated" | "extreme", canary: number): Promise<void> {
  const t0 = performance.now();
  let a: HttpAnswer;
  try {
    a = await answerReview(c.path, c.body, deps, env);
  } catch (err) {
    throw new Error(`${c.label} on ${c.path}: answerReview threw: ${String(err)}`, { cause: err });
  }
  const ms = performance.now() - t0;
  record(kind, ms, `${c.label} on ${c.path} (${c.body.length} bytes)`);
  counts[kind]++;
  if (a.status !== 200) counts.rejected++;
  checkAnswer(c, a);
  expect(ms, `${c.label}: time`).toBeLessThan(MAX_MS[kind]);
  checkPrototypes(c.label);
  const k = await answerCanary(canary);
  expect(k.body, `canary ${k.name} after ${c.label}`).toBe(baseline.get(k.name));
}

// After both describes: the in-process and the HTTPS figures.
afterAll(() => {
  const ms = (s: { ms: number; label: string }): string => `${s.ms.toFixed(1)} ms (${s.label})`;
  console.log(
    `fuzz (seed ${SEED}): ${counts.generated} generated + ${counts.extreme} extreme bodies in process, ${counts.https} over HTTPS; ` +
      `${counts.rejected} answered 400; slowest generated ${ms(slowest.generated)}; slowest extreme ${ms(slowest.extreme)}; slowest HTTPS ${ms(slowest.https)}`,
  );
});

describe("fuzzing the admission handler", () => {
  beforeAll(async () => {
    for (let i = 0; i < CANARIES.length; i++) {
      const k = await answerCanary(i);
      baseline.set(k.name, k.body);
    }
  });


  it("has canaries that are answered with AdmissionReviews", () => {
    expect(CANARIES.length).toBeGreaterThanOrEqual(20);
    for (const c of CANARIES) expect(JSON.parse(baseline.get(c.name) ?? "null"), c.name).toHaveProperty("response.uid");
  });

  it(
    "mutated conformance vectors: never throws, well-formed answers with the uid, no leaks, bounded time",
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(mutatedVectorArb(), (c) => fuzzOne(c, "generated", n++)),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "random AdmissionReviews: never throws, well-formed answers with the uid, no leaks, bounded time",
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(randomReviewArb, (c) => fuzzOne(c, "generated", n++)),
        { seed: SEED + 1, numRuns: Math.round(RUNS / 2), endOnFailure: true },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "hand-made extremes (10,000 levels, 2.9 MiB strings, 10^6 elements, __proto__ everywhere, numbers beyond 2^53, invalid UTF-8)",
    async () => {
      const cases = extremeCases();
      expect(cases.length).toBeGreaterThan(100);
      for (let i = 0; i < cases.length; i++) await fuzzOne(cases[i]!, "extreme", i);
    },
    TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// Over HTTPS: the same bodies through the real server (TLS, the Fastify pipeline, the 3 MiB limit).

interface Reply {
  status: number;
  contentType: string;
  body: string;
}

function post(wh: TestWebhook, agent: Agent, path: AdmissionPath, body: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: "127.0.0.1", port: wh.port, path, method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    // An over-limit answer that comes before the whole body is sent may reset the rest of the upload: it still counts.
    req.on("error", reject);
    req.end(body);
  });
}

describe("fuzzing over HTTPS", () => {
  let wh: TestWebhook;
  let agent: Agent;
  beforeAll(async () => {
    wh = await startTestWebhook();
    agent = new Agent({ keepAlive: true, maxSockets: 4, ca: wh.ca, servername: "localhost" });
  });
  afterAll(async () => {
    agent?.destroy();
    await wh?.stop();
  });

  async function overHttps(c: FuzzCase): Promise<void> {
    const t0 = performance.now();
    const r = await post(wh, agent, c.path, c.body);
    record("https", performance.now() - t0, `${c.label} on ${c.path}`);
    counts.https++;
    checkAnswer(c, r);
    // envelope/body-over-3mib/defaulting (Knative 1.24).
    if (c.body.length > MAX_BODY_BYTES) expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: "could not decode body:http: request body too large\n" });
  }

  it(
    "mutated vectors and random reviews get well-formed answers, and the server answers canaries as before",
    async () => {
      const before = await Promise.all(CANARIES.slice(0, 6).map((c) => post(wh, agent, c.path, Buffer.from(c.body))));
      await fc.assert(
        fc.asyncProperty(fc.oneof(mutatedVectorArb(), randomReviewArb), overHttps),
        { seed: SEED + 2, numRuns: HTTPS_RUNS, endOnFailure: true },
      );
      // A few extremes, and bodies over the limit.
      const extremes = extremeCases().filter((_, i) => i % 7 === 0);
      const big = Buffer.from(`{"request":{"uid":"big","object":{"x":${JSON.stringify("a".repeat(MAX_BODY_BYTES))}}}}`);
      for (const path of ADMISSION_PATHS) extremes.push({ label: "over 3 MiB", path, body: big, expectedUid: undefined });
      for (const c of extremes) await overHttps(c);
      const after = await Promise.all(CANARIES.slice(0, 6).map((c) => post(wh, agent, c.path, Buffer.from(c.body))));
      expect(after).toEqual(before);
      for (const [i, r] of after.entries()) expect(r.body).toBe(baseline.get(CANARIES[i]!.name) ?? r.body);
      checkPrototypes("the HTTPS run");
    },
    TIMEOUT_MS,
  );
});
