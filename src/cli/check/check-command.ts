/**
 * `duckbill check`'s command line: reads the manifests (going on past those that cannot be read), the configuration
 * (`--config-dir`, a cluster's with `--kubeconfig`, or Knative's defaults) and `--old`, checks every document
 * (./check.ts) and writes the chosen output format (./check-output.ts).
 */
import type { NamespaceLabelsView } from "../../config/feature-scopes.js";
import { fixedNamespaceLabels, parseNamespaceLabels } from "../feature-scopes.js";
import type { KubeConfig } from "@kubernetes/client-node";
import type { AdmissionDeps } from "../../admission/deps.js";
import type { ConfigSnapshot } from "../../config/snapshot.js";
import { checkDocuments, liveRefsOf, readOldObjects, type CheckOptions } from "./check.js";
import { exitCodeOf, formatGithub, formatJson, formatJunit, formatText, OUTPUT_FORMATS, type CheckRun, type OutputFormat } from "./check-output.js";
import { CHECK_OPTIONS } from "../settings/command-options.js";
import { CRD_SCHEMAS } from "./crd-schemas.js";
import type { LiveRef } from "../cluster/features-cluster.js";
import { defaultDeps } from "../deps.js";
import { renderHelp } from "../help.js";
import { clusterCall, exitOnError, loadConfig, parseOrUsage, PROCESS_IO, UsageError, warnDeprecated, type CliIO } from "../io.js";
import { expandManifestPaths, readManifestPaths, readManifests, type ManifestDocument } from "../kubectl/manifests.js";
import { parseArgsOptions, settingOf, type Environment } from "../settings/options.js";
import type { StructuralSchema } from "../kubectl/strict-decoding.js";
import { CHECK_HELP } from "../usage.js";

interface CheckArgs {
  readonly help: boolean;
  readonly files: readonly string[];
  readonly recursive: boolean;
  readonly namespace: string;
  readonly configDir: string;
  readonly kubeconfig?: string;
  readonly systemNamespace: string;
  /** `--knative-version` as resolved (flag, else DUCKBILL_KNATIVE_VERSION, else auto). */
  readonly knativeVersion: string;
  readonly user: string;
  readonly old: readonly string[];
  /** `--namespace-labels`: the labels of --namespace, for config-features-scopes (without --kubeconfig). */
  readonly namespaceLabels?: string;
  readonly output: OutputFormat;
  readonly printDefaulted: boolean;
}

function isOutputFormat(v: string): v is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(v);
}

function parseCheckArgs(argv: string[], env: Environment): CheckArgs {
  const parsed = parseOrUsage(argv, parseArgsOptions(CHECK_OPTIONS));
  const v = parsed.values;
  const setting = (flag: string): string => settingOf(CHECK_OPTIONS, flag, v, env);
  const help = v.help === true;
  const files = [...((v.filename as string[] | undefined) ?? []), ...parsed.positionals];
  const output = setting("output");
  const kubeconfig = v.kubeconfig as string | undefined;
  if (!help) {
    if (!isOutputFormat(output)) throw new UsageError(`--output must be ${OUTPUT_FORMATS.join(", ")}, got "${output}"`);
    if (files.length === 0) throw new UsageError("no manifests given: use -f FILE|DIR|- or name files as arguments");
    if (v.namespace === "") throw new UsageError("--namespace must not be empty");
    if (kubeconfig === "") throw new UsageError("--kubeconfig needs a file");
    if (kubeconfig !== undefined && setting("config-dir") !== "") throw new UsageError("--kubeconfig and --config-dir are alternatives: give one of them");
    if (kubeconfig !== undefined && typeof v["namespace-labels"] === "string") throw new UsageError("--namespace-labels is for use without --kubeconfig: the cluster has the namespaces' labels");
  }
  return {
    help,
    files,
    recursive: v.recursive === true,
    namespace: setting("namespace"),
    configDir: setting("config-dir"),
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    systemNamespace: setting("system-namespace"),
    knativeVersion: setting("knative-version"),
    user: setting("user"),
    old: (v.old as string[] | undefined) ?? [],
    ...(typeof v["namespace-labels"] === "string" ? { namespaceLabels: v["namespace-labels"] } : {}),
    output: output as OutputFormat,
    printDefaulted: v["print-defaulted"] === true,
  };
}

/** The kinds whose CRDs strict decoding follows: those Duckbill has schemas for, with the registry's plurals. */
function crdKinds(deps: AdmissionDeps): Array<{ group: string; version: string; kind: string; plural: string }> {
  return Object.keys(CRD_SCHEMAS).flatMap((key) => {
    const [group = "", version = "", kind = ""] = key.split("/");
    const rules = deps.kinds.lookup({ group, version, kind });
    return rules === undefined ? [] : [{ group, version, kind, plural: rules.plural }];
  });
}

/** The cluster `--kubeconfig` names, connected once: the module that reads it and its credentials. */
interface Cluster {
  readonly api: typeof import("../cluster/features-cluster.js");
  readonly kubeConfig: KubeConfig;
}

/**
 * The configuration and CRD schemas: a cluster's with --kubeconfig (notes on stderr; the cluster is returned for
 * reading the live objects too), else --config-dir or the defaults.
 */
async function judgeAs(args: CheckArgs, deps: AdmissionDeps, io: CliIO): Promise<{ config: ConfigSnapshot; schemas?: ReadonlyMap<string, StructuralSchema>; cluster?: Cluster; namespaces?: NamespaceLabelsView }> {
  const kubeconfig = args.kubeconfig;
  if (kubeconfig === undefined) {
    const config = await loadConfig(args.configDir, args.knativeVersion);
    return { config, ...(args.namespaceLabels === undefined ? {} : { namespaces: fixedNamespaceLabels(args.namespace, parseNamespaceLabels(args.namespaceLabels)) }) };
  }
  const cluster = await import("../cluster/features-cluster.js");
  const { kubeConfig } = clusterCall(() => cluster.connect(kubeconfig));
  const { profile, note } = await clusterCall(() => cluster.clusterProfile(kubeConfig, args.systemNamespace, args.knativeVersion));
  if (note !== undefined) io.error(`note: ${note}\n`);
  const config = await clusterCall(() => cluster.readAdmissionConfig(kubeConfig, args.systemNamespace, profile));
  const { schemas, notes } = await clusterCall(() => cluster.readCrdSchemas(kubeConfig, crdKinds(deps)));
  for (const n of notes) io.error(`note: ${n}; strict decoding follows Duckbill's CRD (manifests/crds) instead\n`);
  return { config, schemas, cluster: { api: cluster, kubeConfig }, namespaces: cluster.clusterNamespaceLabels(kubeConfig) };
}

/** The live objects at `refs` as documents of the `--old` kind (notes on stderr). */
async function liveObjects(cluster: Cluster, refs: readonly LiveRef[], io: CliIO): Promise<ManifestDocument[]> {
  if (refs.length === 0) return [];
  const { objects, notes } = await clusterCall(() => cluster.api.readLiveObjects(cluster.kubeConfig, refs));
  for (const n of notes) io.error(`note: ${n}\n`);
  return objects.map((object) => ({ source: "cluster", line: 1, object }));
}

function write(run: CheckRun, args: CheckArgs, io: CliIO): void {
  switch (args.output) {
    case "json":
      io.write(formatJson(run, args.printDefaulted));
      return;
    case "junit":
      io.write(formatJunit(run));
      return;
    case "github":
      io.write(formatGithub(run));
      return;
    case "text": {
      const { stdout, stderr } = formatText(run, args.printDefaulted);
      if (stdout !== "") io.write(stdout);
      if (stderr !== "") io.error(stderr);
    }
  }
}

/** `duckbill check`: returns the exit code. */
export async function runCheck(argv: string[], io: CliIO = PROCESS_IO, deps?: AdmissionDeps, env: Environment = {}): Promise<number> {
  try {
    const args = parseCheckArgs(argv, env);
    warnDeprecated("check", CHECK_OPTIONS, env, io);
    if (args.help) {
      io.write(renderHelp(CHECK_HELP));
      return 0;
    }
    const admissionDeps = deps ?? defaultDeps();
    const { config, schemas, cluster, namespaces } = await judgeAs(args, admissionDeps, io);
    const opts: CheckOptions = { deps: admissionDeps, config, namespace: args.namespace, user: args.user, ...(schemas === undefined ? {} : { schemas }), ...(namespaces === undefined ? {} : { namespaces }) };
    // A path that does not exist is reported like a file that cannot be read; the other paths are still checked.
    const { docs, unreadable } = await readManifestPaths(args.files, args.recursive, io.readStdin, "check");
    // --old must be read in full: a live object missing would turn an update into a create. Without --old,
    // --kubeconfig reads the live objects of the manifests: an object that exists is checked as an update of it.
    const oldDocs = args.old.length > 0 ? await readManifests(await expandManifestPaths(args.old, args.recursive), io.readStdin) : cluster === undefined ? [] : await liveObjects(cluster, liveRefsOf(docs, opts), io);
    const old = oldDocs.length === 0 ? undefined : await readOldObjects(oldDocs, opts);
    const results = await checkDocuments(docs, { ...opts, old });
    const run: CheckRun = { results, unreadable };
    write(run, args, io);
    return exitCodeOf(run);
  } catch (e) {
    return exitOnError("check", e, io);
  }
}
