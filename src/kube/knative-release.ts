/**
 * `--knative-version auto`: the Knative release the cluster runs, read from the labels Knative's release manifests
 * put on what they install (serving-crds.yaml labels every CRD, serving-core.yaml the knative-serving Namespace,
 * with `app.kubernetes.io/version: "<release>"`), and followed: a Knative upgrade re-applies the CRDs first, and
 * the webhook answers as the new release from then on.
 *
 * Order: the Service CRD's label; else the system Namespace's; else DEFAULT_KNATIVE_VERSION. Every outcome is
 * logged with where it came from.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { DEFAULT_KNATIVE_VERSION, PROFILES, profileForRelease, type KnativeProfile, type ReleaseMatch } from "../config/profile.js";
import type { RequestThrottle } from "./client.js";
import { KubeApiError, type KubeApi } from "./json-api.js";
import { logStreamEnd, Reflector } from "./reflector.js";

/** The CRD whose label names the release (every Serving install has it, and Duckbill's webhooks serve it). */
export const RELEASE_CRD = "services.serving.knative.dev";
export const VERSION_LABEL = "app.kubernetes.io/version";
const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

export type ReleaseSource = "crd" | "namespace" | "default";

export interface DetectedRelease {
  readonly profile: KnativeProfile;
  readonly source: ReleaseSource;
  /** The label's value (`1.23.2`); undefined for the default. */
  readonly release?: string;
  /** Whether the release has a profile of its own (false: the nearest supported one answers). */
  readonly exact: boolean;
  /** Why the earlier sources were passed over, for the log line. */
  readonly passedOver: readonly string[];
}

interface Labelled {
  readonly metadata?: { readonly labels?: Readonly<Record<string, unknown>> | null } | null;
}

/** The release an object's version label names, or why it names none. */
export function releaseOfLabels(obj: Labelled | undefined, what: string): { match: ReleaseMatch } | { why: string } {
  if (obj === undefined) return { why: `${what} not found` };
  const label = obj.metadata?.labels?.[VERSION_LABEL];
  if (typeof label !== "string" || label === "") return { why: `${what} has no ${VERSION_LABEL} label` };
  const match = profileForRelease(label);
  if (match === undefined) return { why: `${what}'s ${VERSION_LABEL} label "${label}" is not a Knative 1.x release` };
  return { match };
}

async function getOrUndefined(api: KubeApi, path: string, signal: AbortSignal | undefined): Promise<{ obj?: Labelled; why?: string }> {
  try {
    return { obj: (await api.request({ method: "GET", path, signal })) as Labelled };
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return {};
    return { why: (e as Error).message };
  }
}

/** Reads the cluster's release once: the Service CRD's label, the Namespace's, or the default. */
export async function detectKnativeRelease(api: KubeApi, namespace: string, signal?: AbortSignal): Promise<DetectedRelease> {
  const passedOver: string[] = [];
  const sources: Array<[ReleaseSource, string, string]> = [
    ["crd", `${CRD_PATH}/${RELEASE_CRD}`, `CustomResourceDefinition ${RELEASE_CRD}`],
    ["namespace", `/api/v1/namespaces/${encodeURIComponent(namespace)}`, `Namespace ${namespace}`],
  ];
  for (const [source, path, what] of sources) {
    const got = await getOrUndefined(api, path, signal);
    if (got.why !== undefined) {
      passedOver.push(`reading ${what}: ${got.why}`);
      continue;
    }
    const r = releaseOfLabels(got.obj, what);
    if ("why" in r) {
      passedOver.push(r.why);
      continue;
    }
    return { profile: r.match.profile, source, release: r.match.release, exact: r.match.exact, passedOver };
  }
  return { profile: PROFILES[DEFAULT_KNATIVE_VERSION], source: "default", exact: true, passedOver };
}

/** The log line for a detected release. */
export function logDetectedRelease(logger: Logger, d: DetectedRelease, message = "answering as the Knative release the cluster runs"): void {
  const fields = { knativeVersion: d.profile.version, source: d.source, release: d.release, ...(d.passedOver.length > 0 ? { passedOver: d.passedOver } : {}) };
  if (d.source === "default") {
    logger.warn(fields, `found no Knative release label in the cluster; answering as Knative ${d.profile.version} (pin one with --knative-version)`);
  } else if (!d.exact) {
    logger.warn(fields, `Knative ${d.release ?? "?"} has no profile of its own; answering as Knative ${d.profile.version}, the nearest supported release (pin one with --knative-version)`);
  } else {
    logger.info(fields, message);
  }
}

export interface ReleaseWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly api: KubeApi;
  /** The profile in effect (what detection found at startup). */
  readonly initial: KnativeProfile;
  /** Called when the Service CRD's label names another release. */
  readonly onProfile: (d: DetectedRelease) => void;
  readonly logger: Logger;
  readonly throttle?: RequestThrottle;
  readonly watchdogMs: number;
}

/**
 * Follows the Service CRD's version label with a reflector scoped to that one CRD (field selector, so RBAC can
 * name it). A label that changes to another release switches the profile; a CRD deleted or relabelled with
 * something that is not a release keeps the profile in effect, with a warning.
 */
export class KnativeReleaseWatch {
  private readonly reflector: Reflector<Labelled>;
  private current: KnativeProfile;
  private lastLabel: string | undefined;

  constructor(private readonly opts: ReleaseWatchOptions) {
    this.current = opts.initial;
    const fieldSelector = `metadata.name=${RELEASE_CRD}`;
    this.reflector = new Reflector<Labelled>({
      kubeConfig: opts.kubeConfig,
      path: CRD_PATH,
      fieldSelector,
      list: async (signal) => {
        const list = (await opts.api.request({ method: "GET", path: CRD_PATH, query: { fieldSelector }, signal })) as { metadata?: { resourceVersion?: string }; items?: Labelled[] };
        return { resourceVersion: list.metadata?.resourceVersion ?? "", items: list.items ?? [] };
      },
      onList: (items) => this.observe(items.find((i) => nameOf(i) === RELEASE_CRD)),
      onEvent: (phase, obj) => {
        if (nameOf(obj) !== RELEASE_CRD) return; // bookmarks
        this.observe(phase === "DELETED" ? undefined : obj);
      },
      onListError: (message, retryInMs) => opts.logger.warn({ crd: RELEASE_CRD, err: message, retryInMs }, "reading the Knative release label failed; retrying"),
      onStreamEnd: logStreamEnd(opts.logger, "release label watch", { crd: RELEASE_CRD }),
      throttle: opts.throttle,
      watchdogMs: opts.watchdogMs,
    });
  }

  start(): void {
    this.reflector.start();
  }

  async close(): Promise<void> {
    await this.reflector.close();
  }

  private observe(crd: Labelled | undefined): void {
    const label = crd?.metadata?.labels?.[VERSION_LABEL];
    const key = crd === undefined ? "\0deleted" : typeof label === "string" ? label : "";
    if (key === this.lastLabel) return;
    this.lastLabel = key;
    const r = releaseOfLabels(crd, `CustomResourceDefinition ${RELEASE_CRD}`);
    if ("why" in r) {
      this.opts.logger.warn({ crd: RELEASE_CRD, knativeVersion: this.current.version, reason: r.why }, `the Knative release label is gone; still answering as Knative ${this.current.version}`);
      return;
    }
    if (r.match.profile === this.current) return;
    const from = this.current.version;
    this.current = r.match.profile;
    const d: DetectedRelease = { profile: r.match.profile, source: "crd", release: r.match.release, exact: r.match.exact, passedOver: [] };
    logDetectedRelease(this.opts.logger, d, `the cluster's Knative release changed (was answering as ${from})`);
    this.opts.onProfile(d);
  }
}

function nameOf(o: Labelled): unknown {
  return (o.metadata as { name?: unknown } | undefined | null)?.name;
}
