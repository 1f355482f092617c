/**
 * Differential cases for the ConfigMaps: every key the release's vectors show for a ConfigMap, set to values of every
 * type's edge (Go's strconv, time.ParseDuration and resource.Quantity grammars, booleans, enumerations, templates,
 * whitespace, signs, overflow, Unicode look-alikes), in `/config-validation` reviews (CREATE, and UPDATE from the
 * vector's own ConfigMap) and in the `configs` the admission vectors run under (config-defaults, config-features,
 * config-autoscaler, ... as the config store reads them). Mutation (cases.ts) reuses the values the vectors hold;
 * these are the values a ConfigMap's author types that no vector holds.
 */
import fc from "fast-check";
import type { Vector } from "../conformance/compare.js";
import type { Case } from "./cases.js";
import { DURATION_EDGE_VALUES } from "./knative-keys.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Values by the grammar they probe. Each is tried under every key, so a key also meets the other types' values (the
 * rejection paths) and its own type's corners.
 */
export const EDGE_VALUES: readonly string[] = [
  // strconv.ParseInt / ParseUint / Atoi
  "0", "-0", "+0", "1", "-1", "+5", "007", "08", "1_000", "0x10", "0o17", "0b101", "2147483647", "2147483648", "-2147483649",
  "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
  "18446744073709551616", "99999999999999999999999", "1e3", "١٢", "５",
  // strconv.ParseFloat
  "0.5", ".5", "5.", "-0.0", "1e309", "-1e309", "1e-400", "NaN", "nan", "Inf", "+Inf", "-inf", "infinity", "0x1p-2", "1_0.5", "1.5e", "1,5",
  "100.0", "100.5", "0.0001", "1e2", "3.4028235e38",
  // time.ParseDuration
  "1s", "1.5s", "1h2m3s", "-1s", "+1s", "1", "1d", "1.s", ".5s", "1µs", "1us", "1μs", "1ns", "9223372036854775807ns", "9223372036854775808ns",
  "2562047h", "2562048h", "0s", "0m", "1m0s", "10S", "1 s", "5m ",
  // resource.Quantity
  "100m", "1Gi", "1.5Gi", "1E3", "1e3m", "0.1m", "0.0001", "1Ki", "1ki", "1KI", "1k", "1 Gi", "-100m", "+1", "9223372036854775807Gi", "1e100", "1Ei", "1Pi", "10.", "1.0.0",
  // strconv.ParseBool and flag states
  "true", "True", "TRUE", "tRue", "t", "T", "false", "F", "yes", "on", "enabled", "Enabled", "ENABLED", "allowed", "Allowed", "disabled", "Disabled", "enable", " Enabled", "Enabled ",
  // strings, names, templates, lists
  "", " ", "\t", "\n", " 1 ", "x", "-", ".", "*", "a,b", "a, b", ",", "a=b", "{}", "[]", "null", "{{.Name}}.{{.Namespace}}.{{.Domain}}", "{{.Name}}", "{{", "{{.Nope}}",
  "{{.Name}}-{{.Namespace}}", "example.com", "EXAMPLE.com", "-example.com", "example.com.", "a..b", "svc.cluster.local", "http://x", "é", "\u00a0", "\u200b", "a\u0000b",
  "kubernetes.io/hostname", "topology.kubernetes.io/zone", "cluster-local", "external-ip", "kourier.ingress.networking.knative.dev", "Redirected", "Disabled,Enabled",
  ...DURATION_EDGE_VALUES,
];

/** How a value seen for the key is varied: its own grammar's neighbours. */
const VARIATIONS: ReadonlyArray<readonly [string, (v: string) => string]> = [
  ["as seen", (v) => v],
  ["padded", (v) => ` ${v} `],
  ["tab-suffixed", (v) => `${v}\t`],
  ["upper-cased", (v) => v.toUpperCase()],
  ["lower-cased", (v) => v.toLowerCase()],
  ["negated", (v) => `-${v}`],
  ["plus-signed", (v) => `+${v}`],
  ["zero-prefixed", (v) => `0${v}`],
  ["doubled", (v) => `${v}${v}`],
  ["with s", (v) => `${v}s`],
  ["with m", (v) => `${v}m`],
  ["with .5", (v) => `${v}.5`],
  ["with e3", (v) => `${v}e3`],
  ["times a million", (v) => `${v}000000`],
  ["first character", (v) => v.slice(0, 1)],
  ["quoted", (v) => `"${v}"`],
];

/** What a ConfigMap case draws from: per ConfigMap the keys and values the release's vectors show. */
export interface ConfigMapPools {
  /** ConfigMap name → key → values seen (config-validation objects and admission vectors' `configs`). */
  readonly values: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
  /** `/config-validation` vectors whose object is a ConfigMap with `data`, by ConfigMap name. */
  readonly reviews: ReadonlyMap<string, readonly Vector[]>;
  /** Admission vectors that carry `configs`. */
  readonly admissions: readonly Vector[];
  readonly names: readonly string[];
}

/**
 * `knativeKeys` (knative-keys.ts): the keys the release's parsers read, which join the pools with no seen values
 * (so they get edge values), and ConfigMaps no `/config-validation` vector shows get a review made from another
 * ConfigMap's CREATE with the name changed and no data.
 */
export function configMapPools(vectors: readonly Vector[], knativeKeys: ReadonlyMap<string, readonly string[]> = new Map()): ConfigMapPools {
  const values = new Map<string, Map<string, string[]>>();
  const reviews = new Map<string, Vector[]>();
  const admissions: Vector[] = [];
  const note = (cm: string, key: string, value: string): void => {
    const byKey = values.get(cm) ?? new Map<string, string[]>();
    values.set(cm, byKey);
    const list = byKey.get(key) ?? [];
    if (!list.includes(value) && list.length < 40 && value.length < 2000) list.push(value);
    byKey.set(key, list);
  };
  for (const v of vectors) {
    for (const [cm, data] of Object.entries(v.configs ?? {})) for (const [k, val] of Object.entries(data)) note(cm, k, val);
    const obj = (v.review as { request?: { object?: unknown } } | undefined)?.request?.object;
    if (v.path === "/config-validation" && isObject(obj) && isObject(obj.metadata) && typeof obj.metadata.name === "string" && isObject(obj.data) && (v.contentType ?? "application/json") === "application/json") {
      const name = obj.metadata.name;
      reviews.set(name, [...(reviews.get(name) ?? []), v]);
      for (const [k, val] of Object.entries(obj.data)) if (typeof val === "string") note(name, k, val);
    } else if ((v.path === "/defaulting" || v.path === "/resource-validation") && v.configs !== undefined && Object.keys(v.configs).length > 0) {
      admissions.push(v);
    }
  }
  const template = [...reviews.values()].flat().find((v) => (v.review as { request?: { operation?: string } }).request?.operation === "CREATE");
  for (const [cm, keys] of knativeKeys) {
    const byKey = values.get(cm) ?? new Map<string, string[]>();
    values.set(cm, byKey);
    for (const k of keys) if (!byKey.has(k)) byKey.set(k, []);
    if (!reviews.has(cm) && template !== undefined) {
      const review = JSON.parse(JSON.stringify(template.review)) as JsonObject;
      const request = review.request as JsonObject;
      const object = request.object as JsonObject;
      request.name = cm;
      (object.metadata as JsonObject).name = cm;
      object.data = {};
      reviews.set(cm, [{ ...template, name: `${cm}/made-from/${template.name}`, review } as Vector]);
    }
  }
  const names = [...values.keys()].filter((n) => (values.get(n)?.size ?? 0) > 0).sort();
  return { values, reviews, admissions, names };
}

export interface ConfigMapPlan {
  /** 0: a /config-validation CREATE, 1: its UPDATE from the vector's object, 2: an admission vector's `configs`. */
  readonly target: number;
  readonly configMap: number;
  readonly base: number;
  /** One to three keys set, each [key choice, value choice, variation]. */
  readonly edits: ReadonlyArray<readonly [number, number, number]>;
}

export function configMapPlanArb(): fc.Arbitrary<ConfigMapPlan> {
  return fc.record({
    target: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) }),
    configMap: fc.nat(1_000),
    base: fc.nat(1_000),
    edits: fc.array(fc.tuple(fc.nat(1_000), fc.nat(10_000), fc.nat(VARIATIONS.length - 1)), { minLength: 1, maxLength: 3 }),
  });
}

/** The value an edit sets: an edge value (two in three), else a variation of a value seen for the key. */
function editValue(seen: readonly string[], valueChoice: number, variation: number): [string, string] {
  if (seen.length === 0 || valueChoice % 3 !== 0) {
    const v = EDGE_VALUES[valueChoice % EDGE_VALUES.length] as string;
    return [v, `edge ${JSON.stringify(v)}`];
  }
  const base = seen[Math.floor(valueChoice / 3) % seen.length] as string;
  const [how, vary] = VARIATIONS[variation % VARIATIONS.length] as readonly [string, (v: string) => string];
  return [vary(base), `${how} ${JSON.stringify(base)}`];
}

function applyEdits(data: Record<string, string>, keys: ReadonlyMap<string, readonly string[]>, edits: ConfigMapPlan["edits"], description: string[]): void {
  const names = [...keys.keys()].sort();
  for (const [keyChoice, valueChoice, variation] of edits) {
    const key = names[keyChoice % names.length] as string;
    const [value, how] = editValue(keys.get(key) ?? [], valueChoice, variation);
    data[key] = value;
    description.push(`${key}: ${how}`);
  }
}

/** The case a plan stands for. */
export function buildConfigMapCase(pools: ConfigMapPools, plan: ConfigMapPlan, name: string): Case {
  const description: string[] = [];
  if (plan.target === 2 && pools.admissions.length > 0) {
    const vector = pools.admissions[plan.base % pools.admissions.length] as Vector;
    const configs = JSON.parse(JSON.stringify(vector.configs)) as Record<string, Record<string, string>>;
    const present = Object.keys(configs).filter((cm) => pools.values.has(cm));
    const cm = present.length > 0 ? (present[plan.configMap % present.length] as string) : (pools.names[plan.configMap % pools.names.length] as string);
    configs[cm] = configs[cm] ?? {};
    description.push(`configs ${cm}`);
    applyEdits(configs[cm] as Record<string, string>, pools.values.get(cm) ?? new Map(), plan.edits, description);
    const line: Record<string, unknown> = { name, path: vector.path, configs, review: JSON.parse(JSON.stringify(vector.review)) as unknown };
    return { line, base: vector.name, description };
  }
  const withReviews = pools.names.filter((n) => (pools.reviews.get(n)?.length ?? 0) > 0);
  const cm = withReviews[plan.configMap % withReviews.length] as string;
  const bases = pools.reviews.get(cm) as readonly Vector[];
  const vector = bases[plan.base % bases.length] as Vector;
  const review = JSON.parse(JSON.stringify(vector.review)) as JsonObject;
  const request = review.request as JsonObject;
  const object = request.object as JsonObject;
  const data = { ...(object.data as Record<string, string>) };
  if (plan.target === 1) {
    request.operation = "UPDATE";
    request.oldObject = JSON.parse(JSON.stringify(object)) as Json;
    description.push(`UPDATE ${cm}`);
  } else {
    request.operation = "CREATE";
    request.oldObject = null;
    description.push(`CREATE ${cm}`);
  }
  applyEdits(data, pools.values.get(cm) ?? new Map(), plan.edits, description);
  object.data = data;
  const line: Record<string, unknown> = { name, path: "/config-validation", review };
  if (vector.configs !== undefined) line.configs = JSON.parse(JSON.stringify(vector.configs)) as unknown;
  return { line, base: vector.name, description };
}
