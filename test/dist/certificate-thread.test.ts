/**
 * The bundle issues certificates on a worker thread, and only there does the X.509 library load
 * (src/certs/certificate-issuer.ts, scripts/bundle.mjs): in the bundle's graph, no output the CLI can load, by a
 * static or a dynamic import, holds the library, and the worker entry does; and a standalone `serve` that generates
 * its certificates at start serves with them while its own heap holds none of the library (a heap snapshot of the
 * serving process, compared with one of a process that loads the library).
 */
import { execFile, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, ensureBuilt, ROOT } from "../support/build.js";

const run = promisify(execFile);

interface Output {
  readonly entryPoint?: string;
  readonly inputs: Record<string, unknown>;
  readonly imports: readonly { readonly path: string; readonly kind: string; readonly external?: boolean }[];
}

/** A name of the library's own (a class it defines): in a heap only where the library was loaded. */
const LIBRARY_MARK = "X509CertificateGenerator";
const WORKER_ENTRY = "dist/bundle/certificate-worker.js";

function outputs(): Record<string, Output> {
  return (JSON.parse(readFileSync(join(ROOT, "dist", "bundle-meta.json"), "utf8")) as { outputs: Record<string, Output> }).outputs;
}

/** The outputs `from` loads, itself included: through static imports only, or dynamic ones too. */
function reachable(all: Record<string, Output>, from: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imp of all[file]?.imports ?? []) {
      if (imp.external === true) continue;
      if (imp.kind === "import-statement" || (dynamic && imp.kind === "dynamic-import")) visit(imp.path);
    }
  };
  visit(from);
  return seen;
}

function entry(all: Record<string, Output>, source: string): string {
  const found = Object.entries(all).find(([, o]) => o.entryPoint === source);
  if (found === undefined) throw new Error(`no bundle entry for ${source}`);
  return found[0];
}

/** The outputs holding the X.509 library or the module that drives it. */
function holdingTheLibrary(all: Record<string, Output>): string[] {
  return Object.entries(all)
    .filter(([, o]) => Object.keys(o.inputs).some((i) => i.includes("node_modules/@peculiar/x509/") || i === "dist/certs/certificate-signing.js"))
    .map(([f]) => f);
}

let dir = "";

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "duckbill-cert-thread-dist-"));
});

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("the bundle's graph", () => {
  it("gives the certificate thread its own entry beside the chunks, holding the library", () => {
    const all = outputs();
    expect(entry(all, "dist/certs/certificate-worker.js")).toBe(WORKER_ENTRY);
    const holding = holdingTheLibrary(all);
    expect(holding.length).toBeGreaterThan(0);
    const worker = reachable(all, WORKER_ENTRY, false);
    for (const f of holding) expect(worker.has(f), f).toBe(true);
  });

  it("loads no output holding the library from the CLI, by static or dynamic imports", () => {
    const all = outputs();
    const cli = reachable(all, entry(all, "dist/cli/index.js"), true);
    // The CLI's graph does hold the issuer, which starts the thread.
    expect([...cli].some((f) => Object.keys(all[f]?.inputs ?? {}).includes("dist/certs/certificate-issuer.js"))).toBe(true);
    expect(holdingTheLibrary(all).filter((f) => cli.has(f))).toEqual([]);
    expect(cli.has(WORKER_ENTRY)).toBe(false);
  });
});

/** The heap snapshot a process wrote into `at` (`--heapsnapshot-signal`, `v8.writeHeapSnapshot`). */
function snapshotIn(at: string): string | undefined {
  const name = existsSync(at) ? readdirSync(at).find((f) => f.endsWith(".heapsnapshot")) : undefined;
  return name === undefined ? undefined : join(at, name);
}

describe("a standalone serve that generates its certificates", () => {
  it("serves with them, and its heap holds none of the X.509 library", async () => {
    const certDir = join(dir, "certs");
    const snapshots = join(dir, "serve-snapshot");
    mkdirSync(snapshots);
    const args = ["serve", "--workers", "1", "--port", "0", "--host", "127.0.0.1", "--metrics-port", "0", "--config-source", "defaults", "--drain-timeout", "0", "--generated-cert-dir", certDir];
    const child = spawn(process.execPath, ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${snapshots}`, join(ROOT, "bin", "duckbill"), ...args], { cwd: dir, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    let out = "";
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (c: Buffer) => {
          out += c.toString("utf8");
          if (out.includes('"message":"duckbill webhook serving"')) resolve();
        });
        child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
      });
      expect(out).toContain('"message":"generated a CA and serving certificate; clients trust ca.crt"');
      const ca = new X509Certificate(readFileSync(join(certDir, "ca.crt")));
      expect(new X509Certificate(readFileSync(join(certDir, "tls.crt"))).verify(ca.publicKey)).toBe(true);
      // The snapshot is written on the main thread before the next signal is handled.
      await new Promise<void>((resolve, reject) => {
        // A wait for a file, not a bound: the test's own timeout guards a hang.
        const poll = setInterval(() => {
          if (snapshotIn(snapshots) !== undefined) {
            clearInterval(poll);
            resolve();
          }
        }, 50);
        child.on("exit", (code) => {
          clearInterval(poll);
          reject(new Error(`serve exited with ${code} before writing a heap snapshot: ${out}`));
        });
        child.kill("SIGUSR2");
      });
      child.kill("SIGTERM");
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    const snapshot = readFileSync(snapshotIn(snapshots) as string, "utf8");
    expect(snapshot).toContain('"snapshot"');
    expect(snapshot.includes(LIBRARY_MARK)).toBe(false);
  });

  it("(the probe finds the library in a process that loads it)", async () => {
    const snapshots = join(dir, "library-snapshot");
    mkdirSync(snapshots);
    const program = `import { writeHeapSnapshot } from "node:v8";
await import(${JSON.stringify(pathToFileURL(join(ROOT, WORKER_ENTRY)).href)});
writeHeapSnapshot(${JSON.stringify(join(snapshots, "library.heapsnapshot"))});`;
    await run(process.execPath, ["--input-type=module", "-e", program], { cwd: dir, env: childEnv() });
    expect(readFileSync(snapshotIn(snapshots) as string, "utf8").includes(LIBRARY_MARK)).toBe(true);
  });
});
