/**
 * What `duckbill help` and each command's `--help` say: usage lines, what the command does, its exit codes, and its
 * options in groups (rendered by ./help.ts from the option lists the commands parse with).
 */
import { KNATIVE_VERSIONS } from "../config/profile.js";
import { ADMIT_OPTIONS, CHECK_OPTIONS, FEATURES_OPTIONS, IMPACT_OPTIONS, TEST_OPTIONS, VERSION_OPTIONS } from "./settings/command-options.js";
import { groupOptions, renderHelp, type HelpSpec } from "./help.js";
import { SERVE_OPTIONS, UPGRADE_CHECK_OPTIONS } from "./settings/options.js";

const RELEASES = KNATIVE_VERSIONS.join(", ");

/** The commands, as `duckbill help` lists them. */
export const COMMANDS: ReadonlyArray<readonly [name: string, summary: string]> = [
  ["serve", "run the HTTPS admission webhook (standalone, or in a cluster)"],
  ["admit", "answer one AdmissionReview read from stdin, or JSON lines of them with --batch"],
  ["check", "run manifests through defaulting and validation as kubectl apply and the API server would, and print what kubectl prints"],
  ["test", "run declarative test suites (duckbill-test.yaml): the expected answer for each object of a set of manifests"],
  ["features", "the config-features flags; explain a flag or a field; what disabling a flag would deny"],
  ["upgrade-check", "what upgrading Knative (--from 1.17 --to 1.24) changes for manifests, or a cluster's objects and ConfigMaps"],
  ["version", "the version, the commit it was built from, Node.js and the Knative releases it answers as"],
  ["help", "this text; \"duckbill help <command>\" is that command's --help"],
];

export const MAIN_HELP: HelpSpec = {
  usage: ["duckbill <command> [options]"],
  description: [
    "Duckbill answers Knative Serving's admission webhooks (/defaulting, /resource-validation, /config-validation) exactly as the Knative release's own webhook does.",
  ],
  groups: [{ title: "Commands", rows: COMMANDS }],
  footer: ['Run "duckbill <command> --help" (or -h) for a command\'s options. Every serve setting also has an environment variable; the README lists them all.'],
};

export const SERVE_HELP: HelpSpec = {
  usage: ["duckbill serve [options]"],
  description: [
    "Runs the HTTPS admission webhook. Standalone (no cluster credentials) it generates its certificates and uses Knative's default configuration; in a cluster it keeps its certificate Secret and the three webhook configurations current and follows Knative's ConfigMaps.",
    "Each setting is a flag or an environment variable; a flag beats the variable, which beats the default. Variables are Knative's own where Knative reads one, else DUCKBILL_ and the flag; earlier names still work, with a warning. Durations are Go durations (45s, 1m30s).",
  ],
  groups: groupOptions(SERVE_OPTIONS, [
    { title: "Listening and TLS", flags: ["port", "host", "http2", "tls-min-version", "tls-max-version", "tls-cipher-suites", "tls-curve-preferences", "client-ca", "tls-source", "cert-dir", "generated-cert-dir", "secret-name"] },
    { title: "Cluster", flags: ["kubeconfig", "system-namespace", "service-name", "knative-version", "reconcile-webhooks", "webhook-url", "disable-ha", "disable-namespace-ownership", "cluster-domain", "dry-run-timeout", "impact-warnings", "feature-scopes", "kube-api-qps", "kube-api-burst", "pod-name"] },
    { title: "Configuration", flags: ["config-source", "config-dir", "config-watchdog", "config-logging-name", "config-observability-name", "config-leader-election-name", "generational"] },
    { title: "Limits and timeouts", flags: ["request-timeout", "headers-timeout", "keep-alive-timeout", "drain-timeout", "max-connections", "max-buffered-bytes", "workers"] },
    { title: "Metrics and logging", flags: ["metrics-port", "metrics-host", "knative-metrics", "default-metrics-backend", "log-level", "log-format"] },
  ]),
  footer: ["On SIGTERM it fails its probes, keeps answering until no request arrived for --drain-timeout, then exits 0; a second signal exits at once."],
};

export const ADMIT_HELP: HelpSpec = {
  usage: ["duckbill admit [--path P] [--config-dir DIR] [--knative-version V] < review.json", "duckbill admit --batch [--config-dir DIR] < reviews.jsonl"],
  description: [
    "Answers an AdmissionReview read from stdin with the AdmissionReview the HTTPS server would send, on stdout. With --batch, each input line {name, path, configs?, contentType?, review} gets one output line {name, httpStatus, review} or {name, httpStatus, body}: the status code and body the server would answer.",
    "Exit status: 0 answered; 1 the server would not answer with a review (the HTTP status and body on stderr); 2 usage errors or unreadable batch lines.",
  ],
  groups: [{ title: "Options", options: ADMIT_OPTIONS }],
};

export const CHECK_HELP: HelpSpec = {
  usage: ["duckbill check [-f FILE|DIR|-]... [FILE...] [options]"],
  description: [
    'Runs every Knative object through the webhook\'s defaulting and validation exactly as the API server would for "kubectl apply" (CREATE, or UPDATE against --old), and prints what kubectl prints. Before the webhooks, fields the kind\'s CRD schema does not know are reported as the API server\'s strict decoding does (unknown field "metadata.spec"). Without --kubeconfig no cluster is involved.',
    "A file that cannot be read or parsed is reported (file, line and column) and the others are still checked.",
    "Exit status: 0 everything allowed; 1 something denied; 2 usage errors, no object at all in the paths given (a directory's subdirectories are read only with -R), or a manifest that could not be read (after checking all the others).",
  ],
  groups: groupOptions(CHECK_OPTIONS, [
    { title: "Input", flags: ["filename", "recursive", "namespace", "old", "user"] },
    { title: "Configuration", flags: ["config-dir", "kubeconfig", "system-namespace", "knative-version"] },
    { title: "Output", flags: ["output", "print-defaulted"] },
  ]),
};

export const FEATURES_HELP: HelpSpec = {
  usage: [
    "duckbill features [--config-dir DIR | --kubeconfig FILE [--system-namespace NS]] [-n NS [--namespace-labels K=V,...]] [-o text|json]",
    "duckbill features explain <flag | field> [--config-dir DIR | --kubeconfig FILE [--system-namespace NS]] [-n NS [--namespace-labels K=V,...]] [-o text|json]",
    "duckbill features impact --disable <flag> (-f FILE|DIR|- ... | --kubeconfig FILE) [options]",
  ],
  description: [
    "Without a subcommand: every config-features flag of the Knative release, with its state (in DIR, in the cluster, or Knative's defaults), its default, its type and what it gates; with config-features-scopes also each flag's scope (docs/feature-scopes.md), and with -n NS the state in that namespace beside the cluster-wide one.",
    "explain: what a flag gates and how to turn it on or off; or, for a field (spec.template.spec.affinity, volumes[*].nfs, or a bare name such as privileged), which flag gates it, or that Knative never allows it or allows only some values. A name that is neither a flag nor a field exits 2 with the closest ones.",
    'impact: which objects the webhook would start denying once the flag is Disabled: manifests, or the cluster\'s live Services and Configurations (see "duckbill features impact --help").',
    `--knative-version (env DUCKBILL_KNATIVE_VERSION) is the release whose flags apply: ${RELEASES}; auto is the cluster's with --kubeconfig, else ${KNATIVE_VERSIONS[0]}.`,
    "Exit status: 0; 2 usage errors, an unknown flag or field, or a cluster that cannot be read.",
  ],
  groups: [{ title: "Options", options: FEATURES_OPTIONS }],
};

export const IMPACT_HELP: HelpSpec = {
  usage: [
    "duckbill features impact --disable <flag> [-f FILE|DIR|-]... [FILE...] [-R] [--config-dir DIR] [-n NS] [-o text|json]",
    "duckbill features impact --disable <flag> --kubeconfig FILE [-n NS] [-o text|json]",
  ],
  description: [
    "Checks the objects twice, with the configuration as it is and with the flag Disabled, and lists those that would start being denied (with the gated fields they use and the denial), those that stay allowed but use the gated fields, and new warnings. With --kubeconfig the objects are the cluster's live Services and Configurations (all namespaces, or -n NS), each checked as the update its next kubectl apply would send.",
    "Exit status: 0 nothing would be denied; 1 something would; 2 usage errors, no object at all in the paths given, a manifest that could not be read (after checking all the others) or a cluster that cannot be read.",
  ],
  groups: [{ title: "Options", options: IMPACT_OPTIONS }],
};

export const UPGRADE_CHECK_HELP: HelpSpec = {
  usage: [
    "duckbill upgrade-check --to 1.24 --from 1.17 [-f FILE|DIR|-]... [FILE...] [-R] [--config-dir DIR] [-o text|json]",
    "duckbill upgrade-check --to 1.24 [--from auto] --kubeconfig FILE [-n NS] [-f FILE|DIR|-]... [-o text|json]",
  ],
  description: [
    "Answers every Knative object (the manifests, or the cluster's Services, Configurations, Routes and DomainMappings) as the webhook of the release running now (--from) and of the release to upgrade to (--to), and reports per object what changes: allowed now and denied after the upgrade (with the new message), denied now and allowed after, defaults that change (as a JSON patch), warnings that change, each with the profile field that causes it. Each object is checked as a create of its manifest and as the next update of the object as stored. Knative's ConfigMaps (from the cluster, --config-dir or the manifests) are checked by /config-validation of both releases, with the keys the upgrade makes ignored, read or read differently.",
    "--from auto (the default) is the release the cluster runs and needs --kubeconfig; manifests alone need --from.",
    "Exit status: 0 nothing breaks; 1 something breaks (an object or a ConfigMap allowed now and denied after the upgrade); 2 usage errors, no object at all in the paths given, a manifest that could not be read (after checking all the others), or a cluster that cannot be read.",
  ],
  groups: groupOptions(UPGRADE_CHECK_OPTIONS, [
    { title: "Releases", flags: ["from", "to"] },
    { title: "Input", flags: ["filename", "recursive", "namespace", "user"] },
    { title: "Configuration and cluster", flags: ["kubeconfig", "system-namespace", "config-dir"] },
    { title: "Output", flags: ["output"] },
  ]),
};

export const TEST_HELP: HelpSpec = {
  usage: ["duckbill test [DIR]... [--file-name NAME] [-o text|json|junit] [--fail-only]"],
  description: [
    "Runs declarative test suites, as kyverno test does for policies: each test file (duckbill-test.yaml, in DIR or below it; default the current directory) names manifests, optionally a configuration directory and a Knative release, and the expected result per object: allowed or denied, a message substring, warnings, and fields the defaulted object must hold or the JSON Patch the mutating webhook must answer. Each object goes through the same pipeline as duckbill check. docs/cli.md describes the file.",
    "Exit status: 0 every case passed; 1 a case failed; 2 usage errors, or a test file or manifest that cannot be read.",
  ],
  groups: [{ title: "Options", options: TEST_OPTIONS }],
};

export const VERSION_HELP: HelpSpec = {
  usage: ["duckbill version [-o text|json]"],
  description: ["Prints the package version, the git commit it was built from (unknown when built outside a git checkout), the Node.js version it runs on and the Knative releases it answers as (--knative-version), the default first."],
  groups: [{ title: "Options", options: VERSION_OPTIONS }],
};

/** Each command's help, by name (`help` is the main text). */
export const HELP_BY_COMMAND: Readonly<Record<string, HelpSpec>> = {
  serve: SERVE_HELP,
  admit: ADMIT_HELP,
  check: CHECK_HELP,
  test: TEST_HELP,
  features: FEATURES_HELP,
  "upgrade-check": UPGRADE_CHECK_HELP,
  version: VERSION_HELP,
  help: MAIN_HELP,
};

/** The help text of a command (the main text for `help` and unknown names). */
export function helpText(command: string): string {
  return renderHelp(HELP_BY_COMMAND[command] ?? MAIN_HELP);
}
