/**
 * A small JSON client for the few Kubernetes calls the webhook makes itself (webhook configurations, the
 * Namespace, the certificate Secret, the PodSpec dry run). It sends and receives plain JSON, never
 * client-node's model classes: a read-modify-write of a webhook configuration must not drop fields the
 * client library does not know, and a dry-run Pod must reach the API server exactly as built.
 *
 * Credentials come from a client-node KubeConfig (token files, exec plugins, client certificates), which is
 * only a type import here: this module costs nothing to load in standalone mode.
 * Errors read like client-go's (`err.Error()`), because Knative prints them into user-visible messages.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { goQuote } from "../go/strconv/quote.js";
import { stringifyJson } from "../go/encoding/json/json-bigint.js";
import type { RequestThrottle } from "./client.js";

export type HttpMethod = "GET" | "POST" | "PUT";

export interface KubeRequest {
  readonly method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces/default/pods`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Aborting fails the call with `context deadline exceeded` when the signal's reason is a TimeoutError. */
  readonly signal?: AbortSignal;
}

/** A failed call: `message` is what client-go's error would print; `status` is absent for transport errors. */
export class KubeApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly reason: string,
  ) {
    super(message);
    this.name = "KubeApiError";
  }
}

export type WatchEvent = { readonly type: string; readonly object: Record<string, unknown> };

/**
 * A watch stream line that is not a watch event (truncated or garbled by something on the way). The stream ends
 * there, as client-go's StreamWatcher ends it: skipping the line would lose the event for good once a later event
 * or bookmark moved the resourceVersion past it.
 */
export class UndecodableWatchEvent extends Error {
  constructor(message: string) {
    super(`unable to decode an event from the watch stream: ${message}`);
    this.name = "UndecodableWatchEvent";
  }
}

function excerpt(line: string): string {
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

/** One line of a watch stream as an event, or UndecodableWatchEvent. */
function decodeWatchEvent(line: string): WatchEvent {
  let e: unknown;
  try {
    e = JSON.parse(line);
  } catch (err) {
    throw new UndecodableWatchEvent(`${(err as Error).message}: ${excerpt(line)}`);
  }
  const ev = e as { type?: unknown; object?: unknown } | null;
  if (typeof ev !== "object" || ev === null || typeof ev.type !== "string" || typeof ev.object !== "object" || ev.object === null || Array.isArray(ev.object)) {
    throw new UndecodableWatchEvent(`not a watch event: ${excerpt(line)}`);
  }
  return ev as WatchEvent;
}

export interface KubeApi {
  /** The API server URL of the current context. */
  readonly server: string;
  /** One call; resolves with the decoded JSON body of a 2xx answer. */
  request(req: KubeRequest): Promise<unknown>;
  /**
   * A watch stream (`?watch=true` is added); calls onEvent for every event line (returning false ends the
   * stream). Resolves when the stream ends, rejects on transport errors, a non-2xx answer or a line that is not a
   * watch event (UndecodableWatchEvent); aborting the signal ends it quietly.
   * `idleTimeoutMs` drops a stream on which nothing arrived for that long (a silently dead connection).
   */
  watch(path: string, query: Readonly<Record<string, string>>, onEvent: (e: WatchEvent) => boolean | void, signal: AbortSignal, idleTimeoutMs: number): Promise<void>;
  /** Frees pooled connections. */
  close(): void;
}

/** client-go's url.Error operation: `Post`, `Get`, `Put`. */
function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

/** `pods`, `secrets`, `validatingwebhookconfigurations.admissionregistration.k8s.io` and the object name, from a path. */
function resourceOf(path: string): { resource: string; name: string } {
  const seg = path.split("/").filter((s) => s !== "");
  let group = "";
  let rest: string[];
  if (seg[0] === "apis") {
    group = seg[1] ?? "";
    rest = seg.slice(3);
  } else {
    rest = seg.slice(2);
  }
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const plural = rest[0] ?? "";
  return { resource: group === "" ? plural : `${plural}.${group}`, name: rest[1] ?? "" };
}

/**
 * client-go's error for an answer that is not a Status object (apimachinery errors.NewGenericServerResponse),
 * e.g. from a proxy in front of the API server.
 */
export function genericServerResponseMessage(code: number, method: string, path: string, serverMessage: string): string {
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      message = "the server reported a conflict";
      break;
    case 404:
      message = "the server could not find the requested resource";
      break;
    case 400:
      message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      message = serverMessage;
      break;
    case 405:
      message = "the server does not allow this method on the requested resource";
      break;
    case 422:
      message = "the server rejected our request due to an error in our request";
      break;
    case 504:
      message = "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    case 429:
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (code >= 500) message = `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  }
  const { resource, name } = resourceOf(path);
  if (resource !== "" && name !== "") return `${message} (${method.toLowerCase()} ${resource} ${name})`;
  if (resource !== "") return `${message} (${method.toLowerCase()} ${resource})`;
  return message;
}

/** The error for a non-2xx answer: a Status body's message (client-go's StatusError), else the generic text. */
export function responseError(code: number, method: string, path: string, text: string): KubeApiError {
  try {
    const status = JSON.parse(text) as { kind?: unknown; message?: unknown; reason?: unknown };
    if (status !== null && status.kind === "Status" && typeof status.message === "string" && status.message !== "") {
      return new KubeApiError(status.message, code, typeof status.reason === "string" ? status.reason : "");
    }
  } catch {
    // not JSON: a proxy's text or HTML page
  }
  const serverMessage = text.trim().slice(0, 1024);
  return new KubeApiError(genericServerResponseMessage(code, method, path, serverMessage), code, "");
}

function transportError(method: string, url: string, err: unknown, signal: AbortSignal | undefined): KubeApiError {
  // Go's `context deadline exceeded` for a deadline, `context canceled` for any other abort.
  const aborted = signal?.aborted === true;
  const reason: unknown = signal?.reason;
  const cause = aborted ? (reason instanceof Error && reason.name === "TimeoutError" ? "context deadline exceeded" : "context canceled") : (err as Error).message;
  return new KubeApiError(`${goMethod(method)} ${goQuote(url)}: ${cause}`, undefined, aborted ? "Timeout" : "");
}

interface TlsIdentity {
  readonly ca: unknown;
  readonly cert: unknown;
  readonly key: unknown;
  readonly rejectUnauthorized: unknown;
  readonly servername: unknown;
}

function sameBytes(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}

function sameIdentity(a: TlsIdentity, b: TlsIdentity): boolean {
  return sameBytes(a.ca, b.ca) && sameBytes(a.cert, b.cert) && sameBytes(a.key, b.key) && a.rejectUnauthorized === b.rejectUnauthorized && a.servername === b.servername;
}

/**
 * A KubeApi over the current context of a KubeConfig. Credentials are applied per request (projected tokens
 * rotate, exec plugins refresh); connections are kept alive and reused while the TLS identity stays the same.
 */
export function createKubeApi(kubeConfig: KubeConfig, opts: { throttle?: RequestThrottle } = {}): KubeApi {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error("the kubeconfig has no current context with a cluster");
  const server = cluster.server.replace(/\/+$/, "");
  const base = new URL(server);
  const secure = base.protocol === "https:";
  const usesProxy = (cluster.proxyUrl ?? "") !== "";
  let pooled: { identity: TlsIdentity; agent: HttpAgent } | undefined;

  function agentFor(options: RequestOptions): HttpAgent | undefined {
    // A proxy agent from client-node is used as given (no pooling).
    if (usesProxy) return options.agent as HttpAgent | undefined;
    const identity: TlsIdentity = { ca: options.ca, cert: options.cert, key: options.key, rejectUnauthorized: options.rejectUnauthorized, servername: options.servername };
    if (pooled !== undefined && sameIdentity(pooled.identity, identity)) return pooled.agent;
    pooled?.agent.destroy();
    const agent = secure
      ? new HttpsAgent({ keepAlive: true, ca: options.ca, cert: options.cert, key: options.key, servername: options.servername, ...(options.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: options.rejectUnauthorized }) })
      : new HttpAgent({ keepAlive: true });
    pooled = { identity, agent };
    return agent;
  }

  async function open(method: HttpMethod, path: string, query: Readonly<Record<string, string>> | undefined, body: string | undefined, signal: AbortSignal | undefined): Promise<{ res: IncomingMessage; url: string }> {
    const qs = query === undefined ? "" : new URLSearchParams(query).toString();
    const url = `${server}${path}${qs === "" ? "" : `?${qs}`}`;
    try {
      if (opts.throttle !== undefined) await opts.throttle.acquire(signal);
      const options: RequestOptions = { method, headers: { Accept: "application/json" } };
      await kubeConfig.applyToHTTPSOptions(options);
      const headers: Record<string, string | number | string[]> = { ...(options.headers as Record<string, string | number | string[]>), "User-Agent": "duckbill" };
      if (body !== undefined) {
        headers["Content-Type"] = "application/json";
        headers["Content-Length"] = Buffer.byteLength(body);
      }
      const target = new URL(url);
      const requestOptions: RequestOptions = {
        method,
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[|\]$/g, ""),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers,
        agent: agentFor(options),
        auth: options.auth,
      };
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        signal?.throwIfAborted();
        const req = (secure ? httpsRequest : httpRequest)(requestOptions, resolve);
        // Not http.request's `signal`: it destroys the request with an error, which can reach a keep-alive socket
        // that a response ending at that moment has handed back to the agent, where nothing listens (an uncaught
        // exception). Destroyed without an error, the response still fails and a watch ends.
        const onAbort = (): void => {
          req.destroy();
          reject(signal?.reason as Error);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        req.once("close", () => signal?.removeEventListener("abort", onAbort));
        req.on("error", reject);
        req.end(body);
      });
      return { res, url };
    } catch (err) {
      throw transportError(method, url, err, signal);
    }
  }

  async function readAll(res: IncomingMessage, method: string, url: string, signal: AbortSignal | undefined): Promise<string> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    } catch (err) {
      throw transportError(method, url, err, signal);
    }
  }

  return {
    server,
    async request(req: KubeRequest): Promise<unknown> {
      // A body may carry exactly read int64s (bigints: the pod of the PodSpec dry run), which JSON.stringify cannot write.
      const body = req.body === undefined ? undefined : stringifyJson(req.body);
      const { res, url } = await open(req.method, req.path, req.query, body, req.signal);
      const text = await readAll(res, req.method, url, req.signal);
      const code = res.statusCode ?? 0;
      if (code < 200 || code > 299) throw responseError(code, req.method, req.path, text);
      try {
        return text === "" ? undefined : (JSON.parse(text) as unknown);
      } catch (err) {
        throw new KubeApiError(`${goMethod(req.method)} ${goQuote(url)}: invalid JSON in the answer: ${(err as Error).message}`, code, "");
      }
    },
    async watch(path, query, onEvent, signal, idleTimeoutMs): Promise<void> {
      const { res, url } = await open("GET", path, { ...query, watch: "true" }, undefined, signal);
      const code = res.statusCode ?? 0;
      if (code < 200 || code > 299) throw responseError(code, "GET", path, await readAll(res, "GET", url, signal));
      let idle: NodeJS.Timeout | undefined;
      const touch = (): void => {
        clearTimeout(idle);
        idle = setTimeout(() => res.destroy(new Error(`no data for ${idleTimeoutMs} ms`)), idleTimeoutMs);
      };
      touch();
      let pending = "";
      try {
        for await (const chunk of res) {
          touch();
          pending += (chunk as Buffer).toString("utf8");
          let nl = pending.indexOf("\n");
          while (nl >= 0) {
            const line = pending.slice(0, nl).trim();
            pending = pending.slice(nl + 1);
            if (line !== "" && onEvent(decodeWatchEvent(line)) === false) {
              res.destroy();
              return;
            }
            nl = pending.indexOf("\n");
          }
        }
        // A last line without its newline: delivered if whole, undecodable if cut short.
        const rest = pending.trim();
        if (rest !== "") onEvent(decodeWatchEvent(rest));
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof UndecodableWatchEvent) {
          res.destroy();
          throw err;
        }
        throw transportError("GET", url, err, signal);
      } finally {
        clearTimeout(idle);
      }
    },
    close(): void {
      pooled?.agent.destroy();
      pooled = undefined;
    },
  };
}
