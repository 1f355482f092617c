/**
 * `duckbill features explain <field>`: which fields of a Service exist (from the Go type tables the webhook decodes
 * with), and what the webhook does when one is set. The answer is not a second list of rules kept beside the
 * webhook's: each field is set in a minimal Service that `duckbill check` runs through the webhook (./check.ts), once
 * with the configuration at hand and once with every config-features flag Enabled. A field the webhook still refuses
 * to have set with every flag on ("must not set the field(s)", the field masks of knative.dev/serving
 * pkg/apis/serving/fieldmask.go such as SecurityContextMask's `privileged` or VolumeSourceMask's `nfs`) is one Knative
 * never allows; a `*bool` refused as true and allowed as false is allowed only as false.
 */
import type { AdmissionDeps } from "../../admission/deps.js";
import { goTypeOf } from "../../apis/knative-types.js";
import { FEATURE_SCOPES_CONFIG_NAME } from "../../config/feature-scopes.js";
import { snapshotFrom, type ConfigSnapshot } from "../../config/snapshot.js";
import type { GoType } from "../../go/encoding/json/types.js";
import { FEATURE_GATES, featureGatesOf, gatesForFieldPath, normalizeFieldPath, type FeatureGate } from "../../serving/feature-gates.js";
import { checkDocument, DEFAULT_USER } from "../check/check.js";

/** A field of a Service's spec, as a path with `[*]` for list elements. */
export interface FieldEntry {
  readonly path: string;
  readonly type: GoType;
}

const MAX_DEPTH = 14;

function enumerate(type: GoType, path: string, seen: readonly string[], out: FieldEntry[]): void {
  if (seen.length > MAX_DEPTH) return;
  switch (type.kind) {
    case "ptr":
      enumerate(type.elem, path, seen, out);
      return;
    case "slice":
      if (type.elem.kind === "struct" || type.elem.kind === "ptr") enumerate(type.elem, `${path}[*]`, seen, out);
      return;
    case "struct":
      if (seen.includes(type.name)) return;
      for (const f of type.fields) {
        const p = `${path}.${f.name}`;
        out.push({ path: p, type: f.type });
        enumerate(f.type, p, [...seen, type.name], out);
      }
      return;
    default:
      return;
  }
}

let catalog: readonly FieldEntry[] | undefined;

/** Every field under a Service's `spec` (the revision template's pod spec included), in Go declaration order. */
export function serviceFields(): readonly FieldEntry[] {
  if (catalog === undefined) {
    const out: FieldEntry[] = [];
    const service = goTypeOf("serving.Service");
    const spec = service.kind === "struct" ? service.exact.get("spec") : undefined;
    if (spec !== undefined) {
      out.push({ path: "spec", type: spec.type });
      enumerate(spec.type, "spec", [], out);
    }
    catalog = out;
  }
  return catalog;
}

/**
 * The fields a subject names: a path (absolute, relative to the pod spec, with or without indices) or, without a
 * dot, every field of that name.
 */
export function resolveFields(subject: string): FieldEntry[] {
  const wanted = normalizeFieldPath(subject);
  if (wanted === "") return [];
  const fields = serviceFields();
  const exact = fields.filter((f) => normalizeFieldPath(f.path) === wanted);
  if (exact.length > 0 || wanted.includes(".")) return exact;
  return fields.filter((f) => f.path.endsWith(`.${wanted}`));
}

/** Names to suggest for a misspelling: flags, field paths (pod-spec relative and absolute) and field names. */
export function knownSubjects(): string[] {
  const fields = serviceFields();
  return [...FEATURE_GATES.map((g) => g.key), ...fields.map((f) => normalizeFieldPath(f.path).replace(/\[\*\]/g, "")), ...fields.map((f) => f.path), ...fields.map((f) => f.path.slice(f.path.lastIndexOf(".") + 1))];
}

/** A value Go does not read as its type's zero value, as the field masks judge (field-mask.ts isGoZero). */
function setValue(type: GoType, depth = 0): unknown {
  switch (type.kind) {
    case "string":
      return "x";
    case "bool":
      return true;
    case "int":
    case "float":
    case "intOrString":
      return 1;
    case "ptr":
      return type.elem.kind === "struct" ? {} : setValue(type.elem, depth + 1);
    case "slice":
      return [type.elem.kind === "struct" ? {} : setValue(type.elem, depth + 1)];
    case "map":
      return { k: setValue(type.elem, depth + 1) };
    case "struct": {
      const first = type.fields[0];
      return first === undefined || depth > 6 ? {} : { [first.name]: setValue(first.type, depth + 1) };
    }
    case "quantity":
      return "1";
    case "time":
      return "2024-01-01T00:00:00Z";
    case "url":
      return "http://example.com";
    case "bytes":
      return "eA==";
    default:
      return {};
  }
}

/** The values to try: one that is set, and for a `*bool` also false (masks such as SecurityContextMask copy only false). */
function valuesFor(type: GoType): unknown[] {
  return type.kind === "ptr" && type.elem.kind === "bool" ? [true, false] : [setValue(type)];
}

type JsonMap = Record<string, unknown>;

/** A minimal allowed Service with `value` at `path` (`[*]` is the first element, made when missing). */
function serviceWith(path: string, value: unknown): JsonMap {
  const svc: JsonMap = { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "explain" }, spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go" }] } } } };
  const segments = path.split(".");
  let at: JsonMap = svc;
  segments.forEach((seg, i) => {
    const list = seg.endsWith("[*]");
    const key = list ? seg.slice(0, -3) : seg;
    const last = i === segments.length - 1;
    if (list) {
      const arr = Array.isArray(at[key]) ? (at[key] as unknown[]) : (at[key] = [{}]);
      if (arr.length === 0) arr.push({});
      if (last) arr[0] = value;
      else at = arr[0] as JsonMap;
    } else if (last) {
      at[key] = value;
    } else {
      const next = at[key];
      at = typeof next === "object" && next !== null && !Array.isArray(next) ? (next as JsonMap) : (at[key] = {});
    }
  });
  return svc;
}

const MASK_LINE = /must not set the field\(s\): (.*)$/;

/**
 * The `must not set the field(s)` lines of a denial that refuse the field at `path`: those that name it or a field
 * it lies in, and those the same object without the field (`baseline`) does not get (Knative reports an init
 * container's fields under `containers[i]`). Indices are compared away: only the first element is ever set, and
 * Knative names some list fields without theirs (`containers[0].ports.hostPort`).
 */
function maskDenials(message: string, path: string, baseline: string): string[] {
  const bare = (p: string): string => p.replace(/\[[^\]]*\]/g, "");
  const wanted = bare(path);
  const before = new Set(baseline.split("\n").map((l) => MASK_LINE.exec(l)?.[0]));
  return message
    .split("\n")
    .map((l) => MASK_LINE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && (!before.has(m[0]) || (m[1] ?? "").split(", ").some((p) => wanted === bare(p) || wanted.startsWith(`${bare(p)}.`))))
    .map((m) => m[0]);
}

/** What the webhook answers when the field is set to one value. */
export interface Probe {
  readonly value: unknown;
  /** The object is allowed. */
  readonly allowed: boolean;
  /** The denial's lines that refuse this field being set (empty when something else was denied, or nothing). */
  readonly refused: readonly string[];
  /** The whole answer when denied. */
  readonly message?: string;
}

export async function probeField(field: FieldEntry, config: ConfigSnapshot, deps: AdmissionDeps): Promise<Probe[]> {
  const answer = async (value: unknown): Promise<{ denied: boolean; message: string }> => {
    const r = await checkDocument({ source: "explain", line: 0, object: serviceWith(field.path, value) }, { deps, config, namespace: "default", user: DEFAULT_USER });
    return { denied: r.outcome === "denied", message: r.message ?? "" };
  };
  // The same object with the field left out (its parents made, as for the probes).
  const baseline = await answer(undefined);
  const out: Probe[] = [];
  for (const value of valuesFor(field.type)) {
    const { denied, message } = await answer(value);
    out.push({ value, allowed: !denied, refused: denied ? maskDenials(message, field.path, baseline.message) : [], ...(denied ? { message } : {}) });
  }
  return out;
}

/** The configuration with every flag the webhook reads for validation Enabled (the rest as `config` has it). */
export function withEveryFlagEnabled(config: ConfigSnapshot): ConfigSnapshot {
  const configs: Record<string, Record<string, string>> = {};
  // Every flag Enabled everywhere: config-features-scopes, which would narrow them per namespace, is left out.
  for (const [name, data] of config.data) if (name !== FEATURE_SCOPES_CONFIG_NAME) configs[name] = { ...data };
  const features: Record<string, string> = { ...(configs["config-features"] ?? {}) };
  for (const g of featureGatesOf(config.profile)) if (g.check !== "dry-run" && g.check !== "controller") features[g.key] = "Enabled";
  configs["config-features"] = features;
  return snapshotFrom(configs, `${config.source} with every flag Enabled`, config.profile);
}

/** How Knative treats a field, whatever the flags. */
export type FieldVerdict = "allowed" | "gated" | "never" | "some-values";

export interface FieldExplanation {
  readonly path: string;
  readonly verdict: FieldVerdict;
  readonly gates: readonly FeatureGate[];
  /** With every flag on: the values tried that are refused, and those allowed. */
  readonly refusedValues: readonly unknown[];
  readonly allowedValues: readonly unknown[];
  /** The webhook's words for the refusal. */
  readonly refusal?: string;
  /** With the configuration at hand (the first value tried). */
  readonly current: { readonly allowed: boolean; readonly message?: string };
}

export async function explainFieldEntry(field: FieldEntry, config: ConfigSnapshot, deps: AdmissionDeps): Promise<FieldExplanation> {
  const gates = gatesForFieldPath(field.path).filter((g) => featureGatesOf(config.profile).includes(g));
  const everything = await probeField(field, withEveryFlagEnabled(config), deps);
  const now = await probeField(field, config, deps);
  const refused = everything.filter((p) => p.refused.length > 0);
  const verdict: FieldVerdict = refused.length === everything.length ? "never" : refused.length > 0 ? "some-values" : gates.length > 0 ? "gated" : "allowed";
  const first = now[0];
  return {
    path: field.path,
    verdict,
    gates,
    refusedValues: refused.map((p) => p.value),
    allowedValues: everything.filter((p) => p.refused.length === 0).map((p) => p.value),
    ...(refused[0] === undefined ? {} : { refusal: refused[0].refused.join("\n") }),
    current: first === undefined || first.allowed ? { allowed: true } : { allowed: false, message: first.refused.length > 0 ? first.refused.join("\n") : (first.message ?? "") },
  };
}

/** The text of one field's explanation (the flags' own explanations follow it, from the caller). */
export function formatFieldExplanation(e: FieldExplanation, source: string): string {
  let out = `${e.path}\n`;
  const gated = e.gates.length > 0 ? `Gated by ${e.gates.map((g) => g.key).join(", ")}` : "";
  const refusal = `    ${e.refusal ?? ""}\n`;
  switch (e.verdict) {
    case "never":
      out += gated === "" ? "  No config-features flag gates it: Knative never allows it to be set, whatever the flags. The webhook answers:\n" : `  ${gated}, but even then Knative never allows it to be set. The webhook answers:\n`;
      out += refusal;
      break;
    case "some-values": {
      const only = `Knative allows it only as ${e.allowedValues.map((v) => JSON.stringify(v)).join(", ")}; as ${e.refusedValues.map((v) => JSON.stringify(v)).join(", ")} the webhook answers:`;
      out += gated === "" ? `  No config-features flag gates it: ${only}\n` : `  ${gated}; even then ${only}\n`;
      out += refusal;
      break;
    }
    case "gated":
      out += `  ${gated}.\n`;
      break;
    case "allowed":
      out += "  No config-features flag gates it: the webhook allows it to be set (its value is still validated).\n";
      break;
  }
  out += e.current.allowed ? `  With this configuration (${source}): allowed.\n` : `  With this configuration (${source}): denied: ${(e.current.message ?? "").split("\n").join("\n    ")}\n`;
  return out;
}
