import { execFileSync } from "node:child_process";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createServer, get } from "node:https";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { threadIssuer } from "../../test/support/certificate-thread.js";
import { generateTlsMaterial, inlineIssuer, type CertificateIssuer } from "./certificate-issuer.js";
import { describeCertificate } from "./certificate-parse.js";
import { loadTlsMaterial, writeTlsMaterial } from "./tls-files.js";
import type { GeneratedTlsMaterial, GenerateOptions, TlsMaterial } from "./tls-material.js";

const NOW = new Date("2026-03-01T10:00:00.000Z");
const DAY_MS = 86_400_000;
// AlgorithmIdentifier { ecdsa-with-SHA256 } and the bare ecdsa-with-SHA1 OID, as DER.
const ECDSA_SHA256_ALGORITHM = Buffer.from("300a06082a8648ce3d040302", "hex");
const ECDSA_SHA1_OID = Buffer.from("06072a8648ce3d0401", "hex");
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

let material: GeneratedTlsMaterial;
let other: GeneratedTlsMaterial;
let scratch: string;

beforeAll(async () => {
  [material, other] = await Promise.all([generateTlsMaterial({ now: NOW }), generateTlsMaterial({ now: NOW })]);
  scratch = await mkdtemp(join(tmpdir(), "duckbill-certs-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let dirCounter = 0;
async function freshDir(files: Record<string, string> = {}): Promise<string> {
  const dir = join(scratch, `case-${++dirCounter}`);
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

function pemBody(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s/g, ""), "base64");
}

// The same checks of what issuance makes, in line (as sources run) and on the issuer's thread (as the build runs).
describe.each([
  { how: "in line", onThread: false },
  { how: "on its worker thread (dist/certs/certificate-worker.js)", onThread: true },
])("generateTlsMaterial, issuing $how", ({ onThread }) => {
  let issuer: CertificateIssuer = inlineIssuer;
  let material: GeneratedTlsMaterial;
  let other: GeneratedTlsMaterial;
  const generate = (opts: GenerateOptions): Promise<GeneratedTlsMaterial> => generateTlsMaterial(opts, issuer);

  beforeAll(async () => {
    if (onThread) issuer = threadIssuer();
    [material, other] = await Promise.all([generate({ now: NOW }), generate({ now: NOW })]);
  });

  afterAll(() => issuer.close());

  it("signs the serving certificate with the self-signed CA", () => {
    const ca = new X509Certificate(material.ca);
    const server = new X509Certificate(material.cert);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(new X509Certificate(other.ca).publicKey)).toBe(false);
  });

  it("uses ECDSA P-256 keys and SHA-256 signatures for both certificates", () => {
    for (const pem of [material.ca, material.cert]) {
      const x509 = new X509Certificate(pem);
      expect(x509.publicKey.asymmetricKeyType).toBe("ec");
      expect(x509.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
      expect(x509.raw.includes(ECDSA_SHA256_ALGORITHM)).toBe(true);
      expect(x509.raw.includes(ECDSA_SHA1_OID)).toBe(false);
      expect(describeCertificate(pem)).toMatchObject({ signatureAlgorithm: "ecdsa-with-SHA256", keyType: "ec", curve: "P-256" });
    }
  });

  it("emits PKCS#8 private keys that match their certificates", () => {
    const pairs: Array<[string, string]> = [
      [material.key, material.cert],
      [material.caKey, material.ca],
    ];
    for (const [keyPem, certPem] of pairs) {
      expect(keyPem.startsWith("-----BEGIN PRIVATE KEY-----")).toBe(true);
      const key = createPrivateKey({ key: pemBody(keyPem), format: "der", type: "pkcs8" });
      expect(key.asymmetricKeyType).toBe("ec");
      expect(new X509Certificate(certPem).checkPrivateKey(key)).toBe(true);
    }
  });

  it("names exactly the Knative service DNS names plus localhost and 127.0.0.1", () => {
    const d = describeCertificate(material.cert);
    expect([...d.dnsNames].sort()).toEqual(
      ["localhost", "webhook", "webhook.knative-serving", "webhook.knative-serving.svc", "webhook.knative-serving.svc.cluster.local"].sort(),
    );
    expect(d.ips).toEqual(["127.0.0.1"]);
    // Cross-check with OpenSSL's rendering of the same extension.
    const openssl = new X509Certificate(material.cert).subjectAltName?.split(", ").sort();
    expect(openssl).toEqual([...d.dnsNames.map((n) => `DNS:${n}`), "IP Address:127.0.0.1"].sort());
  });

  it("gives the CA and the serving certificate Knative's subject O=knative.dev, CN=<svc>.<ns>.svc", () => {
    const server = describeCertificate(material.cert);
    const ca = describeCertificate(material.ca);
    expect(server.subject).toBe("O=knative.dev, CN=webhook.knative-serving.svc");
    expect(ca.subject).toBe(server.subject);
    expect(ca.issuer).toBe(ca.subject);
    expect(server.issuer).toBe(ca.subject);
  });

  it("tells the same-named certificates apart by key identifiers, as Go does", async () => {
    const x = await import("@peculiar/x509");
    const ca = new x.X509Certificate(material.ca);
    const server = new x.X509Certificate(material.cert);
    const caKeyId = ca.getExtension(x.SubjectKeyIdentifierExtension)?.keyId;
    const serverKeyId = server.getExtension(x.SubjectKeyIdentifierExtension)?.keyId;
    expect(caKeyId).toMatch(/^[0-9a-f]{40}$/);
    expect(server.getExtension(x.AuthorityKeyIdentifierExtension)?.keyId).toBe(caKeyId);
    expect(serverKeyId).toMatch(/^[0-9a-f]{40}$/);
    expect(serverKeyId).not.toBe(caKeyId);
  });

  it.each([
    {
      which: "CA",
      pem: () => material.ca,
      isCA: true,
      keyUsage: ["digitalSignature", "keyCertSign"],
      extKeyUsage: ["serverAuth", "clientAuth"],
      opensslEku: [SERVER_AUTH, CLIENT_AUTH],
    },
    {
      which: "serving certificate",
      pem: () => material.cert,
      isCA: false,
      keyUsage: ["digitalSignature"],
      extKeyUsage: ["serverAuth"],
      opensslEku: [SERVER_AUTH],
    },
  ])("gives the $which Knative's constraints and key usages", ({ pem, isCA, keyUsage, extKeyUsage, opensslEku }) => {
    const d = describeCertificate(pem());
    expect(d.isCA).toBe(isCA);
    expect(d.keyUsage).toEqual(keyUsage);
    expect(d.extKeyUsage).toEqual(extKeyUsage);
    expect([...d.criticalExtensions].sort()).toEqual(["basicConstraints", "keyUsage"]);
    const x509 = new X509Certificate(pem());
    expect(x509.ca).toBe(isCA);
    expect([...x509.keyUsage].sort()).toEqual([...opensslEku].sort()); // Node 20 names the EKU list keyUsage
  });

  it("makes the CA valid for a year and the serving certificate for seven days from now", () => {
    const ca = describeCertificate(material.ca);
    const server = describeCertificate(material.cert);
    expect(ca.notBefore).toEqual(NOW);
    expect(ca.notAfter).toEqual(new Date(NOW.getTime() + 365 * DAY_MS));
    expect(server.notBefore).toEqual(NOW);
    expect(server.notAfter).toEqual(new Date(NOW.getTime() + 7 * DAY_MS));
    expect(material.notAfter).toEqual(server.notAfter);
    expect(new Date(new X509Certificate(material.cert).validTo)).toEqual(server.notAfter);
  });

  it("truncates the validity window to whole seconds", async () => {
    const m = await generate({ now: new Date("2026-03-01T10:00:00.987Z"), certValidityDays: 1 });
    const d = describeCertificate(m.cert);
    expect(d.notBefore).toEqual(new Date("2026-03-01T10:00:00.000Z"));
    expect(m.notAfter).toEqual(d.notAfter);
  });

  it("honours service name, namespace, cluster domain, extra SANs and validities", async () => {
    const m = await generate({
      serviceName: "hooks",
      namespace: "ns1",
      clusterDomain: "corp.example",
      extraDnsNames: ["webhook.example.com", "localhost", "*.apps.example.com"],
      extraIps: ["10.0.0.7", "::1", "127.0.0.1", "2001:db8:0:0:1:0:0:1"],
      caValidityDays: 30,
      certValidityDays: 1,
      now: NOW,
    });
    const d = describeCertificate(m.cert);
    expect(d.subject).toBe("O=knative.dev, CN=hooks.ns1.svc");
    expect([...d.dnsNames].sort()).toEqual(
      ["*.apps.example.com", "hooks", "hooks.ns1", "hooks.ns1.svc", "hooks.ns1.svc.corp.example", "localhost", "webhook.example.com"].sort(),
    );
    expect(d.ips).toEqual(["127.0.0.1", "10.0.0.7", "::1", "2001:db8::1:0:0:1"]);
    const x509 = new X509Certificate(m.cert);
    expect(x509.checkIP("::1")).toBe("::1");
    expect(x509.checkHost("foo.apps.example.com")).toBe("*.apps.example.com");
    expect(describeCertificate(m.ca).notAfter).toEqual(new Date(NOW.getTime() + 30 * DAY_MS));
    expect(m.notAfter).toEqual(new Date(NOW.getTime() + DAY_MS));
  });

  it("caps the serving certificate at the CA's expiry", async () => {
    const m = await generate({ caValidityDays: 2, certValidityDays: 10, now: NOW });
    expect(m.notAfter).toEqual(new Date(NOW.getTime() + 2 * DAY_MS));
  });

  it("draws a fresh random serial for every certificate", () => {
    const serials = [material.ca, material.cert, other.ca, other.cert].map((pem) => new X509Certificate(pem).serialNumber);
    expect(new Set(serials).size).toBe(4);
  });

  it("generates fresh keys on every call", () => {
    expect(other.key).not.toBe(material.key);
    expect(other.caKey).not.toBe(material.caKey);
  });

  const LABEL_MSG =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'";
  it.each<{ name: string; opts: GenerateOptions; message: string }>([
    { name: "an upper-case service name", opts: { serviceName: "Webhook" }, message: `service name "Webhook": ${LABEL_MSG}` },
    { name: "an empty service name", opts: { serviceName: "" }, message: `service name "": ${LABEL_MSG}` },
    { name: "a namespace with dots", opts: { namespace: "a.b" }, message: `namespace "a.b": ${LABEL_MSG}` },
    { name: "a too-long namespace", opts: { namespace: "n".repeat(64) }, message: `namespace "${"n".repeat(64)}": must be no more than 63 characters` },
    { name: "a cluster domain with a trailing dot", opts: { clusterDomain: "cluster.local." }, message: `cluster domain "cluster.local.": ${SUBDOMAIN_MSG}` },
    { name: "an extra DNS name with a space", opts: { extraDnsNames: ["a b"] }, message: `extra DNS name "a b": ${SUBDOMAIN_MSG}` },
    { name: "a wildcard that is not a prefix", opts: { extraDnsNames: ["a.*.com"] }, message: `extra DNS name "a.*.com": ${SUBDOMAIN_MSG}` },
    { name: "an extra IP that is not an IP", opts: { extraIps: ["999.1.1.1"] }, message: `extra IP "999.1.1.1": must be a valid IP address` },
    { name: "a zero serving validity", opts: { certValidityDays: 0 }, message: "certificate validity days 0: must be a positive number" },
    { name: "a NaN CA validity", opts: { caValidityDays: Number.NaN }, message: "CA validity days NaN: must be a positive number" },
  ])("rejects $name", async ({ opts, message }) => {
    const error = await generate(opts).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("invalid certificate options: ");
    expect((error as Error).message).toContain(message);
  });

  it("reports every invalid option at once", async () => {
    await expect(generate({ serviceName: "A", extraIps: ["x"] })).rejects.toThrow(/service name "A": .*; extra IP "x"/);
  });
});

describe("writeTlsMaterial", () => {
  it("writes ca.crt, tls.crt and tls.key into a directory it creates", async () => {
    const dir = join(scratch, "nested", "certs");
    await writeTlsMaterial(dir, material);
    expect((await readdir(dir)).sort()).toEqual(["ca.crt", "tls.crt", "tls.key"]);
    expect(await readFile(join(dir, "ca.crt"), "utf8")).toBe(material.ca);
    expect(await readFile(join(dir, "tls.crt"), "utf8")).toBe(material.cert);
    expect(await readFile(join(dir, "tls.key"), "utf8")).toBe(material.key);
  });

  it("makes the key readable by the owner only", async () => {
    const dir = await freshDir({ "tls.key": "old" });
    await chmod(join(dir, "tls.key"), 0o644);
    await writeTlsMaterial(dir, material);
    expect((await stat(join(dir, "tls.key"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "tls.crt"))).mode & 0o777).toBe(0o644);
    expect((await stat(join(dir, "ca.crt"))).mode & 0o777).toBe(0o644);
  });

  it("replaces earlier files and leaves no temporary files behind", async () => {
    const dir = await freshDir();
    await writeTlsMaterial(dir, other);
    await writeTlsMaterial(dir, material);
    expect((await readdir(dir)).sort()).toEqual(["ca.crt", "tls.crt", "tls.key"]);
    expect(await readFile(join(dir, "tls.key"), "utf8")).toBe(material.key);
  });

  it("removes a stale ca.crt when the material has no CA", async () => {
    const dir = await freshDir({ "ca.crt": other.ca });
    await writeTlsMaterial(dir, { ...material, ca: "" });
    expect((await readdir(dir)).sort()).toEqual(["tls.crt", "tls.key"]);
  });

  it("says which directory cannot be created", async () => {
    const dir = await freshDir({ file: "x" });
    await expect(writeTlsMaterial(join(dir, "file", "certs"), material)).rejects.toThrow(
      `cert dir "${join(dir, "file", "certs")}": must be a writable directory: `,
    );
  });
});

describe("loadTlsMaterial", () => {
  it("round-trips what writeTlsMaterial wrote", async () => {
    const dir = await freshDir();
    await writeTlsMaterial(dir, material);
    const loaded = await loadTlsMaterial(dir, { now: NOW });
    const expected: TlsMaterial = { cert: material.cert, key: material.key, ca: material.ca, notAfter: material.notAfter };
    expect(loaded).toEqual(expected);
  });

  it("reads a mounted webhook-certs Secret by its Knative key names", async () => {
    // A Secret volume: the files are symlinks into a timestamped directory behind ..data.
    const dir = await freshDir();
    await mkdir(join(dir, "..2026_03_01_10_00_00.1"));
    await writeFile(join(dir, "..2026_03_01_10_00_00.1", "server-cert.pem"), material.cert);
    await writeFile(join(dir, "..2026_03_01_10_00_00.1", "server-key.pem"), material.key);
    await writeFile(join(dir, "..2026_03_01_10_00_00.1", "ca-cert.pem"), material.ca);
    await symlink("..2026_03_01_10_00_00.1", join(dir, "..data"));
    for (const name of ["server-cert.pem", "server-key.pem", "ca-cert.pem"]) await symlink(join("..data", name), join(dir, name));
    const loaded = await loadTlsMaterial(dir, { now: NOW });
    expect(loaded).toEqual({ cert: material.cert, key: material.key, ca: material.ca, notAfter: material.notAfter });
  });

  it("treats the CA file as optional", async () => {
    const dir = await freshDir({ "tls.crt": material.cert, "tls.key": material.key });
    expect((await loadTlsMaterial(dir, { now: NOW })).ca).toBe("");
  });

  it("accepts a CA bundle that contains the signing CA among others", async () => {
    const dir = await freshDir({ "tls.crt": material.cert, "tls.key": material.key, "ca.crt": other.ca + material.ca });
    expect((await loadTlsMaterial(dir, { now: NOW })).ca).toBe(other.ca + material.ca);
  });

  it("checks validity against the current time by default", async () => {
    const dir = await freshDir({ "tls.crt": material.cert, "tls.key": material.key });
    await expect(loadTlsMaterial(dir)).rejects.toThrow(/tls\.crt must be currently valid/);
  });

  const encryptedKey = (): string =>
    createPrivateKey(material.key).export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "secret" }).toString();
  const corruptKey = (): string => material.key.replace(/^(-----BEGIN PRIVATE KEY-----\n)(.{10})/, "$1AAAAAAAAAA");

  it.each<{ name: string; files: () => Record<string, string>; now?: Date; message: string }>([
    {
      name: "a directory without certificate files",
      files: () => ({ "README.md": "x" }),
      message:
        "must contain tls.crt and tls.key (or the webhook-certs Secret keys server-cert.pem and server-key.pem)",
    },
    { name: "a certificate without its key", files: () => ({ "tls.crt": material.cert }), message: "tls.key must exist" },
    { name: "a key without its certificate", files: () => ({ "tls.key": material.key }), message: "tls.crt must exist" },
    { name: "a Secret certificate without its key", files: () => ({ "server-cert.pem": material.cert }), message: "server-key.pem must exist" },
    { name: "a certificate that is not PEM", files: () => ({ "tls.crt": "hello", "tls.key": material.key }), message: "tls.crt must be a PEM certificate" },
    {
      name: "a certificate PEM with a broken body",
      files: () => ({ "tls.crt": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "tls.key": material.key }),
      message: "tls.crt must be a PEM certificate",
    },
    {
      name: "swapped certificate and key",
      files: () => ({ "tls.crt": material.key, "tls.key": material.cert }),
      message: "tls.crt must be a PEM certificate (it holds a private key)",
    },
    { name: "a key that is not PEM", files: () => ({ "tls.crt": material.cert, "tls.key": "garbage" }), message: "tls.key must be a PEM private key" },
    { name: "a key PEM with a broken body", files: () => ({ "tls.crt": material.cert, "tls.key": corruptKey() }), message: "tls.key must be a PEM private key" },
    {
      name: "an encrypted key",
      files: () => ({ "tls.crt": material.cert, "tls.key": encryptedKey() }),
      message: "tls.key must be an unencrypted PEM private key",
    },
    {
      name: "a key of another certificate",
      files: () => ({ "tls.crt": material.cert, "tls.key": other.key }),
      message: "tls.key must be the private key of the certificate in tls.crt",
    },
    {
      name: "a Secret key of another certificate",
      files: () => ({ "server-cert.pem": material.cert, "server-key.pem": other.key }),
      message: "server-key.pem must be the private key of the certificate in server-cert.pem",
    },
    {
      name: "an expired certificate",
      files: () => ({ "tls.crt": material.cert, "tls.key": material.key }),
      now: new Date(NOW.getTime() + 8 * DAY_MS),
      message: `tls.crt must be currently valid: it expired at ${new Date(NOW.getTime() + 7 * DAY_MS).toISOString()}`,
    },
    {
      name: "a certificate that is not valid yet",
      files: () => ({ "tls.crt": material.cert, "tls.key": material.key }),
      now: new Date(NOW.getTime() - 1000),
      message: `tls.crt must be currently valid: it is not valid before ${NOW.toISOString()}`,
    },
    {
      name: "a CA that did not sign the certificate",
      files: () => ({ "tls.crt": material.cert, "tls.key": material.key, "ca.crt": other.ca }),
      message: "tls.crt must be signed by a certificate in ca.crt",
    },
    {
      name: "a CA file that is not PEM",
      files: () => ({ "tls.crt": material.cert, "tls.key": material.key, "ca.crt": "nope" }),
      message: "ca.crt must be a PEM certificate",
    },
  ])("rejects $name", async ({ files, now, message }) => {
    const dir = await freshDir(files());
    await expect(loadTlsMaterial(dir, { now: now ?? NOW })).rejects.toThrow(`cert dir "${dir}": ${message}`);
  });

  it("rejects a FIFO or a file over 1 MiB in place of a certificate, without blocking on it or reading it whole", async () => {
    const dir = await freshDir({ "tls.key": material.key });
    execFileSync("mkfifo", [join(dir, "tls.crt")]);
    await expect(loadTlsMaterial(dir, { now: NOW })).rejects.toThrow(`cert dir "${dir}": tls.crt must be readable: it is not a regular file (a FIFO, socket or device is never read)`);
    const big = await freshDir({ "tls.crt": material.cert + "#".repeat(1024 * 1024), "tls.key": material.key });
    await expect(loadTlsMaterial(big, { now: NOW })).rejects.toThrow(/tls\.crt must be readable: it holds \d+ bytes or more, over 1048576/);
  });

  it("rejects a directory that does not exist", async () => {
    const dir = join(scratch, "does-not-exist");
    await expect(loadTlsMaterial(dir)).rejects.toThrow(`cert dir "${dir}": must be a readable directory: ENOENT`);
  });
});

describe("describeCertificate", () => {
  it("describes the first certificate of a bundle", () => {
    expect(describeCertificate(material.cert + material.ca).isCA).toBe(false);
  });

  it("rejects text without a certificate", () => {
    expect(() => describeCertificate(material.key)).toThrow("certificate must be a PEM-encoded X.509 certificate");
  });
});

describe("TLS handshake with generated material", () => {
  let live: GeneratedTlsMaterial;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    live = await generateTlsMaterial();
    // TLS 1.3 only, like the webhook's default (knative.dev/pkg webhook/webhook.go: New).
    server = createServer({ cert: live.cert, key: live.key, minVersion: "TLSv1.3" }, (_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function fetchRoot(opts: { ca?: string; servername?: string }): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = get({ host: "127.0.0.1", port, path: "/", agent: false, ...opts }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve(body));
      });
      req.on("error", reject);
    });
  }

  it.each(["localhost", "webhook", "webhook.knative-serving.svc", "webhook.knative-serving.svc.cluster.local"])(
    "serves a client that trusts only the CA and asks for %s",
    async (servername) => {
      expect(await fetchRoot({ ca: live.ca, servername })).toBe("ok");
    },
  );

  it("serves a client that connects to 127.0.0.1 without SNI", async () => {
    expect(await fetchRoot({ ca: live.ca })).toBe("ok");
  });

  it("fails a client asking for a name outside the SANs", async () => {
    await expect(fetchRoot({ ca: live.ca, servername: "evil.example.com" })).rejects.toMatchObject({ code: "ERR_TLS_CERT_ALTNAME_INVALID" });
  });

  it("fails a client that trusts a different CA", async () => {
    // The other CA has the same name but another key identifier, so OpenSSL does not take it for the issuer.
    await expect(fetchRoot({ ca: other.ca, servername: "localhost" })).rejects.toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
  });

  it("fails a client that trusts only the public roots", async () => {
    await expect(fetchRoot({ servername: "localhost" })).rejects.toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
  });
});
