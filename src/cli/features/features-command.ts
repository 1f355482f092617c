/**
 * `duckbill features`: the `config-features` flags with their state, default, type and what they
 * gate; `features explain <flag | field path>`; and `features impact --disable <flag> -f ...`, which checks
 * manifests with the flag as configured and with it Disabled and reports what would start being denied.
 * The configuration comes from `--config-dir`, from a cluster with `--kubeconfig` (config-features,
 * config-defaults, config-autoscaler and config-features-scopes read from SYSTEM_NAMESPACE; a missing ConfigMap means
 * Knative's defaults), or is Knative's defaults. With config-features-scopes the list shows each flag's scope, and
 * `--namespace N` shows (and explains) the flags as requests in N see them (./scopes.ts). `impact --kubeconfig` checks the cluster's live Services and Configurations instead of
 * manifests. The cluster code (and @kubernetes/client-node) lives in ./features-cluster.js, loaded on demand.
 */
import type { AdmissionDeps, NamespaceLabelsView } from "../../admission/deps.js";
import { DEFAULT_FEATURES, FEATURES_CONFIG_NAME, flagValues, parseFlagOf } from "../../config/features.js";
import { snapshotFrom, type ConfigSnapshot } from "../../config/snapshot.js";
import type { Flag } from "../../config/types.js";
import { FEATURE_GATES, featureGate, featureGatesOf, gatedFieldsUsed, type FeatureGate } from "../../serving/feature-gates.js";
import { podSpecOf } from "../../duck/podspecable.js";
import { checkDocuments, DEFAULT_USER, readOldObjects, type CheckResult } from "../check/check.js";
import { FEATURES_OPTIONS, IMPACT_OPTIONS } from "../settings/command-options.js";
import { defaultDeps } from "../deps.js";
import { explainFieldEntry, formatFieldExplanation, knownSubjects, resolveFields } from "./field-explain.js";
import { inNamespace, parseNamespaceLabels, scopeCell, scopeJson, withoutScopes, type NamespaceScopes } from "../feature-scopes.js";
import { renderHelp, wantsHelp } from "../help.js";
import { clusterCall, exitOnError, loadConfig, parseOrUsage, PROCESS_IO, UsageError, warnDeprecated, type CliIO } from "../io.js";
import { deniedBy } from "../kubectl/kubectl-apply.js";
import { controlledByService, liveName, nextApplyOf } from "../cluster/live-objects.js";
import { readManifestPaths, type ManifestDocument, type ManifestError } from "../kubectl/manifests.js";
import { parseArgsOptions, settingOf, type Environment } from "../settings/options.js";
import { closest, orList } from "../suggest.js";
import { FEATURES_HELP, IMPACT_HELP } from "../usage.js";

const ENABLE_HINT = (key: string, value: string): string =>
  `kubectl patch configmap/config-features -n knative-serving --type merge -p '{"data":{"${key}":"${value}"}}'`;

const CHECK_TEXT: Record<FeatureGate["check"], string> = {
  mask: 'The webhook allows the fields unless the flag is Disabled ("Allowed" works like "Enabled").',
  enabled: 'Only "Enabled" permits them ("Allowed" works like "Disabled").',
  "mask+enabled": 'Only "Enabled" permits them: with "Allowed" the webhook still denies with the message below; with "Disabled" it also reports the fields as not allowed.',
  defaults: "It changes what defaulting adds and never denies a request by itself.",
  "dry-run": 'Enabled dry-runs every pod spec against the API server; Allowed only for Services annotated features.knative.dev/podspec-dryrun: enabled. The dry run needs a cluster: "duckbill check" does not perform it.',
  controller: "Knative's controllers read it; the webhook does not.",
};

/** The flag's value as Knative parses it from the snapshot. */
function stateOf(config: ConfigSnapshot, gate: FeatureGate): Flag {
  return config.admission.features[gate.field];
}

/** Keys and values in config-features that Knative ignores, for the notes under the table. */
function ignoredSettings(config: ConfigSnapshot): string[] {
  const data = config.data.get(FEATURES_CONFIG_NAME);
  if (data === undefined) return [];
  const notes: string[] = [];
  for (const key of Object.keys(data).sort()) {
    if (key === "_example") continue;
    const value = data[key] ?? "";
    if (featureGate(key, config.profile) === undefined) notes.push(`note: config-features key "${key}" is not a Knative ${config.profile.version} flag; it is ignored`);
    else if (parseFlagOf(key, value, config.profile) === undefined) notes.push(`note: config-features "${key}": "${value}" is not ${orList(flagValues(key, config.profile))}; Knative ignores it and keeps the default`);
  }
  return notes;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

/**
 * The table. With config-features-scopes a SCOPE column; with `--namespace` STATE is the namespace's and
 * CLUSTER-WIDE config-features'. Without either, Knative's flags alone, as always.
 */
function formatList(config: ConfigSnapshot, ns?: NamespaceScopes): string {
  const scoped = config.featureScopes.size > 0;
  const rows = featureGatesOf(config.profile).map((g) => [
    g.key,
    stateOf(ns?.config ?? config, g),
    ...(scoped && ns !== undefined ? [stateOf(config, g)] : []),
    DEFAULT_FEATURES[g.field],
    g.type,
    ...(scoped ? [scopeCell(config, g.key, ns)] : []),
    g.gates,
  ]);
  const header = ["FLAG", "STATE", ...(scoped && ns !== undefined ? ["CLUSTER-WIDE"] : []), "DEFAULT", "TYPE", ...(scoped ? ["SCOPE"] : []), "GATES"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i] ?? 0))).join("  ") + "\n";
  let out = line(header);
  for (const r of rows) out += line(r);
  return out;
}

function listJson(config: ConfigSnapshot, ns?: NamespaceScopes): string {
  const flags = featureGatesOf(config.profile).map((g) => ({
    flag: g.key,
    state: stateOf(ns?.config ?? config, g),
    ...(ns === undefined ? {} : { clusterState: stateOf(config, g) }),
    ...(config.featureScopes.has(g.key) ? { scope: scopeJson(config, g.key, ns) } : {}),
    default: DEFAULT_FEATURES[g.field],
    type: g.type,
    check: g.check,
    gates: g.gates,
    fields: g.fields.map((f) => `spec.template.spec.${f}`),
  }));
  const where = ns === undefined ? {} : { namespace: ns.namespace, ...(ns.labels === undefined ? {} : { namespaceLabels: Object.fromEntries(ns.labels) }) };
  return JSON.stringify({ source: config.source, ...where, flags, notes: ignoredSettings(config) }, null, 2) + "\n";
}

/** `features explain <flag>`: everything about one flag (with `ns`, also its state in that namespace). */
export function explainFlag(gate: FeatureGate, config: ConfigSnapshot, ns?: NamespaceScopes): string {
  const state = stateOf(config, gate);
  let out = `${gate.key}: ${gate.type}, default ${DEFAULT_FEATURES[gate.field]}, currently ${state} (${config.source})\n`;
  const scope = config.featureScopes.get(gate.key);
  if (scope !== undefined) out += `  Scope (config-features-scopes): ${scopeCell(config, gate.key)}; Disabled in every other namespace.\n`;
  if (ns !== undefined) {
    const here = stateOf(ns.config, gate);
    const why = scope === undefined ? "no scope" : here === state ? "inside its scope" : "outside its scope";
    out += `  In namespace ${ns.namespace}: ${here} (${why}${why === "outside its scope" && ns.labels === undefined && scope !== undefined && scope.selector.size > 0 ? "; the namespace's labels are unknown" : ""}).\n`;
  }
  out += `  Gates ${gate.gates}.\n`;
  if (gate.fields.length > 0) {
    out += `  Fields: ${gate.fields.map((f) => `spec.template.spec.${f}`).join(", ")}\n`;
    out += "          (in a Revision: spec.<field>)\n";
  }
  out += `  ${CHECK_TEXT[gate.check]}\n`;
  if (gate.denial !== undefined) out += `  When not permitted: ${gate.denial}\n`;
  if (state !== "Enabled") out += `  To enable: ${ENABLE_HINT(gate.key, "enabled")}\n`;
  else out += `  To disable: ${ENABLE_HINT(gate.key, "disabled")}\n`;
  return out;
}

/** What the table cannot say about a namespace: that nothing scopes a flag, or that its labels are unknown. */
function scopeNotes(config: ConfigSnapshot, ns: NamespaceScopes | undefined): string[] {
  if (ns === undefined) return [];
  if (config.featureScopes.size === 0) return [`note: no config-features-scopes in ${config.source}: namespace ${ns.namespace} has the cluster-wide flags`];
  if (ns.labels === undefined && [...config.featureScopes.values()].some((s) => s.selector.size > 0)) {
    return [`note: the labels of namespace ${ns.namespace} are unknown (${config.source.startsWith("cluster:") ? "it does not exist" : "give --namespace-labels"}): only scopes that name it take it in`];
  }
  return [];
}

/** Fields a bare name may stand for before explain asks for a path instead. */
const MAX_FIELDS_PER_NAME = 6;

/** "A, B or C". */
function didYouMean(subject: string): string {
  const near = closest(subject, knownSubjects());
  return near.length === 0 ? "" : `; did you mean ${orList(near)}?`;
}

/** `features explain <subject>` for a field: each field it names, with the flags that gate any of them. */
async function explainFields(subject: string, config: ConfigSnapshot, deps: AdmissionDeps, output: "text" | "json", io: CliIO, ns?: NamespaceScopes): Promise<void> {
  const fields = resolveFields(subject);
  if (fields.length === 0) {
    throw new UsageError(`"${subject}" is neither a config-features flag of Knative ${config.profile.version} nor a field of a Service${didYouMean(subject)}`);
  }
  if (fields.length > MAX_FIELDS_PER_NAME) {
    throw new UsageError(`"${subject}" names ${fields.length} fields; name one by its path, e.g. ${fields.slice(0, 3).map((f) => f.path).join(", ")}`);
  }
  const explained = [];
  // The probes answer as in the namespace (its narrowed flags), or with the cluster-wide flags.
  const probed = ns?.config ?? withoutScopes(config);
  for (const f of fields) explained.push(await explainFieldEntry(f, probed, deps));
  const gates = [...new Set(explained.flatMap((e) => e.gates))];
  if (output === "json") {
    const flag = (g: FeatureGate): Record<string, unknown> => flagJson(g, config, ns);
    const json = { subject, ...(ns === undefined ? {} : { namespace: ns.namespace }), fields: explained.map((e) => ({ ...e, gates: e.gates.map((g) => g.key) })), gates: gates.map(flag) };
    io.write(JSON.stringify(json, null, 2) + "\n");
    return;
  }
  const source = ns === undefined ? config.source : `${config.source}, namespace ${ns.namespace}`;
  io.write([...explained.map((e) => formatFieldExplanation(e, source)), ...gates.map((g) => explainFlag(g, config, ns))].join("\n"));
}

/** A flag as `features explain -o json` gives it: the gate, its state, default and (with scopes) scope. */
function flagJson(g: FeatureGate, config: ConfigSnapshot, ns?: NamespaceScopes): Record<string, unknown> {
  const scope = scopeJson(config, g.key, ns);
  return { ...g, state: stateOf(config, g), ...(ns === undefined ? {} : { namespaceState: stateOf(ns.config, g) }), ...(scope === undefined ? {} : { scope }), default: DEFAULT_FEATURES[g.field] };
}

/** `features explain <subject>`: a flag of this release, a flag of another release (with a note), else a field. */
async function runExplain(subject: string, config: ConfigSnapshot, deps: AdmissionDeps, output: "text" | "json", io: CliIO, ns?: NamespaceScopes): Promise<void> {
  if (subject === "") throw new UsageError("explain needs a flag (e.g. kubernetes.podspec-affinity) or a field (e.g. spec.template.spec.affinity, or privileged)");
  const key = subject.toLowerCase();
  const gate = featureGate(key, config.profile) ?? featureGate(key);
  if (gate === undefined) return explainFields(subject, config, deps, output, io, ns);
  const inRelease = featureGate(key, config.profile) !== undefined;
  const note = inRelease ? undefined : `${gate.key} is not a config-features flag of Knative ${config.profile.version}${gate.since === undefined ? "" : ` (it came with knative.dev/serving ${gate.since})`}: that release ignores it`;
  if (output === "json") {
    io.write(JSON.stringify({ subject, ...(ns === undefined ? {} : { namespace: ns.namespace }), fields: [], gates: [flagJson(gate, config, ns)], ...(note === undefined ? {} : { note }) }, null, 2) + "\n");
    return;
  }
  io.write(explainFlag(gate, config, ns));
  if (note !== undefined) io.error(`note: ${note}\n`);
}

interface ImpactEntry {
  /** How the text output names the object: `<file>:<line> <kind>.<group>/<name>`, or `<Kind> <namespace>/<name>` for a live one. */
  readonly where: string;
  /** The denial under the flag Disabled as text: kubectl's error line for a manifest, the webhook's answer for a live object. */
  readonly denial: string;
  readonly before: CheckResult;
  readonly after: CheckResult;
  readonly uses: readonly string[];
  readonly newWarnings: readonly string[];
}

/** The snapshot with one flag forced to Disabled. */
export function withFlagDisabled(config: ConfigSnapshot, key: string): ConfigSnapshot {
  const configs: Record<string, Record<string, string>> = {};
  for (const [name, data] of config.data) configs[name] = { ...data };
  configs[FEATURES_CONFIG_NAME] = { ...(configs[FEATURES_CONFIG_NAME] ?? {}), [key]: "Disabled" };
  return snapshotFrom(configs, `${config.source} with ${key}=Disabled`, config.profile);
}

function usesOf(r: CheckResult, docObject: Record<string, unknown>, key: string): string[] {
  const at = podSpecOf(r.kind, r.defaulted ?? docObject);
  if (at === undefined) return [];
  return gatedFieldsUsed(at.spec, at.prefix)
    .filter((u) => u.key === key)
    .map((u) => u.path);
}

function isAllowed(r: CheckResult): boolean {
  return r.outcome === "created" || r.outcome === "configured" || r.outcome === "unchanged";
}

function whereInFile(r: CheckResult): string {
  return `${r.source}:${r.line} ${r.ref ?? `${r.kind} ${r.name}`}`;
}

function formatImpact(gate: FeatureGate, state: Flag, entries: readonly ImpactEntry[], checked: number, unreadable: number): string {
  const denied = entries.filter((e) => isAllowed(e.before) && e.after.outcome === "denied");
  const stillDenied = entries.filter((e) => e.before.outcome === "denied");
  const warned = entries.filter((e) => isAllowed(e.after) && e.newWarnings.length > 0);
  const users = entries.filter((e) => isAllowed(e.after) && e.uses.length > 0);
  let out = "";
  if (state === "Disabled") out += `note: ${gate.key} is already Disabled in this configuration.\n`;
  out +=
    denied.length === 0
      ? `Disabling ${gate.key} (now ${state}) would deny none of the ${checked} checked objects.\n`
      : `Disabling ${gate.key} (now ${state}) would deny ${denied.length} of the ${checked} checked objects; objects that exist keep running, their next create or update is denied:\n`;
  for (const e of denied) {
    out += `\n${e.where}\n`;
    if (e.uses.length > 0) out += `  uses ${e.uses.join(", ")}\n`;
    out += `  ${e.denial.split("\n").join("\n  ")}\n`;
  }
  if (users.length > 0) {
    out += `\nStill allowed, but using fields ${gate.key} gates:\n`;
    for (const e of users) out += `  ${e.where}: ${e.uses.join(", ")}\n`;
  }
  if (warned.length > 0) {
    out += `\nWould get new warnings:\n`;
    for (const e of warned) for (const w of e.newWarnings) out += `  ${e.where}: Warning: ${w}\n`;
  }
  if (stillDenied.length > 0) out += `\n${stillDenied.length} object(s) are denied already with the current configuration (run "duckbill check").\n`;
  if (unreadable > 0) out += `\n${unreadable} manifest(s) could not be read (on stderr): their objects are not among those checked.\n`;
  return out;
}

function impactJson(gate: FeatureGate, state: Flag, entries: readonly ImpactEntry[], unreadable: readonly ManifestError[]): string {
  const objects = entries.map((e) => ({
    source: e.before.source,
    line: e.before.line,
    ref: e.before.ref,
    kind: e.before.kind,
    namespace: e.before.namespace,
    name: e.before.name,
    before: e.before.outcome,
    after: e.after.outcome,
    uses: e.uses,
    ...(e.after.outcome === "denied" ? { message: e.after.message, error: e.after.error } : {}),
    newWarnings: e.newWarnings,
  }));
  const denied = entries.filter((e) => isAllowed(e.before) && e.after.outcome === "denied").length;
  const errors = unreadable.map((e) => ({ source: e.source, line: e.line, column: e.column, message: e.reason }));
  return JSON.stringify({ flag: gate.key, state, denied, objects, errors }, null, 2) + "\n";
}

async function runImpact(argv: string[], io: CliIO, deps: AdmissionDeps | undefined, env: Environment): Promise<number> {
  const { values, positionals } = parseOrUsage(argv, parseArgsOptions(IMPACT_OPTIONS));
  const kubeconfig = kubeconfigOf(values);
  const key = values.disable;
  if (typeof key !== "string" || key === "") throw new UsageError("impact needs --disable <flag>");
  const gate = featureGate(key);
  if (gate === undefined) {
    const near = closest(key, FEATURE_GATES.map((g) => g.key));
    throw new UsageError(`unknown flag "${key}"${near.length === 0 ? "" : `; did you mean ${orList(near)}?`} (run "duckbill features" for the list)`);
  }
  const files = [...((values.filename as string[] | undefined) ?? []), ...positionals];
  const namespace = values.namespace as string | undefined;
  if (namespace === "") throw new UsageError("--namespace must not be empty");
  if (kubeconfig !== undefined && files.length > 0) throw new UsageError("impact checks either manifests (-f) or the cluster's live objects (--kubeconfig), not both");
  if (kubeconfig === undefined && files.length === 0) throw new UsageError("impact needs manifests (-f FILE|DIR|- or files as arguments) or --kubeconfig FILE for the cluster's live objects");
  const output = outputOf(values.output ?? "text");
  const admissionDeps = deps ?? defaultDeps();
  const user = typeof values.user === "string" ? values.user : DEFAULT_USER;
  let config: ConfigSnapshot;
  let docs: ManifestDocument[];
  let old: ReadonlyMap<string, Record<string, unknown>> | undefined;
  let unreadable: readonly ManifestError[] = [];
  let namespaces: NamespaceLabelsView | undefined;
  if (kubeconfig === undefined) {
    config = await loadConfig(values["config-dir"] as string | undefined, settingOf(IMPACT_OPTIONS, "knative-version", values, env));
    const read = await readManifestPaths(files, values.recursive === true, io.readStdin, "features impact");
    docs = read.docs;
    unreadable = read.unreadable;
  } else {
    const cluster = await import("../cluster/features-cluster.js");
    const { kubeConfig } = clusterCall(() => cluster.connect(kubeconfig));
    config = await clusterConfig(cluster, kubeConfig, settingOf(IMPACT_OPTIONS, "system-namespace", values, env), settingOf(IMPACT_OPTIONS, "knative-version", values, env), io);
    const live = (await clusterCall(() => cluster.listServingObjects(kubeConfig, namespace))).filter((o) => !controlledByService(o));
    const liveDocs = live.map((o) => ({ source: liveName(o), line: 0, object: o }));
    docs = liveDocs.map((d) => ({ ...d, object: nextApplyOf(d.object) }));
    // The live objects are stored ones (they have a creationTimestamp): readOldObjects only indexes them.
    old = await readOldObjects(liveDocs, { deps: admissionDeps, config, namespace: "default", user });
    namespaces = cluster.clusterNamespaceLabels(kubeConfig);
  }
  const common = { deps: admissionDeps, namespace: namespace ?? "default", user, old, ...(namespaces === undefined ? {} : { namespaces }) };
  const before = await checkDocuments(docs, { ...common, config });
  const after = await checkDocuments(docs, { ...common, config: withFlagDisabled(config, gate.key) });
  const entries: ImpactEntry[] = [];
  for (let i = 0; i < docs.length; i++) {
    const b = before[i] as CheckResult;
    const a = after[i] as CheckResult;
    if (b.outcome === "skipped") continue;
    const known = new Set(b.warnings);
    entries.push({
      where: kubeconfig === undefined ? whereInFile(b) : `${b.kind} ${b.source}`,
      // kubectl's error line for a patch carries the whole patch and object: for live objects, the webhook's answer.
      denial: kubeconfig === undefined ? (a.error ?? "") : deniedBy(a.webhook ?? "", a.message ?? ""),
      before: b,
      after: a,
      uses: usesOf(b, (docs[i] as ManifestDocument).object, gate.key),
      newWarnings: a.warnings.filter((w) => !known.has(w)),
    });
  }
  const state = stateOf(config, gate);
  io.write(output === "json" ? impactJson(gate, state, entries, unreadable) : formatImpact(gate, state, entries, entries.length, unreadable.length));
  // The manifests that could not be read are named; the others were checked (as `check` does).
  for (const e of unreadable) io.error(`duckbill features impact: ${e.message}\n`);
  if (unreadable.length > 0) return 2;
  return entries.some((e) => isAllowed(e.before) && e.after.outcome === "denied") ? 1 : 0;
}

function outputOf(v: unknown): "text" | "json" {
  if (v === "text" || v === "json") return v;
  throw new UsageError(`--output must be text or json, got "${String(v)}"`);
}

/** `--kubeconfig FILE`; together with `--config-dir` a usage error. */
function kubeconfigOf(values: Record<string, unknown>): string | undefined {
  const v = values.kubeconfig;
  if (v === undefined) return undefined;
  if (typeof v !== "string" || v === "") throw new UsageError("--kubeconfig needs a file");
  if (values["config-dir"] !== undefined) throw new UsageError("--kubeconfig and --config-dir are alternatives: give one of them");
  return v;
}


/**
 * The configuration for the list and explain: `--config-dir`, the cluster with `--kubeconfig`, or Knative's
 * defaults; with `--namespace`, also as that namespace sees it (its labels from the cluster, else
 * `--namespace-labels`).
 */
async function configFor(values: Record<string, unknown>, io: CliIO, env: Environment): Promise<{ config: ConfigSnapshot; ns?: NamespaceScopes }> {
  const kubeconfig = kubeconfigOf(values);
  const systemNs = values["system-namespace"] as string | undefined;
  const namespace = values.namespace as string | undefined;
  const labelsText = values["namespace-labels"] as string | undefined;
  if (namespace === "" || systemNs === "") throw new UsageError(`--${namespace === "" ? "" : "system-"}namespace must not be empty`);
  if (labelsText !== undefined && namespace === undefined) throw new UsageError("--namespace-labels are the labels of --namespace: give both");
  if (kubeconfig === undefined) {
    if (systemNs !== undefined) throw new UsageError("--system-namespace says where the cluster's ConfigMaps are: it needs --kubeconfig");
    const config = await loadConfig(values["config-dir"] as string | undefined, settingOf(FEATURES_OPTIONS, "knative-version", values, env));
    const labels = labelsText === undefined ? undefined : parseNamespaceLabels(labelsText);
    return { config, ...(namespace === undefined ? {} : { ns: inNamespace(config, namespace, labels) }) };
  }
  if (labelsText !== undefined) throw new UsageError("--namespace-labels is for use without --kubeconfig: the cluster has the namespace's labels");
  const cluster = await import("../cluster/features-cluster.js");
  const { kubeConfig } = clusterCall(() => cluster.connect(kubeconfig));
  const config = await clusterConfig(cluster, kubeConfig, settingOf(FEATURES_OPTIONS, "system-namespace", values, env), settingOf(FEATURES_OPTIONS, "knative-version", values, env), io);
  if (namespace === undefined) return { config };
  const labels = config.featureScopes.size === 0 ? undefined : await clusterCall(() => cluster.readNamespaceLabels(kubeConfig, namespace));
  return { config, ns: inNamespace(config, namespace, labels) };
}

/** The cluster's admission ConfigMaps, parsed as the release `--knative-version` names (auto: the cluster's). */
async function clusterConfig(cluster: typeof import("../cluster/features-cluster.js"), kubeConfig: import("@kubernetes/client-node").KubeConfig, namespace: string, knativeVersion: string, io: CliIO): Promise<ConfigSnapshot> {
  const { profile, note } = await clusterCall(() => cluster.clusterProfile(kubeConfig, namespace, knativeVersion));
  if (note !== undefined) io.error(`note: ${note}\n`);
  return clusterCall(() => cluster.readAdmissionConfig(kubeConfig, namespace, profile));
}

/** `duckbill features ...`: returns the exit code. */
export async function runFeatures(argv: string[], io: CliIO = PROCESS_IO, deps?: AdmissionDeps, env: Environment = {}): Promise<number> {
  try {
    const [sub, ...rest] = argv;
    if (sub === "help" || wantsHelp(argv)) {
      io.write(renderHelp(sub === "impact" ? IMPACT_HELP : FEATURES_HELP));
      return 0;
    }
    if (sub === "impact") return await runImpact(rest, io, deps, env);
    const isExplain = sub === "explain";
    const { values, positionals } = parseOrUsage(isExplain ? rest : argv, parseArgsOptions(FEATURES_OPTIONS));
    const output = outputOf(values.output ?? "text");
    warnDeprecated("features", FEATURES_OPTIONS, env, io);
    const { config, ns } = await configFor(values, io, env);
    if (isExplain) {
      await runExplain(positionals.join(" ").trim(), config, deps ?? defaultDeps(), output, io, ns);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`unknown subcommand "${positionals[0]}"; use explain or impact`);
    if (output === "json") {
      io.write(listJson(config, ns));
    } else {
      io.write(formatList(config, ns));
      const notes = [...ignoredSettings(config), ...scopeNotes(config, ns)];
      if (notes.length > 0) io.error(notes.join("\n") + "\n");
    }
    return 0;
  } catch (e) {
    return exitOnError("features", e, io);
  }
}
