/**
 * An in-process Kubernetes API server over plain HTTP on 127.0.0.1, for tests that want real list/watch traffic
 * without a cluster. Generic over resources: any registered type gets list, get, create, replace, merge/JSON
 * patch, delete and watch, with a cluster-wide resourceVersion, bookmarks, `410 Gone` for compacted history, and
 * switches to drop, stall or fail streams the way real API servers and proxies do.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import fastJsonPatch, { type Operation } from "fast-json-patch";

export interface ResourceType {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export const CONFIGMAPS: ResourceType = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap", namespaced: true };
export const SECRETS: ResourceType = { group: "", version: "v1", plural: "secrets", kind: "Secret", namespaced: true };
export const NAMESPACES: ResourceType = { group: "", version: "v1", plural: "namespaces", kind: "Namespace", namespaced: false };
export const LEASES: ResourceType = { group: "coordination.k8s.io", version: "v1", plural: "leases", kind: "Lease", namespaced: true };
export const VALIDATING_WEBHOOK_CONFIGURATIONS: ResourceType = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "validatingwebhookconfigurations",
  kind: "ValidatingWebhookConfiguration",
  namespaced: false,
};
export const MUTATING_WEBHOOK_CONFIGURATIONS: ResourceType = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  plural: "mutatingwebhookconfigurations",
  kind: "MutatingWebhookConfiguration",
  namespaced: false,
};

export const CUSTOM_RESOURCE_DEFINITIONS: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};

export const BUILTIN_RESOURCES: readonly ResourceType[] = [CONFIGMAPS, SECRETS, NAMESPACES, LEASES, VALIDATING_WEBHOOK_CONFIGURATIONS, MUTATING_WEBHOOK_CONFIGURATIONS];

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly watch: boolean;
  readonly authorization: string | undefined;
}

export interface FakeApiServerOptions {
  /** Resource types served (default BUILTIN_RESOURCES). */
  readonly resources?: readonly ResourceType[];
  /** Send a BOOKMARK this often to watches that asked for them (0: only on sendBookmarks()). */
  readonly bookmarkIntervalMs?: number;
  /**
   * How a watch from a compacted resourceVersion is refused: "event" (what kube-apiserver does: HTTP 200, then an
   * ERROR event with a 410 Status, then EOF) or "status" (an HTTP 410 response, as some proxies and older servers do).
   */
  readonly expiredWatchAs?: "event" | "status";
  /** GET /version answer. */
  readonly gitVersion?: string;
}

interface Stored {
  readonly rt: ResourceType;
  obj: KubeObject;
}

interface HistoryEntry {
  readonly rv: number;
  readonly rt: ResourceType;
  readonly type: WatchEventType;
  readonly obj: KubeObject;
}

interface Watcher {
  readonly rt: ResourceType;
  readonly namespace: string | undefined;
  readonly selector: Selector;
  readonly res: ServerResponse;
  readonly bookmarks: boolean;
  stalled: boolean;
  timeout: NodeJS.Timeout | undefined;
}

interface Failure {
  remaining: number;
  readonly status: number;
  readonly filter: RequestFilter;
}

export interface RequestFilter {
  readonly method?: string;
  readonly watch?: boolean;
  readonly plural?: string;
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function apiVersionOf(rt: ResourceType): string {
  return rt.group === "" ? rt.version : `${rt.group}/${rt.version}`;
}

function qualified(rt: ResourceType): string {
  return rt.group === "" ? rt.plural : `${rt.plural}.${rt.group}`;
}

function keyOf(rt: ResourceType, namespace: string | undefined, name: string): string {
  return `${qualified(rt)}/${rt.namespaced ? (namespace ?? "") : ""}/${name}`;
}

/** A ConfigMap object, the shape tests create most. */
export function configMap(namespace: string, name: string, data: Record<string, string>, extra: Partial<ObjectMeta> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { ...extra, name, namespace }, data };
}

function statusBody(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

const REASONS: Record<number, string> = { 400: "BadRequest", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType", 500: "InternalError", 503: "ServiceUnavailable" };

type Selector = (obj: KubeObject) => boolean;

/** Equality-based label selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`) and metadata.name/namespace field selectors. */
function selectorFrom(labelSelector: string | null, fieldSelector: string | null): Selector {
  const tests: Selector[] = [];
  for (const term of (labelSelector ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "")) {
    const m = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (m !== null) {
      const [, k = "", op, v = ""] = m;
      tests.push((o) => (op === "!=" ? o.metadata.labels?.[k] !== v : o.metadata.labels?.[k] === v));
    } else if (term.startsWith("!")) {
      const k = term.slice(1);
      tests.push((o) => o.metadata.labels?.[k] === undefined);
    } else {
      tests.push((o) => o.metadata.labels?.[term] !== undefined);
    }
  }
  for (const term of (fieldSelector ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "")) {
    const m = /^metadata\.(name|namespace)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (m === null) throw new ApiError(400, "BadRequest", `field label not supported: ${term}`);
    const [, field = "name", op, v = ""] = m;
    tests.push((o) => (op === "!=" ? o.metadata[field] !== v : o.metadata[field] === v));
  }
  return (o) => tests.every((t) => t(o));
}

/** RFC 7386 JSON merge patch (also used for strategic merge patches, which tests here never need in full). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class FakeApiServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly objects = new Map<string, Stored>();
  private readonly history: HistoryEntry[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly failures: Failure[] = [];
  private readonly types: readonly ResourceType[];
  private rv = 1;
  /** Watches from a resourceVersion below this get 410 Gone. */
  private compactedRv = 0;
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private server!: Server;
  private port = 0;

  private constructor(private readonly opts: FakeApiServerOptions) {
    this.types = opts.resources ?? BUILTIN_RESOURCES;
  }

  static async start(opts: FakeApiServerOptions = {}): Promise<FakeApiServer> {
    const api = new FakeApiServer(opts);
    api.server = createServer((req, res) => api.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      api.server.once("error", reject);
      api.server.listen(0, "127.0.0.1", () => resolve());
    });
    api.port = (api.server.address() as AddressInfo).port;
    if ((opts.bookmarkIntervalMs ?? 0) > 0) {
      api.bookmarkTimer = setInterval(() => api.sendBookmarks(), opts.bookmarkIntervalMs);
      api.bookmarkTimer.unref();
    }
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The bearer token the kubeconfigs below carry (requests record the Authorization header). */
  static readonly TOKEN = "fake-apiserver-token";

  /** A KubeConfig for this server (plain HTTP, which client-node allows only with skipTLSVerify). */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(this.kubeconfigYaml());
    return kc;
  }

  /** The same as a kubeconfig file's text (JSON, which is YAML). */
  kubeconfigYaml(): string {
    return JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "fake", cluster: { server: this.url, "insecure-skip-tls-verify": true } }],
      users: [{ name: "fake", user: { token: FakeApiServer.TOKEN } }],
      contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
      "current-context": "fake",
    });
  }

  /** The latest resourceVersion handed out. */
  resourceVersion(): string {
    return String(this.rv);
  }

  // ---- objects --------------------------------------------------------------------------------------------

  get(rt: ResourceType, name: string, namespace?: string): KubeObject | undefined {
    const s = this.objects.get(keyOf(rt, namespace, name));
    return s === undefined ? undefined : structuredClone(s.obj);
  }

  list(rt: ResourceType, namespace?: string): KubeObject[] {
    return this.select(rt, namespace, () => true).map((o) => structuredClone(o));
  }

  create(rt: ResourceType, obj: KubeObject): KubeObject {
    const copy = structuredClone(obj);
    const meta = copy.metadata;
    if (rt.namespaced && (meta.namespace ?? "") === "") throw new ApiError(400, "BadRequest", "the namespace of the provided object is empty");
    if ((meta.name ?? "") === "") {
      if ((meta.generateName ?? "") === "") throw new ApiError(400, "BadRequest", "name or generateName is required");
      meta.name = `${meta.generateName}${randomUUID().slice(0, 5)}`;
    }
    const key = keyOf(rt, meta.namespace, meta.name ?? "");
    if (this.objects.has(key)) throw new ApiError(409, "AlreadyExists", `${qualified(rt)} "${meta.name}" already exists`);
    if (!rt.namespaced) delete meta.namespace;
    copy.apiVersion = apiVersionOf(rt);
    copy.kind = rt.kind;
    meta.uid = randomUUID();
    meta.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    meta.resourceVersion = String(++this.rv);
    this.objects.set(key, { rt, obj: copy });
    this.emit(rt, "ADDED", copy);
    return structuredClone(copy);
  }

  /** PUT semantics: a set metadata.resourceVersion must match the stored one (optimistic concurrency). */
  replace(rt: ResourceType, obj: KubeObject): KubeObject {
    const key = keyOf(rt, obj.metadata.namespace, obj.metadata.name ?? "");
    const stored = this.objects.get(key);
    if (stored === undefined) throw new ApiError(404, "NotFound", `${qualified(rt)} "${obj.metadata.name}" not found`);
    const wanted = obj.metadata.resourceVersion;
    if (wanted !== undefined && wanted !== "" && wanted !== stored.obj.metadata.resourceVersion) {
      throw new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${qualified(rt)} "${obj.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    const copy = structuredClone(obj);
    copy.apiVersion = apiVersionOf(rt);
    copy.kind = rt.kind;
    copy.metadata.uid = stored.obj.metadata.uid;
    copy.metadata.creationTimestamp = stored.obj.metadata.creationTimestamp;
    if (!rt.namespaced) delete copy.metadata.namespace;
    copy.metadata.resourceVersion = String(++this.rv);
    stored.obj = copy;
    this.emit(rt, "MODIFIED", copy);
    return structuredClone(copy);
  }

  /** Create or replace (ignoring resourceVersion), as `kubectl apply` would from a test's point of view. */
  apply(rt: ResourceType, obj: KubeObject): KubeObject {
    const existing = this.objects.get(keyOf(rt, obj.metadata.namespace, obj.metadata.name ?? ""));
    if (existing === undefined) return this.create(rt, obj);
    return this.replace(rt, { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } });
  }

  delete(rt: ResourceType, name: string, namespace?: string): KubeObject {
    const key = keyOf(rt, namespace, name);
    const stored = this.objects.get(key);
    if (stored === undefined) throw new ApiError(404, "NotFound", `${qualified(rt)} "${name}" not found`);
    this.objects.delete(key);
    // The DELETED event carries the deletion's resourceVersion.
    const gone = structuredClone(stored.obj);
    gone.metadata.resourceVersion = String(++this.rv);
    this.emit(rt, "DELETED", gone);
    return structuredClone(gone);
  }

  // ---- faults and stream control --------------------------------------------------------------------------

  /** Open watch streams, optionally of one resource type. */
  openWatches(rt?: ResourceType): number {
    let n = 0;
    for (const w of this.watchers) if (rt === undefined || w.rt === rt) n++;
    return n;
  }

  /** Ends every open watch: cleanly (EOF, as on an API server's watch timeout) or abruptly (socket reset). */
  dropWatches(opts: { abrupt?: boolean } = {}): void {
    for (const w of [...this.watchers]) {
      this.forget(w);
      if (opts.abrupt === true) w.res.destroy();
      else w.res.end();
    }
  }

  /** Existing watches stay open but receive nothing more: the silent stall seen behind load balancers and NAT. */
  stallWatches(): void {
    for (const w of this.watchers) w.stalled = true;
  }

  /** A BOOKMARK at the current resourceVersion to every watch that allowed them. */
  sendBookmarks(): void {
    for (const w of this.watchers) {
      if (!w.bookmarks || w.stalled) continue;
      this.write(w, { type: "BOOKMARK", object: { kind: w.rt.kind, apiVersion: apiVersionOf(w.rt), metadata: { resourceVersion: String(this.rv) } } });
    }
  }

  /** Forgets the event history, as etcd compaction does: watches from an older resourceVersion get 410 Gone. */
  compact(): void {
    this.history.length = 0;
    this.compactedRv = this.rv;
  }

  /** Answers the next `count` requests matching `filter` with `status` (a Status body), then behaves again. */
  failNext(count: number, status: number, filter: RequestFilter = {}): void {
    this.failures.push({ remaining: count, status, filter });
  }

  /** How many recorded requests match. */
  count(filter: RequestFilter = {}): number {
    return this.requests.filter((r) => matches(r, filter)).length;
  }

  async close(): Promise<void> {
    if (this.bookmarkTimer !== undefined) clearInterval(this.bookmarkTimer);
    for (const w of [...this.watchers]) {
      this.forget(w);
      w.res.destroy();
    }
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  // ---- HTTP -----------------------------------------------------------------------------------------------

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://fake");
    const q = url.searchParams;
    const watch = q.get("watch") === "true" || q.get("watch") === "1";
    const method = req.method ?? "GET";
    const record: RecordedRequest = { method, path: url.pathname, query: q, watch, authorization: req.headers.authorization };
    this.requests.push(record);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const failure = this.failures.find((f) => f.remaining > 0 && matches(record, f.filter));
        if (failure !== undefined) {
          failure.remaining--;
          throw new ApiError(failure.status, REASONS[failure.status] ?? "InternalError", `injected failure (${failure.status})`);
        }
        this.dispatch(method, url, watch, Buffer.concat(chunks).toString("utf8"), req, res);
      } catch (e) {
        if (e instanceof ApiError) this.send(res, e.code, statusBody(e.code, e.reason, e.message));
        else this.send(res, 500, statusBody(500, "InternalError", (e as Error).message));
      }
    });
  }

  private dispatch(method: string, url: URL, watch: boolean, body: string, req: IncomingMessage, res: ServerResponse): void {
    if (url.pathname === "/version") {
      const gitVersion = this.opts.gitVersion ?? "v1.31.4";
      const [, major = "1", minor = "31"] = /^v(\d+)\.(\d+)/.exec(gitVersion) ?? [];
      this.send(res, 200, { major, minor, gitVersion, platform: "linux/amd64" });
      return;
    }
    const route = this.route(url.pathname);
    const { rt, namespace, name } = route;
    const q = url.searchParams;
    if (method === "GET" && name === undefined) {
      const selector = selectorFrom(q.get("labelSelector"), q.get("fieldSelector"));
      if (watch) this.startWatch(rt, namespace, selector, q, res);
      else this.send(res, 200, this.listBody(rt, namespace, selector, q));
      return;
    }
    if (method === "GET" && name !== undefined) {
      const obj = this.get(rt, name, namespace);
      if (obj === undefined) throw new ApiError(404, "NotFound", `${qualified(rt)} "${name}" not found`);
      this.send(res, 200, obj);
      return;
    }
    if (method === "POST" && name === undefined) {
      const obj = parseBody(body);
      if (rt.namespaced) obj.metadata = { ...obj.metadata, namespace };
      this.send(res, 201, this.create(rt, obj));
      return;
    }
    if (method === "PUT" && name !== undefined) {
      const obj = parseBody(body);
      if (obj.metadata.name !== name) throw new ApiError(400, "BadRequest", "the name of the object does not match the name on the URL");
      if (rt.namespaced) obj.metadata = { ...obj.metadata, namespace };
      this.send(res, 200, this.replace(rt, obj));
      return;
    }
    if (method === "PATCH" && name !== undefined) {
      this.send(res, 200, this.patch(rt, namespace, name, req.headers["content-type"] ?? "", body));
      return;
    }
    if (method === "DELETE" && name !== undefined) {
      const gone = this.delete(rt, name, namespace);
      this.send(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name, group: rt.group, kind: rt.plural, uid: gone.metadata.uid } });
      return;
    }
    throw new ApiError(405, "MethodNotAllowed", `${method} is not supported on ${url.pathname}`);
  }

  private route(pathname: string): { rt: ResourceType; namespace: string | undefined; name: string | undefined } {
    const seg = pathname.split("/").filter((s) => s !== "");
    let group: string;
    let version: string;
    let rest: string[];
    if (seg[0] === "api" && seg.length >= 2) {
      group = "";
      version = seg[1] ?? "";
      rest = seg.slice(2);
    } else if (seg[0] === "apis" && seg.length >= 3) {
      group = seg[1] ?? "";
      version = seg[2] ?? "";
      rest = seg.slice(3);
    } else {
      throw new ApiError(404, "NotFound", `the server could not find the requested resource (${pathname})`);
    }
    let namespace: string | undefined;
    if (rest[0] === "namespaces" && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, sub] = rest;
    const rt = this.types.find((t) => t.group === group && t.version === version && t.plural === plural);
    if (rt === undefined || sub !== undefined || (!rt.namespaced && namespace !== undefined) || (rt.namespaced && name !== undefined && namespace === undefined)) {
      throw new ApiError(404, "NotFound", `the server could not find the requested resource (${pathname})`);
    }
    return { rt, namespace, name };
  }

  private patch(rt: ResourceType, namespace: string | undefined, name: string, contentType: string, body: string): KubeObject {
    const current = this.get(rt, name, namespace);
    if (current === undefined) throw new ApiError(404, "NotFound", `${qualified(rt)} "${name}" not found`);
    const type = contentType.split(";")[0]?.trim() ?? "";
    let next: KubeObject;
    if (type === "application/merge-patch+json" || type === "application/strategic-merge-patch+json") {
      next = mergePatch(current, JSON.parse(body)) as KubeObject;
    } else if (type === "application/json-patch+json") {
      next = fastJsonPatch.applyPatch(current, JSON.parse(body) as Operation[], true, false).newDocument;
    } else {
      throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json`);
    }
    next.metadata = { ...next.metadata, name, namespace, resourceVersion: undefined };
    return this.replace(rt, next);
  }

  private listBody(rt: ResourceType, namespace: string | undefined, selector: Selector, q: URLSearchParams): Record<string, unknown> {
    // Like kube-apiserver, items carry no apiVersion/kind; the list says both.
    let items = this.select(rt, namespace, selector).map(({ apiVersion: _a, kind: _k, ...rest }) => structuredClone(rest));
    // Paging (`limit`, `continue`): the token is the index of the next item (the real one is opaque too).
    const limit = Number(q.get("limit") ?? "0");
    if (!(Number.isInteger(limit) && limit > 0)) return { kind: `${rt.kind}List`, apiVersion: apiVersionOf(rt), metadata: { resourceVersion: String(this.rv) }, items };
    const token = q.get("continue") ?? "";
    const start = token === "" ? 0 : Number(Buffer.from(token, "base64url").toString("utf8"));
    if (!Number.isInteger(start) || start < 0) throw new ApiError(400, "BadRequest", `invalid continue token "${token}"`);
    const more = start + limit < items.length;
    items = items.slice(start, start + limit);
    const metadata = { resourceVersion: String(this.rv), ...(more ? { continue: Buffer.from(String(start + limit)).toString("base64url") } : {}) };
    return { kind: `${rt.kind}List`, apiVersion: apiVersionOf(rt), metadata, items };
  }

  private select(rt: ResourceType, namespace: string | undefined, selector: Selector): KubeObject[] {
    const out: Stored[] = [];
    for (const s of this.objects.values()) {
      if (s.rt !== rt) continue;
      if (namespace !== undefined && s.obj.metadata.namespace !== namespace) continue;
      if (!selector(s.obj)) continue;
      out.push(s);
    }
    out.sort((a, b) => keyOf(rt, a.obj.metadata.namespace, a.obj.metadata.name ?? "").localeCompare(keyOf(rt, b.obj.metadata.namespace, b.obj.metadata.name ?? "")));
    return out.map((s) => s.obj);
  }

  private startWatch(rt: ResourceType, namespace: string | undefined, selector: Selector, q: URLSearchParams, res: ServerResponse): void {
    const from = q.get("resourceVersion") ?? "";
    const fromRv = from === "" || from === "0" ? undefined : Number(from);
    if (fromRv !== undefined && !Number.isInteger(fromRv)) throw new ApiError(400, "BadRequest", `invalid resource version "${from}"`);
    const expired = fromRv !== undefined && fromRv < this.compactedRv;
    const expiredMessage = `too old resource version: ${from} (${this.compactedRv})`;
    if (expired && this.opts.expiredWatchAs === "status") throw new ApiError(410, "Expired", expiredMessage);
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
    const w: Watcher = { rt, namespace, selector, res, bookmarks: q.get("allowWatchBookmarks") === "true", stalled: false, timeout: undefined };
    if (expired) {
      this.write(w, { type: "ERROR", object: statusBody(410, "Expired", expiredMessage) });
      res.end();
      return;
    }
    this.watchers.add(w);
    // res, not req: a request's "close" fires once its (empty) body is read; the response's when the socket goes.
    res.on("close", () => this.forget(w));
    const timeoutSeconds = Number(q.get("timeoutSeconds") ?? "0");
    if (timeoutSeconds > 0) {
      w.timeout = setTimeout(() => {
        this.forget(w);
        res.end();
      }, timeoutSeconds * 1000);
    }
    if (fromRv === undefined) {
      // "Get state and start at most recent": synthetic ADDED events for what exists now.
      for (const obj of this.select(rt, namespace, selector)) this.write(w, { type: "ADDED", object: obj });
    } else {
      for (const h of this.history) if (h.rv > fromRv && this.wants(w, h.rt, h.obj)) this.write(w, { type: h.type, object: h.obj });
    }
  }

  private wants(w: Watcher, rt: ResourceType, obj: KubeObject): boolean {
    return w.rt === rt && (w.namespace === undefined || w.namespace === obj.metadata.namespace) && w.selector(obj);
  }

  private emit(rt: ResourceType, type: WatchEventType, obj: KubeObject): void {
    const snapshot = structuredClone(obj);
    this.history.push({ rv: this.rv, rt, type, obj: snapshot });
    for (const w of this.watchers) if (!w.stalled && this.wants(w, rt, snapshot)) this.write(w, { type, object: snapshot });
  }

  private write(w: Watcher, event: unknown): void {
    if (!w.res.writableEnded && !w.res.destroyed) w.res.write(`${JSON.stringify(event)}\n`);
  }

  private forget(w: Watcher): void {
    this.watchers.delete(w);
    if (w.timeout !== undefined) clearTimeout(w.timeout);
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  }
}

function matches(r: RecordedRequest, f: RequestFilter): boolean {
  if (f.method !== undefined && r.method !== f.method) return false;
  if (f.watch !== undefined && r.watch !== f.watch) return false;
  if (f.plural !== undefined && !r.path.split("/").includes(f.plural)) return false;
  return true;
}

function parseBody(body: string): KubeObject {
  let obj: unknown;
  try {
    obj = JSON.parse(body);
  } catch (e) {
    throw new ApiError(400, "BadRequest", `the body of the request could not be decoded: ${(e as Error).message}`);
  }
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) throw new ApiError(400, "BadRequest", "the body must be an object");
  const o = obj as KubeObject;
  if (typeof o.metadata !== "object" || o.metadata === null) o.metadata = {};
  return o;
}
