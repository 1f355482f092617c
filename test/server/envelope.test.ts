import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { also, errGeneric, errMissingField } from "../../src/apis/field-error.js";
import type { AdmissionDeps } from "../../src/admission/deps.js";
import { ConfigMapValidators } from "../../src/config/validators.js";
import { KNATIVE_KINDS } from "../../src/serving/kinds.js";
import { KindRegistry, type KObject } from "../../src/serving/registry.js";
import { httpsCall, serviceReview, startTestWebhook, type TestWebhook } from "../support/webhook.js";

const SERVICE = KNATIVE_KINDS.find((k) => k.gvk.kind === "Service")!;

/** Service rules that warn with a multi-line warning, and deny when the Service is named "deny-me". */
const deps: AdmissionDeps = {
  kinds: new KindRegistry([
    ...KNATIVE_KINDS.filter((k) => k !== SERVICE),
    {
      ...SERVICE,
      validate: (obj: KObject) => {
        const warning = errGeneric("first line\nsecond line", "spec.template").at("Warning");
        const name = (obj.metadata as { name?: string }).name;
        return name === "deny-me" ? also(warning, errMissingField("spec.template.spec.containers")) : warning;
      },
    },
  ]),
  configMaps: new ConfigMapValidators(),
};

/** Sends `bytes` over one TLS connection and resolves with everything the server wrote until it closed. */
function rawExchange(wh: TestWebhook, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port: wh.port, ca: wh.ca, servername: "localhost" }, () => socket.write(bytes));
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("close", () => resolve(text));
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? undefined : reject(err)));
  });
}

function post(wh: TestWebhook, path: string, body: unknown, headers: Record<string, string> = { "Content-Type": "application/json" }) {
  return httpsCall(wh.port, wh.ca, { path, headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

describe("HTTP envelope", () => {
  let wh: TestWebhook;
  beforeAll(async () => {
    wh = await startTestWebhook({}, deps);
  });
  afterAll(async () => wh.stop());

  it.each(["application/json; charset=utf-8", "text/plain", "APPLICATION/JSON"])("answers 415 with Knative's text for Content-Type %s", async (ct) => {
    const r = await post(wh, "/resource-validation", serviceReview(), { "Content-Type": ct });
    expect(r.status).toBe(415);
    expect(r.body).toBe("invalid Content-Type, want `application/json`\n");
  });

  it("answers 415 when there is no Content-Type at all", async () => {
    const r = await post(wh, "/defaulting", serviceReview(), {});
    expect(r.status).toBe(415);
  });

  it("answers 400 for an unknown path, HTML-escaped", async () => {
    const r = await post(wh, "/validate", serviceReview());
    expect(r.status).toBe(400);
    expect(r.body).toBe("no controller registered for: /validate\n");
    const esc = await post(wh, "/%3Cscript%3E", serviceReview());
    expect(esc.body).toBe("no controller registered for: /&lt;script&gt;\n");
  });

  it("ignores the query string when routing", async () => {
    const r = await post(wh, "/resource-validation?timeout=10s", serviceReview());
    expect(r.status).toBe(200);
  });

  it.each([
    ["", "could not decode body:EOF"],
    ['{"request": {', "could not decode body:unexpected EOF"],
    ['"text"', "could not decode body:json: cannot unmarshal string into Go value of type v1.AdmissionReview"],
    ["[1,2]", "could not decode body:json: cannot unmarshal array into Go value of type v1.AdmissionReview"],
  ])("answers 400 for the undecodable body %j", async (body, text) => {
    const r = await post(wh, "/defaulting", body);
    expect(r.status).toBe(400);
    expect(r.body.trim()).toBe(text);
  });

  it("answers 400 with a clear message for a review without request", async () => {
    for (const body of ['{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}', "null", "{}"]) {
      const r = await post(wh, "/resource-validation", body);
      expect(r.status).toBe(400);
      expect(r.body).toMatch(/request must be set/);
    }
  });

  // As Knative 1.24 (the default without a cluster): envelope/body-over-3mib/defaulting. Knative 1.17's 413:
  // transport.test.ts.
  it("answers 400 for a body over 3 MiB and keeps serving", async () => {
    const big = JSON.stringify({ padding: "x".repeat(3 * 1024 * 1024) });
    const r = await post(wh, "/resource-validation", big);
    expect(r.status).toBe(400);
    expect(r.body).toBe("could not decode body:http: request body too large\n");
    const next = await post(wh, "/resource-validation", serviceReview());
    expect(next.status).toBe(200);
  });

  it("echoes the uid and the review's apiVersion/kind (v1)", async () => {
    const r = await post(wh, "/resource-validation", serviceReview({ uid: "uid-v1" }));
    const review = JSON.parse(r.body);
    expect(review.apiVersion).toBe("admission.k8s.io/v1");
    expect(review.kind).toBe("AdmissionReview");
    expect(review.response.uid).toBe("uid-v1");
    // As Knative's: json.Encoder's trailing newline, and no Content-Type set, so Go's net/http sniffs text.
    expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(r.body.endsWith("}\n")).toBe(true);
    expect(r.headers["x-content-type-options"]).toBeUndefined();
  });

  it.each([
    ["a request line Node's parser refuses", "GARBAGE\r\n\r\n", "400 Bad Request"],
    ["a byte over 0x7f in the request-target", "POST /defaulting?\u00e9 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "400 Bad Request"],
    ["headers over the limit", `POST /defaulting HTTP/1.1\r\nHost: x\r\nX-Big: ${"x".repeat(70_000)}\r\n\r\n`, "431 Request Header Fields Too Large"],
  ])("answers %s as Go's server answers a request it cannot read", async (_what, bytes, status) => {
    expect(await rawExchange(wh, bytes)).toBe(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`);
  });

  it("sends http.Error's headers with every error answer", async () => {
    for (const r of [await post(wh, "/validate", serviceReview()), await post(wh, "/defaulting", "{"), await post(wh, "/defaulting", serviceReview(), { "Content-Type": "text/plain" })]) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("redirects an unclean path as Go's http.Redirect does for each method", async () => {
    const call = (method: string) => httpsCall(wh.port, wh.ca, { path: "//defaulting", method, body: method === "GET" || method === "HEAD" ? undefined : "{}" });
    const postR = await call("POST");
    expect([postR.status, postR.headers.location, postR.headers["content-type"], postR.body]).toEqual([307, "/defaulting", undefined, ""]);
    const getR = await call("GET");
    expect([getR.status, getR.headers.location, getR.headers["content-type"], getR.body]).toEqual([307, "/defaulting", "text/html; charset=utf-8", '<a href="/defaulting">Temporary Redirect</a>.\n\n']);
    const headR = await call("HEAD");
    expect([headR.status, headR.headers["content-type"], headR.body]).toEqual([307, "text/html; charset=utf-8", ""]);
  });

  // Knative 1.24's own answers (reference/, server mode): the mux cleans the escaped path and keeps the query.
  it.each([
    ["//defaulting?x=1", 307, "/defaulting?x=1"],
    ["//d%C3%A9faulting", 307, "/d%25C3%25A9faulting"],
    ["//a%2Fb?q=%41", 307, "/a%252Fb?q=%41"],
    ["/a%2F..%2Fdefaulting", 400, undefined],
    ["/%2Fdefaulting", 400, undefined],
  ])("answers %s as Go's ServeMux does", async (path, status, location) => {
    const r = await post(wh, path, "{}");
    expect([r.status, r.headers.location]).toEqual([status, location]);
    if (status === 400) expect(r.body).toBe(`no controller registered for: ${decodeURIComponent(path)}\n`);
  });

  it("answers a v1beta1 review with a v1beta1 review", async () => {
    const r = await post(wh, "/defaulting", serviceReview({ uid: "uid-beta", apiVersion: "admission.k8s.io/v1beta1" }));
    const review = JSON.parse(r.body);
    expect(review.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(review.response.uid).toBe("uid-beta");
    expect(review.response.allowed).toBe(true);
    expect(review.response.patchType).toBe("JSONPatch");
  });

  it("answers a missing uid with an empty uid", async () => {
    const body = serviceReview();
    delete (body.request as Record<string, unknown>).uid;
    const review = JSON.parse((await post(wh, "/resource-validation", body)).body);
    expect(review.response.uid).toBe("");
  });

  it("splits warnings on newlines, on allowed and denied answers alike", async () => {
    const allowed = JSON.parse((await post(wh, "/resource-validation", serviceReview())).body).response;
    expect(allowed.allowed).toBe(true);
    expect(allowed.warnings).toEqual(["first line", "second line: spec.template"]);
    const denyBody = serviceReview();
    ((denyBody.request as { object: { metadata: { name: string } } }).object.metadata).name = "deny-me";
    const denied = JSON.parse((await post(wh, "/resource-validation", denyBody)).body).response;
    expect(denied.allowed).toBe(false);
    expect(denied.status).toEqual({ metadata: {}, status: "Failure", message: "validation failed: missing field(s): spec.template.spec.containers", reason: "BadRequest", code: 400 });
    expect(denied.warnings).toEqual(["first line", "second line: spec.template"]);
  });

  it("denies unregistered kinds with Knative's messages", async () => {
    const d = JSON.parse((await post(wh, "/defaulting", serviceReview({ kind: "Widget" }))).body).response;
    expect(d.status.message).toBe("mutation failed: unhandled kind: serving.knative.dev/v1, Kind=Widget");
    const v = JSON.parse((await post(wh, "/resource-validation", serviceReview({ kind: "Widget" }))).body).response;
    expect(v.status.message).toBe("decoding request failed: unhandled kind: serving.knative.dev/v1, Kind=Widget");
    const c = JSON.parse((await post(wh, "/config-validation", serviceReview())).body).response;
    expect(c.status.message).toBe("validation failed: unhandled kind: serving.knative.dev/v1, Kind=Service");
  });

  it("lets DELETE and CONNECT through on /defaulting with a bare answer", async () => {
    for (const operation of ["DELETE", "CONNECT"]) {
      const r = JSON.parse((await post(wh, "/defaulting", serviceReview({ operation, uid: "u" }))).body).response;
      expect(r).toEqual({ uid: "u", allowed: true });
    }
  });

  // Go's mux routes by path alone and Knative's handler reads the body whatever the method.
  it.each(["GET", "PUT", "DELETE", "OPTIONS", "PROPFIND"])("answers an AdmissionReview sent with %s", async (method) => {
    const body = JSON.stringify(serviceReview({ uid: `m-${method}` }));
    // Node's client frames a GET, DELETE or OPTIONS body only with an explicit Content-Length.
    const headers = { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) };
    const r = await httpsCall(wh.port, wh.ca, { method, path: "/defaulting", headers, body });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).response.uid).toBe(`m-${method}`);
  });

  it("answers kubelet probes on any path, before Content-Type checks", async () => {
    const r = await httpsCall(wh.port, wh.ca, { method: "GET", path: "/anything", headers: { "User-Agent": "kube-probe/1.31" } });
    expect(r.status).toBe(200);
    expect(r.body).toBe("");
  });

  it("answers Knative network probes", async () => {
    const ok = await httpsCall(wh.port, wh.ca, { method: "GET", path: "/", headers: { "K-Network-Probe": "probe", "K-Network-Hash": "abc" } });
    expect(ok.status).toBe(200);
    expect(ok.headers["k-network-hash"]).toBe("abc");
    const bad = await httpsCall(wh.port, wh.ca, { method: "GET", path: "/", headers: { "K-Network-Probe": "probe" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toBe('a probe request must contain a non-empty "K-Network-Hash" header\n');
  });
});
