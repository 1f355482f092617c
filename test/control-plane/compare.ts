/**
 * What the control-plane suite compares between the two clusters: the Knative objects of a namespace (normalised),
 * the controller's log lines about admission, and the admission requests each webhook answered.
 */
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import type { KubeApi } from "../../src/kube/json-api.js";
import { waitFor } from "../e2e/harness.js";
import type { Obj } from "./install.js";

/** A Knative resource: its API path prefix and whether Knative's controller reconciles it (so observedGeneration must catch up). */
interface KnativeResource {
  readonly prefix: string;
  readonly plural: string;
  readonly reconciled: boolean;
}

/** Every namespaced Knative kind a Serving install has (the CRDs of install.ts). */
export const KNATIVE_RESOURCES: readonly KnativeResource[] = [
  { prefix: "/apis/serving.knative.dev/v1", plural: "services", reconciled: true },
  { prefix: "/apis/serving.knative.dev/v1", plural: "configurations", reconciled: true },
  { prefix: "/apis/serving.knative.dev/v1", plural: "revisions", reconciled: true },
  { prefix: "/apis/serving.knative.dev/v1", plural: "routes", reconciled: true },
  { prefix: "/apis/serving.knative.dev/v1beta1", plural: "domainmappings", reconciled: true },
  { prefix: "/apis/networking.internal.knative.dev/v1alpha1", plural: "serverlessservices", reconciled: true },
  // Reconciled by net-* and the autoscaler, which do not run here; the controller only creates and updates them.
  { prefix: "/apis/networking.internal.knative.dev/v1alpha1", plural: "ingresses", reconciled: false },
  { prefix: "/apis/networking.internal.knative.dev/v1alpha1", plural: "certificates", reconciled: false },
  { prefix: "/apis/autoscaling.internal.knative.dev/v1alpha1", plural: "podautoscalers", reconciled: false },
  { prefix: "/apis/autoscaling.internal.knative.dev/v1alpha1", plural: "metrics", reconciled: false },
  { prefix: "/apis/caching.internal.knative.dev/v1alpha1", plural: "images", reconciled: false },
];

export interface Snapshot {
  /** `plural/name` → the stored object. */
  readonly objects: Map<string, Obj>;
  /** Every object's resourceVersion, joined: equal fingerprints mean no write in between. */
  readonly fingerprint: string;
  /** Objects whose controller has not caught up with their generation. */
  readonly behind: readonly string[];
}

export async function snapshot(api: KubeApi, namespace: string): Promise<Snapshot> {
  const objects = new Map<string, Obj>();
  const versions: string[] = [];
  const behind: string[] = [];
  await Promise.all(
    KNATIVE_RESOURCES.map(async (r) => {
      const listed = (await api.request({ method: "GET", path: `${r.prefix}/namespaces/${namespace}/${r.plural}` })) as { items: Obj[] };
      for (const o of listed.items) {
        const meta = o.metadata as Obj;
        const key = `${r.plural}/${String(meta.name)}`;
        objects.set(key, o);
        versions.push(`${key}@${String(meta.resourceVersion)}`);
        const observed = (o.status as Obj | undefined)?.observedGeneration;
        if (r.reconciled && meta.deletionTimestamp === undefined && observed !== meta.generation) behind.push(key);
      }
    }),
  );
  return { objects, fingerprint: versions.sort().join(","), behind: behind.sort() };
}

export interface Settled {
  readonly snapshot: Snapshot;
  readonly settled: boolean;
  /** Snapshots whose fingerprint changed while waiting (writes seen). */
  readonly changes: number;
  readonly ms: number;
}

/**
 * Waits until the controller has settled: every reconciled object's observedGeneration equals its generation and
 * no object was written for `quietMs`. Gives up after `timeoutMs` (a patch loop, or a controller that is stuck).
 */
export async function settle(api: KubeApi, namespace: string, opts: { quietMs: number; timeoutMs: number }): Promise<Settled> {
  const started = Date.now();
  // A fresh API server answers "storage is (re)initializing" for a while after a CRD is established: read again.
  const read = (): Promise<Snapshot> => waitFor(`the Knative objects of ${namespace}`, opts.timeoutMs, () => snapshot(api, namespace));
  let last = await read();
  let quietSince = Date.now();
  let changes = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const next = await read();
    if (next.fingerprint !== last.fingerprint) {
      changes++;
      quietSince = Date.now();
    }
    last = next;
    if (next.behind.length === 0 && Date.now() - quietSince >= opts.quietMs) return { snapshot: next, settled: true, changes, ms: Date.now() - started };
    if (Date.now() - started > opts.timeoutMs) return { snapshot: next, settled: false, changes, ms: Date.now() - started };
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** uid → `plural/name` of every object of a snapshot, so that a reference by uid compares as a reference by name. */
export function uidNames(s: Snapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, o] of s.objects) out.set(String((o.metadata as Obj).uid), key);
  return out;
}

/**
 * A label or annotation value that is a time (Knative's `serving.knative.dev/routingStateModified`) or a uid
 * (`serving.knative.dev/serviceUID`, `configurationUID`, `revisionUID`: named by the object it is the uid of).
 */
function maskValues(map: unknown, uids: ReadonlyMap<string, string>): unknown {
  if (map === undefined || map === null) return map;
  return Object.fromEntries(
    Object.entries(map as Record<string, string>).map(([k, v]) => [k, RFC3339.test(v) ? "<time>" : UUID.test(v) ? `<uid of ${uids.get(v) ?? "?"}>` : v]),
  );
}

/**
 * A Revision's ContainerHealthy condition says `Deploying` only if the reconcile that created its Deployment also
 * wrote the status (knative.dev/serving pkg/reconciler/revision/reconcile_resources.go: reconcileDeployment marks
 * it when the Deployment is not found). When that status update is lost to a conflict with another writer, the
 * retried reconcile finds the Deployment and leaves the condition Unknown without a reason: a race inside
 * Knative's controller, seen with either webhook. Both outcomes compare as the second.
 */
function conditionOf(kind: unknown, c: Obj): Obj {
  const out = { type: c.type, status: c.status, reason: c.reason, message: c.message };
  if (kind === "Revision" && c.type === "ContainerHealthy" && c.status === "Unknown" && c.reason === "Deploying" && (c.message ?? "") === "") return { ...out, reason: undefined, message: undefined };
  return out;
}

/**
 * What is compared of an object: spec, labels, annotations, owner references, generation, finalizers, whether it
 * is being deleted, and the status's observedGeneration and conditions (type, status, reason, message). Ignored:
 * uid (references by uid compare by the name of the object referred to), resourceVersion, timestamps (also as
 * label and annotation values), managedFields, the suffix of a generated name, and the rest of the status.
 */
export function comparable(o: Obj, uids: ReadonlyMap<string, string>): Obj {
  const meta = o.metadata as Obj;
  const status = (o.status ?? {}) as Obj;
  const conditions = ((status.conditions ?? []) as Obj[]).map((c) => conditionOf(o.kind, c)).sort((a, b) => String(a.type).localeCompare(String(b.type)));
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: typeof meta.generateName === "string" && meta.generateName !== "" ? `${meta.generateName}*` : meta.name,
    labels: maskValues(meta.labels, uids),
    annotations: maskValues(meta.annotations, uids),
    ownerReferences: ((meta.ownerReferences ?? []) as Obj[]).map((r) => ({ ...r, uid: `<uid of ${uids.get(String(r.uid)) ?? "?"}>` })),
    generation: meta.generation,
    finalizers: meta.finalizers,
    deleting: meta.deletionTimestamp !== undefined,
    spec: o.spec,
    observedGeneration: status.observedGeneration,
    conditions,
  };
}

/** The JSON paths at which two values differ, with both values (at most `max`). */
export function jsonDiff(a: unknown, b: unknown, path = "", out: Array<{ path: string; a: unknown; b: unknown }> = [], max = 20): Array<{ path: string; a: unknown; b: unknown }> {
  if (out.length >= max || isDeepStrictEqual(a, b)) return out;
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) jsonDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`, out, max);
    return out;
  }
  out.push({ path: path === "" ? "/" : path, a, b });
  return out;
}

/**
 * The controller's log lines about admission since `offset`: denials ("admission webhook ... denied"), webhook
 * calls that failed ("failed calling webhook"), normalised (the webhook's address, the uids and resourceVersions of
 * the objects named) so that the same event reads the same in both clusters.
 */
export function admissionLogLines(logFile: string, offset: number): { lines: string[]; offset: number } {
  const text = readFileSync(logFile, "utf8");
  const lines: string[] = [];
  for (const line of text.slice(offset).split("\n")) {
    if (!/admission webhook .* denied|failed calling webhook/.test(line)) continue;
    let message = line;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      message = `${String(entry.logger ?? "")} ${String(entry.knative_dev_key ?? entry["knative.dev/key"] ?? "")}: ${String(entry.error ?? entry.message ?? entry.msg ?? "")}`;
    } catch {
      // not a zap JSON line: the line as it is
    }
    // The event broadcaster's lines print the object reference with %#v (`UID:"…", ResourceVersion:"1014"`).
    lines.push(
      message
        .replace(/https:\/\/127\.0\.0\.1:\d+/g, "<webhook>")
        .replace(/"resourceVersion":"\d+"/g, '"resourceVersion":"<rv>"')
        .replace(/UID:"[^"]*"/g, 'UID:"<uid>"')
        .replace(/ResourceVersion:"\d*"/g, 'ResourceVersion:"<rv>"'),
    );
  }
  return { lines: [...new Set(lines)].sort(), offset: text.length };
}

/** Admission requests answered, with their latencies. */
export interface RequestFigures {
  readonly count: number;
  readonly meanMs: number;
  /** The upper bound of the histogram bucket holding the 95th percentile (Duckbill), or the measured value (the proxy). */
  readonly p95Ms: number;
}

/** Duckbill's duckbill_admission_duration_seconds summed over its label sets: count, sum and cumulative buckets. */
export interface DurationHistogram {
  readonly count: number;
  readonly sum: number;
  readonly buckets: ReadonlyMap<number, number>;
}

export async function duckbillHistogram(metricsPort: number): Promise<DurationHistogram> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let count = 0;
  let sum = 0;
  const buckets = new Map<number, number>();
  for (const line of text.split("\n")) {
    const m = /^duckbill_admission_duration_seconds_(count|sum|bucket)\{([^}]*)\} (\S+)$/.exec(line);
    if (m === null) continue;
    const value = Number(m[3]);
    if (m[1] === "count") count += value;
    else if (m[1] === "sum") sum += value;
    else {
      const le = /le="([^"]+)"/.exec(m[2] ?? "")?.[1] ?? "+Inf";
      const bound = le === "+Inf" ? Infinity : Number(le);
      buckets.set(bound, (buckets.get(bound) ?? 0) + value);
    }
  }
  return { count, sum, buckets };
}

/** The requests between two readings of the histogram. */
export function histogramFigures(before: DurationHistogram, after: DurationHistogram): RequestFigures {
  const count = after.count - before.count;
  if (count === 0) return { count: 0, meanMs: 0, p95Ms: 0 };
  let p95 = Infinity;
  for (const bound of [...after.buckets.keys()].sort((x, y) => x - y)) {
    if ((after.buckets.get(bound) ?? 0) - (before.buckets.get(bound) ?? 0) >= 0.95 * count) {
      p95 = bound;
      break;
    }
  }
  return { count, meanMs: round(((after.sum - before.sum) / count) * 1000), p95Ms: round(p95 * 1000) };
}

export function measuredFigures(ms: readonly number[]): RequestFigures {
  if (ms.length === 0) return { count: 0, meanMs: 0, p95Ms: 0 };
  const sorted = [...ms].sort((x, y) => x - y);
  return { count: ms.length, meanMs: round(ms.reduce((s, x) => s + x, 0) / ms.length), p95Ms: round(sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? 0) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
