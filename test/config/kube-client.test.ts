/** Finding Kubernetes credentials and pacing requests (src/kube/client.ts). */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadKubeConfig, RequestThrottle, SERVICE_ACCOUNT_DIR } from "../../src/kube/client.js";
import { resolveClientRateLimits } from "../../src/kube/client-rate-limits.js";
import { within } from "../support/timing.js";

function kubeconfig(server: string, name = "test"): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server } }],
    users: [{ name, user: { token: "t" } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}

describe("loadKubeConfig", () => {
  let dir: string;
  let emptyHome: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "duckbill-kube-"));
    emptyHome = join(dir, "home");
    await mkdir(emptyHome);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("prefers --kubeconfig over KUBECONFIG", async () => {
    await writeFile(join(dir, "flag"), kubeconfig("https://flag.example:6443"));
    await writeFile(join(dir, "env"), kubeconfig("https://env.example:6443"));
    const loaded = loadKubeConfig({ kubeconfig: join(dir, "flag"), env: { KUBECONFIG: join(dir, "env") }, homeDir: emptyHome });
    expect(loaded).toMatchObject({ origin: `--kubeconfig ${join(dir, "flag")}`, server: "https://flag.example:6443" });
  });

  it("reads KUBECONFIG, then ~/.kube/config", async () => {
    await writeFile(join(dir, "env"), kubeconfig("https://env.example:6443"));
    expect(loadKubeConfig({ env: { KUBECONFIG: join(dir, "env") }, homeDir: emptyHome }).server).toBe("https://env.example:6443");
    await mkdir(join(emptyHome, ".kube"));
    await writeFile(join(emptyHome, ".kube", "config"), kubeconfig("https://home.example:6443"));
    expect(loadKubeConfig({ env: {}, homeDir: emptyHome })).toMatchObject({ origin: `~/.kube/config ${join(emptyHome, ".kube", "config")}`, server: "https://home.example:6443" });
  });

  it("uses the in-cluster service account when no kubeconfig is given", async () => {
    const sa = join(dir, SERVICE_ACCOUNT_DIR);
    await mkdir(sa, { recursive: true });
    await writeFile(join(sa, "token"), "sa-token");
    await writeFile(join(sa, "ca.crt"), "");
    const loaded = loadKubeConfig({ env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }, homeDir: emptyHome, fsRoot: dir });
    expect(loaded).toMatchObject({ origin: "in-cluster service account", server: "https://10.96.0.1:443" });
  });

  it.each([
    { when: "nothing is configured", env: {}, error: /^no Kubernetes credentials: pass --kubeconfig or set KUBECONFIG.*\(KUBERNETES_SERVICE_HOST\/KUBERNETES_SERVICE_PORT are not set\)/ },
    { when: "the service account token is missing", env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }, error: /^no Kubernetes credentials: .*token does not exist\); use --config-dir/ },
  ])("explains what to do when $when", ({ env, error }) => {
    expect(() => loadKubeConfig({ env, homeDir: emptyHome, fsRoot: dir })).toThrow(error);
  });

  it("names a kubeconfig file that does not exist", () => {
    expect(() => loadKubeConfig({ kubeconfig: join(dir, "nope"), env: {}, homeDir: emptyHome })).toThrow(`--kubeconfig: kubeconfig file "${join(dir, "nope")}" does not exist`);
  });
});

describe("resolveClientRateLimits", () => {
  it.each([
    { qps: undefined, burst: undefined, want: { qps: 20, burst: 40 } },
    { qps: "0", burst: "0", want: { qps: 20, burst: 40 } },
    { qps: "5", burst: "10", want: { qps: 5, burst: 10 } },
    { qps: "100", burst: "10", want: { qps: 100, burst: 100 } },
  ])("qps=$qps burst=$burst gives $want", ({ qps, burst, want }) => {
    expect(resolveClientRateLimits(qps, burst)).toEqual(want);
  });

  it.each([
    { qps: "-1", burst: "0", error: "provided QPS value -1 must be >0 and <3.4+e38" },
    { qps: "abc", burst: "0", error: "provided QPS value abc must be >0 and <3.4+e38" },
    { qps: "1e39", burst: "0", error: "provided QPS value 1e39 must be >0 and <3.4+e38" },
    { qps: "1", burst: "-2", error: "provided burst value -2 must be > 0" },
    { qps: "1", burst: "1.5", error: "provided burst value 1.5 must be > 0" },
  ])("rejects qps=$qps burst=$burst with knative.dev/pkg's message", ({ qps, burst, error }) => {
    expect(() => resolveClientRateLimits(qps, burst)).toThrow(error);
  });
});

describe("RequestThrottle", () => {
  it("lets a burst through at once, then paces requests at the QPS", async () => {
    const throttle = new RequestThrottle({ qps: 20, burst: 2 });
    const start = Date.now();
    await throttle.acquire();
    await throttle.acquire();
    expect(Date.now() - start).toBeLessThan(within(20));
    await throttle.acquire();
    expect(Date.now() - start).toBeGreaterThanOrEqual(40);
  });

  it("stops waiting when aborted", async () => {
    const throttle = new RequestThrottle({ qps: 0.001, burst: 1 });
    await throttle.acquire();
    const abort = new AbortController();
    const waiting = throttle.acquire(abort.signal);
    abort.abort(new Error("closed"));
    await expect(waiting).rejects.toThrow("closed");
  });
});
