/**
 * The PodSpec dry run (docs/knative-behavior.md#podspec-dry-run; knative.dev/serving
 * `pkg/webhook/validate_unstructured.go` and `podspec_dryrun.go`): the validation callback of Service and Configuration that builds the Pod the revision
 * reconciler would run for the template and asks the API server to create it with `dryRun=All`, so that
 * problems Knative's own rules cannot see (admission policies, quotas, pod security) surface at apply time.
 *
 * The API call itself is `ctx.podDryRun` (the webhook's client, src/kube/dry-run.ts); without one (standalone,
 * `admit`) the call is taken to succeed, as the conformance README asks.
 */
import { errGeneric } from "../apis/field-error.js";
import type { RequestContext } from "./context.js";
import { isInt64 } from "./field-mask.js";
import { asObject, metadataOf, type KObject } from "./kobject.js";
import { setRevisionDefaults } from "./revision.js";
import { semanticEqual } from "../duck/semantic-equal.js";

/** Opt-in annotation on the Service/Configuration when the flag is Allowed (`PodSpecDryRunAnnotation`). */
export const PODSPEC_DRYRUN_ANNOTATION = "features.knative.dev/podspec-dryrun";

const SERVICE_LABEL = "serving.knative.dev/service";
const DRY_RUN_NAME = "dry-run-validation";
/** v1.DefaultUserPort / v1.UserPortName. */
const DEFAULT_USER_PORT = 8080;
const USER_PORT_NAME = "user-port";
/** The queue proxy's admin port and drain path, which the user containers' preStop hook calls. */
const QUEUE_ADMIN_PORT = 8022;
const DRAIN_PATH = "/wait-for-drain";
/** netheader.KubeletProbeKey and queue.Name: marks kubelet's liveness probes for the queue proxy. */
const KUBELET_PROBE_HEADER = { name: "K-Kubelet-Probe", value: "queue" };

/** RevisionSpec fields that are not PodSpec fields (everything else is the inlined PodSpec). */
const REVISION_ONLY_FIELDS = new Set(["containerConcurrency", "timeoutSeconds", "responseStartTimeoutSeconds", "idleTimeoutSeconds"]);

/** `enabled` ignores an API server that cannot dry-run (another webhook with side effects); `strict` does not. */
export type DryRunMode = "enabled" | "strict";

/**
 * Which mode applies to this object, or undefined when the dry run does not run (knative.dev/serving
 * pkg/webhook/validate_unstructured.go: validateRevisionTemplate): from v0.47.0 every request with `dryRun: true`
 * (`apis.IsDryRun`) and nothing else; in v0.44.2 the flag and the annotation decide (profile.podSpecDryRun).
 */
export function dryRunMode(obj: KObject, ctx: RequestContext): DryRunMode | undefined {
  if (ctx.config.profile.podSpecDryRun === "request") return ctx.dryRun ? "enabled" : undefined;
  const flag = ctx.config.admission.features.podSpecDryRun;
  if (flag === "Disabled") return undefined;
  const annotation = asObject(metadataOf(obj).annotations)?.[PODSPEC_DRYRUN_ANNOTATION];
  if (annotation === "strict") return "strict";
  if (flag === "Enabled" || annotation === "enabled") return "enabled";
  return undefined;
}

function containersOf(spec: KObject): KObject[] {
  const list = spec.containers;
  if (!Array.isArray(list)) return [];
  // A null element decodes to a zero Container in Go.
  return list.map((c: unknown) => ({ ...(asObject(c) ?? {}) }));
}

function hasPorts(c: KObject): boolean {
  return Array.isArray(c.ports) && c.ports.length > 0;
}

/** RevisionSpec.GetContainer: the only container, else the first one with ports. */
function servingContainerOf(containers: readonly KObject[]): KObject | undefined {
  if (containers.length === 1) return containers[0];
  return containers.find(hasPorts);
}

/** getUserPort: the serving container's first containerPort when non-zero, else 8080. */
function userPortOf(containers: readonly KObject[]): number {
  const ports = servingContainerOf(containers)?.ports;
  const first = Array.isArray(ports) ? asObject(ports[0]) : undefined;
  const port = first?.containerPort;
  return typeof port === "number" && port !== 0 ? port : DEFAULT_USER_PORT;
}

function withAppended(list: unknown, ...items: KObject[]): unknown[] {
  return [...(Array.isArray(list) ? (list as unknown[]) : []), ...items];
}

/** makeContainer: what the revision reconciler changes on every user container. */
function makeContainer(c: KObject): KObject {
  c.lifecycle = { preStop: { httpGet: { path: DRAIN_PATH, port: QUEUE_ADMIN_PORT } } };
  // K_REVISION, K_CONFIGURATION, K_SERVICE from the Revision's name and labels, all empty here (omitempty value).
  c.env = withAppended(c.env, { name: "K_REVISION" }, { name: "K_CONFIGURATION" }, { name: "K_SERVICE" });
  delete c.stdin;
  delete c.tty;
  if (typeof c.terminationMessagePolicy !== "string" || c.terminationMessagePolicy === "") c.terminationMessagePolicy = "FallbackToLogsOnError";
  const readiness = asObject(c.readinessProbe);
  // The queue proxy runs HTTP, TCP and gRPC readiness probes itself.
  if (readiness !== undefined && (readiness.httpGet != null || readiness.tcpSocket != null || readiness.grpc != null)) delete c.readinessProbe;
  const liveness = asObject(c.livenessProbe);
  const httpGet = asObject(liveness?.httpGet);
  if (liveness !== undefined && httpGet !== undefined) {
    c.livenessProbe = { ...liveness, httpGet: { ...httpGet, httpHeaders: withAppended(httpGet.httpHeaders, { ...KUBELET_PROBE_HEADER }) } };
  }
  return c;
}

/** makeServingContainer: the user port as the only port, `PORT` in the environment, liveness probes aimed at it. */
function makeServingContainer(c: KObject, userPort: number): KObject {
  c.ports = [{ name: USER_PORT_NAME, containerPort: userPort }];
  c.env = withAppended(c.env, { name: "PORT", value: String(userPort) });
  makeContainer(c);
  const liveness = asObject(c.livenessProbe);
  if (liveness !== undefined) {
    const httpGet = asObject(liveness.httpGet);
    const tcpSocket = asObject(liveness.tcpSocket);
    if (httpGet !== undefined) c.livenessProbe = { ...liveness, httpGet: { ...httpGet, port: userPort } };
    else if (tcpSocket !== undefined) c.livenessProbe = { ...liveness, tcpSocket: { ...tcpSocket, port: userPort } };
  }
  return c;
}

/**
 * The Pod the dry run creates (knative.dev/serving pkg/webhook/podspec_dryrun.go;
 * pkg/reconciler/revision/resources/deploy.go: `BuildPodSpec(rev, BuildUserContainers(rev), nil)`):
 * the revision's PodSpec with its user containers as the reconciler makes them (no queue proxy, nothing that
 * depends on configuration) and `terminationGracePeriodSeconds = timeoutSeconds`. `revisionSpec` is a
 * defaulted RevisionSpec in its Go-marshalled form; it is not modified.
 */
export function buildDryRunPod(revisionSpec: KObject, namespace: string): KObject {
  const podSpec: KObject = {};
  for (const key of Object.keys(revisionSpec)) if (!REVISION_ONLY_FIELDS.has(key) && key !== "containers") podSpec[key] = revisionSpec[key];
  const containers = containersOf(revisionSpec);
  const userPort = userPortOf(containers);
  const single = containers.length === 1;
  podSpec.containers = containers.map((c) => (single || hasPorts(c) ? makeServingContainer(c, userPort) : makeContainer(c)));
  const timeout = revisionSpec.timeoutSeconds;
  if (isInt64(timeout)) podSpec.terminationGracePeriodSeconds = timeout;
  else delete podSpec.terminationGracePeriodSeconds;
  return { apiVersion: "v1", kind: "Pod", metadata: { generateName: DRY_RUN_NAME, namespace }, spec: podSpec };
}

/** `validatePodSpec`: default a Revision made from the template, build its Pod, dry-run it. */
async function dryRunTemplate(template: KObject, namespace: string, mode: DryRunMode, ctx: RequestContext, podDryRun: NonNullable<RequestContext["podDryRun"]>): Promise<string | undefined> {
  const rev: KObject = { metadata: { generateName: DRY_RUN_NAME, namespace }, spec: structuredClone(asObject(template.spec) ?? {}) };
  setRevisionDefaults(rev, ctx);
  const result = await podDryRun(buildDryRunPod(rev.spec as KObject, namespace), namespace);
  if (result.ok) return undefined;
  // An API server that cannot dry-run (a webhook on Pods with side effects) is let through unless strict.
  if (mode !== "strict" && result.error.includes("does not support dry run")) return undefined;
  return errGeneric(`dry run failed with ${result.error}`, "spec.template").error();
}

/**
 * `validateRevisionTemplate`: the shared part of both callbacks. The mode and `spec.template`'s presence and kind are
 * read from the unstructured object as Knative reads them (unstructured.NestedFieldNoCopy); they differ from the typed
 * object's where the text repeats a key (`"template": {...}, "template": null` decodes to the first template).
 */
function validateRevisionTemplate(obj: KObject, ctx: RequestContext, unstructured: KObject): Promise<string | undefined> | string | undefined {
  const mode = dryRunMode(unstructured, ctx);
  if (mode === undefined) return undefined;
  const rawSpec = asObject(unstructured.spec);
  if (rawSpec === undefined || !Object.hasOwn(rawSpec, "template")) return undefined;
  if (asObject(rawSpec.template) === undefined) return "value could not be interpreted as a map";
  const template = asObject(asObject(obj.spec)?.template);
  if (template === undefined) return undefined;
  if (ctx.operation === "UPDATE" && ctx.config.profile.podSpecDryRun === "flag") {
    // v0.44.2 does not dry-run a no-change update again (from v0.47.0 a dry-run request is always checked).
    const old = asObject(asObject(asObject(ctx.oldObject)?.spec)?.template);
    if (old !== undefined && semanticEqual(template, old)) return undefined;
  }
  // Without a client (standalone, `admit`) the API call is stubbed to succeed; building the Pod would change nothing.
  const podDryRun = ctx.podDryRun;
  if (podDryRun === undefined) return undefined;
  const namespace = metadataOf(unstructured).namespace;
  return dryRunTemplate(template, typeof namespace === "string" ? namespace : "", mode, ctx, podDryRun);
}

/** Service's callback (`ValidateService`), for CREATE and UPDATE. */
export function validateServiceDryRun(svc: KObject, ctx: RequestContext, unstructured: KObject = svc): Promise<string | undefined> | string | undefined {
  return validateRevisionTemplate(svc, ctx, unstructured);
}

/** Configuration's callback (`ValidateConfiguration`): a Configuration a Service owns is checked through the Service. */
export function validateConfigurationDryRun(cfg: KObject, ctx: RequestContext, unstructured: KObject = cfg): Promise<string | undefined> | string | undefined {
  const owner = asObject(metadataOf(unstructured).labels)?.[SERVICE_LABEL];
  if (typeof owner === "string" && owner !== "") return undefined;
  return validateRevisionTemplate(cfg, ctx, unstructured);
}
