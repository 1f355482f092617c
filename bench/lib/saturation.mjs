// Closed-loop saturation with autocannon: `connections` keep-alive TLS connections, each sending its next request
// as soon as the previous answer arrives, cycling through the mix.
import autocannon from "autocannon";
import { CLIENT_TLS } from "./client-tls.mjs";
import { round } from "./stats.mjs";

/** Autocannon's request list for a mix (bodies are serialised once, autocannon prebuilds the bytes). */
export function autocannonRequests(mix) {
  return mix.map((r) => ({ method: "POST", path: r.path, headers: { "content-type": "application/json" }, body: r.body }));
}

export async function saturate({ host, port, ca, requests, durationMs, connections = 64 }) {
  const result = await autocannon({
    url: `https://${host}:${port}`,
    connections,
    pipelining: 1,
    duration: durationMs / 1000,
    requests,
    // autocannon connects with rejectUnauthorized: false whatever is passed; the CA is checked by the probes.
    tlsOptions: { ca, servername: "localhost", ...CLIENT_TLS },
    timeout: 10,
  });
  const ok = result["2xx"];
  return {
    connections,
    reqPerSec: Math.round(ok / result.duration),
    requests: result.requests.total,
    answered: ok,
    errors: result.errors + result.timeouts + result.non2xx,
    // autocannon's histogram has 1 ms resolution: fine at saturation, where latencies are queueing-dominated.
    latencyMs: { p50: round(result.latency.p50), p90: round(result.latency.p90), p99: round(result.latency.p99), max: round(result.latency.max) },
  };
}
