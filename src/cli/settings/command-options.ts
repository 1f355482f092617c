/**
 * The options of the commands other than `serve` and `upgrade-check` (./options.ts): what each parses, and what its
 * `--help` and docs/cli.md's tables list (test/cli/help.test.ts keeps docs/cli.md in step).
 */
import { KNATIVE_VERSIONS } from "../../config/profile.js";
import type { OptionSpec } from "./options.js";

const RELEASES = KNATIVE_VERSIONS.join(", ");

const KNATIVE_VERSION: OptionSpec = {
  flag: "knative-version",
  env: "DUCKBILL_KNATIVE_VERSION",
  deprecatedEnv: ["KNATIVE_VERSION"],
  default: "auto",
  description: `the Knative release to answer as: ${RELEASES}, or auto (the cluster's with --kubeconfig, else ${KNATIVE_VERSIONS[0]})`,
};

const FILENAME: OptionSpec = {
  flag: "filename",
  short: "f",
  multiple: true,
  env: "",
  default: "",
  metavar: "FILE",
  description: "a manifest file, a directory (its .yaml/.yml/.json files) or - for stdin; plain arguments are files too",
};

const RECURSIVE: OptionSpec = { flag: "recursive", short: "R", boolean: true, env: "", default: "false", description: "descend into subdirectories of directories given with -f" };

const CONFIG_DIR: OptionSpec = {
  flag: "config-dir",
  env: "",
  default: "",
  description: "Knative's ConfigMaps (config-features.yaml, config-defaults.yaml, ... or mounted-ConfigMap directories) as for duckbill serve; without it, Knative's defaults",
};

/** Where a cluster keeps Knative's ConfigMaps (Knative's SYSTEM_NAMESPACE). */
const SYSTEM_NAMESPACE: OptionSpec = { flag: "system-namespace", env: "SYSTEM_NAMESPACE", default: "knative-serving", metavar: "NS", description: "with --kubeconfig: the namespace of Knative's ConfigMaps" };

const USER: OptionSpec = { flag: "user", env: "", default: "duckbill-check", metavar: "NAME", description: "the requesting user (userInfo.username), which becomes the creator and lastModifier annotations" };

/** The labels of a namespace for config-features-scopes' selectors, where no cluster can say. */
const NAMESPACE_LABELS: OptionSpec = {
  flag: "namespace-labels",
  env: "",
  default: "",
  metavar: "K=V,...",
  description: "without --kubeconfig: the labels of --namespace, which the selectors of config-features-scopes match (unknown otherwise: only scopes naming the namespace take it in)",
};

/** `duckbill admit`. */
export const ADMIT_OPTIONS = [
  { flag: "path", env: "", default: "/resource-validation", metavar: "PATH", description: "the webhook path to answer as: /defaulting, /resource-validation or /config-validation" },
  { flag: "batch", env: "", default: "false", boolean: true, description: "JSON lines {name, path, configs?, contentType?, review} in, one answer line out each (the HTTP status and body the server would send)" },
  { flag: "config-dir", env: "DUCKBILL_CONFIG_DIR", deprecatedEnv: ["CONFIG_DIR"], default: "", description: "standalone configuration directory, as for duckbill serve; without it, Knative's defaults" },
  { ...KNATIVE_VERSION, description: `the Knative release to answer as: ${RELEASES}, or auto (${KNATIVE_VERSIONS[0]}: admit has no cluster)` },
] as const satisfies readonly OptionSpec[];

/** `duckbill check`. */
export const CHECK_OPTIONS = [
  FILENAME,
  RECURSIVE,
  { flag: "namespace", short: "n", env: "", default: "default", metavar: "NS", description: "the namespace of objects without one" },
  CONFIG_DIR,
  {
    flag: "kubeconfig",
    env: "",
    default: "",
    metavar: "FILE",
    description:
      "judge as this cluster would: its Knative ConfigMaps (from --system-namespace), its Knative release (--knative-version auto), its CRD schemas for strict decoding, and each manifest's live object (an existing one is checked as kubectl apply's update of it, unless --old is given; credentials from this file only; read-only)",
  },
  SYSTEM_NAMESPACE,
  NAMESPACE_LABELS,
  KNATIVE_VERSION,
  USER,
  { flag: "old", env: "", default: "", multiple: true, metavar: "FILE", description: "live objects (kubectl get -o yaml); documents with the same kind, namespace and name are checked as UPDATEs" },
  {
    flag: "output",
    short: "o",
    env: "",
    default: "text",
    metavar: "FORMAT",
    description: "text (what kubectl prints), json (one document), junit (JUnit XML, one testcase per document) or github (GitHub Actions ::error and ::warning workflow commands)",
  },
  { flag: "print-defaulted", env: "", default: "false", boolean: true, description: "write the defaulted objects as YAML instead of kubectl's created lines" },
] as const satisfies readonly OptionSpec[];

const FEATURES_OUTPUT: OptionSpec = { flag: "output", short: "o", env: "", default: "text", metavar: "FORMAT", description: "text or json" };

/** `duckbill features` and `features explain`. */
export const FEATURES_OPTIONS = [
  CONFIG_DIR,
  { flag: "kubeconfig", env: "", default: "", metavar: "FILE", description: "read config-features, config-defaults and config-autoscaler from the cluster instead (credentials from this file only)" },
  SYSTEM_NAMESPACE,
  { flag: "namespace", short: "n", env: "", default: "", metavar: "NS", description: "show the flags as requests in this namespace see them: config-features-scopes turns a flag Disabled outside its scope (its labels: from the cluster with --kubeconfig, else --namespace-labels)" },
  NAMESPACE_LABELS,
  KNATIVE_VERSION,
  FEATURES_OUTPUT,
] as const satisfies readonly OptionSpec[];

/** `duckbill features impact`. */
export const IMPACT_OPTIONS = [
  { flag: "disable", env: "", default: "", metavar: "FLAG", description: "the config-features flag to turn to Disabled" },
  FILENAME,
  RECURSIVE,
  { flag: "kubeconfig", env: "", default: "", metavar: "FILE", description: "check the cluster's live Services and Configurations with its configuration, instead of manifests" },
  { flag: "namespace", short: "n", env: "", default: "", metavar: "NS", description: "manifests: the namespace of objects without one (default); cluster: only the objects of this namespace (all when empty)" },
  SYSTEM_NAMESPACE,
  CONFIG_DIR,
  KNATIVE_VERSION,
  USER,
  FEATURES_OUTPUT,
] as const satisfies readonly OptionSpec[];

/** `duckbill test`. */
export const TEST_OPTIONS = [
  { flag: "file-name", env: "", default: "duckbill-test.yaml", metavar: "NAME", description: "the test files looked for in each directory and below it" },
  { flag: "output", short: "o", env: "", default: "text", metavar: "FORMAT", description: "text (one line per case and a summary), json or junit (one testcase per case)" },
  { flag: "fail-only", env: "", default: "false", boolean: true, description: "print only the failed cases (and the summary)" },
] as const satisfies readonly OptionSpec[];

/** `duckbill version`. */
export const VERSION_OPTIONS = [{ flag: "output", short: "o", env: "", default: "text", metavar: "FORMAT", description: "text or json" }] as const satisfies readonly OptionSpec[];

/** The `help` option every command takes. */
export const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;
