/**
 * `duckbill check`: runs manifests through the webhook exactly as `kubectl apply` and the API server would
 * and prints what kubectl would print. Each Knative object is first strictly decoded as the API server
 * decodes it (unknown fields against the kind's CRD schema, ./strict-decoding.ts), then goes through the same code as
 * the HTTPS server (`answerReview`): /defaulting, the returned JSON Patch applied, then what the API server adds
 * before validating admission (rest.BeforeCreate, BeforeUpdate), then /resource-validation. Knative's own ConfigMaps
 * go to /config-validation. No cluster is involved: CRD schema validation of types and required fields, and anything
 * else the API server does besides decoding and calling the webhooks, is out of scope.
 */
import type { NamespaceLabelsView } from "../../config/feature-scopes.js";
import { randomInt, randomUUID } from "node:crypto";
import jsonpatch from "fast-json-patch";
import type { AdmissionDeps } from "../../admission/deps.js";
import { answerReview, type AdmissionPath } from "../../admission/http.js";
import type { AdmissionResponse } from "../../admission/response.js";
import { copyJsonValue, isJsonObject, type JsonObject } from "../../go/encoding/json/json-value.js";
import type { GroupVersionKind } from "../../apis/gvk.js";
import type { ConfigSnapshot } from "../../config/snapshot.js";
import {
  applyMergePatch,
  createErrorLine,
  deniedBy,
  goJson,
  infoString,
  LAST_APPLIED_ANNOTATION,
  lastAppliedOf,
  setLastApplied,
  missingLastAppliedWarning,
  objectRef,
  patchErrorLine,
  ResponseWarnings,
  threeWayMergePatch,
  withLastApplied,
} from "../kubectl/kubectl-apply.js";
import { CRD_SCHEMAS } from "./crd-schemas.js";
import { ManifestError, type ManifestDocument } from "../kubectl/manifests.js";
import type { LiveRef } from "../cluster/features-cluster.js";
import { strictDecodingMessage, unknownBuiltinFields, unknownCustomResourceFields, type StructuralSchema } from "../kubectl/strict-decoding.js";

/** The webhook names the API server reports (knative.dev/serving cmd/webhook/main.go). */
export const DEFAULTING_WEBHOOK = "webhook.serving.knative.dev";
export const VALIDATION_WEBHOOK = "validation.webhook.serving.knative.dev";
export const CONFIG_WEBHOOK = "config.webhook.serving.knative.dev";

export const DEFAULT_USER = "duckbill-check";



function copyOf(obj: JsonObject): JsonObject {
  return copyJsonValue(obj) as JsonObject;
}

/** Where the webhook would see a document, or why it would not. */
interface Target {
  readonly gvk: GroupVersionKind;
  readonly plural: string;
  /** Knative CRDs get generation, status handling and the mutating webhook; ConfigMaps only validation. */
  readonly crd: boolean;
}

export type Outcome = "created" | "configured" | "unchanged" | "denied" | "skipped";

/** Which document a result is about. */
export interface DocumentIdentity {
  /** The manifest file (`STDIN` for stdin), or what the caller named the object's origin. */
  readonly source: string;
  /** The manifest line; 0 when the object does not come from a manifest. */
  readonly line: number;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** What happened to one document. */
export interface CheckResult extends DocumentIdentity {
  readonly outcome: Outcome;
  /** Set unless skipped. */
  readonly operation?: "CREATE" | "UPDATE";
  /** `service.serving.knative.dev/hello`, kubectl's name for the object. */
  readonly ref?: string;
  /** The webhook that denied the request (none when the API server refused it first), and the status message. */
  readonly webhook?: string;
  readonly message?: string;
  /** Set when the API server refused the request before any webhook: fields the kind does not have. */
  readonly rejectedBy?: "strict-decoding";
  /** Warnings as the API server returns them for this request. */
  readonly warnings: readonly string[];
  /** kubectl's error line for a denial (`Error from server (BadRequest): ...`). */
  readonly error?: string;
  /** kubectl's own warnings printed before the request (a live object without last-applied configuration). */
  readonly clientWarnings?: readonly string[];
  /** The object after the mutating webhook (when it ran and allowed). */
  readonly defaulted?: JsonObject;
  /** The JSON Patch the mutating webhook answered (when it ran and allowed; empty when it changed nothing). */
  readonly patch?: readonly jsonpatch.Operation[];
  /** Why a skipped document was skipped. */
  readonly note?: string;
  /** For a denial: the first field its message names that the manifest writes, and where (`-o github` points there). */
  readonly field?: { readonly path: string; readonly line: number; readonly column: number };
}

export interface CheckOptions {
  readonly deps: AdmissionDeps;
  readonly config: ConfigSnapshot;
  /** kubectl's namespace for objects without one (`-n`, default "default"). */
  readonly namespace: string;
  /** userInfo.username of every request. */
  readonly user: string;
  /** Live objects for UPDATE, as read by readOldObjects. */
  readonly old?: ReadonlyMap<string, JsonObject>;
  /** Where AdmissionReviews go; defaults to the server's own code in-process (answerReview). */
  readonly transport?: ReviewTransport;
  /**
   * Send every ConfigMap to /config-validation, labelled or not: for ConfigMaps known to be Knative's own (read from
   * its namespace or a configuration directory), whose labels a configuration directory does not keep.
   */
  readonly ignoreConfigMapSelector?: boolean;
  /** The CRD schemas strict decoding follows, by `group/version/Kind` (a cluster's); Duckbill's own (CRD_SCHEMAS) by default. */
  readonly schemas?: ReadonlyMap<string, StructuralSchema>;
  /**
   * The namespaces' labels, which the scopes of config-features-scopes select on (a cluster's, or `--namespace-labels`);
   * absent: scopes take in the namespaces they name only.
   */
  readonly namespaces?: NamespaceLabelsView;
}

/** Sends one AdmissionReview body to a webhook path and returns the HTTP answer. */
export type ReviewTransport = (path: AdmissionPath, body: string) => Promise<{ readonly status: number; readonly body: string }>;

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The config webhook's objectSelector (knative.dev/serving config/core/webhooks/configmap-validation.yaml): only
 * Knative's own ConfigMaps reach it.
 */
const CONFIG_COMPONENTS = new Set(["autoscaler", "controller", "logging", "networking", "observability", "tracing", "net-certmanager"]);

function isKnativeConfigMap(obj: JsonObject): boolean {
  const labels = isJsonObject(obj.metadata) && isJsonObject(obj.metadata.labels) ? obj.metadata.labels : undefined;
  return labels?.["app.kubernetes.io/name"] === "knative-serving" && CONFIG_COMPONENTS.has(String(labels["app.kubernetes.io/component"]));
}

function targetOf(obj: JsonObject, opts: CheckOptions): Target | string {
  const apiVersion = String(obj.apiVersion);
  const kind = String(obj.kind);
  const { group, version } = splitApiVersion(apiVersion);
  const gvk = { group, version, kind };
  const rules = opts.deps.kinds.lookup(gvk);
  if (rules !== undefined) return { gvk, plural: rules.plural, crd: true };
  if (group === "" && version === "v1" && kind === "ConfigMap") {
    if (opts.ignoreConfigMapSelector === true || isKnativeConfigMap(obj)) return { gvk, plural: "configmaps", crd: false };
    return "the config webhook only sees ConfigMaps labelled app.kubernetes.io/name=knative-serving with a Knative component";
  }
  return "not a kind the Knative Serving webhook handles";
}

function metadataOf(obj: JsonObject): JsonObject | undefined {
  return isJsonObject(obj.metadata) ? obj.metadata : undefined;
}

function stringAt(m: JsonObject | undefined, key: string): string {
  const v = m?.[key];
  return typeof v === "string" ? v : "";
}

/** kubectl puts objects without a namespace into its namespace (resource.Builder DefaultNamespace). */
function withNamespace(obj: JsonObject, namespace: string): JsonObject {
  const copy = copyOf(obj);
  const meta = metadataOf(copy);
  if (meta === undefined) {
    if (copy.metadata === undefined) copy.metadata = { namespace };
  } else if (stringAt(meta, "namespace") === "") {
    meta.namespace = namespace;
  }
  return copy;
}

function oldKey(group: string, kind: string, namespace: string, name: string): string {
  return `${group}|${kind}|${namespace}|${name}`;
}

/** Base-36-free alphabet of apimachinery's utilrand.String (no vowels, no confusable digits). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** names.SimpleNameGenerator: the prefix cut to 58 characters plus five random characters. */
function generateName(prefix: string): string {
  let out = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  for (let i = 0; i < 5; i++) out += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return out;
}

function rfc3339Now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * The API server drops null members of the mutated object where the CRD schema declares the field (non-nullable,
 * no default); undeclared fields under `x-kubernetes-preserve-unknown-fields` keep them (see applyDefaultingPatch).
 * In place.
 */
function dropNullMembers(v: unknown): void {
  if (typeof v !== "object" || v === null) return;
  if (Array.isArray(v)) {
    for (const item of v) dropNullMembers(item);
    return;
  }
  const obj = v as JsonObject;
  for (const k in obj) {
    const x = obj[k];
    if (x === null) delete obj[k];
    else if (typeof x === "object") dropNullMembers(x);
  }
}

/**
 * A copy that shares everything below `metadata`: what the API server changes before validation lives at the
 * top level and in metadata, and the result is only serialized.
 */
function shallowWithMetadata(obj: JsonObject): { out: JsonObject; meta: JsonObject } {
  const out = { ...obj };
  const meta = isJsonObject(obj.metadata) ? { ...obj.metadata } : {};
  out.metadata = meta;
  return { out, meta };
}

/** rest.BeforeCreate and the CRD strategy's PrepareForCreate: status dropped, generation 1, uid, timestamp, name. */
function prepareForCreate(obj: JsonObject, crd: boolean): JsonObject {
  const { out, meta } = shallowWithMetadata(obj);
  if (crd) delete out.status;
  if (crd) meta.generation = 1;
  meta.uid = randomUUID();
  meta.creationTimestamp = rfc3339Now();
  const prefix = stringAt(meta, "generateName");
  if (prefix !== "" && stringAt(meta, "name") === "") meta.name = generateName(prefix);
  return out;
}

/**
 * rest.BeforeUpdate and the CRD strategy's PrepareForUpdate: generation and status cannot be changed by the
 * request; any change outside metadata bumps the generation; uid and creationTimestamp stay.
 */
function prepareForUpdate(obj: JsonObject, old: JsonObject, crd: boolean): JsonObject {
  const { out, meta } = shallowWithMetadata(obj);
  const oldMeta = metadataOf(old) ?? {};
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  if (crd) {
    if (Object.hasOwn(old, "status")) out.status = old.status;
    else delete out.status;
    if (!sameWithoutMetadata(out, old)) meta.generation = (typeof oldMeta.generation === "number" ? oldMeta.generation : 0) + 1;
  }
  if (stringAt(meta, "uid") === "" && oldMeta.uid !== undefined) meta.uid = oldMeta.uid;
  if (oldMeta.creationTimestamp !== undefined) meta.creationTimestamp = oldMeta.creationTimestamp;
  return out;
}

function sameWithoutMetadata(a: JsonObject, b: JsonObject): boolean {
  const strip = (o: JsonObject): JsonObject => {
    const { metadata: _metadata, ...rest } = o;
    return rest;
  };
  return goJson(strip(a)) === goJson(strip(b));
}

interface WebhookAnswer {
  readonly response: AdmissionResponse;
}

/** One AdmissionReview through the server's code path. */
async function callWebhook(
  path: AdmissionPath,
  target: Target,
  operation: "CREATE" | "UPDATE",
  object: JsonObject,
  oldObject: JsonObject | undefined,
  opts: CheckOptions,
): Promise<WebhookAnswer> {
  const meta = metadataOf(object);
  const request = {
    uid: randomUUID(),
    kind: target.gvk,
    resource: { group: target.gvk.group, version: target.gvk.version, resource: target.plural },
    requestKind: target.gvk,
    requestResource: { group: target.gvk.group, version: target.gvk.version, resource: target.plural },
    name: stringAt(meta, "name"),
    namespace: stringAt(meta, "namespace"),
    operation,
    userInfo: { username: opts.user },
    object,
    oldObject: oldObject ?? null,
    dryRun: false,
    options:
      operation === "CREATE"
        ? { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "kubectl-client-side-apply", fieldValidation: "Strict" }
        : { kind: "PatchOptions", apiVersion: "meta.k8s.io/v1", fieldManager: "kubectl-client-side-apply", fieldValidation: "Strict" },
  };
  const body = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });
  const answer = opts.transport === undefined ? await answerReview(path, body, opts.deps, { config: opts.config, ...(opts.namespaces === undefined ? {} : { namespaces: opts.namespaces }) }) : await opts.transport(path, body);
  if (answer.status !== 200) throw new Error(`${path} answered HTTP ${answer.status}: ${answer.body.trim()}`);
  return { response: (JSON.parse(answer.body) as { response: AdmissionResponse }).response };
}

/** The defaulting answer's JSON Patch operations (none when it has no patch). */
function patchOf(response: AdmissionResponse): jsonpatch.Operation[] {
  if (response.patch === undefined) return [];
  return (JSON.parse(Buffer.from(response.patch, "base64").toString("utf8")) as jsonpatch.Operation[] | null) ?? [];
}

/** Applies the defaulting answer's JSON Patch (strictly: every operation validated) to `object`, in place. */
function applyDefaultingPatch(object: JsonObject, ops: jsonpatch.Operation[]): JsonObject {
  if (ops.length === 0) return object;
  const patched = jsonpatch.applyPatch(object, ops, true, true).newDocument;
  // The revision template's metadata declares only a few fields and keeps the rest (Knative's CRD schema, and
  // manifests/crds): its other null members (Knative's `creationTimestamp: null`) survive, as a real API server
  // shows (test/e2e).
  const template = isJsonObject(patched.spec) && isJsonObject(patched.spec.template) ? patched.spec.template : undefined;
  const kept = isJsonObject(template?.metadata) ? keptNulls(template.metadata) : [];
  dropNullMembers(patched);
  for (const k of kept) (template!.metadata as JsonObject)[k] = null;
  return patched;
}

/** Fields of the template's metadata that the CRD schemas declare (any other field is kept as sent). */
const DECLARED_TEMPLATE_METADATA = new Set(["annotations", "finalizers", "labels", "name", "namespace"]);

function keptNulls(meta: JsonObject): string[] {
  return Object.keys(meta).filter((k) => meta[k] === null && !DECLARED_TEMPLATE_METADATA.has(k));
}

/** One request as the API server receives it. */
interface ApiRequest {
  readonly operation: "CREATE" | "UPDATE";
  /** The object the request carries; the defaulting patch is applied to it in place. */
  readonly sent: JsonObject;
  /** The live object an UPDATE replaces (its oldObject). */
  readonly current?: JsonObject;
  readonly clientWarnings?: readonly string[];
  /** kubectl's error line for a refused request, from the API server's reason and status reason. */
  errorLine(reason: string, status?: string): string;
}

function resultBase(doc: ManifestDocument, obj: JsonObject): DocumentIdentity {
  const meta = metadataOf(obj);
  return {
    source: doc.source,
    line: doc.line,
    apiVersion: String(obj.apiVersion),
    kind: String(obj.kind),
    namespace: stringAt(meta, "namespace"),
    name: stringAt(meta, "name") || stringAt(meta, "generateName"),
  };
}

/** Checks one document. Throws only on internal errors (a webhook answering something other than a review). */
export async function checkDocument(doc: ManifestDocument, opts: CheckOptions): Promise<CheckResult> {
  const obj = withNamespace(doc.object, opts.namespace);
  const base = resultBase(doc, obj);
  const target = targetOf(obj, opts);
  if (typeof target === "string") return { ...base, outcome: "skipped", warnings: [], note: target };

  const ref = objectRef(target.gvk.group, base.kind, base.name);
  const current = opts.old?.get(oldKey(target.gvk.group, base.kind, base.namespace, stringAt(metadataOf(obj), "name")));
  // obj is this function's own copy: from here on it is what kubectl sends.
  const modified = setLastApplied(obj);
  if (current === undefined) {
    return throughApiServer(base, target, { operation: "CREATE", sent: modified, errorLine: (reason) => createErrorLine(doc.source, reason) }, opts);
  }
  const original = lastAppliedOf(current);
  const clientWarnings = original === undefined ? [missingLastAppliedWarning(target.plural, base.name)] : [];
  const patch = threeWayMergePatch(original, modified, current);
  // kubectl sends nothing when the patch is empty.
  if (Object.keys(patch).length === 0) return { ...base, outcome: "unchanged", operation: "UPDATE", ref, warnings: [], clientWarnings };
  const info = infoString(target.gvk.group, target.gvk.version, base.kind, target.plural, base.name, base.namespace);
  return throughApiServer(
    base,
    target,
    {
      operation: "UPDATE",
      sent: applyMergePatch(current, patch),
      current,
      clientWarnings,
      errorLine: (reason, status) => patchErrorLine(doc.source, goJson(patch), info, reason, status),
    },
    opts,
  );
}

/**
 * An UPDATE of the stored object `doc.object` that changes nothing (object = oldObject): what its next update goes
 * through (a client's that changes another field, or a controller's). The denial line is the webhook's answer as the
 * API server words it, without kubectl's framing.
 */
export async function checkUnchangedUpdate(doc: ManifestDocument, opts: CheckOptions): Promise<CheckResult> {
  const current = withNamespace(doc.object, opts.namespace);
  const base = resultBase(doc, current);
  const target = targetOf(current, opts);
  if (typeof target === "string") return { ...base, outcome: "skipped", warnings: [], note: target };
  return throughApiServer(base, target, { operation: "UPDATE", sent: copyOf(current), current, errorLine: (reason) => reason }, opts);
}

/** The fields of the object the API server's strict decoding refuses: none for a kind without a known schema. */
function unknownFields(obj: JsonObject, target: Target, opts: CheckOptions): string[] {
  if (!target.crd) return unknownBuiltinFields(obj, "core.ConfigMap");
  const key = `${target.gvk.group}/${target.gvk.version}/${target.gvk.kind}`;
  const schema = opts.schemas?.get(key) ?? CRD_SCHEMAS[key];
  return schema === undefined ? [] : unknownCustomResourceFields(obj, schema);
}

/**
 * What the API server does with one request: /defaulting for Knative's kinds and its JSON Patch applied, what it
 * sets before validating admission, then /resource-validation (or /config-validation for a ConfigMap).
 */
async function throughApiServer(base: DocumentIdentity, target: Target, req: ApiRequest, opts: CheckOptions): Promise<CheckResult> {
  const { operation, sent, current } = req;
  const ref = objectRef(target.gvk.group, base.kind, base.name);
  const client = req.clientWarnings === undefined ? {} : { clientWarnings: req.clientWarnings };
  const warnings = new ResponseWarnings();
  const denied = (webhook: string, message: string): CheckResult => ({
    ...base,
    outcome: "denied",
    operation,
    ref,
    webhook,
    message,
    warnings: warnings.texts(),
    ...client,
    error: req.errorLine(deniedBy(webhook, message)),
  });

  const unknown = unknownFields(sent, target, opts);
  if (unknown.length > 0) {
    const message = strictDecodingMessage(base.kind, target.gvk.version, unknown);
    // A create fails decoding its body (BadRequest); a patch fails decoding the patched object (Invalid).
    return { ...base, outcome: "denied", operation, ref, message, rejectedBy: "strict-decoding", warnings: [], ...client, error: req.errorLine(message, current === undefined ? "BadRequest" : "Invalid") };
  }

  let defaulted: JsonObject | undefined;
  let patch: jsonpatch.Operation[] | undefined;
  let stored: JsonObject;
  if (target.crd) {
    const { response } = await callWebhook("/defaulting", target, operation, sent, current, opts);
    for (const w of response.warnings ?? []) warnings.add(w);
    if (!response.allowed) return denied(DEFAULTING_WEBHOOK, response.status?.message ?? "");
    patch = patchOf(response);
    defaulted = applyDefaultingPatch(sent, patch);
    stored = defaulted;
  } else {
    stored = sent;
  }
  stored = current === undefined ? prepareForCreate(stored, target.crd) : prepareForUpdate(stored, current, target.crd);
  const path: AdmissionPath = target.crd ? "/resource-validation" : "/config-validation";
  const { response } = await callWebhook(path, target, operation, stored, current, opts);
  for (const w of response.warnings ?? []) warnings.add(w);
  if (!response.allowed) return denied(target.crd ? VALIDATION_WEBHOOK : CONFIG_WEBHOOK, response.status?.message ?? "");
  const finalName = stringAt(metadataOf(stored), "name");
  return {
    ...base,
    name: finalName,
    outcome: current === undefined ? "created" : "configured",
    operation,
    ref: objectRef(target.gvk.group, base.kind, finalName),
    warnings: warnings.texts(),
    ...client,
    ...(defaulted === undefined ? {} : { defaulted }),
    ...(patch === undefined ? {} : { patch }),
  };
}

/** Checks documents in order (kubectl applies them one after another). */
export async function checkDocuments(docs: readonly ManifestDocument[], opts: CheckOptions): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const doc of docs) {
    const r = await checkDocument(doc, opts);
    const field = r.outcome === "denied" && doc.locate !== undefined ? deniedField(r.message ?? "", doc.locate) : undefined;
    out.push(field === undefined ? r : { ...r, field });
  }
  return out;
}

/**
 * The first field path a denial names (Knative's FieldError paths start at `metadata`, `spec` or `status`) that the
 * manifest writes; a path to a field the manifest lacks is shortened to the nearest parent it has.
 */
export function deniedField(message: string, locate: NonNullable<ManifestDocument["locate"]>): CheckResult["field"] {
  for (const m of message.matchAll(/(?<![\w.[\]/-])(?:metadata|spec|status)(?:\.[^\s,:;()"'[\]]+|\[[^\]\s]*\])*/g)) {
    let path = m[0].replace(/\.$/, "");
    while (path !== "") {
      const at = locate(path);
      if (at !== undefined) return { path, line: at.line, column: at.column };
      const cut = Math.max(path.lastIndexOf("."), path.lastIndexOf("["));
      if (cut <= 0) break;
      path = path.slice(0, cut);
    }
  }
  return undefined;
}

/**
 * Live objects for `--old`: keyed by group, kind, namespace and name. A document that was never stored (no
 * creationTimestamp) is taken as the manifest it was created from and stored through the CREATE pipeline
 * first, as `kubectl apply` would have created it; if that is denied the old manifest itself is invalid.
 */
/**
 * Where the live object of each document the webhooks see would be (kind, namespace, name; documents named only by
 * generateName have none): what `check --kubeconfig` reads, so that an existing object's manifest is checked as the
 * update `kubectl apply` would send.
 */
export function liveRefsOf(docs: readonly ManifestDocument[], opts: CheckOptions): LiveRef[] {
  const out = new Map<string, LiveRef>();
  for (const doc of docs) {
    const obj = withNamespace(doc.object, opts.namespace);
    const target = targetOf(obj, opts);
    if (typeof target === "string") continue;
    const meta = metadataOf(obj);
    const name = stringAt(meta, "name");
    if (name === "") continue;
    const ref = { group: target.gvk.group, version: target.gvk.version, plural: target.plural, namespace: stringAt(meta, "namespace"), name };
    out.set(oldKey(ref.group, String(obj.kind), ref.namespace, name), ref);
  }
  return [...out.values()];
}

export async function readOldObjects(docs: readonly ManifestDocument[], opts: CheckOptions): Promise<Map<string, JsonObject>> {
  const out = new Map<string, JsonObject>();
  for (const doc of docs) {
    const obj = withNamespace(doc.object, opts.namespace);
    const target = targetOf(obj, opts);
    if (typeof target === "string") continue;
    const meta = metadataOf(obj);
    let stored = obj;
    if (stringAt(meta, "creationTimestamp") === "") {
      const r = await checkDocument(doc, { ...opts, old: undefined });
      if (r.outcome === "denied") throw new ManifestError(doc.source, doc.line, 1, `the --old object would be denied when created:\n${r.error ?? ""}`);
      stored = storedObject(r.defaulted ?? withLastApplied(obj), target.crd);
    }
    out.set(oldKey(target.gvk.group, String(obj.kind), stringAt(metadataOf(stored), "namespace"), stringAt(metadataOf(stored), "name")), stored);
  }
  return out;
}

/**
 * What the API server stores for an allowed CREATE of `created` (for a Knative kind, the defaulted object of the
 * check's result), as `kubectl get -o yaml` would then show it: uid, creationTimestamp, generation, resourceVersion.
 */
export function storedObject(created: JsonObject, crd = true): JsonObject {
  const stored = prepareForCreate(created, crd);
  const meta = metadataOf(stored);
  if (meta !== undefined) meta.resourceVersion = "1";
  return stored;
}

/** What `--print-defaulted` shows: the object after the mutating webhook, without kubectl's bookkeeping. */
export function printableDefaulted(obj: JsonObject): JsonObject {
  const out = copyOf(obj);
  const meta = metadataOf(out);
  if (meta !== undefined && isJsonObject(meta.annotations)) {
    delete meta.annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  }
  return out;
}

export { loadConfig, PROCESS_IO, UsageError, type CliIO } from "../io.js";
