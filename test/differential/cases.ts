/**
 * Differential cases: public vectors mutated the ways clients and fuzzers get things wrong (drop, duplicate, retype,
 * move, rename fields; boundary numbers and odd strings; pieces of other vectors grafted in; feature-flag and
 * default combinations in `configs`; other operations and paths). A case is a *plan* of small integers that
 * fast-check generates and shrinks well; `buildCase` turns a plan into a `duckbill admit --batch` line,
 * deterministically, so a plan is a reproducible case.
 */
import fc from "fast-check";
import type { Vector } from "../conformance/compare.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };
type Segment = string | number;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What grafts and additions draw from: every key, every value seen under a key, every config entry. */
export interface Pools {
  readonly keys: readonly string[];
  readonly valuesByKey: ReadonlyMap<string, readonly Json[]>;
  /** [ConfigMap, key, value] from the vectors' `configs`: values the config store accepts. */
  readonly configEntries: readonly (readonly [string, string, string])[];
  /** ConfigMap name → key → values seen in config_validation objects (valid and invalid ones). */
  readonly configMapValues: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
}

const MAX_VALUES_PER_KEY = 40;
const MAX_GRAFT_CHARS = 4000;

export function buildPools(vectors: readonly Vector[]): Pools {
  const valuesByKey = new Map<string, Json[]>();
  const seen = new Map<string, Set<string>>();
  const configEntries: [string, string, string][] = [];
  const configSeen = new Set<string>();
  const configMapValues = new Map<string, Map<string, string[]>>();
  const walk = (v: Json): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (!isObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      const text = JSON.stringify(x);
      if (text.length <= MAX_GRAFT_CHARS) {
        let s = seen.get(k);
        if (s === undefined) seen.set(k, (s = new Set()));
        const list = valuesByKey.get(k) ?? [];
        if (!s.has(text) && list.length < MAX_VALUES_PER_KEY) {
          s.add(text);
          list.push(x);
          valuesByKey.set(k, list);
        }
      }
      walk(x);
    }
  };
  for (const v of vectors) {
    const req = (v.review as { request?: { object?: Json; oldObject?: Json } } | undefined)?.request;
    if (req?.object !== undefined) walk(req.object);
    if (req?.oldObject !== undefined) walk(req.oldObject);
    for (const [cm, data] of Object.entries(v.configs ?? {})) {
      for (const [k, val] of Object.entries(data)) {
        const id = JSON.stringify([cm, k, val]);
        if (!configSeen.has(id)) {
          configSeen.add(id);
          configEntries.push([cm, k, val]);
        }
      }
    }
    const obj = req?.object;
    if (v.path === "/config-validation" && isObject(obj) && isObject(obj.metadata) && typeof obj.metadata.name === "string" && isObject(obj.data)) {
      const byKey = configMapValues.get(obj.metadata.name) ?? new Map<string, string[]>();
      for (const [k, val] of Object.entries(obj.data)) {
        if (typeof val !== "string" || val.length > 2000) continue;
        const list = byKey.get(k) ?? [];
        if (!list.includes(val) && list.length < MAX_VALUES_PER_KEY) list.push(val);
        byKey.set(k, list);
      }
      configMapValues.set(obj.metadata.name, byKey);
    }
  }
  configEntries.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return { keys: [...valuesByKey.keys()].sort(), valuesByKey, configEntries, configMapValues };
}

const NUMBERS: readonly number[] = [0, -1, 1, 2, 7, 80, 8012, 8022, 9090, 65535, 65536, 300, 600, 601, 3600, 1000, 1001, 2147483647, 2147483648, -2147483649, 9007199254740991, 1e21, 0.5, 1.5, -0.0001, 100000000000];
const STRINGS: readonly string[] = [
  "", " ", "a", "A", "-", "_", ".", "user-container", "queue-proxy", "default", "8012", "0", "1", "-1", "true", "false",
  "enabled", "disabled", "allowed", "Enabled", "http1", "h2c", "TCP", "UDP", "SCTP", "1Gi", "100m", "-1Gi", "1e3", "0.5",
  "x".repeat(64), "a".repeat(254), "ümlaut", "a.b", "a/b", "a b", "{{.Name}}", "{{", "v1", "serving.knative.dev/v1",
  "Service", "latest", "Always", "IfNotPresent", "Never", "RuntimeDefault", "Unconfined", "ALL", "NET_BIND_SERVICE",
  "10s", "1h", "-1s", "100%", "101%", "@latest", "ghcr.io/knative/helloworld-go", "example.com", "*.example.com", "cluster.local",
  "https://example.com", "/", "/tmp", "/var/log", "..", "\u0000", "line\nbreak",
];
const RETYPES: readonly Json[] = [null, true, false, 0, 1, -1, 1.5, "", "x", "1", [], [null], [{}], {}, { "": null }, { a: 1 }];
const OPERATIONS: readonly string[] = ["CREATE", "UPDATE", "DELETE", "CONNECT", "create", ""];
const SUBRESOURCES: readonly string[] = ["", "status", "scale", "finalizers"];

/** One mutation: the kind, where (an index into the target's nodes) and what (indexes into the pools). */
export interface Mutation {
  readonly kind: number;
  readonly at: number;
  readonly pick: number;
  readonly pick2: number;
}

export interface Plan {
  readonly base: number;
  /** 0–6 request.object, 7 request.oldObject, 8 the request envelope. */
  readonly target: number;
  readonly mutations: readonly Mutation[];
  /** [index into configEntries] to add to `configs`. */
  readonly configs: readonly number[];
  readonly dropConfigs: boolean;
  /** 0: keep; 1: send to the other admission path; 2: another operation (pick); 3: another subresource. */
  readonly twist: number;
  readonly twistPick: number;
}

const MUTATION_KINDS = 10;

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.nat(MUTATION_KINDS - 1),
  at: fc.nat(1_000_000),
  pick: fc.nat(1_000_000),
  pick2: fc.nat(1_000_000),
});

export function planArb(corpusSize: number): fc.Arbitrary<Plan> {
  return fc.record({
    base: fc.nat(corpusSize - 1),
    target: fc.nat(8),
    mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
    configs: fc.array(fc.nat(1_000_000), { maxLength: 3 }),
    dropConfigs: fc.boolean(),
    twist: fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) }),
    twistPick: fc.nat(1_000_000),
  });
}

/** Every node below root as a path, in document order. */
function nodes(root: Json): Segment[][] {
  const out: Segment[][] = [];
  const walk = (v: Json, path: Segment[]): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        const p = [...path, i];
        out.push(p);
        walk(x, p);
      });
    } else if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        const p = [...path, k];
        out.push(p);
        walk(x, p);
      }
    }
  };
  walk(root, []);
  return out;
}

function get(root: Json, path: readonly Segment[]): Json | undefined {
  let v: Json | undefined = root;
  for (const s of path) {
    if (Array.isArray(v) && typeof s === "number") v = v[s];
    else if (isObject(v) && typeof s === "string") v = Object.prototype.hasOwnProperty.call(v, s) ? v[s] : undefined;
    else return undefined;
  }
  return v;
}

function parentOf(root: Json, path: readonly Segment[]): { parent: Json[] | JsonObject; key: Segment } | undefined {
  if (path.length === 0) return undefined;
  const parent = get(root, path.slice(0, -1));
  const key = path[path.length - 1] as Segment;
  if (Array.isArray(parent) || isObject(parent)) return { parent, key };
  return undefined;
}

function set(root: Json, path: readonly Segment[], value: Json): void {
  const p = parentOf(root, path);
  if (p === undefined) return;
  if (Array.isArray(p.parent)) p.parent[p.key as number] = value;
  else p.parent[p.key as string] = value;
}

function remove(root: Json, path: readonly Segment[]): void {
  const p = parentOf(root, path);
  if (p === undefined) return;
  if (Array.isArray(p.parent)) p.parent.splice(p.key as number, 1);
  else delete p.parent[p.key as string];
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function pickFrom<T>(list: readonly T[], n: number): T | undefined {
  return list.length === 0 ? undefined : list[n % list.length];
}

function typeOf(v: Json | undefined): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function describePath(path: readonly Segment[]): string {
  return path.map((s) => (typeof s === "number" ? `[${s}]` : `.${s}`)).join("") || ".";
}

/** Applies one mutation to root (in place); returns what it did, for the case's description. */
function mutate(root: Json, m: Mutation, pools: Pools, configMapName: string | undefined): string {
  const all = nodes(root);
  if (all.length === 0) return "nothing to mutate";
  const path = all[m.at % all.length] as Segment[];
  const where = describePath(path);
  const current = get(root, path);
  const key = [...path].reverse().find((s): s is string => typeof s === "string");
  switch (m.kind) {
    case 0:
      remove(root, path);
      return `drop ${where}`;
    case 1: {
      const p = parentOf(root, path);
      if (p !== undefined && Array.isArray(p.parent)) {
        p.parent.splice((p.key as number) + 1, 0, clone(current as Json));
        return `duplicate ${where}`;
      }
      if (Array.isArray(current) && current.length > 0) {
        current.push(clone(current[m.pick % current.length] as Json));
        return `duplicate an element of ${where}`;
      }
      set(root, path, [clone(current as Json)]);
      return `wrap ${where} in an array`;
    }
    case 2: {
      const candidates = RETYPES.filter((r) => typeOf(r) !== typeOf(current));
      const v = pickFrom(candidates, m.pick) ?? null;
      set(root, path, clone(v));
      return `retype ${where} to ${JSON.stringify(v)}`;
    }
    case 3: {
      const v = pickFrom(NUMBERS, m.pick) ?? 0;
      set(root, path, v);
      return `set ${where} to ${JSON.stringify(v)}`;
    }
    case 4: {
      const v = pickFrom(STRINGS, m.pick) ?? "";
      set(root, path, v);
      return `set ${where} to ${JSON.stringify(v)}`;
    }
    case 5: {
      const targets = all.filter((p) => isObject(get(root, p)) && !(p.length >= path.length && path.every((s, i) => p[i] === s)));
      const dest = pickFrom(targets, m.pick);
      const newKey = typeof path[path.length - 1] === "string" ? (path[path.length - 1] as string) : (pickFrom(pools.keys, m.pick2) ?? "moved");
      if (dest === undefined || current === undefined) return `move ${where}: nowhere to go`;
      const value = clone(current);
      remove(root, path);
      const obj = get(root, dest);
      if (isObject(obj)) obj[newKey] = value;
      return `move ${where} to ${describePath(dest)}.${newKey}`;
    }
    case 6: {
      const p = parentOf(root, path);
      if (p === undefined || Array.isArray(p.parent)) return `rename ${where}: not a member`;
      const old = p.key as string;
      const pooled = pickFrom(pools.keys, m.pick2) ?? "x";
      const variants = [pooled, old.toUpperCase(), old.slice(0, 1).toUpperCase() + old.slice(1), `${old}s`, old.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), `${old} `];
      const renamed = pickFrom(variants, m.pick) ?? pooled;
      if (renamed === old) return `rename ${where}: same name`;
      const value = p.parent[old] as Json;
      delete p.parent[old];
      p.parent[renamed] = value;
      return `rename ${where} to ${JSON.stringify(renamed)}`;
    }
    case 7: {
      // Graft: the value of the same key from another vector.
      const values = key === undefined ? undefined : pools.valuesByKey.get(key);
      const v = values === undefined ? undefined : pickFrom(values, m.pick);
      if (v === undefined) return `graft ${where}: no other value`;
      set(root, path, clone(v));
      return `graft ${where} from another vector`;
    }
    case 8: {
      // Add a member known elsewhere, with a value it has elsewhere.
      const objects = all.filter((p) => isObject(get(root, p)));
      const dest = pickFrom(objects, m.at) ?? [];
      const obj = get(root, dest);
      const k = pickFrom(pools.keys, m.pick) ?? "x";
      const v = pickFrom(pools.valuesByKey.get(k) ?? [], m.pick2) ?? null;
      if (isObject(obj)) obj[k] = clone(v);
      else if (isObject(root)) root[k] = clone(v);
      return `add ${describePath(dest)}.${k} = ${JSON.stringify(v).slice(0, 60)}`;
    }
    default: {
      // ConfigMaps: a data value seen for this ConfigMap elsewhere (valid or not) or an odd string.
      const data = isObject(root) ? root.data : undefined;
      if (configMapName !== undefined && isObject(data)) {
        const byKey = pools.configMapValues.get(configMapName);
        const keys = byKey === undefined ? [] : [...byKey.keys()].sort();
        const k = pickFrom(keys, m.pick) ?? "x";
        const values = [...(byKey?.get(k) ?? []), ...STRINGS];
        const v = pickFrom(values, m.pick2) ?? "";
        data[k] = v;
        return `set data.${k} = ${JSON.stringify(v).slice(0, 60)}`;
      }
      const v = pickFrom(STRINGS, m.pick2) ?? "";
      if (typeof current === "string") set(root, path, `${current}${v}`);
      return `append ${JSON.stringify(v)} to ${where}`;
    }
  }
}

export interface Case {
  /** The `duckbill admit --batch` line (a vector without `expect`). */
  readonly line: Record<string, unknown>;
  readonly base: string;
  readonly description: readonly string[];
}

/** The case a plan stands for. */
export function buildCase(corpus: readonly Vector[], pools: Pools, plan: Plan, name: string): Case {
  const vector = corpus[plan.base % corpus.length] as Vector;
  const line: Record<string, unknown> = { name, path: vector.path };
  if (vector.configs !== undefined && !plan.dropConfigs) line.configs = clone(vector.configs);
  if (vector.contentType !== undefined) line.contentType = vector.contentType;
  if (Object.prototype.hasOwnProperty.call(vector, "review")) line.review = clone(vector.review);
  const description: string[] = [];
  if (vector.configs !== undefined && plan.dropConfigs) description.push("drop configs");

  const review = line.review as Json;
  const request = isObject(review) && isObject(review.request) ? review.request : undefined;
  let target: Json | undefined;
  let targetName = "";
  if (request !== undefined) {
    if (plan.target <= 6 && request.object !== undefined && request.object !== null) [target, targetName] = [request.object, "object"];
    else if (plan.target === 7 && request.oldObject !== undefined && request.oldObject !== null) [target, targetName] = [request.oldObject, "oldObject"];
    else [target, targetName] = [request, "request"];
  } else if (review !== undefined) [target, targetName] = [review, "review"];
  if (target !== undefined) {
    const obj = isObject(target) ? target : undefined;
    const meta = obj !== undefined && isObject(obj.metadata) ? obj.metadata : undefined;
    const cmName = vector.path === "/config-validation" && typeof meta?.name === "string" ? meta.name : undefined;
    for (const m of plan.mutations) description.push(`${targetName}: ${mutate(target, m, pools, cmName)}`);
  }

  for (const c of plan.configs) {
    const entry = pickFrom(pools.configEntries, c);
    if (entry === undefined) continue;
    const [cm, k, v] = entry;
    const configs = (line.configs ?? {}) as Record<string, Record<string, string>>;
    configs[cm] = { ...(configs[cm] ?? {}), [k]: v };
    line.configs = configs;
    description.push(`configs ${cm}.${k} = ${JSON.stringify(v)}`);
  }

  if (plan.twist === 1 && (vector.path === "/defaulting" || vector.path === "/resource-validation")) {
    line.path = vector.path === "/defaulting" ? "/resource-validation" : "/defaulting";
    description.push(`path ${line.path as string}`);
  } else if (plan.twist === 2 && request !== undefined) {
    request.operation = pickFrom(OPERATIONS, plan.twistPick) ?? "CREATE";
    description.push(`operation ${JSON.stringify(request.operation)}`);
  } else if (plan.twist === 3 && request !== undefined) {
    request.subResource = pickFrom(SUBRESOURCES, plan.twistPick) ?? "";
    description.push(`subResource ${JSON.stringify(request.subResource)}`);
  }
  return { line, base: vector.name, description };
}

/** Every way to make `line` smaller by one step: drop a member or an array element anywhere in its review, or its configs. */
export function* smaller(line: Record<string, unknown>): Generator<Record<string, unknown>> {
  if (line.configs !== undefined) {
    const configs = line.configs as Record<string, Record<string, string>>;
    const { configs: _drop, ...rest } = line;
    yield rest;
    for (const cm of Object.keys(configs)) {
      for (const k of Object.keys(configs[cm] ?? {})) {
        const c = clone(configs);
        delete (c[cm] as Record<string, string>)[k];
        if (Object.keys(c[cm] ?? {}).length === 0) delete c[cm];
        yield { ...line, configs: c };
      }
    }
  }
  if (line.review === undefined) return;
  // Larger subtrees first: dropping them shrinks fastest.
  const paths = nodes(line.review as Json).sort((a, b) => a.length - b.length);
  for (const p of paths) {
    const review = clone(line.review as Json);
    remove(review, p);
    yield { ...line, review };
  }
}
