import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { answerReview, type AdmissionPath } from "../admission/http.js";
import { defaultDeps } from "../cli/deps.js";
import { knativeProfile } from "../config/profile.js";
import { defaultSnapshot } from "../config/snapshot.js";
import { logAdmissionKnative } from "./knative-request-log.js";
import { createLogger } from "./logging.js";

type Line = Record<string, unknown>;
const ref = readFileSync(new URL("../../test/fixtures/knative-logs/1.24-serve-debug.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => JSON.parse(l) as Line);

const service = (uid: string, containers: unknown[]): string =>
  JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid, kind: { group: "serving.knative.dev", version: "v1", kind: "Service" }, resource: { group: "serving.knative.dev", version: "v1", resource: "services" }, namespace: "default", name: "hello", operation: "CREATE", userInfo: { username: "alice@example.com" }, object: { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "hello", namespace: "default" }, spec: { template: { spec: { containers } } } } } });
const configMap = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u-cm", kind: { group: "", version: "v1", kind: "ConfigMap" }, resource: { group: "", version: "v1", resource: "configmaps" }, namespace: "knative-serving", name: "config-logging", operation: "UPDATE", userInfo: { username: "bob" }, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "config-logging", namespace: "knative-serving" }, data: { "loglevel.webhook": "debug" } } } });

async function duckbillLines(path: AdmissionPath, body: string): Promise<Line[]> {
  const out: Line[] = [];
  const sink = new PassThrough();
  sink.on("data", (d: Buffer) => out.push(...d.toString("utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line)));
  const logger = createLogger("debug", sink);
  const profile = knativeProfile("1.24");
  const answer = await answerReview(path, Buffer.from(body), defaultDeps(), { config: defaultSnapshot(profile) });
  logAdmissionKnative(logger, answer.admission!, 10, profile);
  await new Promise((r) => setImmediate(r));
  return out;
}

/** What a log query sees of a line: its level, message and Knative's keys with their values (not the time). */
function shape(l: Line): Line {
  const { timestamp: _t, logger: _l, caller: _c, webhook: _w, latencyMicros: _m, ...rest } = l;
  // The patch itself is the answer's, compared by the conformance suites (here the reference ran without the
  // configs header, so its defaults differ from the snapshot's); the line around it is what a query sees.
  if (typeof rest.message === "string") rest.message = rest.message.replace(/(PatchBytes: |body: )\[.*\]/, "$1<patch>");
  return rest;
}

describe("Knative's per-request lines (fixtures from the 1.24 reference)", () => {
  it.each([
    ["/defaulting", service("u-allow", [{ image: "nginx" }]), "u-allow"],
    ["/resource-validation", service("u-deny", []), "u-deny"],
    ["/config-validation", configMap, "u-cm"],
  ] as const)("%s: the same lines, levels, messages, keys in order and values", async (path, body, uid) => {
    const want = ref.filter((l) => l["admissionreview/uid"] === uid || (l["knative.dev/name"] !== undefined && ref.indexOf(l) < ref.findIndex((r) => r["admissionreview/uid"] === uid) && ref.indexOf(l) > ref.findLastIndex((r, i) => i < ref.findIndex((x) => x["admissionreview/uid"] === uid) && r["admissionreview/uid"] !== undefined && r["admissionreview/uid"] !== uid)));
    const got = await duckbillLines(path, body);
    expect(got.map(shape)).toEqual(want.map(shape));
    for (const l of got) expect(Object.keys(l).slice(0, 4)).toEqual(["severity", "timestamp", "logger", "caller"]);
    expect(got.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d{4})$/.test(String(l.timestamp)))).toBe(true);
  });
});
