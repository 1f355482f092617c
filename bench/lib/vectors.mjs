// The request bodies the bench sends: conformance vectors that the webhook answers with an AdmissionReview.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ADMISSION_PATHS = new Set(["/defaulting", "/resource-validation", "/config-validation"]);

/** Loads every vector line of `dir`/*.jsonl, in file then line order. */
export function loadVectors(dir) {
  const out = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (line.trim() !== "") out.push(JSON.parse(line));
    }
  }
  return out;
}

/**
 * Vectors a real API server could send: an AdmissionReview body with the JSON content type to one of the three
 * admission paths, answered with HTTP 200 (allowed or denied). Envelope errors (415, 400) are not traffic.
 */
export function isAdmissionTraffic(v) {
  return (
    ADMISSION_PATHS.has(v.path) &&
    (v.contentType === undefined || v.contentType === "application/json") &&
    v.review !== undefined &&
    v.expect?.httpStatus === 200
  );
}

/** `podspec/foo/validation` → `podspec`. */
export function categoryOf(v) {
  return v.name.split("/")[0];
}

function caseOf(v) {
  return v.name.replace(/\/(defaulting|validation)$/, "");
}

/** Picks `n` items spread evenly over `items` (deterministic, keeps order); all of them when there are fewer. */
export function spread(items, n) {
  if (items.length <= n) return [...items];
  const out = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor((i * items.length) / n)]);
  return out;
}

/** A request of the mix: what is sent, and what the vector says the answer is. */
function toRequest(v) {
  return { name: v.name, path: v.path, body: JSON.stringify(v.review), uid: v.review.request?.uid ?? "", allowed: v.expect.response?.allowed === true };
}

/**
 * The end-to-end mix (issue [8]): ~45 % /defaulting, ~45 % /resource-validation of the *defaulted* objects (the
 * `/validation` partner of each chosen `/defaulting` vector: its request.object is the defaulted object, as the API
 * server sends it), ~10 % /config-validation. Only vectors without per-request `configs`, because the server runs
 * with one configuration. Mostly allowed requests, as in a cluster: 90 % of the pairs and of the ConfigMaps are
 * ones Knative admits, the rest are denials. Interleaved so that every stretch of the mix has all three kinds.
 */
export function buildMix(vectors, size = 400) {
  const traffic = vectors.filter((v) => isAdmissionTraffic(v) && v.configs === undefined);
  const defaulting = new Map(traffic.filter((v) => v.path === "/defaulting").map((v) => [caseOf(v), v]));
  const pairs = traffic
    .filter((v) => v.path === "/resource-validation" && v.name.endsWith("/validation") && defaulting.has(caseOf(v)))
    .map((validation) => ({ defaulting: defaulting.get(caseOf(validation)), validation }))
    .filter((p) => p.defaulting.expect.response?.allowed === true);
  const nPairs = Math.round(size * 0.45);
  const nConfig = size - 2 * nPairs;
  const allowedPairs = pairs.filter((p) => p.validation.expect.response?.allowed === true);
  const deniedPairs = pairs.filter((p) => p.validation.expect.response?.allowed !== true);
  const pickedPairs = mixAllowedDenied(allowedPairs, deniedPairs, nPairs);
  const configs = traffic.filter((v) => v.path === "/config-validation");
  const pickedConfigs = mixAllowedDenied(
    configs.filter((v) => v.expect.response?.allowed === true),
    configs.filter((v) => v.expect.response?.allowed !== true),
    nConfig,
  );
  const out = [];
  let c = 0;
  for (let i = 0; i < pickedPairs.length; i++) {
    out.push(toRequest(pickedPairs[i].defaulting), toRequest(pickedPairs[i].validation));
    // One ConfigMap request after every ~4.5 pairs keeps the 45/45/10 proportions in every stretch.
    while (c < pickedConfigs.length && c * pickedPairs.length <= i * pickedConfigs.length) out.push(toRequest(pickedConfigs[c++]));
  }
  while (c < pickedConfigs.length) out.push(toRequest(pickedConfigs[c++]));
  return out;
}

/** 90 % allowed, 10 % denied, each group spread evenly; tops up from the other group when one is short. */
function mixAllowedDenied(allowed, denied, n) {
  const wantDenied = Math.min(denied.length, Math.round(n * 0.1));
  const wantAllowed = Math.min(allowed.length, n - wantDenied);
  const extraDenied = Math.min(denied.length - wantDenied, n - wantDenied - wantAllowed);
  const a = spread(allowed, wantAllowed);
  const d = spread(denied, wantDenied + extraDenied);
  // Denials spread through the allowed ones rather than bunched at the end.
  const out = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    out.push(a[i]);
    while (j < d.length && j * a.length <= i * d.length) out.push(d[j++]);
  }
  while (j < d.length) out.push(d[j++]);
  return out;
}

/** Counts of a mix by path and by expected outcome, for the report. */
export function describeMix(mix) {
  const byPath = {};
  let allowed = 0;
  let bytes = 0;
  for (const r of mix) {
    byPath[r.path] = (byPath[r.path] ?? 0) + 1;
    if (r.allowed) allowed++;
    bytes += Buffer.byteLength(r.body);
  }
  return { requests: mix.length, byPath, allowedShare: allowed / mix.length, meanBodyBytes: Math.round(bytes / mix.length) };
}
