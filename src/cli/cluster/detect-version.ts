/**
 * `--from auto` of `duckbill upgrade-check`: the Knative release a cluster runs. The detection is the one of
 * `--knative-version auto` (src/kube/knative-release.ts: the Serving CRDs' `app.kubernetes.io/version` label, else
 * the system namespace's), passed to the command as this one function so that tests can stand in for it. Unlike
 * `--knative-version auto`, it does not fall back to a release: comparing against a guess would report differences
 * of a release the cluster may not run.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { KNATIVE_VERSIONS, profileForRelease, type KnativeVersion } from "../../config/profile.js";

/** The release the cluster runs, as its labels spell it (`1.17.2`, `v1.23.0`, `1.24`). Throws when it cannot tell. */
export type DetectKnativeVersion = (kubeConfig: KubeConfig, namespace: string) => Promise<string>;

const RELEASES = KNATIVE_VERSIONS.join(", ");

export const detectKnativeVersion: DetectKnativeVersion = async (kubeConfig, namespace) => {
  const d = await (await import("./features-cluster.js")).detectRelease(kubeConfig, namespace);
  if (d.release === undefined) throw new Error(`found no Knative release label in the cluster (${d.passedOver.join("; ")}): give --from ${RELEASES}`);
  return d.release;
};

/** The profile for a detected release: its own; a release without one is an error naming the nearest. */
export function profileVersionOf(detected: string): KnativeVersion {
  const match = profileForRelease(detected);
  if (match === undefined) throw new Error(`the cluster's Knative release label "${detected}" is not a Knative 1.x release: give --from ${RELEASES}`);
  if (!match.exact) throw new Error(`the cluster runs Knative ${match.release}, a release Duckbill has no profile for: give --from ${RELEASES} (the nearest is ${match.profile.version})`);
  return match.profile.version;
}
