/**
 * The /config-validation parsers for the ConfigMaps other than config-features, config-defaults and
 * config-autoscaler (the constructors of knative.dev/serving cmd/webhook/main.go, as serving v0.44.2 validated them;
 * docs/knative-behavior.md#other-configmaps). Each returns Knative's
 * error text, or undefined when the data is acceptable.
 */
import { CERTMANAGER_CONFIG_NAME, parseCertManagerConfig } from "./certmanager.js";
import { DEPLOYMENT_CONFIG_NAME, parseDeploymentConfig } from "./deployment.js";
import { DOMAIN_CONFIG_NAME, parseDomainConfig } from "./domain.js";
import { GC_CONFIG_NAME, parseGcConfig } from "./gc.js";
import { LEADER_ELECTION_CONFIG_NAME, parseLeaderElectionConfig } from "./leader-election.js";
import { LOGGING_CONFIG_NAME, parseLoggingConfig } from "./logging.js";
import { NETWORK_CONFIG_NAME, parseNetworkConfig } from "./network.js";
import { OBSERVABILITY_CONFIG_NAME, parseObservabilityConfig } from "./observability.js";
import { TRACING_CONFIG_NAME, parseTracingConfig } from "./tracing.js";
import type { KnativeProfile } from "../profile.js";

/** A ConfigMap's parser: Knative's error text, or undefined when the data parses, as the release `profile` parses it. */
export type ConfigMapParser = (data: Readonly<Record<string, string>>, profile: KnativeProfile) => string | undefined;

export const OTHER_CONFIGMAP_PARSERS: ReadonlyArray<readonly [name: string, parse: ConfigMapParser]> = Object.freeze([
  [GC_CONFIG_NAME, parseGcConfig],
  [NETWORK_CONFIG_NAME, parseNetworkConfig],
  [DEPLOYMENT_CONFIG_NAME, parseDeploymentConfig],
  [OBSERVABILITY_CONFIG_NAME, parseObservabilityConfig],
  [LOGGING_CONFIG_NAME, parseLoggingConfig],
  [LEADER_ELECTION_CONFIG_NAME, parseLeaderElectionConfig],
  [DOMAIN_CONFIG_NAME, parseDomainConfig],
  [CERTMANAGER_CONFIG_NAME, parseCertManagerConfig],
  [TRACING_CONFIG_NAME, parseTracingConfig],
] as const);
