/**
 * Metric label values that come from a request, bounded. A review's kind, resource, operation, subresource and
 * namespace are whatever the client sent: taken as they are, 25 reviews with a 1 MiB kind made one scrape 472 MB,
 * and 100,000 reviews with unique kinds grew the registry until /metrics failed. A value the webhook serves (the
 * resources of `servedResources`, Kubernetes' four operations, a namespace that is a DNS-1123 label) is kept as
 * sent, so every series of a real cluster reads as Knative's; anything else is counted under `other`. Past
 * MAX_SERIES_PER_METRIC series, a metric counts new label sets in one overflow series (every request-derived label
 * `other`), so even legitimate values (namespaces) cannot grow a scrape without bound.
 */
import type { AdmissionRequest } from "../admission/review.js";
import { FEATURE_FLAGS } from "../config/feature-flags.js";
import { servedResources, type ServedResource } from "../admission/served.js";

/** The label value of anything the webhook does not serve. */
export const OTHER = "other";

/**
 * Series per metric before new label sets share the overflow series: a cluster of 100 namespaces using four
 * Knative kinds with two operations, allowed and denied, needs 1,600 of Knative 1.17's namespaced series at most.
 */
export const MAX_SERIES_PER_METRIC = 2000;

/** k8s.io/api admission/v1 Operation. */
const OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/** The subresources of Knative's kinds the API server sends (status updates); the object itself is "". */
const SUBRESOURCES: ReadonlySet<string> = new Set(["", "status"]);

/** k8s.io/apimachinery validation.IsDNS1123Label, what a namespace name must be; "" for cluster-scoped objects. */
const NAMESPACE = /^(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)?$/;

const FLAG_KEYS: ReadonlySet<string> = new Set(FEATURE_FLAGS.map((f) => f.key));

/** A `config-features` key as a label value: one of the table's keys (a few dozen), anything else OTHER. */
export function flagLabel(key: string): string {
  return known(FLAG_KEYS, key);
}

/** A request's label values, each either as sent or OTHER. */
export interface RequestLabels {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly resourceGroup: string;
  readonly resourceVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly operation: string;
  readonly namespace: string;
}

function known(set: ReadonlySet<string>, value: string): string {
  return set.has(value) ? value : OTHER;
}

/** Maps a request's values to bounded label values. */
export class LabelBounds {
  private readonly groups: ReadonlySet<string>;
  private readonly versions: ReadonlySet<string>;
  private readonly kinds: ReadonlySet<string>;
  private readonly resources: ReadonlySet<string>;

  constructor(served: readonly ServedResource[] = servedResources()) {
    this.groups = new Set(served.map((r) => r.group));
    this.versions = new Set(served.map((r) => r.version));
    this.kinds = new Set(served.map((r) => r.kind));
    this.resources = new Set(served.map((r) => r.resource));
  }

  of(request: AdmissionRequest): RequestLabels {
    const { kind, resource } = request;
    return {
      group: known(this.groups, kind.group),
      version: known(this.versions, kind.version),
      kind: known(this.kinds, kind.kind),
      resourceGroup: known(this.groups, resource.group),
      resourceVersion: known(this.versions, resource.version),
      resource: known(this.resources, resource.resource),
      subresource: known(SUBRESOURCES, request.subResource),
      operation: known(OPERATIONS, request.operation),
      namespace: request.namespace.length <= 63 && NAMESPACE.test(request.namespace) ? request.namespace : OTHER,
    };
  }
}

/** The labels every request-derived value of which is OTHER: what a metric at its series bound counts in. */
export const OVERFLOW_LABELS: RequestLabels = Object.freeze({
  group: OTHER,
  version: OTHER,
  kind: OTHER,
  resourceGroup: OTHER,
  resourceVersion: OTHER,
  resource: OTHER,
  subresource: OTHER,
  operation: OTHER,
  namespace: OTHER,
});

/**
 * A metric's series by key, at most `max` of them: past it, a new label set is counted in the series of the overflow
 * labels instead (the one bound of Duckbill's prom-client series, metrics.ts, and of Knative's, explicit-histogram.ts).
 * `find` is the hot path; `add` runs once per new label set.
 */
export class SeriesTable<L, T> {
  private readonly byKey = new Map<string, T>();

  constructor(private readonly max = MAX_SERIES_PER_METRIC) {}

  get size(): number {
    return this.byKey.size;
  }

  find(key: string): T | undefined {
    return this.byKey.get(key);
  }

  /** The series of `labels` (key `key`), made by `make`; past the bound, that of `overflow()` (keyed by `keyOf`). */
  add(key: string, labels: L, make: (labels: L) => T, overflow: () => L, keyOf: (labels: L) => string): T {
    if (this.byKey.size >= this.max) {
      labels = overflow();
      key = keyOf(labels);
      const found = this.byKey.get(key);
      if (found !== undefined) return found;
    }
    const made = make(labels);
    this.byKey.set(key, made);
    return made;
  }

  values(): IterableIterator<T> {
    return this.byKey.values();
  }

  clear(): void {
    this.byKey.clear();
  }
}
