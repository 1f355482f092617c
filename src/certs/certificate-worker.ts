/**
 * The thread that issues certificates (certificate-issuer.ts): each request answered with the certificate and key
 * as PEM, or with the message of what failed. It alone loads the X.509 library (certificate-signing.ts).
 */
import { parentPort } from "node:worker_threads";
import { sign } from "./certificate-signing.js";
import type { IssueRequest, IssueResult } from "./certificate-issuer.js";

parentPort?.on("message", ({ id, ...request }: IssueRequest) => {
  sign(request).then(
    ({ cert, key }): IssueResult => ({ id, cert, key }),
    (err: unknown): IssueResult => ({ id, error: err instanceof Error ? err.message : String(err) }),
  ).then((result) => parentPort?.postMessage(result));
});
