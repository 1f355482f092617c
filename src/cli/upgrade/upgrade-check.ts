/**
 * `duckbill upgrade-check`: what upgrading Knative from one release to another changes for the objects
 * and ConfigMaps at hand. Every Knative object (from manifests, or listed from a cluster) is answered by the webhook
 * as both releases, through the same in-process pipeline as `duckbill check`: a create of its manifest, and an
 * update of the object as stored (old = new), which is what its next update or reconcile goes through. Knative's
 * ConfigMaps (from the cluster, --config-dir or the manifests) go through /config-validation as both releases, and
 * their keys are read against both profiles (upgrade-configmaps.ts).
 */
import type { NamespaceLabelsView } from "../../config/feature-scopes.js";
import type { AdmissionDeps } from "../../admission/deps.js";
import { isKnativeVersion, KNATIVE_VERSIONS, knativeProfile, PROFILES, type KnativeProfile } from "../../config/profile.js";
import { ADMISSION_CONFIGMAPS, snapshotFrom, withProfile, type ConfigSnapshot } from "../../config/snapshot.js";
import type { ConfigData } from "../../config/types.js";
import { checkDocument, checkUnchangedUpdate, storedObject, type CheckOptions, type CheckResult, type DocumentIdentity } from "../check/check.js";
import { defaultDeps } from "../deps.js";
import { detectKnativeVersion, profileVersionOf, type DetectKnativeVersion } from "../cluster/detect-version.js";
import { clusterCall, exitOnError, loadConfig, parseOrUsage, PROCESS_IO, UsageError, warnDeprecated, type CliIO } from "../io.js";
import { controlledByService, nextApplyOf } from "../cluster/live-objects.js";
import { type ManifestDocument, type ManifestError, readManifestPaths } from "../kubectl/manifests.js";
import { renderHelp } from "../help.js";
import { parseArgsOptions, settingOf, UPGRADE_CHECK_OPTIONS, type Environment } from "../settings/options.js";
import { UpgradeComparer, type Comparison } from "./upgrade-compare.js";
import { configMapNotes } from "./upgrade-configmaps.js";
import { UPGRADE_CHECK_HELP } from "../usage.js";
import { breaks, configMapCategory, formatJson, formatText, objectCategory, type ConfigMapReport, type ObjectReport, type SkippedDocument, type UpgradeReport } from "./upgrade-report.js";

/** The one seam: how `--from auto` learns the cluster's release (src/kube's detector, passed in). */
export interface UpgradeCheckDeps {
  readonly detectKnativeVersion: DetectKnativeVersion;
}

const DEFAULT_DEPS: UpgradeCheckDeps = { detectKnativeVersion };

/** The kinds listed from a cluster: what users create. Revisions are immutable (on UPDATE only that is checked). */
const CLUSTER_KINDS = [
  { group: "serving.knative.dev", version: "v1", kind: "Service", plural: "services" },
  { group: "serving.knative.dev", version: "v1", kind: "Configuration", plural: "configurations" },
  { group: "serving.knative.dev", version: "v1", kind: "Route", plural: "routes" },
  { group: "serving.knative.dev", version: "v1beta1", kind: "DomainMapping", plural: "domainmappings" },
] as const;

const RELEASES = KNATIVE_VERSIONS.join(", ");

function sameRelease(version: string): string {
  return `--from and --to are the same release (${version}): nothing changes`;
}

interface Args {
  readonly help: boolean;
  readonly to: KnativeProfile;
  /** A release, or "auto". */
  readonly from: string;
  readonly files: readonly string[];
  readonly recursive: boolean;
  readonly kubeconfig?: string;
  readonly namespace?: string;
  readonly systemNamespace: string;
  readonly configDir?: string;
  readonly user: string;
  readonly output: "text" | "json";
}

function parseUpgradeArgs(argv: string[], env: Environment): Args {
  const parsed = parseOrUsage(argv, parseArgsOptions(UPGRADE_CHECK_OPTIONS));
  const v = parsed.values as Record<string, unknown>;
  const setting = (flag: string): string => settingOf(UPGRADE_CHECK_OPTIONS, flag, v, env);
  const help = v.help === true;
  const files = [...((v.filename as string[] | undefined) ?? []), ...parsed.positionals];
  const kubeconfig = v.kubeconfig as string | undefined;
  const configDir = setting("config-dir");
  const output = setting("output");
  const from = setting("from");
  const toVersion = setting("to");
  if (!isKnativeVersion(toVersion)) throw new UsageError(`--to must be one of ${RELEASES}, got "${toVersion}"`);
  const to = PROFILES[toVersion];
  if (!help) {
    if (kubeconfig === "") throw new UsageError("--kubeconfig needs a file");
    if (kubeconfig !== undefined && configDir !== "") throw new UsageError("--kubeconfig and --config-dir are alternatives: give one of them");
    if (kubeconfig === undefined && files.length === 0) throw new UsageError("upgrade-check needs manifests (-f FILE|DIR|- or files as arguments) or --kubeconfig FILE for the cluster's objects");
    if (from === "auto" && kubeconfig === undefined) throw new UsageError(`--from auto is the release the cluster runs and needs --kubeconfig; for manifests, name the release running now (--from ${RELEASES})`);
    if (from !== "auto" && !isKnativeVersion(from)) throw new UsageError(`--from must be auto or one of ${RELEASES}, got "${from}"`);
    if (from === to.version) throw new UsageError(sameRelease(from));
    if (output !== "text" && output !== "json") throw new UsageError(`--output must be text or json, got "${output}"`);
  }
  const namespace = setting("namespace");
  return {
    help,
    to,
    from,
    files,
    recursive: v.recursive === true,
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    ...(namespace === "" ? {} : { namespace }),
    systemNamespace: setting("system-namespace"),
    ...(configDir === "" ? {} : { configDir }),
    user: setting("user"),
    output: output as "text" | "json",
  };
}

/** A ConfigMap document as /config-validation sees it: what matters is its name, annotations and data. */
function configMapDocument(source: string, namespace: string, name: string, data: ConfigData, annotations: Readonly<Record<string, string>> = {}): ManifestDocument {
  return { source, line: 0, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, annotations: { ...annotations } }, data: { ...data } } };
}

/** Where the objects, the configuration and the ConfigMaps come from. */
interface Inputs {
  readonly fromVersion: string;
  readonly fromSource: "given" | "cluster";
  readonly config: ConfigSnapshot;
  /** Documents to check: manifests, or live objects. */
  readonly documents: readonly ManifestDocument[];
  readonly live: boolean;
  /** Knative's ConfigMaps as configuration (cluster or --config-dir), checked whatever their labels. */
  readonly configMaps: readonly ManifestDocument[];
  /** Manifests that could not be read (the others are checked). */
  readonly unreadable: readonly ManifestError[];
  /** The cluster's namespace labels, for config-features-scopes (with --kubeconfig). */
  readonly namespaces?: NamespaceLabelsView;
}

async function readInputs(args: Args, deps: UpgradeCheckDeps, admission: AdmissionDeps, io: CliIO): Promise<Inputs> {
  const read = args.files.length === 0 ? undefined : await readManifestPaths(args.files, args.recursive, io.readStdin, "upgrade-check");
  const manifests = read?.docs;
  const unreadable = read?.unreadable ?? [];
  const names = [...new Set([...ADMISSION_CONFIGMAPS, ...admission.configMaps.names()])];
  if (args.kubeconfig === undefined) {
    const fromProfile = knativeProfile(args.from);
    const config = await loadConfig(args.configDir, fromProfile.version);
    const configMaps = names.filter((n) => config.data.has(n)).map((n) => configMapDocument(config.source, args.systemNamespace, n, config.data.get(n) ?? {}));
    return { fromVersion: fromProfile.version, fromSource: "given", config, documents: manifests ?? [], live: false, configMaps, unreadable };
  }
  const kubeconfig = args.kubeconfig;
  const cluster = await import("../cluster/features-cluster.js");
  const { kubeConfig } = clusterCall(() => cluster.connect(kubeconfig));
  let fromVersion = args.from;
  if (fromVersion === "auto") {
    fromVersion = await clusterCall(async () => profileVersionOf(await deps.detectKnativeVersion(kubeConfig, args.systemNamespace)));
    if (fromVersion === args.to.version) throw new UsageError(`the cluster runs Knative ${fromVersion}; ${sameRelease(fromVersion)}`);
  }
  const live = await clusterCall(() => cluster.readConfigMaps(kubeConfig, args.systemNamespace, names));
  const source = `cluster:${args.systemNamespace}`;
  const config = snapshotFrom(cluster.configMapData(live), source, knativeProfile(fromVersion));
  const configMaps = [...live].map(([name, cm]) => configMapDocument(source, args.systemNamespace, name, cm.data ?? {}, cm.metadata?.annotations));
  const namespaces = cluster.clusterNamespaceLabels(kubeConfig);
  if (manifests !== undefined) return { fromVersion, fromSource: args.from === "auto" ? "cluster" : "given", config, documents: manifests, live: false, configMaps, unreadable, namespaces };
  const objects = (await clusterCall(() => cluster.listServingObjects(kubeConfig, args.namespace, undefined, CLUSTER_KINDS, true))).filter((o) => !controlledByService(o));
  return { fromVersion, fromSource: args.from === "auto" ? "cluster" : "given", config, documents: objects.map((object) => ({ source: "cluster", line: 0, object })), live: true, configMaps, unreadable, namespaces };
}

function identityOf(r: CheckResult): DocumentIdentity {
  return { source: r.source, line: r.line, apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name };
}

function isConfigMap(doc: ManifestDocument): boolean {
  return doc.object.apiVersion === "v1" && doc.object.kind === "ConfigMap";
}

function dataOf(doc: ManifestDocument): ConfigData {
  const d = doc.object.data;
  if (typeof d !== "object" || d === null || Array.isArray(d)) return {};
  return Object.fromEntries(Object.entries(d as Record<string, unknown>).filter(([, v]) => typeof v === "string")) as ConfigData;
}

/** Runs the comparisons and gathers the report. */
async function buildReport(args: Args, inputs: Inputs, admission: AdmissionDeps): Promise<UpgradeReport> {
  const from = inputs.config;
  const to = withProfile(from, args.to);
  const comparer = new UpgradeComparer(from, to);
  const base = { deps: admission, namespace: args.namespace ?? "default", user: args.user, ...(inputs.namespaces === undefined ? {} : { namespaces: inputs.namespaces }) };
  const opts = (config: ConfigSnapshot, extra: Partial<CheckOptions> = {}): CheckOptions => ({ ...base, config, ...extra });
  const objects: ObjectReport[] = [];
  const configMaps: ConfigMapReport[] = [];
  const skipped: SkippedDocument[] = [];

  const addConfigMap = async (doc: ManifestDocument, extra: Partial<CheckOptions>): Promise<void> => {
    const { from: r, comparison } = await comparer.compare("validation", (config) => checkDocument(doc, opts(config, extra)));
    if (comparison === undefined) {
      skipped.push({ ...identityOf(r), note: r.note ?? "" });
      return;
    }
    const notes = configMapNotes(r.name, dataOf(doc), from.profile, to.profile);
    configMaps.push({ ...identityOf(r), category: configMapCategory(comparison, notes), validation: comparison, notes });
  };

  for (const doc of inputs.configMaps) await addConfigMap(doc, { ignoreConfigMapSelector: true });
  for (const doc of inputs.documents) {
    if (isConfigMap(doc)) {
      await addConfigMap(doc, {});
      continue;
    }
    // A live object is created from the manifest its owner applies; a manifest is applied as it is.
    const manifest = inputs.live ? { ...doc, object: nextApplyOf(doc.object) } : doc;
    const create = await comparer.compare("create", (config) => checkDocument(manifest, opts(config)));
    if (create.comparison === undefined) {
      skipped.push({ ...identityOf(create.from), note: create.from.note ?? "" });
      continue;
    }
    const checks: Comparison[] = [create.comparison];
    // The stored object: the live one, or what the older release stores for the manifest (when it allows it).
    const stored = inputs.live ? doc.object : create.from.defaulted === undefined ? undefined : storedObject(create.from.defaulted);
    if (stored !== undefined) {
      const update = await comparer.compare("update", (config) => checkUnchangedUpdate({ ...doc, object: stored }, opts(config)));
      if (update.comparison !== undefined) checks.push(update.comparison);
    }
    objects.push({ ...identityOf(create.from), category: objectCategory(checks), checks });
  }
  return {
    from: inputs.fromVersion,
    to: args.to.version,
    fromSource: inputs.fromSource,
    objectsFrom: inputs.live ? "cluster" : "manifests",
    configuration: from.source,
    objects,
    configMaps,
    skipped,
    errors: inputs.unreadable.map((e) => ({ source: e.source, line: e.line, column: e.column, message: e.reason })),
  };
}

/** `duckbill upgrade-check`: returns the exit code. */
export async function runUpgradeCheck(argv: string[], io: CliIO = PROCESS_IO, deps: UpgradeCheckDeps = DEFAULT_DEPS, env: Environment = {}): Promise<number> {
  try {
    const args = parseUpgradeArgs(argv, env);
    warnDeprecated("upgrade-check", UPGRADE_CHECK_OPTIONS, env, io);
    if (args.help) {
      io.write(renderHelp(UPGRADE_CHECK_HELP));
      return 0;
    }
    const admission = defaultDeps();
    const inputs = await readInputs(args, deps, admission, io);
    const report = await buildReport(args, inputs, admission);
    if (args.output === "json") {
      io.write(formatJson(report));
    } else {
      const { stdout, stderr } = formatText(report);
      io.write(stdout);
      if (stderr !== "") io.error(stderr);
    }
    return report.errors.length > 0 ? 2 : breaks(report) ? 1 : 0;
  } catch (e) {
    return exitOnError("upgrade-check", e, io);
  }
}
