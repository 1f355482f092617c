/** `--client-ca`: the CAs whose client certificates the HTTPS port requires. */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";

const WHAT = "--client-ca (DUCKBILL_CLIENT_CA)";

/** The bundle: a readable file with at least one PEM certificate that parses. */
export function readClientCa(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`${WHAT} must be a readable file: ${(err as Error).message}`);
  }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${WHAT} must hold PEM certificates; ${file} has none`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch (err) {
      throw new Error(`${WHAT}: a certificate in ${file} does not parse: ${(err as Error).message}`);
    }
  }
  return pem;
}
