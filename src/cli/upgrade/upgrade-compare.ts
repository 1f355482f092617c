/**
 * The heart of `duckbill upgrade-check`: one request answered as two releases, and what differs between the answers
 * (denied after the upgrade, allowed after it, defaulted differently, warned differently), with the profile fields
 * that make the difference. A field is named when the answer under the newer profile with only that field set back
 * to the older release's value no longer shows the difference (or shows less of it).
 */
import jsonpatch, { type Operation } from "fast-json-patch";
import { describeProfileChange, profileChanges, withoutChange, type ProfileChange } from "../../config/profile-changes.js";
import { withProfile, type ConfigSnapshot } from "../../config/snapshot.js";
import { printableDefaulted, type CheckResult } from "../check/check.js";

/** What an answer says, in both releases: allowed or denied (by which webhook, with which message), and the warnings. */
export interface Answer {
  readonly allowed: boolean;
  readonly webhook?: string;
  readonly message?: string;
  readonly warnings: readonly string[];
}

/** A profile field that makes the difference. */
export interface Cause {
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
  readonly description: string;
}

/** A JSON Patch operation from the object as the older release defaults it to the newer release's, with the value it replaces or removes. */
export type DefaultsOperation = Operation & { readonly was?: unknown };

export type Finding =
  | { readonly category: "breaks"; readonly webhook: string; readonly message: string; readonly causes: readonly Cause[] }
  | { readonly category: "newly-allowed"; readonly webhook: string; readonly message: string; readonly causes: readonly Cause[] }
  | { readonly category: "defaults-change"; readonly patch: readonly DefaultsOperation[]; readonly causes: readonly Cause[] }
  | { readonly category: "warnings-change"; readonly added: readonly string[]; readonly removed: readonly string[]; readonly causes: readonly Cause[] };

export type FindingCategory = Finding["category"];

/** Which request was compared: a create of the manifest, the next update of the stored object, a ConfigMap's validation. */
export type CheckName = "create" | "update" | "validation";

export interface Comparison {
  readonly check: CheckName;
  readonly from: Answer;
  readonly to: Answer;
  readonly findings: readonly Finding[];
}

/** One request, answered under a configuration (and the profile it carries). */
export type Subject = (config: ConfigSnapshot) => Promise<CheckResult>;

/** Most severe first: an object's category is the first one among its findings. */
export const SEVERITY: readonly FindingCategory[] = ["breaks", "defaults-change", "warnings-change", "newly-allowed"];

function answerOf(r: CheckResult): Answer {
  return r.outcome === "denied" ? { allowed: false, webhook: r.webhook ?? "", message: r.message ?? "", warnings: r.warnings } : { allowed: true, warnings: r.warnings };
}

/** The JSON Patch from `a` to `b`, each replace and remove carrying the value it drops. */
function defaultsPatch(a: Record<string, unknown>, b: Record<string, unknown>): DefaultsOperation[] {
  const from = printableDefaulted(a);
  return (
    jsonpatch
      .compare(from, printableDefaulted(b))
      .map((op) => (op.op === "replace" || op.op === "remove" ? { ...op, was: jsonpatch.getValueByPointer(from, op.path) as unknown } : op))
      // A member that is null in one answer and absent in the other is stored the same (the API server drops nulls
      // in a merge): 1.17 writes a zero creationTimestamp as null, 1.23 and 1.24 leave it out (omitzero).
      .filter((op) => !(op.op === "remove" && op.was === null) && !(op.op === "add" && op.value === null))
  );
}

function warningsDiff(from: readonly string[], to: readonly string[]): { added: string[]; removed: string[] } {
  const before = new Set(from);
  const after = new Set(to);
  return { added: to.filter((w) => !before.has(w)), removed: from.filter((w) => !after.has(w)) };
}

type WithoutCauses<F> = F extends Finding ? Omit<F, "causes"> : never;
type Unexplained = WithoutCauses<Finding>;

/** The differences between the answers, without causes yet. */
function differences(from: CheckResult, to: CheckResult): Unexplained[] {
  const a = answerOf(from);
  const b = answerOf(to);
  if (a.allowed && !b.allowed) return [{ category: "breaks", webhook: b.webhook ?? "", message: b.message ?? "" }];
  if (!a.allowed && b.allowed) return [{ category: "newly-allowed", webhook: a.webhook ?? "", message: a.message ?? "" }];
  if (!a.allowed) return [];
  const out: Unexplained[] = [];
  if (from.defaulted !== undefined && to.defaulted !== undefined) {
    const patch = defaultsPatch(from.defaulted, to.defaulted);
    if (patch.length > 0) out.push({ category: "defaults-change", patch });
  }
  const { added, removed } = warningsDiff(a.warnings, b.warnings);
  if (added.length > 0 || removed.length > 0) out.push({ category: "warnings-change", added, removed });
  return out;
}

/** Whether `r`, the answer with one profile field set back, shows less of the difference `d` than the newer release's answer. */
function explains(d: Unexplained, from: CheckResult, r: CheckResult): boolean {
  switch (d.category) {
    case "breaks":
      return r.outcome !== "denied" || r.message !== d.message;
    case "newly-allowed":
      return r.outcome === "denied";
    case "defaults-change":
      return r.outcome !== "denied" && from.defaulted !== undefined && r.defaulted !== undefined && defaultsPatch(from.defaulted, r.defaulted).length < d.patch.length;
    case "warnings-change": {
      if (r.outcome === "denied") return false;
      const { added, removed } = warningsDiff(from.warnings, r.warnings);
      return added.length + removed.length < d.added.length + d.removed.length;
    }
  }
}

/** Answers requests as two releases and names the differences. */
export class UpgradeComparer {
  readonly changes: readonly ProfileChange[];
  private readonly withoutConfigs = new Map<ProfileChange, ConfigSnapshot>();
  /** Causes by kind, check and the pair of answers: computed once for every object answered alike. */
  private readonly causeCache = new Map<string, readonly Cause[]>();

  constructor(
    readonly from: ConfigSnapshot,
    readonly to: ConfigSnapshot,
  ) {
    this.changes = profileChanges(from.profile, to.profile);
  }

  /**
   * Compares `subject` under both releases. `from` is the older release's result; there is no comparison when the
   * webhook would not see the request (a skipped document).
   */
  async compare(check: CheckName, subject: Subject): Promise<{ readonly from: CheckResult; readonly comparison?: Comparison }> {
    const from = await subject(this.from);
    if (from.outcome === "skipped") return { from };
    const to = await subject(this.to);
    const findings: Finding[] = [];
    for (const d of differences(from, to)) findings.push({ ...d, causes: await this.causesOf(check, from.kind, d, from, subject) } as Finding);
    return { from, comparison: { check, from: answerOf(from), to: answerOf(to), findings } };
  }

  private async causesOf(check: CheckName, kind: string, d: Unexplained, from: CheckResult, subject: Subject): Promise<readonly Cause[]> {
    const key = JSON.stringify([kind, check, d, answerOf(from)]);
    const cached = this.causeCache.get(key);
    if (cached !== undefined) return cached;
    const causes: Cause[] = [];
    for (const change of this.changes) {
      if (change.scope === "runtime" || (change.scope === "ConfigMaps" && check !== "validation")) continue;
      if (explains(d, from, await subject(this.withoutChange(change)))) {
        causes.push({ field: change.field, from: change.from, to: change.to, description: describeProfileChange(change) });
      }
    }
    this.causeCache.set(key, causes);
    return causes;
  }

  /** The newer release's configuration with one profile field as the older release has it. */
  private withoutChange(change: ProfileChange): ConfigSnapshot {
    let config = this.withoutConfigs.get(change);
    if (config === undefined) {
      config = withProfile(this.to, withoutChange(this.to.profile, change));
      this.withoutConfigs.set(change, config);
    }
    return config;
  }
}
