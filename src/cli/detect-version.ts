/**
 * `--from auto` of `duckbill upgrade-check`: the Knative release a cluster runs. The detector (the Serving CRDs'
 * `app.kubernetes.io/version` label, issue [12]) lives in src/kube and is passed in as this one function; until it
 * is, auto is answered with an error asking for --from.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { isKnativeVersion, KNATIVE_VERSIONS, type KnativeVersion } from "../config/profile.js";

/** The release the cluster runs, as its labels spell it (`1.17.2`, `v1.23.0`, `1.24`). Throws when it cannot tell. */
export type DetectKnativeVersion = (kubeConfig: KubeConfig) => Promise<string>;

export const detectKnativeVersion: DetectKnativeVersion = async () => {
  throw new Error(`detecting the cluster's Knative release is not available in this build: give --from ${KNATIVE_VERSIONS.join(", ")}`);
};

/** The profile for a detected release: its major.minor, when Duckbill has a profile for it. */
export function profileVersionOf(detected: string): KnativeVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(detected.trim());
  const version = m === null ? detected : `${m[1]}.${m[2]}`;
  if (!isKnativeVersion(version)) throw new Error(`the cluster runs Knative ${detected}, a release Duckbill has no profile for: give --from ${KNATIVE_VERSIONS.join(", ")}`);
  return version;
}
