#!/usr/bin/env node
// In-process cost of one admission, per vector category, through answerReview: the function the HTTPS server
// calls for every AdmissionReview body (decode, admit, encode), answering as the Knative release --knative-version
// names (default 1.24) on that release's vectors. Run after `npm run build`; prints JSON with --json.
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { answerReview } from "../dist/admission/http.js";
import { defaultDeps } from "../dist/cli/main.js";
import { PROFILES } from "../dist/config/profile.js";
import { defaultSnapshot, snapshotFrom } from "../dist/config/snapshot.js";
import { median, percentileSorted, round } from "./lib/stats.mjs";
import { buildMix, categoryOf, isAdmissionTraffic, loadVectors } from "./lib/vectors.mjs";
import { BENCH_RELEASES, DEFAULT_BENCH_RELEASE, releaseVectors } from "./lib/paths.mjs";

const { values: flags } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    "sample-ms": { type: "string", default: "700" },
    "warmup-ms": { type: "string", default: "250" },
    "knative-version": { type: "string", default: DEFAULT_BENCH_RELEASE },
  },
});
const RELEASE = flags["knative-version"];
if (!BENCH_RELEASES.includes(RELEASE)) {
  console.error(`inprocess: --knative-version must be one of ${BENCH_RELEASES.join(", ")}, got "${RELEASE}"`);
  process.exit(2);
}
const PROFILE = PROFILES[RELEASE];
const VECTORS_DIR = releaseVectors(RELEASE).dir;
const SAMPLE_BUDGET_MS = Number(flags["sample-ms"]);
const WARMUP_MS = Number(flags["warmup-ms"]);
/** One timed round lasts at least this long, so timer resolution and one-off pauses stay small against it. */
const ROUND_MS = 5;
const MIN_ROUNDS = 25;

const deps = defaultDeps();
const base = defaultSnapshot(PROFILE);
const snapshots = new Map();

/** Per-request ConfigMaps, as `duckbill admit --batch` applies them (parsed once, outside the timed loop). */
function snapshotFor(configs) {
  if (configs === undefined) return base;
  const key = JSON.stringify(configs);
  let s = snapshots.get(key);
  if (s === undefined) {
    s = snapshotFrom(configs, "bench", PROFILE);
    snapshots.set(key, s);
  }
  return s;
}

function prepare(vectors) {
  return vectors.map((v) => ({ path: v.path, body: Buffer.from(JSON.stringify(v.review)), env: { config: snapshotFor(v.configs) } }));
}

async function pass(cases) {
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const a = await answerReview(c.path, c.body, deps, c.env);
    if (a.status !== 200) throw new Error(`unexpected HTTP ${a.status} in the in-process bench: ${a.body}`);
  }
}

/** Median µs per admission over rounds of whole passes through `cases`, after a warm-up. */
async function measure(cases) {
  const warmEnd = performance.now() + WARMUP_MS;
  let passesPerRound = 0;
  while (performance.now() < warmEnd || passesPerRound === 0) {
    const t = performance.now();
    await pass(cases);
    passesPerRound = Math.max(1, Math.ceil(ROUND_MS / Math.max(performance.now() - t, 0.001)));
  }
  const perOp = [];
  const end = performance.now() + SAMPLE_BUDGET_MS;
  while (perOp.length < MIN_ROUNDS || performance.now() < end) {
    const t = performance.now();
    for (let p = 0; p < passesPerRound; p++) await pass(cases);
    perOp.push(((performance.now() - t) * 1000) / (passesPerRound * cases.length));
  }
  perOp.sort((a, b) => a - b);
  const med = median(perOp);
  return {
    vectors: cases.length,
    rounds: perOp.length,
    usPerOp: round(med, 2),
    opsPerSec: Math.round(1e6 / med),
    p10us: round(percentileSorted(perOp, 10), 2),
    p90us: round(percentileSorted(perOp, 90), 2),
  };
}

async function main() {
  const vectors = loadVectors(VECTORS_DIR).filter(isAdmissionTraffic);
  // Global warm-up over everything, so the first category measured does not pay for first-time compilation.
  const everything = prepare(vectors);
  const warmEnd = performance.now() + 4 * WARMUP_MS;
  while (performance.now() < warmEnd) await pass(everything);

  const groups = new Map();
  for (const v of vectors) {
    const key = categoryOf(v);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(v);
  }
  const categories = {};
  for (const [name, vs] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) categories[name] = await measure(prepare(vs));
  const paths = {};
  for (const path of ["/defaulting", "/resource-validation", "/config-validation"]) paths[path] = await measure(prepare(vectors.filter((v) => v.path === path)));
  const mixVectors = buildMix(loadVectors(VECTORS_DIR));
  const mix = await measure(mixVectors.map((r) => ({ path: r.path, body: Buffer.from(r.body), env: { config: base } })));
  return { categories, paths, mix };
}

const result = await main();
if (flags.json) process.stdout.write(JSON.stringify(result) + "\n");
else {
  const rows = [...Object.entries(result.categories), ...Object.entries(result.paths), ["mix (e2e bodies)", result.mix]];
  console.log("| category | vectors | µs/op (median) | p10–p90 µs | ops/s |\n|---|---:|---:|---:|---:|");
  for (const [name, r] of rows) console.log(`| ${name} | ${r.vectors} | ${r.usPerOp} | ${r.p10us}–${r.p90us} | ${r.opsPerSec} |`);
}
