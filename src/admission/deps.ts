import type { ConfigSnapshot } from "../config/snapshot.js";
import type { KindRegistry } from "../serving/registry.js";
import type { ConfigMapValidators } from "../config/validators.js";

/** What the admission layer needs from the outside, passed in by the transport (never imported globally). */
export interface AdmissionDeps {
  readonly kinds: KindRegistry;
  readonly configMaps: ConfigMapValidators;
}

/** Per-request inputs besides the review itself. */
export interface RequestEnv {
  /** The configuration snapshot in effect for this request (taken once, at the start of the request). */
  readonly config: ConfigSnapshot;
}
