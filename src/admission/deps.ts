import type { NamespaceLabelsView } from "../config/feature-scopes.js";
import type { ConfigSnapshot } from "../config/snapshot.js";
import type { GatedUsageView } from "../serving/gated-usage.js";
import type { RequestContext } from "../serving/context.js";
import type { KindRegistry } from "../serving/registry.js";
import type { ConfigMapValidators } from "../config/validators.js";

export type { GatedUsageView, NamespaceLabelsView };

/** What the admission layer needs from the outside, passed in by the transport (never imported globally). */
export interface AdmissionDeps {
  readonly kinds: KindRegistry;
  readonly configMaps: ConfigMapValidators;
  /**
   * Kinds whose /defaulting maintains `spec.generation` (`--generational`), keyed by formatGvk; see
   * admission/generation.ts. Any kind may be named, Knative's or not. Absent or empty: none.
   */
  readonly generational?: ReadonlySet<string>;
  /**
   * The PodSpec dry run's API call (knative.dev/serving pkg/webhook/podspec_dryrun.go; src/kube/dry-run.ts), handed
   * to validation callbacks through the request context. Absent (standalone, `admit`): the call is taken to succeed.
   */
  readonly podDryRun?: RequestContext["podDryRun"];
}

/** Per-request inputs besides the review itself. */
export interface RequestEnv {
  /** The configuration snapshot in effect for this request (taken once, at the start of the request). */
  readonly config: ConfigSnapshot;
  /**
   * The Services and Configurations that use gated fields (`--impact-warnings`, cluster mode only): when set,
   * /config-validation warns about the objects a `config-features` change would deny. Absent: no such warnings.
   */
  readonly gatedUsage?: GatedUsageView;
  /**
   * The namespaces' labels (`--feature-scopes`, cluster mode only: src/kube/namespace-watch.ts), which the scopes of
   * config-features-scopes select on. Absent: no namespace matches a scope's selector, only its names.
   */
  readonly namespaces?: NamespaceLabelsView;
}
