/**
 * The image's files, built on disk as the Dockerfile's runtime stage copies them (test/dist/dockerfile.ts; `npm test`
 * runs no container engine, so this is the part of the image tested without one; the opt-in test/image/ builds and
 * runs the real image): only what runs,
 * under 40 MB, every import of the bundle resolvable inside it. Then that tree is run as the image's entry point runs
 * it, without node_modules, on the image's Node.js major and on this machine's (the lowest the package supports):
 * it reports its version, answers reviews through `admit`, serves HTTPS standalone and stops on SIGTERM, and in
 * cluster mode (the bundled Kubernetes client) fills the certificate Secret of an API server and serves from it.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeApiServer, NAMESPACES, SECRETS } from "../support/fake-apiserver.js";
import { httpsCall, serviceReview } from "../support/webhook.js";
import { buildRuntimeTree, filesBelow, parseDockerfile, ROOT, type Stage } from "./dockerfile.js";
import { nodeOfMajor } from "./node-runtime.js";

const run = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const MAX_BYTES = 40 * 1024 * 1024;
/** Optional packages the bundle requires inside try/catch and does without: absent in the image (scripts/bundle.mjs). */
const OPTIONAL_EXTERNALS = new Set(["bufferutil", "utf-8-validate", "encoding"]);

/** The child's environment: ours, without what vitest adds to Node's options. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

const parsed = parseDockerfile();
const IMAGE_MAJOR = Number(/\/nodejs(\d+)-/.exec(parsed.stages.at(-1)!.image)?.[1]);
const MACHINE_MAJOR = Number(process.versions.node.split(".")[0]);

let dir = "";
let runtime: Stage;

beforeAll(async () => {
  // The Dockerfile's build stage runs `npm run build`; here an existing build is used, made if missing.
  if (!existsSync(join(ROOT, "dist", "bundle-meta.json"))) await run(NPM, ["run", "build"], { cwd: ROOT, env: childEnv(), maxBuffer: 16 * 1024 * 1024 });
  // ... and then writes the bill of materials (scripts/sbom.mjs) from the runtime base's package list, which is
  // not here: an empty one stands in.
  const base = mkdtempSync(join(tmpdir(), "duckbill-image-base-"));
  await run(process.execPath, [join(ROOT, "scripts", "sbom.mjs"), "--base", base, "--out", join(ROOT, "dist", "sbom.spdx.json")], { cwd: ROOT, env: childEnv() });
  rmSync(base, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), "duckbill-image-"));
  runtime = buildRuntimeTree(dir, parsed);
}, 600_000);

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("the image's files", () => {
  it("are only what runs: package.json, the launcher, the bundle and its licences, the bill of materials; no node_modules or maps", () => {
    const files = filesBelow(dir);
    expect(files).toContain("package.json");
    expect(files).toContain("sbom.spdx.json");
    expect(files).toContain(join("bin", "duckbill"));
    expect(files).toContain(join("dist", "bundle", "index.js"));
    expect(files).toContain(join("dist", "bundle", "THIRD-PARTY-LICENSES.txt"));
    expect(files.filter((f) => !(f === "package.json" || f === "sbom.spdx.json" || f === join("bin", "duckbill") || f.startsWith(join("dist", "bundle") + "/")))).toEqual([]);
    expect(files.filter((f) => f.includes("node_modules") || f.endsWith(".map") || f.endsWith(".ts"))).toEqual([]);
  });

  it("weigh under 40 MB", () => {
    const bytes = filesBelow(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(bytes).toBeGreaterThan(1024 * 1024);
    expect(bytes).toBeLessThan(MAX_BYTES);
  });

  it("hold every file the bundle imports; the rest of its imports are Node's built-ins and optional packages", () => {
    const meta = JSON.parse(readFileSync(join(ROOT, "dist", "bundle-meta.json"), "utf8")) as { outputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }> };
    const outputs = Object.entries(meta.outputs).filter(([f]) => f.endsWith(".js"));
    expect(outputs.length).toBeGreaterThan(10);
    const missing: string[] = [];
    const unbundled: string[] = [];
    for (const [file, out] of outputs) {
      if (!existsSync(join(dir, file))) missing.push(file);
      for (const imp of out.imports) {
        if (imp.external === true) {
          if (!isBuiltin(imp.path) && !OPTIONAL_EXTERNALS.has(imp.path)) unbundled.push(`${file} → ${imp.path}`);
        } else if (!existsSync(join(dir, imp.path))) {
          missing.push(`${file} → ${imp.path}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(unbundled).toEqual([]);
  });

  it("require the optional packages only inside try blocks", () => {
    let seen = 0;
    for (const f of filesBelow(dir).filter((x) => x.endsWith(".js"))) {
      const text = readFileSync(join(dir, f), "utf8");
      for (const name of OPTIONAL_EXTERNALS) {
        for (const m of text.matchAll(new RegExp(`require\\("${name}"\\)`, "g"))) {
          seen++;
          expect(text.slice(Math.max(0, m.index - 120), m.index), `${f}: require("${name}")`).toMatch(/try\s*\{[^}]*$/);
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(OPTIONAL_EXTERNALS.size);
  });
});

const RUNTIMES = [...new Set([IMAGE_MAJOR, MACHINE_MAJOR])];

describe.each(RUNTIMES.map((major) => ({ major, what: major === IMAGE_MAJOR ? "the image's Node.js" : "this machine's Node.js (the lowest supported)" })))(
  "run as the image runs it, on Node.js $major ($what)",
  ({ major }) => {
    let node = "";
    /** The entry point's arguments after the node binary (flags, then bin/duckbill). */
    let entry: string[] = [];

    beforeAll(async () => {
      node = await nodeOfMajor(major);
      entry = runtime.entrypoint!.slice(1);
    }, 600_000);

    function duckbill(args: readonly string[]): ChildProcess {
      return spawn(node, [...entry, ...args], { cwd: dir, env: childEnv(), stdio: ["pipe", "pipe", "pipe"] });
    }

    it("is that major", async () => {
      const { stdout } = await run(node, ["--version"]);
      expect(stdout.trim()).toMatch(new RegExp(`^v${major}\\.`));
    });

    it("reports its version", async () => {
      const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
      const { stdout } = await run(node, [...entry, "version"], { cwd: dir, env: childEnv() });
      const [first, commit, nodeLine, ...releases] = stdout.trimEnd().split("\n");
      expect(first).toBe(`duckbill ${version}`);
      // The commit the bundle was built from (scripts/bundle.mjs), and the Node.js it runs on: the image's major.
      expect(commit).toMatch(/^commit: ([0-9a-f]{7,}(-dirty)?|unknown)$/);
      expect(nodeLine).toMatch(new RegExp(`^node: v${major}\\.`));
      // Then the Knative releases it answers as (--knative-version), the one `auto` takes without a cluster marked.
      expect(releases).toEqual(["knative 1.24 (default without a cluster): knative.dev/serving v0.51.0", "knative 1.23: knative.dev/serving v0.50.0", "knative 1.17: knative.dev/serving v0.44.2"]);
    });

    it("defaults a Service through `admit`", async () => {
      const child = duckbill(["admit", "--path", "/defaulting"]);
      let out = "";
      child.stdout?.on("data", (c: Buffer) => (out += c.toString("utf8")));
      const code = await new Promise<number | null>((resolve) => {
        child.on("exit", resolve);
        child.stdin?.end(JSON.stringify(serviceReview()));
      });
      expect(code).toBe(0);
      const review = JSON.parse(out) as { response: { allowed: boolean; patch?: string } };
      expect(review.response.allowed).toBe(true);
      const patch = JSON.parse(Buffer.from(review.response.patch ?? "", "base64").toString("utf8")) as unknown[];
      expect(patch).toContainEqual({ op: "add", path: "/spec/template/spec/containers/0/name", value: "user-container" });
    });

    it("serves HTTPS standalone with a generated certificate and stops on SIGTERM", async () => {
      const certs = join(dir, `certs-${major}`);
      const child = duckbill(["serve", "--port", "0", "--host", "127.0.0.1", "--metrics-port", "0", "--config-source", "defaults", "--generated-cert-dir", certs, "--drain-timeout", "0"]);
      try {
        const port = await servingPort(child);
        const r = await httpsCall(port, readFileSync(join(certs, "ca.crt"), "utf8"), { path: "/defaulting", body: JSON.stringify(serviceReview()) });
        expect(r.status).toBe(200);
        expect(await stop(child)).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    });

    it("in cluster mode fills the API server's certificate Secret and serves from it", async () => {
      const NS = "knative-serving";
      const api = await FakeApiServer.start({ bookmarkIntervalMs: 200 });
      const kubeconfig = join(dir, `kubeconfig-${major}`);
      writeFileSync(kubeconfig, api.kubeconfigYaml());
      api.create(NAMESPACES, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, uid: "ns-uid" } });
      api.create(SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "webhook-certs", namespace: NS } });
      const child = duckbill(["serve", "--kubeconfig", kubeconfig, "--port", "0", "--host", "127.0.0.1", "--metrics-port", "0", "--disable-ha", "--drain-timeout", "0"]);
      try {
        const port = await servingPort(child);
        const ca = await new Promise<string>((resolve, reject) => {
          const timer = setInterval(() => {
            const data = api.get(SECRETS, "webhook-certs", NS)?.data as Record<string, string> | undefined;
            if (data?.["ca-cert.pem"] !== undefined) {
              clearInterval(timer);
              resolve(Buffer.from(data["ca-cert.pem"], "base64").toString("utf8"));
            }
          }, 50);
          child.on("exit", (code) => {
            clearInterval(timer);
            reject(new Error(`serve exited with ${code} before filling the Secret`));
          });
        });
        // The serving certificate swaps to the Secret's shortly after it is written (the test's timeout is the bound).
        let status = 0;
        while (status !== 200 && child.exitCode === null) {
          status = await httpsCall(port, ca, { servername: "webhook.knative-serving.svc", path: "/defaulting", body: JSON.stringify(serviceReview()) }).then(
            (r) => r.status,
            () => 0,
          );
          if (status !== 200) await new Promise((r) => setTimeout(r, 100));
        }
        expect(status).toBe(200);
        expect(await stop(child)).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL");
        await api.close();
      }
    });
  },
);

/** The HTTPS port from the `duckbill webhook serving` log line. */
function servingPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (c: Buffer) => (err += c.toString("utf8")));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /"message":"duckbill webhook serving"[^\n]*"port":(\d+),/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}${err}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  return exited;
}
