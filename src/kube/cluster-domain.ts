/**
 * The cluster's DNS domain as knative.dev/pkg network/domain.go: GetClusterDomainName finds it: the first `search`
 * entry of /etc/resolv.conf that starts with `svc.`, else CLUSTER_DOMAIN (`--cluster-domain`), else `cluster.local`.
 */
import { readFileSync } from "node:fs";

export const DEFAULT_CLUSTER_DOMAIN = "cluster.local";

/** From resolv.conf text (undefined when it cannot be read) and the CLUSTER_DOMAIN setting ("" when unset). */
export function clusterDomainFrom(resolvConf: string | undefined, setting: string): string {
  for (const line of (resolvConf ?? "").split("\n")) {
    const elements = line.split(" "); // Go splits on single spaces, so tabs or double spaces do not match either
    if (elements[0] !== "search") continue;
    for (const e of elements.slice(1)) if (e.startsWith("svc.")) return e.slice(4).replace(/\.$/, "");
  }
  return setting !== "" ? setting : DEFAULT_CLUSTER_DOMAIN;
}

/** Reads /etc/resolv.conf (or `path`) once; a missing file falls through to the setting. */
export function resolveClusterDomain(setting: string, path = "/etc/resolv.conf"): string {
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    text = undefined;
  }
  return clusterDomainFrom(text, setting);
}
