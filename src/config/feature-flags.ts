/**
 * Every `config-features` flag, once: its key, the FeaturesConfig field the rules read, and Knative's default
 * (knative.dev/serving pkg/apis/config/features.go: defaultFeaturesConfig, NewFeaturesConfigFromMap). Parsing
 * (features.ts), the FeaturesConfig type (types.ts) and the defaults derive from it; a flag whose key a release does
 * not know is ignored by that release (features.ts: releaseHasFlag). Adding a flag: one entry here, its entry in
 * serving/feature-gates.ts (what it gates, for the rules, `duckbill features` and impact warnings; a test holds the
 * two tables together) and its rule (docs/feature-flags.md).
 */
export const FEATURE_FLAGS = [
  { key: "multi-container", field: "multiContainer", default: "Enabled" },
  { key: "multi-container-probing", field: "multiContainerProbing", default: "Disabled" },
  { key: "kubernetes.podspec-affinity", field: "podSpecAffinity", default: "Disabled" },
  { key: "kubernetes.podspec-topologyspreadconstraints", field: "podSpecTopologySpreadConstraints", default: "Disabled" },
  { key: "kubernetes.podspec-dryrun", field: "podSpecDryRun", default: "Allowed" }, // until v0.47.0 (profile.podSpecDryRun)
  { key: "kubernetes.podspec-hostaliases", field: "podSpecHostAliases", default: "Disabled" },
  { key: "kubernetes.podspec-fieldref", field: "podSpecFieldRef", default: "Disabled" },
  { key: "kubernetes.podspec-nodeselector", field: "podSpecNodeSelector", default: "Disabled" },
  { key: "kubernetes.podspec-runtimeclassname", field: "podSpecRuntimeClassName", default: "Disabled" },
  { key: "kubernetes.podspec-securitycontext", field: "podSpecSecurityContext", default: "Disabled" },
  { key: "kubernetes.podspec-shareprocessnamespace", field: "podSpecShareProcessNamespace", default: "Disabled" },
  { key: "kubernetes.podspec-hostipc", field: "podSpecHostIPC", default: "Disabled" },
  { key: "kubernetes.podspec-hostpid", field: "podSpecHostPID", default: "Disabled" },
  { key: "kubernetes.podspec-hostnetwork", field: "podSpecHostNetwork", default: "Disabled" },
  { key: "kubernetes.podspec-priorityclassname", field: "podSpecPriorityClassName", default: "Disabled" },
  { key: "kubernetes.podspec-schedulername", field: "podSpecSchedulerName", default: "Disabled" },
  { key: "kubernetes.containerspec-addcapabilities", field: "containerSpecAddCapabilities", default: "Disabled" },
  { key: "kubernetes.podspec-tolerations", field: "podSpecTolerations", default: "Disabled" },
  { key: "kubernetes.podspec-volumes-emptydir", field: "podSpecVolumesEmptyDir", default: "Enabled" },
  { key: "kubernetes.podspec-volumes-hostpath", field: "podSpecVolumesHostPath", default: "Disabled" },
  { key: "kubernetes.podspec-persistent-volume-claim", field: "podSpecPersistentVolumeClaim", default: "Disabled" },
  { key: "kubernetes.podspec-persistent-volume-write", field: "podSpecPersistentVolumeWrite", default: "Disabled" },
  { key: "kubernetes.podspec-volumes-csi", field: "podSpecVolumesCSI", default: "Disabled" }, // v0.45.0
  { key: "kubernetes.podspec-volumes-mount-propagation", field: "podSpecVolumesMountPropagation", default: "Disabled" }, // v0.45.0
  { key: "kubernetes.podspec-volumes-image", field: "podSpecVolumesImage", default: "Disabled" }, // v0.46.0
  { key: "kubernetes.podspec-volumes-ephemeral", field: "podSpecVolumesEphemeral", default: "Disabled" }, // v0.50.0
  { key: "kubernetes.podspec-init-containers", field: "podSpecInitContainers", default: "Disabled" },
  { key: "kubernetes.podspec-dnspolicy", field: "podSpecDNSPolicy", default: "Disabled" },
  { key: "kubernetes.podspec-dnsconfig", field: "podSpecDNSConfig", default: "Disabled" },
  { key: "secure-pod-defaults", field: "secureDefaults", default: "Disabled" }, // values: the profile's securePodDefaults.values
  { key: "tag-header-based-routing", field: "tagHeaderBasedRouting", default: "Disabled" },
  { key: "domainmapping-direct-route-traffic", field: "domainMappingDirectRouteTraffic", default: "Disabled" }, // v0.51.0; controllers only
  { key: "autodetect-http2", field: "autoDetectHTTP2", default: "Disabled" },
  { key: "queueproxy.mount-podinfo", field: "queueProxyMountPodInfo", default: "Disabled" },
  { key: "queueproxy.resource-defaults", field: "queueProxyResourceDefaults", default: "Disabled" },
] as const;

/** The FeaturesConfig field of a flag. */
export type FeatureFlagField = (typeof FEATURE_FLAGS)[number]["field"];
