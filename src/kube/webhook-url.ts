/** `--webhook-url`, apart from the reconciler so that reading the settings does not load @kubernetes/client-node. */
/**
 * `--webhook-url`: the API server calls `<url><path>` instead of the Service (development outside a cluster).
 * Must be https with a host and nothing after the port.
 */
export function parseWebhookUrl(s: string): string {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new Error(`--webhook-url must be a URL such as https://host.example:8443, got "${s}"`);
  }
  if (u.protocol !== "https:") throw new Error(`--webhook-url must use https (the API server only calls webhooks over TLS), got "${s}"`);
  if ((u.pathname !== "/" && u.pathname !== "") || u.search !== "" || u.hash !== "" || u.username !== "" || u.password !== "") {
    throw new Error(`--webhook-url is the scheme, host and port only (the path is added per webhook), got "${s}"`);
  }
  return `${u.protocol}//${u.host}`;
}
