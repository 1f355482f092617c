/**
 * The certificates controller against the in-process API server (real HTTP, real Lease election), and real HTTPS
 * servers whose TLS it swaps: filling, racing replicas, a missing Secret, and renewal plus CA rotation under
 * continuous load from a client that trusts only the published bundle.
 */
import { X509Certificate } from "node:crypto";
import { request as httpsRequest } from "node:https";
import { pino } from "pino";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultDeps } from "../../src/cli/main.js";
import { defaultSnapshot } from "../../src/config/snapshot.js";
import { createCertController, type CertController, type CertControllerOptions, type TlsMaterialUpdate } from "../../src/kube/cert-controller.js";
import { CERT_SECRET_KEYS, readCertSecret, tlsMaterialOf } from "../../src/certs/cert-secret.js";
import { DEFAULT_ROTATION_POLICY, planRotation } from "../../src/certs/cert-rotation.js";
import { createWebhookServer, type WebhookServer } from "../../src/server/app.js";
import { capturedLogger, eventually, type LogLine } from "../config/store-harness.js";
import { FakeApiServer, LEASES, SECRETS, type KubeObject } from "../support/fake-apiserver.js";
import { serviceReview } from "../support/webhook.js";
import { within } from "../support/timing.js";

/** Short leases and live TLS under a shared 2-core CI machine: a run starved of CPU may retry (not a logic check). */
const TIMING_SENSITIVE = { retry: 2 } as const;

const NS = "knative-serving";
const SECRET = "webhook-certs";
const LEASE = "webhook.webhookcertificates.00-of-01";
const SERVERNAME = "webhook.knative-serving.svc";
/**
 * Lease timings in seconds instead of Knative's 60 s / 40 s / 10 s: longer than the pauses a throttled machine takes
 * (test/support/timing.ts), during which a shorter lease would expire under its holder.
 */
const FAST_LEASE = { leaseDurationMs: 4000, renewDeadlineMs: 2500, retryPeriodMs: 200 };
/**
 * Knative's durations scaled down; X.509's whole seconds set the floor, and the CA overlap (how long a client has to
 * pick up a bundle change) and the serving certificate's renewal margin are longer than a typical pause.
 */
const FAST_CERTS = { caValidityMs: 12_000, caRotateBeforeMs: 7200, caOverlapMs: 1600, certValidityMs: 5000, certRenewBeforeMs: 3000 };

interface Replica {
  readonly controller: CertController;
  readonly registry: Registry;
  readonly lines: LogLine[];
  readonly received: TlsMaterialUpdate[];
  metric(name: string, labels?: Record<string, string>): Promise<number>;
}

function decoded(secret: KubeObject | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((secret?.data as Record<string, string> | undefined) ?? {})) out[k] = Buffer.from(v, "base64").toString("utf8");
  return out;
}

describe("createCertController", TIMING_SENSITIVE, () => {
  let api: FakeApiServer;
  const closers: (() => Promise<void>)[] = [];

  function replica(identity: string, opts: Partial<CertControllerOptions> = {}): Replica {
    const registry = new Registry();
    const { logger, lines } = capturedLogger();
    const received: TlsMaterialUpdate[] = [];
    const controller = createCertController({
      kubeConfig: api.kubeConfig(),
      namespace: NS,
      serviceName: "webhook",
      clusterDomain: "cluster.local",
      identity,
      ...FAST_LEASE,
      logger,
      registry,
      backoff: { initialMs: 10, maxMs: 100 },
      onTlsMaterial: (m) => received.push(m),
      ...opts,
    });
    closers.push(() => controller.close());
    return {
      controller,
      registry,
      lines,
      received,
      async metric(name, labels = {}) {
        const m = await registry.getSingleMetric(name)?.get();
        return m?.values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))?.value ?? 0;
      },
    };
  }

  function createEmptySecret(extra: Partial<KubeObject> = {}): void {
    api.create(SECRETS, { metadata: { name: SECRET, namespace: NS }, ...extra });
  }

  beforeEach(async () => {
    api = await FakeApiServer.start();
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await api.close();
  });

  it("fills the empty Secret as leader and hands the material to onTlsMaterial", async () => {
    createEmptySecret({ metadata: { name: SECRET, namespace: NS, labels: { "app.kubernetes.io/name": "knative-serving" } }, data: { "other.txt": Buffer.from("kept").toString("base64") } });
    const r = replica("a");
    expect(r.controller.notReadyReason()).toBe(`waiting for the first read of Secret ${NS}/${SECRET}`);
    r.controller.start();
    await eventually(() => r.controller.notReadyReason() === undefined, "readiness");
    const data = secretData(api);
    expect(Object.keys(data).sort()).toEqual(["ca-cert.pem", "ca-key.pem", "other.txt", "server-cert.pem", "server-key.pem"]);
    expect(data["other.txt"]).toBe("kept");
    expect(api.get(SECRETS, SECRET, NS)?.metadata.labels).toEqual({ "app.kubernetes.io/name": "knative-serving" });
    const fromSecret = tlsMaterialOf(data, Date.now());
    expect("material" in fromSecret && fromSecret.material).toEqual(r.controller.current());
    expect(r.received).toEqual([r.controller.current()]);
    expect(r.controller.isLeader()).toBe(true);
    expect(api.get(LEASES, LEASE, NS)?.spec).toMatchObject({ holderIdentity: "a" });
    expect(await r.metric("duckbill_webhook_certificate_updates_total", { action: "filled" })).toBe(1);
    expect(await r.metric("duckbill_webhook_certificate_leader")).toBe(1);
    expect(r.lines.some((l) => l.msg === "certificates: filled" && l.action === "filled")).toBe(true);
  });

  it("says in readiness and the log that the Secret does not exist, never creates it, and fills it once it appears", async () => {
    const r = replica("a");
    r.controller.start();
    const reason = `Secret ${NS}/${SECRET} does not exist: create it (empty), as Knative's installer does`;
    await eventually(() => r.controller.notReadyReason() === reason, "the missing-Secret reason");
    await eventually(() => r.controller.isLeader(), "leadership");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(api.count({ method: "POST", plural: "secrets" }) + api.count({ method: "PUT", plural: "secrets" })).toBe(0);
    expect(r.lines.filter((l) => l.level === "warn" && l.msg.startsWith(`Secret ${NS}/${SECRET} does not exist`))).toHaveLength(1);
    createEmptySecret();
    await eventually(() => r.controller.notReadyReason() === undefined, "readiness once the Secret exists");
  });

  it("elects one writer among replicas racing on an empty Secret, and they all serve the same material", async () => {
    createEmptySecret();
    const replicas = ["a", "b", "c"].map((id) => replica(id));
    for (const r of replicas) r.controller.start();
    await eventually(() => replicas.every((r) => r.controller.current() !== undefined), "material on every replica");
    const leaders = replicas.filter((r) => r.controller.isLeader());
    expect(leaders).toHaveLength(1);
    expect(api.count({ method: "PUT", plural: "secrets" })).toBe(1);
    const served = tlsMaterialOf(secretData(api), Date.now());
    for (const r of replicas) expect(r.controller.current()).toEqual("material" in served ? served.material : undefined);
    for (const r of replicas) expect(await r.metric("duckbill_webhook_certificate_updates_total", { action: "filled" })).toBe(r === leaders[0] ? 1 : 0);
  });

  it("keeps the Secret consistent when replicas without election race, through optimistic concurrency", async () => {
    createEmptySecret();
    const created = Number(api.get(SECRETS, SECRET, NS)?.metadata.resourceVersion);
    const replicas = ["a", "b", "c"].map((id) => replica(id, { leaderElection: false }));
    for (const r of replicas) r.controller.start();
    await eventually(() => replicas.every((r) => r.controller.current() !== undefined), "material on every replica");
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Exactly one write succeeded; the others met a 409, read again and found nothing left to do.
    expect(Number(api.get(SECRETS, SECRET, NS)?.metadata.resourceVersion)).toBe(created + 1);
    const served = tlsMaterialOf(secretData(api), Date.now());
    expect("material" in served).toBe(true);
    for (const r of replicas) expect(r.controller.current()).toEqual("material" in served ? served.material : undefined);
  });

  it("reads the Secret again and retries when its write meets a conflict", async () => {
    createEmptySecret();
    api.failNext(1, 409, { method: "PUT", plural: "secrets" });
    const r = replica("a");
    r.controller.start();
    await eventually(() => r.controller.notReadyReason() === undefined, "readiness");
    expect(api.count({ method: "PUT", plural: "secrets" })).toBe(2);
    expect(api.count({ method: "GET", plural: "secrets", watch: false })).toBeGreaterThanOrEqual(3); // list + 2 reads
  });

  it("keeps serving what it has when the Secret is deleted, and says so", async () => {
    createEmptySecret();
    const r = replica("a");
    r.controller.start();
    await eventually(() => r.controller.current(), "material");
    api.delete(SECRETS, SECRET, NS);
    await eventually(() => r.lines.some((l) => l.msg.includes("does not exist") && l.msg.includes("the certificate in use is kept until it expires")), "the warning");
    expect(r.controller.notReadyReason()).toBeUndefined();
  });

  it("reports a Secret it cannot serve while no leader has fixed it", async () => {
    createEmptySecret({ data: { [CERT_SECRET_KEYS.serverCert]: Buffer.from("garbage").toString("base64") } });
    const r = replica("a", { leaderElection: true, leaseName: "someone-elses-lease" });
    api.create(LEASES, { metadata: { name: "someone-elses-lease", namespace: NS }, spec: { holderIdentity: "other", leaseDurationSeconds: 3600 } });
    r.controller.start();
    await eventually(() => r.controller.notReadyReason()?.startsWith(`Secret ${NS}/${SECRET} has no usable certificate yet: it has no server-key.pem, ca-cert.pem`), "the unusable reason");
  });

  it("follows the Secret through dropped, stalled and expired watches on a replica that does not lead", async () => {
    api.create(LEASES, { metadata: { name: LEASE, namespace: NS }, spec: { holderIdentity: "other", leaseDurationSeconds: 3600 } });
    createEmptySecret();
    const r = replica("a", { watchdogMs: 300 });
    r.controller.start();
    const write = async (): Promise<string> => {
      const plan = await planRotation(readCertSecret({}), Date.now(), DEFAULT_ROTATION_POLICY, { commonName: SERVERNAME, dnsNames: ["webhook"] });
      const secret = api.get(SECRETS, SECRET, NS) as KubeObject;
      const data = Object.fromEntries(Object.entries(plan.data ?? {}).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
      api.replace(SECRETS, { ...secret, data });
      return plan.data?.[CERT_SECRET_KEYS.serverCert] ?? "";
    };
    await eventually(() => api.openWatches(SECRETS) === 1, "the watch");
    api.dropWatches({ abrupt: true });
    const first = await write();
    await eventually(() => r.controller.current()?.cert === first, "the first version after a reset stream");
    api.stallWatches();
    const second = await write();
    await eventually(() => r.controller.current()?.cert === second, "the second version after a stall", within(3000));
    api.compact();
    api.dropWatches();
    const third = await write();
    await eventually(() => r.controller.current()?.cert === third, "the third version after compaction");
    expect(r.controller.isLeader()).toBe(false);
    expect(api.count({ method: "PUT", plural: "secrets" })).toBe(0);
  });

  it("refuses durations that would break trust during rotation", () => {
    expect(() => replica("a", { ...FAST_CERTS, caOverlapMs: 2000 })).toThrow(/^certificate durations for Secret knative-serving\/webhook-certs: the CA rotation margin must be at least two overlaps/);
  });
});

describe("renewal and CA rotation under continuous load", TIMING_SENSITIVE, () => {
  let api: FakeApiServer;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    api = await FakeApiServer.start();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await api.close();
  });

  /** One webhook replica: a real HTTPS server whose TLS follows the controller. */
  async function startReplica(identity: string, registry: Registry): Promise<{ controller: CertController; server: WebhookServer; port: number }> {
    // The server needs a first certificate to start, so it is made once the controller has one.
    const swap: { server?: WebhookServer } = {};
    const controller = createCertController({
      kubeConfig: api.kubeConfig(),
      namespace: NS,
      serviceName: "webhook",
      clusterDomain: "cluster.local",
      identity,
      ...FAST_LEASE,
      ...FAST_CERTS,
      logger: pino({ level: "silent" }),
      registry,
      backoff: { initialMs: 10, maxMs: 100 },
      onTlsMaterial: (m) => swap.server?.setTls({ key: m.key, cert: m.cert }),
    });
    closers.push(() => controller.close());
    controller.start();
    const first = await eventually(() => controller.current(), `${identity}'s first certificate`, within(20_000));
    const server = createWebhookServer({
      tls: { key: first.key, cert: first.cert, minVersion: "TLSv1.3" },
      deps: defaultDeps(),
      config: defaultSnapshot,
      logger: pino({ level: "silent" }),
      drainQuietPeriodMs: 0,
      notReadyReason: () => controller.notReadyReason(),
    });
    swap.server = server;
    const latest = controller.current() ?? first; // a renewal may have arrived meanwhile
    if (latest !== first) server.setTls({ key: latest.key, cert: latest.cert });
    closers.push(() => server.close());
    const { port } = await server.listen(0, "127.0.0.1");
    return { controller, server, port };
  }

  /** One admission request on a fresh connection (a full handshake), trusting only `ca`. */
  function call(port: number, ca: string, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        { host: "127.0.0.1", port, path: "/resource-validation", method: "POST", ca, servername: SERVERNAME, agent: false, headers: { "Content-Type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  it("never fails a handshake or a request while two replicas renew and rotate", async () => {
    api.create(SECRETS, { metadata: { name: SECRET, namespace: NS } });
    const registries = [new Registry(), new Registry()];
    const replicas = [await startReplica("a", registries[0] as Registry), await startReplica("b", registries[1] as Registry)];

    // What the client trusts: the published ca-cert.pem, re-read every 100 ms (the API server's caBundle lags too),
    // well within the 1.6 s overlap.
    let bundle = secretData(api)["ca-cert.pem"] ?? "";
    const refresh = setInterval(() => {
      bundle = secretData(api)["ca-cert.pem"] ?? bundle;
    }, 100);
    closers.push(async () => clearInterval(refresh));

    // The phases seen in the Secret, in order (bundle size and signing CA), and the serving certificates of each.
    const seen: string[] = [];
    const servingsIn = new Map<string, Set<string>>();
    const cas: string[] = [];
    const observe = setInterval(() => {
      const data = secretData(api);
      const serving = data["server-cert.pem"] ?? "";
      if (serving === "") return;
      const bundleCas = (data["ca-cert.pem"] ?? "").match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
      for (const c of bundleCas) if (!cas.includes(c)) cas.push(c);
      const signer = cas.findIndex((c) => new X509Certificate(serving).verify(new X509Certificate(c).publicKey));
      const phase = `${bundleCas.length} CA(s), signed by CA #${signer + 1}`;
      if (seen.at(-1) !== phase) seen.push(phase);
      servingsIn.set(phase, (servingsIn.get(phase) ?? new Set()).add(serving));
    }, 20);
    closers.push(async () => clearInterval(observe));

    const body = JSON.stringify(serviceReview());
    const failures: string[] = [];
    let requests = 0;
    let running = true;
    const loop = async (n: number): Promise<void> => {
      for (let i = n; running; i++) {
        const target = replicas[i % replicas.length] as { port: number };
        try {
          const status = await call(target.port, bundle, body);
          if (status !== 200) failures.push(`HTTP ${status}`);
        } catch (err) {
          failures.push((err as Error).message);
        }
        requests++;
      }
    };
    const clients = [0, 1, 2, 3].map((n) => loop(n));

    // Fill, renewals, then the three rotation phases: [CA1] → [CA1, CA2] → signed by CA2 → [CA2].
    await eventually(() => seen.includes("1 CA(s), signed by CA #2"), "the end of a CA rotation", within(40_000));
    running = false;
    await Promise.all(clients);

    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(100);
    const rotation = seen.slice(seen.indexOf("2 CA(s), signed by CA #1"));
    expect(rotation.slice(0, 3)).toEqual(["2 CA(s), signed by CA #1", "2 CA(s), signed by CA #2", "1 CA(s), signed by CA #2"]);
    expect(servingsIn.get("1 CA(s), signed by CA #1")?.size).toBeGreaterThanOrEqual(2); // filled, then renewed
    const leader = replicas.findIndex((r) => r.controller.isLeader());
    const metric = async (action: string): Promise<number> =>
      (await (registries[leader] as Registry).getSingleMetric("duckbill_webhook_certificate_updates_total")?.get())?.values.find((v) => v.labels.action === action)?.value ?? 0;
    expect([await metric("filled"), await metric("published-ca"), await metric("switched-ca"), await metric("dropped-ca")]).toEqual([1, 1, 1, 1]);
    expect(await metric("renewed")).toBeGreaterThanOrEqual(1);
  });
});

function secretData(api: FakeApiServer): Record<string, string> {
  return decoded(api.get(SECRETS, SECRET, NS));
}
