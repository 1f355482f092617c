/**
 * What the Dockerfile's runtime stage holds — package.json, package-lock.json, bin/, dist/ and the production
 * dependencies only — runs on its own: copied to a clean directory, `npm ci --omit=dev` there, then the CLI
 * answers reviews, reports its version and serves HTTPS. (No container engine runs here; this is the part of the
 * image that can be tested without one.)
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The child's environment: ours, without what vitest adds to Node's options. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

const SERVICE_REVIEW = {
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "0b7b5f2e-1111-4c2a-9d7e-000000000001",
    kind: { group: "serving.knative.dev", version: "v1", kind: "Service" },
    resource: { group: "serving.knative.dev", version: "v1", resource: "services" },
    operation: "CREATE",
    userInfo: { username: "alice" },
    object: { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "hello", namespace: "default" }, spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go" }] } } } },
  },
};

function admit(dir: string, path: string, body: unknown): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ["bin/duckbill", "admit", "--path", path], { cwd: dir, env: childEnv() }, (err, stdout) => {
      if (err !== null && typeof err.code !== "number") reject(err);
      else resolve({ stdout, code: err === null ? 0 : (err.code as number) });
    });
    child.stdin?.end(JSON.stringify(body));
  });
}

interface Review {
  response: { uid: string; allowed: boolean; patch?: string; status?: { message: string } };
}

describe("the production package", () => {
  let dir: string;

  beforeAll(async () => {
    // The Dockerfile builds dist/ in its build stage; here an existing build is used, made if missing.
    if (!existsSync(join(ROOT, "dist", "cli", "index.js"))) await run(NPM, ["run", "build"], { cwd: ROOT, env: childEnv() });
    dir = await mkdtemp(join(tmpdir(), "duckbill-dist-"));
    for (const entry of ["package.json", "package-lock.json", "bin", "dist"]) await cp(join(ROOT, entry), join(dir, entry), { recursive: true });
    // Production dependencies only, from the lockfile; the npm cache first, the registry for what it lacks.
    await run(NPM, ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir, env: childEnv(), maxBuffer: 16 * 1024 * 1024 });
  }, 600_000);

  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("installs the production dependencies and none of the development-only ones", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    for (const name of Object.keys(pkg.dependencies)) expect(existsSync(join(dir, "node_modules", name, "package.json")), name).toBe(true);
    // The lockfile marks what only development needs (`dev: true`); e.g. @types/node is not among them, since
    // @kubernetes/client-node depends on it.
    const lock = JSON.parse(await readFile(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([path, p]) => path !== "" && p.dev === true).map(([path]) => path);
    expect(devOnly).toContain("node_modules/typescript");
    expect(devOnly).toContain("node_modules/vitest");
    expect(devOnly.filter((path) => existsSync(join(dir, path)))).toEqual([]);
  });

  it("reports its version", async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    const { stdout } = await run(process.execPath, ["bin/duckbill", "version"], { cwd: dir, env: childEnv() });
    const [first, ...releases] = stdout.trim().split("\n");
    expect(first).toBe(version);
    // Then the Knative releases it answers as (--knative-version), the one `auto` takes without a cluster marked.
    expect(releases).toEqual(["knative 1.24 (default without a cluster): knative.dev/serving v0.51.0", "knative 1.23: knative.dev/serving v0.50.0", "knative 1.17: knative.dev/serving v0.44.2"]);
  });

  it("defaults a Service through `admit`", async () => {
    const { stdout, code } = await admit(dir, "/defaulting", SERVICE_REVIEW);
    expect(code).toBe(0);
    const review = JSON.parse(stdout) as Review;
    expect(review.response).toMatchObject({ uid: SERVICE_REVIEW.request.uid, allowed: true });
    const patch = JSON.parse(Buffer.from(review.response.patch ?? "", "base64").toString("utf8")) as Array<{ op: string; path: string; value: unknown }>;
    expect(patch).toContainEqual({ op: "add", path: "/spec/template/spec/containers/0/name", value: "user-container" });
  });

  it("denies an invalid Service through `admit` with Knative's message", async () => {
    const invalid = structuredClone(SERVICE_REVIEW);
    (invalid.request.object.spec.template.spec as Record<string, unknown>).containerConcurrency = 1001;
    const { stdout } = await admit(dir, "/resource-validation", invalid);
    expect((JSON.parse(stdout) as Review).response).toMatchObject({ allowed: false, status: { message: expect.stringContaining("expected 0 <= 1001 <= 1000: spec.template.spec.containerConcurrency") } });
  });

  it("serves HTTPS with a generated certificate and stops on SIGTERM", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      ["bin/duckbill", "serve", "--port", "0", "--host", "127.0.0.1", "--metrics-port", "0", "--config-source", "defaults", "--generated-cert-dir", "certs", "--drain-timeout", "0"],
      { cwd: dir, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8");
          const m = /"port":(\d+),[^\n]*"msg":"duckbill webhook serving"/.exec(out);
          if (m !== null) resolve(Number(m[1]));
        });
        child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      const ca = await readFile(join(dir, "certs", "ca.crt"));
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path: "/defaulting", method: "POST", ca, servername: "localhost", headers: { "Content-Type": "application/json" } }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString("utf8")));
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
        req.end(JSON.stringify(SERVICE_REVIEW));
      });
      expect((JSON.parse(body) as Review).response).toMatchObject({ uid: SERVICE_REVIEW.request.uid, allowed: true });
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
