// The TLS settings of every client the bench runs (autocannon, the paced client, the sanity check), so each server
// is driven alike.

/**
 * TLS 1.3 only, offering the suites in the order Go's crypto/tls client does on a CPU with AES instructions
 * (defaultCipherSuitesTLS13 in crypto/tls/defaults.go: AES-128-GCM, AES-256-GCM, ChaCha20-Poly1305), as the API
 * server's client would. Each server then picks by its own policy, as in a cluster: Go's (Knative) AES-128-GCM,
 * Node's OpenSSL defaults (Duckbill, the floor) AES-256-GCM; the sanity check records which.
 */
export const CLIENT_TLS = Object.freeze({
  minVersion: "TLSv1.3",
  ciphers: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
});
