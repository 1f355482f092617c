/**
 * CertDirWatch on a temp directory: each way a certificate gets replaced on disk reaches onTls, and files that
 * cannot be served leave the certificate in use alone. The tests wait for outcomes, never for the clock.
 */
import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CertDirWatch } from "../../src/certs/cert-dir-watch.js";
import { generateTlsMaterial } from "../../src/certs/certificate-issuer.js";
import type { TlsMaterial } from "../../src/certs/tls-material.js";
import { capturedLogger, eventually, type LogLine } from "../config/store-harness.js";

interface Started {
  readonly watch: CertDirWatch;
  readonly served: TlsMaterial[];
  readonly lines: LogLine[];
}

const FILES = (m: TlsMaterial): Record<string, string> => ({ "tls.crt": m.cert, "tls.key": m.key, "ca.crt": m.ca });

let a: TlsMaterial;
let b: TlsMaterial;
const temps: string[] = [];
const watches: CertDirWatch[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([generateTlsMaterial(), generateTlsMaterial()]);
});

afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.close()));
  await Promise.all(temps.splice(0).map((t) => rm(t, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const t = await mkdtemp(join(tmpdir(), "duckbill-certdir-"));
  temps.push(t);
  return t;
}

/** A directory `certs` inside a fresh temp directory, holding `files`. */
async function certDir(files: Record<string, string>): Promise<string> {
  const dir = join(await tempDir(), "certs");
  await mkdir(dir);
  await writeFiles(dir, files);
  return dir;
}

async function writeFiles(target: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text);
}

/** Replaces one file in a single step (a temp file renamed over it), so no check sees it half-written. */
async function put(dir: string, name: string, text: string): Promise<void> {
  await writeFile(join(dir, ".next"), text);
  await rename(join(dir, ".next"), join(dir, name));
}

type How = "fs.watch alone" | "the poll alone" | "fs.watch and the poll";

/**
 * A watch on `dir` serving `a`, as the start would have, once its first check is done (so the test's changes
 * come after it). A poll of an hour is, for a test, no poll.
 */
async function startWatch(dir: string, how: How = "fs.watch and the poll"): Promise<Started> {
  const { logger, lines } = capturedLogger();
  const served: TlsMaterial[] = [];
  const pollMs = how === "fs.watch alone" ? 3_600_000 : 50;
  const watch = new CertDirWatch({ dir, served: a, onTls: (m) => served.push(m), logger, pollMs, debounceMs: 20, fsWatch: how !== "the poll alone" });
  watches.push(watch);
  watch.start();
  await eventually(() => watch.loads >= 1, "the first check");
  return { watch, served, lines };
}

const servedCert = (s: Started): string | undefined => s.served.at(-1)?.cert;
const warnings = (s: Started): LogLine[] => s.lines.filter((l) => l.level === "warn");

/** Waits until the watch has loaded the directory `n` more times (while content is refused, every poll loads it). */
async function loadsMore(s: Started, n: number): Promise<void> {
  const target = s.watch.loads + n;
  await eventually(() => s.watch.loads >= target, `${n} more loads`);
}

describe.each<How>(["fs.watch alone", "the poll alone", "fs.watch and the poll"])("a certificate replaced in the directory is served (%s)", (how) => {
  it("files rewritten in place", async () => {
    const dir = await certDir(FILES(a));
    const s = await startWatch(dir, how);
    await writeFiles(dir, FILES(b));
    await eventually(() => servedCert(s) === b.cert, "the new certificate served");
    expect(s.served.at(-1)?.key).toBe(b.key);
    const reloaded = s.lines.filter((l) => l.msg === "reloaded TLS certificate");
    expect(reloaded.at(-1)).toMatchObject({ level: "info", certDir: dir, notAfter: b.notAfter.toISOString() });
  });

  it("new files renamed over the old ones", async () => {
    const dir = await certDir(FILES(a));
    const s = await startWatch(dir, how);
    for (const [name, text] of Object.entries(FILES(b))) await put(dir, name, text);
    await eventually(() => servedCert(s) === b.cert, "the new certificate served");
    expect(s.served.at(-1)?.key).toBe(b.key);
  });

  it("kubelet's ..data symlink swapped to a new timestamped directory", async () => {
    const dir = await certDir({});
    // kubelet's AtomicWriter layout: <key> -> ..data/<key>, ..data -> ..<timestamp>/ holding the files.
    const first = "..2026_01_02_03_04_05.000000001";
    await mkdir(join(dir, first));
    await writeFiles(join(dir, first), FILES(a));
    await symlink(first, join(dir, "..data"));
    for (const name of Object.keys(FILES(a))) await symlink(join("..data", name), join(dir, name));
    const s = await startWatch(dir, how);

    // An update: a new timestamped directory, ..data_tmp pointed at it and renamed over ..data, the old one removed.
    const second = "..2026_01_09_03_04_05.000000002";
    await mkdir(join(dir, second));
    await writeFiles(join(dir, second), FILES(b));
    await symlink(second, join(dir, "..data_tmp"));
    await rename(join(dir, "..data_tmp"), join(dir, "..data"));
    await rm(join(dir, first), { recursive: true });

    await eventually(() => servedCert(s) === b.cert, "the new certificate served");
    expect(s.served).toHaveLength(1);
    // The swap is atomic: no check ever saw a mixed pair.
    expect(warnings(s)).toEqual([]);
  });
});

describe.each<How>(["the poll alone", "fs.watch and the poll"])("the directory replaced by another (%s)", (how) => {
  it("serves the new directory's certificate, then follows that directory", async () => {
    const dir = await certDir(FILES(a));
    const s = await startWatch(dir, how);
    const next = join(dir, "..", "next");
    await mkdir(next);
    await writeFiles(next, FILES(b));
    await rename(dir, join(dir, "..", "old"));
    await rename(next, dir);
    await eventually(() => servedCert(s) === b.cert, "the new directory's certificate served");
    await writeFiles(dir, FILES(a));
    await eventually(() => servedCert(s) === a.cert, "the certificate rewritten in the new directory served");
  });
});

describe("files that cannot be served", () => {
  it("keep the certificate in use, warn once per content, and a later valid write is served", async () => {
    const dir = await certDir(FILES(a));
    const s = await startWatch(dir);

    // Incomplete: the key gone.
    await unlink(join(dir, "tls.key"));
    await eventually(() => warnings(s).length === 1, "a warning about the missing key");
    expect(warnings(s)[0]).toMatchObject({ certDir: dir, err: expect.stringContaining("tls.key must exist"), notAfter: a.notAfter.toISOString() });
    // The poll loads the same content again and again, without saying so again.
    await loadsMore(s, 3);
    expect(warnings(s)).toHaveLength(1);

    // Half-written: the key cut short.
    await put(dir, "tls.key", b.key.slice(0, 60));
    await eventually(() => warnings(s).length === 2, "a warning about the cut key");
    expect(warnings(s)[1]?.err).toMatch(/tls\.key must be a PEM private key/);

    // A whole key, but not the certificate's.
    await put(dir, "tls.key", b.key);
    await eventually(() => warnings(s).length === 3, "a warning about the mismatched pair");
    expect(warnings(s)[2]?.err).toMatch(/tls\.key must be the private key of the certificate in tls\.crt/);
    await loadsMore(s, 3);
    expect(warnings(s)).toHaveLength(3);
    expect(s.served).toEqual([]);

    // Then the certificate (and CA) that go with the key: served.
    await put(dir, "ca.crt", b.ca);
    await put(dir, "tls.crt", b.cert);
    await eventually(() => servedCert(s) === b.cert, "the new certificate served");
    expect(s.served).toHaveLength(1);
    expect(s.served[0]?.key).toBe(b.key);
  });

  it("a directory that went away keeps the certificate in use", async () => {
    const dir = await certDir(FILES(a));
    const s = await startWatch(dir);
    await rename(dir, join(dir, "..", "gone"));
    await eventually(() => warnings(s).length === 1, "a warning about the missing directory");
    expect(warnings(s)[0]?.err).toMatch(/must be a readable directory/);
    await loadsMore(s, 3);
    expect(warnings(s)).toHaveLength(1);
    expect(s.served).toEqual([]);
  });

  it("the files the start loaded are not served again", async () => {
    const dir = await certDir(FILES(a));
    const s = await startWatch(dir);
    expect(s.served).toEqual([]);
    expect(s.lines.filter((l) => l.level !== "debug")).toEqual([]);
  });
});
