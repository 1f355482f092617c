import type { AdmissionDeps } from "../admission/deps.js";
import { knativeConfigMapValidators } from "../config/validators.js";
import { knativeRegistry } from "../serving/kinds.js";

/** Knative's kinds and ConfigMap validators: what every command answers with. */
export function defaultDeps(): AdmissionDeps {
  return { kinds: knativeRegistry(), configMaps: knativeConfigMapValidators() };
}
