/**
 * Which CA keys can sign here: ECDSA keys on the NIST curves WebCrypto knows. Both sides of issuance read it:
 * certificate-issuer.ts (canSignWith, on the caller's thread) and certificate-signing.ts (on the thread that signs).
 * node:crypto only, no X.509 library.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";

const NODE_CURVES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

/** WebCrypto's name of `key`'s curve, or undefined when it is not an EC key on one of those curves. */
export function webCryptoCurve(key: KeyObject): string | undefined {
  return key.asymmetricKeyType === "ec" ? NODE_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ""] : undefined;
}

/** Whether `keyPem` can sign a certificate here (for deciding whether a CA is usable before trying). */
export function canSignWith(keyPem: string): boolean {
  try {
    return webCryptoCurve(createPrivateKey(keyPem)) !== undefined;
  } catch {
    return false;
  }
}
