/**
 * Certificate issuance on its worker thread as the built code runs it (src/certs/certificate-issuer.ts with
 * dist/certs/certificate-worker.js), for tests that check what the thread issues against what sources issue in line.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { certificateIssuer, inlineIssuer, type CertificateIssuer, type IssuerThreadOptions } from "../../src/certs/certificate-issuer.js";
import { ensureBuilt, ROOT } from "./build.js";

export const CERTIFICATE_WORKER = pathToFileURL(join(ROOT, "dist", "certs", "certificate-worker.js"));

/** An issuer on its own thread; never the in-line one (a build older than the thread would give that). */
export function threadIssuer(opts: IssuerThreadOptions = {}): CertificateIssuer {
  ensureBuilt();
  const issuer = certificateIssuer({ script: CERTIFICATE_WORKER, ...opts });
  if (issuer === inlineIssuer) throw new Error(`${CERTIFICATE_WORKER.pathname} is missing: run npm run build`);
  return issuer;
}
