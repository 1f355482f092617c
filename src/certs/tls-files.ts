// The cert dir: write generated TLS material to a directory, and load it back (or a mounted `webhook-certs`
// Secret) with checks that fail at startup instead of at the first TLS handshake.
import { randomBytes, type X509Certificate } from "node:crypto";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { readRegularFile, type BoundedRead } from "../config/sources/bounded-read.js";
import { certificateTimes, parseCertificates, parsePrivateKey } from "./certificate-parse.js";

/** A certificate, key or CA bundle file is read up to this size (a bundle of hundreds of certificates fits). */
export const MAX_CERT_FILE_BYTES = 1024 * 1024;
import { TLS_FILE_NAMES, WEBHOOK_SECRET_KEYS, type FileNames, type LoadOptions, type TlsMaterial } from "./tls-material.js";

// ---------------------------------------------------------------------------------------------------------
// Writing

/**
 * Writes `ca.crt`, `tls.key` (mode 0600) and `tls.crt` into `dir`, creating it. Each file is replaced
 * atomically (temp file + rename) so a reader never sees a half-written PEM.
 */
export async function writeTlsMaterial(dir: string, m: TlsMaterial): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new Error(`cert dir "${dir}": must be a writable directory: ${errorMessage(err)}`);
  }
  const names = TLS_FILE_NAMES;
  if (m.ca === "") {
    // A stale CA from an earlier run would no longer match tls.crt.
    await rm(join(dir, names.ca), { force: true });
  } else {
    await writeFileAtomic(dir, names.ca, m.ca, 0o644);
  }
  // Key before certificate: a concurrent reader sees at worst a mismatched pair, which loading rejects.
  await writeFileAtomic(dir, names.key, m.key, 0o600);
  await writeFileAtomic(dir, names.cert, m.cert, 0o644);
}

async function writeFileAtomic(dir: string, name: string, data: string, mode: number): Promise<void> {
  const path = join(dir, name);
  const tmp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fh = await open(tmp, "wx", mode);
    try {
      await fh.writeFile(data);
      await fh.chmod(mode); // the umask may have narrowed the creation mode
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new Error(`cert dir "${dir}": ${name} must be writable: ${errorMessage(err)}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Loading

/**
 * Loads `tls.crt`, `tls.key` and optional `ca.crt` from `dir` (or a mounted `webhook-certs` Secret's
 * `server-cert.pem`, `server-key.pem`, `ca-cert.pem`) and checks they are usable: the key matches the
 * certificate, both certificates are currently valid, and the CA (if any) signed the certificate.
 */
export async function loadTlsMaterial(dir: string, opts: LoadOptions = {}): Promise<TlsMaterial> {
  const fail = (what: string): never => {
    throw new Error(`cert dir "${dir}": ${what}`);
  };
  const names = await detectFileNames(dir, fail);

  const certPem = (await readCertFile(dir, names.cert, fail)) ?? fail(`${names.cert} must exist`);
  const keyPem = (await readCertFile(dir, names.key, fail)) ?? fail(`${names.key} must exist`);
  const caPem = (await readCertFile(dir, names.ca, fail)) ?? "";

  const chain = parseCertificates(certPem) ?? fail(`${names.cert} must be a PEM certificate${swappedHint(certPem)}`);
  const leaf = chain[0] ?? fail(`${names.cert} must be a PEM certificate`);
  const key = parsePrivateKey(keyPem) ?? fail(keyProblem(names.key, keyPem));
  if (!leaf.checkPrivateKey(key)) fail(`${names.key} must be the private key of the certificate in ${names.cert}`);

  const now = opts.now ?? new Date();
  const leafValidity = validityProblem(leaf, now);
  if (leafValidity) fail(`${names.cert} must be currently valid: ${leafValidity}`);

  if (caPem.trim() !== "") {
    const cas = parseCertificates(caPem) ?? fail(`${names.ca} must be a PEM certificate`);
    for (const ca of cas) {
      const caValidity = validityProblem(ca, now);
      if (caValidity) fail(`${names.ca} must be currently valid: ${caValidity}`);
    }
    const top = chain[chain.length - 1] ?? leaf;
    const anchored = cas.some((ca) => ca.fingerprint256 === top.fingerprint256 || (top.checkIssued(ca) && top.verify(ca.publicKey)));
    if (!anchored) fail(`${names.cert} must be signed by a certificate in ${names.ca}`);
  }

  return { cert: certPem, key: keyPem, ca: caPem, notAfter: certificateTimes(leaf).notAfter };
}

async function detectFileNames(dir: string, fail: (what: string) => never): Promise<FileNames> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    return fail(`must be a readable directory: ${errorMessage(err)}`);
  }
  const has = (name: string): boolean => entries.includes(name);
  if (has(TLS_FILE_NAMES.cert) || has(TLS_FILE_NAMES.key)) return TLS_FILE_NAMES;
  if (has(WEBHOOK_SECRET_KEYS.cert) || has(WEBHOOK_SECRET_KEYS.key)) return WEBHOOK_SECRET_KEYS;
  return fail(
    `must contain ${TLS_FILE_NAMES.cert} and ${TLS_FILE_NAMES.key} ` +
      `(or the webhook-certs Secret keys ${WEBHOOK_SECRET_KEYS.cert} and ${WEBHOOK_SECRET_KEYS.key})`,
  );
}

/** The file's text, or undefined when it does not exist. */
async function readCertFile(dir: string, name: string, fail: (what: string) => never): Promise<string | undefined> {
  let read: BoundedRead;
  try {
    read = await readRegularFile(join(dir, name), MAX_CERT_FILE_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return fail(`${name} must be readable: ${errorMessage(err)}`);
  }
  return read.ok ? read.bytes.toString("utf8") : fail(`${name} must be readable: ${read.reason}`);
}


function keyProblem(name: string, pem: string): string {
  if (pem.includes("-----BEGIN ENCRYPTED PRIVATE KEY-----") || /Proc-Type: 4,ENCRYPTED/.test(pem)) {
    return `${name} must be an unencrypted PEM private key`;
  }
  return `${name} must be a PEM private key${pem.includes("-----BEGIN CERTIFICATE-----") ? " (it holds a certificate)" : ""}`;
}

function swappedHint(pem: string): string {
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem) ? " (it holds a private key)" : "";
}

function validityProblem(cert: X509Certificate, now: Date): string | undefined {
  const { notBefore, notAfter } = certificateTimes(cert);
  if (now.getTime() < notBefore.getTime()) return `it is not valid before ${notBefore.toISOString()}`;
  if (now.getTime() > notAfter.getTime()) return `it expired at ${notAfter.toISOString()}`;
  return undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

