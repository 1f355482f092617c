/**
 * The cluster's DNS domain as knative.dev/pkg network/domain.go: GetClusterDomainName finds it: the first `search`
 * entry of /etc/resolv.conf that starts with `svc.`, else $CLUSTER_DOMAIN, else `cluster.local`.
 */
import { readFileSync } from "node:fs";

export const DEFAULT_CLUSTER_DOMAIN = "cluster.local";

/** From resolv.conf text (undefined when it cannot be read) and the environment. */
export function clusterDomainFrom(resolvConf: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  for (const line of (resolvConf ?? "").split("\n")) {
    const elements = line.split(" "); // Go splits on single spaces, so tabs or double spaces do not match either
    if (elements[0] !== "search") continue;
    for (const e of elements.slice(1)) if (e.startsWith("svc.")) return e.slice(4).replace(/\.$/, "");
  }
  const fromEnv = env.CLUSTER_DOMAIN ?? "";
  return fromEnv !== "" ? fromEnv : DEFAULT_CLUSTER_DOMAIN;
}

/** Reads /etc/resolv.conf (or `path`) once; a missing file falls through to the environment. */
export function resolveClusterDomain(env: NodeJS.ProcessEnv = process.env, path = "/etc/resolv.conf"): string {
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    text = undefined;
  }
  return clusterDomainFrom(text, env);
}
