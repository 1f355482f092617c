/**
 * Hostile AdmissionReview bodies for the robustness fuzzing (test/robustness/fuzz.test.ts, SECURITY.md):
 * mutations of the conformance vectors and random reviews, written as raw JSON text so that what JSON.stringify
 * cannot produce is reachable too: duplicated keys, `__proto__` members, numbers beyond 2^53 or beyond float64,
 * 10,000 levels of nesting, multi-megabyte strings and arrays, bytes that are not UTF-8.
 */
import fc from "fast-check";
import { ADMISSION_PATHS, type AdmissionPath } from "../../src/admission/http.js";
import { vectorLines } from "../conformance/paths.js";

// ---------------------------------------------------------------------------------------------
// Raw JSON trees: objects are entry lists (duplicates and any key allowed), scalars are literal text.

export type Raw = { readonly t: "obj"; entries: [string, Raw][] } | { readonly t: "arr"; items: Raw[] } | { readonly t: "lit"; text: string };

export function toRaw(v: unknown): Raw {
  if (Array.isArray(v)) return { t: "arr", items: v.map(toRaw) };
  if (typeof v === "object" && v !== null) return { t: "obj", entries: Object.entries(v).map(([k, x]) => [k, toRaw(x)]) };
  return { t: "lit", text: JSON.stringify(v) ?? "null" };
}

/** The JSON text of a raw tree. Iterative: the trees may be nested far deeper than the JS stack allows. */
export function rawText(root: Raw): string {
  const out: string[] = [];
  const stack: (Raw | string)[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (typeof n === "string") {
      out.push(n);
      continue;
    }
    if (n.t === "lit") out.push(n.text);
    else if (n.t === "arr") {
      out.push("[");
      stack.push("]");
      for (let i = n.items.length - 1; i >= 0; i--) {
        stack.push(n.items[i]!);
        if (i > 0) stack.push(",");
      }
    } else {
      out.push("{");
      stack.push("}");
      for (let i = n.entries.length - 1; i >= 0; i--) {
        const [k, v] = n.entries[i]!;
        stack.push(v, `${JSON.stringify(k)}:`);
        if (i > 0) stack.push(",");
      }
    }
  }
  return out.join("");
}

/** Every container of the tree (objects and arrays), in document order; mutations pick one by index. */
function containers(root: Raw, limit = 5000): Raw[] {
  const out: Raw[] = [];
  const stack: Raw[] = [root];
  while (stack.length > 0 && out.length < limit) {
    const n = stack.pop()!;
    if (n.t === "lit") continue;
    out.push(n);
    const kids = n.t === "arr" ? n.items : n.entries.map((e) => e[1]);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out;
}

function clone(r: Raw): Raw {
  return r.t === "lit" ? { t: "lit", text: r.text } : r.t === "arr" ? { t: "arr", items: r.items.map(clone) } : { t: "obj", entries: r.entries.map(([k, v]) => [k, clone(v)]) };
}

// ---------------------------------------------------------------------------------------------
// Hostile values.

/** `depth` nested containers around `inner`, as raw text (a tree that deep would only be built to be printed). */
export function nestedText(depth: number, kind: "array" | "object", inner = "1"): string {
  return kind === "array" ? "[".repeat(depth) + inner + "]".repeat(depth) : '{"a":'.repeat(depth) + inner + "}".repeat(depth);
}

/** Number literals JSON.parse and Go's decoder see differently or not at all as safe integers. */
export const HOSTILE_NUMBERS = [
  "9007199254740993", // 2^53 + 1: not a float64
  "-9007199254740993",
  "18446744073709551616", // 2^64
  "123456789012345678901234567890123456789",
  "1e400", // beyond float64: JSON.parse gives Infinity, Go an error
  "-1e400",
  "1e-400",
  "-0",
  "0.0000000000000000000000001",
  "2147483648", // int32 overflow
  "-2147483649",
  "1.5",
  "1E2",
] as const;

/** Keys that mean something to JavaScript objects; the webhook must treat them as data. */
export const PROTO_KEYS = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf", "__defineGetter__"] as const;

const hostileLiteral: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom("null", "true", "false", '""', "{}", "[]", '"\\ud800"', '"\\udc00\\ud800"', '"\\u0000"', '"\u2028"'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40, unit: "binary" }).map((s) => JSON.stringify(s)),
);

/** A mutation of a raw tree: what it does, where (an index into containers, taken modulo their number), and with what. */
export type Mutation =
  | { op: "delete"; at: number; member: number }
  | { op: "retype"; at: number; member: number; literal: string }
  | { op: "duplicate"; at: number; member: number; literal: string; caseFold: boolean }
  | { op: "proto"; at: number; key: string; value: "object" | "literal"; literal: string }
  | { op: "nest"; at: number; member: number; depth: number; kind: "array" | "object" }
  | { op: "bigString"; at: number; member: number; length: number }
  | { op: "bigArray"; at: number; member: number; length: number; literal: string }
  | { op: "number"; at: number; member: number; literal: string }
  | { op: "wrap"; at: number; member: number };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat(), member: fc.nat() }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant("retype" as const), at: fc.nat(), member: fc.nat(), literal: hostileLiteral }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("duplicate" as const), at: fc.nat(), member: fc.nat(), literal: hostileLiteral, caseFold: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("proto" as const), at: fc.nat(), key: fc.constantFrom(...PROTO_KEYS), value: fc.constantFrom("object" as const, "literal" as const), literal: hostileLiteral }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("nest" as const), at: fc.nat(), member: fc.nat(), depth: fc.integer({ min: 2, max: 300 }), kind: fc.constantFrom("array" as const, "object" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("bigString" as const), at: fc.nat(), member: fc.nat(), length: fc.integer({ min: 1000, max: 100_000 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("bigArray" as const), at: fc.nat(), member: fc.nat(), length: fc.integer({ min: 100, max: 5000 }), literal: hostileLiteral }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("number" as const), at: fc.nat(), member: fc.nat(), literal: fc.constantFrom(...HOSTILE_NUMBERS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("wrap" as const), at: fc.nat(), member: fc.nat() }) },
);

function swapCase(k: string): string {
  const up = k.toUpperCase();
  return up !== k ? up : k.toLowerCase();
}

/** Applies one mutation in place (a no-op when the chosen container has nothing to act on). */
export function applyMutation(root: Raw, m: Mutation): void {
  const all = containers(root);
  // An earlier mutation may have left no container at all (the root retyped to a scalar).
  if (all.length === 0) return;
  const node = all[m.at % all.length]!;
  if (node.t === "lit") return;
  if (m.op === "proto") {
    const v: Raw = m.value === "object" ? { t: "obj", entries: [["polluted", { t: "lit", text: "true" }]] } : { t: "lit", text: m.literal };
    if (node.t === "obj") node.entries.push([m.key, v]);
    else node.items.push({ t: "obj", entries: [[m.key, v]] });
    return;
  }
  const n = node.t === "obj" ? node.entries.length : node.items.length;
  if (n === 0) return;
  const i = m.member % n;
  const get = (): Raw => (node.t === "obj" ? node.entries[i]![1] : node.items[i]!);
  const set = (v: Raw): void => {
    if (node.t === "obj") node.entries[i]![1] = v;
    else node.items[i] = v;
  };
  switch (m.op) {
    case "delete":
      if (node.t === "obj") node.entries.splice(i, 1);
      else node.items.splice(i, 1);
      return;
    case "retype":
    case "number":
      set({ t: "lit", text: m.literal });
      return;
    case "duplicate":
      if (node.t === "obj") {
        const [k] = node.entries[i]!;
        // Before or after the original, exactly or in another case (Go matches struct fields case-insensitively).
        const entry: [string, Raw] = [m.caseFold ? swapCase(k) : k, { t: "lit", text: m.literal }];
        if (m.member % 2 === 0) node.entries.splice(i + 1, 0, entry);
        else node.entries.splice(i, 0, entry);
      } else node.items.splice(i, 0, clone(get()));
      return;
    case "nest":
      set({ t: "lit", text: nestedText(m.depth, m.kind, rawText(get())) });
      return;
    case "bigString":
      set({ t: "lit", text: JSON.stringify("x".repeat(m.length)) });
      return;
    case "bigArray":
      set({ t: "lit", text: `[${Array.from({ length: m.length }, () => m.literal).join(",")}]` });
      return;
    case "wrap":
      set({ t: "arr", items: [get()] });
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies as bytes.

/** A change to the encoded body: bytes that are not UTF-8, a cut, a prefix or trailing data. */
export type ByteMutation =
  | { op: "none" }
  | { op: "invalidUtf8"; at: number; bytes: readonly number[]; inString: boolean }
  | { op: "truncate"; at: number }
  | { op: "prefix"; bytes: readonly number[] }
  | { op: "trailing"; bytes: readonly number[] };

/** Byte sequences that are not well-formed UTF-8: lone continuation bytes, overlongs, surrogates, > U+10FFFF, cut sequences. */
const INVALID_UTF8: readonly (readonly number[])[] = [[0x80], [0xbf], [0xc0, 0xaf], [0xc1, 0xbf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xff], [0xfe], [0xe2, 0x82], [0xf0, 0x9f, 0x98]];

export const byteMutationArb: fc.Arbitrary<ByteMutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ op: "none" as const }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("invalidUtf8" as const), at: fc.nat(), bytes: fc.constantFrom(...INVALID_UTF8), inString: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("prefix" as const), bytes: fc.constantFrom([0xef, 0xbb, 0xbf], [0x20, 0x0a], [0x00], [0x5b]) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("trailing" as const), bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 16 }) }) },
);

const QUOTE = 0x22;

export function applyByteMutation(text: string, m: ByteMutation): Buffer {
  const b = Buffer.from(text, "utf8");
  switch (m.op) {
    case "none":
      return b;
    case "truncate":
      return b.subarray(0, m.at % (b.length + 1));
    case "prefix":
      return Buffer.concat([Buffer.from(m.bytes), b]);
    case "trailing":
      return Buffer.concat([b, Buffer.from(m.bytes)]);
    case "invalidUtf8": {
      let at = m.at % (b.length + 1);
      if (m.inString) {
        // Just after an opening quote: inside a string, where Go turns the bytes into U+FFFD.
        const q = b.indexOf(QUOTE, at);
        at = q === -1 ? at : q + 1;
      }
      return Buffer.concat([b.subarray(0, at), Buffer.from(m.bytes), b.subarray(at)]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Seeds: the conformance vectors.

export interface VectorRequest {
  readonly name: string;
  readonly path: AdmissionPath;
  /** The parsed review as the vector has it. */
  readonly review: unknown;
  /** Whether the vector runs with its own ConfigMaps (its expected answer depends on them). */
  readonly hasConfigs: boolean;
}

let vectorCache: VectorRequest[] | undefined;

/** Every conformance vector (the repo copy) that sends a review to an admission path. */
export function vectorRequests(): readonly VectorRequest[] {
  if (vectorCache !== undefined) return vectorCache;
  const out: VectorRequest[] = [];
  for (const line of vectorLines()) {
    const v = line as { name: string; path: string; review?: unknown; configs?: unknown };
    if (v.review === undefined || !(ADMISSION_PATHS as readonly string[]).includes(v.path)) continue;
    out.push({ name: v.name, path: v.path as AdmissionPath, review: v.review, hasConfigs: v.configs !== undefined });
  }
  vectorCache = out;
  return out;
}

/** One fuzz case: the path, the body bytes, and the uid the answer must carry when it is a 200 (undefined: not known). */
export interface FuzzCase {
  readonly label: string;
  readonly path: AdmissionPath;
  readonly body: Buffer;
  readonly expectedUid: string | undefined;
}

/**
 * The uid a well-formed answer must echo, from the raw tree: known when `request` and its `uid` each occur once
 * (in any letter case, as Go's case-insensitive field matching would pick them up) and the uid is a plain string.
 * Duplicates are left open: which one wins is a conformance question, not a robustness one.
 */
export function expectedUidOf(root: Raw): string | undefined {
  if (root.t !== "obj") return undefined;
  const reqs = root.entries.filter(([k]) => k.toLowerCase() === "request");
  if (reqs.length !== 1) return undefined;
  const req = reqs[0]![1];
  if (req.t !== "obj") return undefined;
  const uids = req.entries.filter(([k]) => k.toLowerCase() === "uid");
  if (uids.length === 0) return "";
  if (uids.length !== 1) return undefined;
  const u = uids[0]![1];
  if (u.t !== "lit") return undefined;
  if (u.text === "null") return "";
  try {
    const s: unknown = JSON.parse(u.text);
    return typeof s === "string" && !/[\uD800-\uDFFF]/.test(s) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** A conformance vector with up to `maxMutations` structural mutations and one byte-level mutation. */
export function mutatedVectorArb(maxMutations = 4): fc.Arbitrary<FuzzCase> {
  const vectors = vectorRequests();
  return fc
    .record({
      index: fc.nat({ max: vectors.length - 1 }),
      mutations: fc.array(mutationArb, { minLength: 1, maxLength: maxMutations }),
      bytes: byteMutationArb,
      otherPath: fc.option(fc.constantFrom(...ADMISSION_PATHS), { freq: 5 }),
    })
    .map(({ index, mutations, bytes, otherPath }) => {
      const v = vectors[index]!;
      const root = toRaw(v.review);
      for (const m of mutations) applyMutation(root, m);
      const body = applyByteMutation(rawText(root), bytes);
      const uid = bytes.op === "none" || bytes.op === "trailing" ? expectedUidOf(root) : undefined;
      return { label: `${v.name} ${JSON.stringify(mutations.map((m) => m.op))} ${bytes.op}`, path: otherPath ?? v.path, body, expectedUid: uid };
    });
}

const gvk = fc.oneof(
  fc.constantFrom(
    { group: "serving.knative.dev", version: "v1", kind: "Service" },
    { group: "serving.knative.dev", version: "v1", kind: "Configuration" },
    { group: "serving.knative.dev", version: "v1", kind: "Route" },
    { group: "serving.knative.dev", version: "v1", kind: "Revision" },
    { group: "serving.knative.dev", version: "v1beta1", kind: "DomainMapping" },
    { group: "autoscaling.internal.knative.dev", version: "v1alpha1", kind: "PodAutoscaler" },
    { group: "", version: "v1", kind: "ConfigMap" },
  ),
  fc.record({ group: fc.string({ maxLength: 20 }), version: fc.string({ maxLength: 8 }), kind: fc.string({ maxLength: 20 }) }),
);

const anyJson = fc.jsonValue({ maxDepth: 5 });
const knativeName = fc.stringMatching(/^[a-z]([-a-z0-9]{0,20}[a-z0-9])?$/);

/** Objects that look like Knative resources, with random members anywhere. */
const objectArb = fc.oneof(
  anyJson,
  fc.record(
    {
      apiVersion: fc.oneof(fc.constantFrom("serving.knative.dev/v1", "v1", "serving.knative.dev/v1beta1"), anyJson),
      kind: fc.oneof(fc.constantFrom("Service", "Configuration", "Route", "Revision", "ConfigMap", "DomainMapping"), anyJson),
      metadata: fc.oneof(
        fc.record({ name: knativeName, namespace: knativeName, annotations: fc.dictionary(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 })), labels: fc.dictionary(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 })), generation: fc.oneof(fc.integer(), anyJson) }, { requiredKeys: [] }),
        anyJson,
      ),
      spec: fc.oneof(
        fc.record(
          {
            template: fc.record({ metadata: anyJson, spec: fc.record({ containers: fc.oneof(fc.array(fc.record({ image: fc.oneof(fc.constant("ghcr.io/knative/helloworld-go:latest"), anyJson), name: anyJson, ports: anyJson, env: anyJson }, { requiredKeys: [] }), { maxLength: 3 }), anyJson), containerConcurrency: anyJson, timeoutSeconds: anyJson, volumes: anyJson }, { requiredKeys: [] }) }, { requiredKeys: [] }),
            traffic: fc.oneof(fc.array(fc.record({ percent: anyJson, latestRevision: anyJson, revisionName: anyJson, tag: anyJson }, { requiredKeys: [] }), { maxLength: 3 }), anyJson),
          },
          { requiredKeys: [] },
        ),
        anyJson,
      ),
      data: fc.oneof(fc.dictionary(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 })), anyJson),
      status: anyJson,
    },
    { requiredKeys: [] },
  ),
);

/** Random AdmissionReviews: every member optional, each either plausible or any JSON value. */
export const randomReviewArb: fc.Arbitrary<FuzzCase> = fc
  .record({
    path: fc.constantFrom(...ADMISSION_PATHS),
    review: fc.record(
      {
        apiVersion: fc.oneof(fc.constantFrom("admission.k8s.io/v1", "admission.k8s.io/v1beta1", ""), anyJson),
        kind: fc.oneof(fc.constant("AdmissionReview"), anyJson),
        request: fc.oneof(
          { weight: 1, arbitrary: anyJson },
          {
            weight: 6,
            arbitrary: fc.record(
              {
                uid: fc.oneof({ weight: 5, arbitrary: fc.uuid() }, { weight: 1, arbitrary: anyJson }),
                kind: fc.oneof(gvk, anyJson),
                resource: anyJson,
                subResource: fc.oneof(fc.constantFrom("", "status", "scale"), anyJson),
                name: fc.oneof(knativeName, anyJson),
                namespace: fc.oneof(knativeName, anyJson),
                operation: fc.oneof(fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT", "create", ""), anyJson),
                userInfo: fc.oneof(fc.record({ username: fc.string(), groups: fc.array(fc.string(), { maxLength: 3 }) }), anyJson),
                object: objectArb,
                oldObject: objectArb,
                dryRun: anyJson,
                options: anyJson,
              },
              { requiredKeys: ["uid"] },
            ),
          },
        ),
      },
      { requiredKeys: [] },
    ),
    bytes: byteMutationArb,
  })
  .map(({ path, review, bytes }) => {
    const root = toRaw(review);
    const body = applyByteMutation(rawText(root), bytes);
    return { label: "random review", path, body, expectedUid: bytes.op === "none" || bytes.op === "trailing" ? expectedUidOf(root) : undefined };
  });

/** A valid Service CREATE with `object` replaced by raw JSON text (for the hand-made extremes below). */
function serviceWith(uid: string, objectText: string): Buffer {
  return Buffer.from(
    `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":${JSON.stringify(uid)},"kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},` +
      `"resource":{"group":"serving.knative.dev","version":"v1","resource":"services"},"name":"hello","namespace":"default","operation":"CREATE","userInfo":{"username":"alice"},"object":${objectText}}}`,
  );
}

function service(spec: string, metadataExtra = ""): string {
  return `{"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"hello","namespace":"default"${metadataExtra}},"spec":${spec}}`;
}

const CONTAINER = '{"image":"ghcr.io/knative/helloworld-go:latest"}';

/**
 * Hand-made extremes, each once per path: the limits of Go's decoder (10,000 levels of nesting allowed, 10,001 not),
 * bodies just under the 3 MiB limit, and the hostile keys in every place the pipelines look.
 */
export function extremeCases(): FuzzCase[] {
  const cases: { label: string; body: Buffer; uid: string | undefined }[] = [];
  const add = (label: string, body: Buffer, uid: string | undefined = label): void => void cases.push({ label, body, uid });
  for (const kind of ["array", "object"] as const) {
    add(`spec nested 9,990 ${kind}s`, serviceWith(`spec nested 9,990 ${kind}s`, service(nestedText(9990, kind))));
    add(`unknown field nested 9,990 ${kind}s`, serviceWith(`unknown field nested 9,990 ${kind}s`, service(`{"template":{"spec":{"containers":[${CONTAINER}]}},"x":${nestedText(9990, kind)}}`)));
    add(`annotation nested 9,990 ${kind}s`, serviceWith(`annotation nested 9,990 ${kind}s`, service(`{}`, `,"annotations":${nestedText(9990, kind)}`)));
    add(`container env nested 9,980 ${kind}s`, serviceWith(`container env nested 9,980 ${kind}s`, service(`{"template":{"spec":{"containers":[{"image":"a","env":${nestedText(9980, kind)}}]}}}`)));
    // metav1.FieldsV1 is raw JSON: kept whole through defaulting, so the defaulting patch's diff walks all of it.
    const fieldsV1 = `,"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${nestedText(9985, kind)}}]`;
    add(`managedFields fieldsV1 nested 9,985 ${kind}s`, serviceWith(`managedFields fieldsV1 nested 9,985 ${kind}s`, service(`{"template":{"spec":{"containers":[${CONTAINER}]}}}`, fieldsV1)));
    // Over Go's limit: a syntax error, answered 400.
    add(`body nested 10,001 ${kind}s`, Buffer.from(nestedText(10_001, kind)), undefined);
    add(`object nested 10,001 ${kind}s`, serviceWith("deep", nestedText(10_001, kind)), undefined);
    add(`body nested 100,000 ${kind}s`, Buffer.from(nestedText(100_000, kind)), undefined);
  }
  const mib = 1024 * 1024;
  add("2.9 MiB annotation value", serviceWith("2.9 MiB annotation value", service(`{"template":{"spec":{"containers":[${CONTAINER}]}}}`, `,"annotations":{"big":${JSON.stringify("a".repeat(2.9 * mib))}}`)));
  add("2.9 MiB image", serviceWith("2.9 MiB image", service(`{"template":{"spec":{"containers":[{"image":${JSON.stringify("a".repeat(2.9 * mib))}}]}}}`)));
  add("2.9 MiB uid", serviceWith("u".repeat(2.9 * mib), service(`{}`)), "u".repeat(2.9 * mib));
  add("300,000 containers", serviceWith("300,000 containers", service(`{"template":{"spec":{"containers":[${Array(300_000).fill("{}").join(",")}]}}}`)));
  // The most containers a pod spec may list (MAX_CONTAINERS), all unnamed: the worst case of the duplicate-name quirk.
  add("256 unnamed containers", serviceWith("256 unnamed containers", service(`{"template":{"spec":{"containers":[${Array(256).fill("{}").join(",")}]}}}`)));
  add("100,000 env entries", serviceWith("100,000 env entries", service(`{"template":{"spec":{"containers":[{"image":"a","env":[${Array(100_000).fill('{"name":"A","value":"b"}').join(",")}]}]}}}`)));
  add("100,000 traffic targets", serviceWith("100,000 traffic targets", service(`{"template":{"spec":{"containers":[${CONTAINER}]}},"traffic":[${Array(100_000).fill('{"percent":0,"latestRevision":true}').join(",")}]}`)));
  add("50,000 annotations", serviceWith("50,000 annotations", service(`{}`, `,"annotations":{${Array.from({ length: 50_000 }, (_, i) => `"k${i}.knative.dev/x":"v"`).join(",")}}`)));
  add("500,000 members with the same key", serviceWith("500,000 members with the same key", service(`{${Array(500_000).fill('"template":{}').join(",")}}`)));
  add("1,000,000 array elements", serviceWith("1,000,000 array elements", service(`{"x":[${Array(1_000_000).fill("0").join(",")}]}`)));
  for (const key of PROTO_KEYS) {
    const polluter = `{"polluted":true,"toString":1,"hasOwnProperty":"x"}`;
    add(
      `${key} everywhere`,
      serviceWith(
        `${key} everywhere`,
        `{"${key}":${polluter},"apiVersion":"serving.knative.dev/v1","kind":"Service","metadata":{"name":"hello","namespace":"default","${key}":${polluter},"labels":{"${key}":"x"},"annotations":{"${key}":"x"}},` +
          `"spec":{"${key}":${polluter},"template":{"${key}":${polluter},"metadata":{"${key}":${polluter},"annotations":{"${key}":"1"}},"spec":{"${key}":${polluter},"containers":[{"${key}":${polluter},"image":"a","env":[{"name":"${key}","${key}":${polluter}}]}]}},"traffic":[{"${key}":${polluter},"percent":100,"latestRevision":true}]}}`,
      ),
    );
    add(`${key} as the review's and request's member`, Buffer.from(`{"${key}":{"polluted":true},"request":{"${key}":{"polluted":true},"uid":"${key} review","kind":{"${key}":1,"group":"","version":"v1","kind":"ConfigMap"},"operation":"CREATE","object":{"data":{"${key}":"x"},"metadata":{"name":"config-features"}}}}`), `${key} review`);
  }
  for (const n of HOSTILE_NUMBERS) {
    add(`number ${n} in spec fields`, serviceWith(`number ${n}`, service(`{"template":{"spec":{"containerConcurrency":${n},"timeoutSeconds":${n},"containers":[{"image":"a","ports":[{"containerPort":${n}}]}]}},"traffic":[{"percent":${n},"latestRevision":true}]}`, `,"generation":${n}`)), `number ${n}`);
  }
  add("uid 2^53+1 as a number", Buffer.from('{"request":{"uid":9007199254740993}}'), undefined);
  add("invalid UTF-8 in every string", Buffer.concat([Buffer.from('{"request":{"uid":"bad utf8","kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},"operation":"CREATE","object":{"metadata":{"name":"'), Buffer.from([0xff, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('"}}}}')]), "bad utf8");
  add("invalid UTF-8 in the uid", Buffer.concat([Buffer.from('{"request":{"uid":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]), "\uFFFD\uFFFD");
  add("invalid UTF-8 outside strings", Buffer.concat([Buffer.from('{"request":'), Buffer.from([0xff]), Buffer.from("{}}")]), undefined);
  add("NUL bytes", Buffer.from('{"request":{"uid":"nul\\u0000","object":{"metadata":{"name":"a\\u0000b"}}}}'), "nul\u0000");
  add("lone surrogate escapes", Buffer.from('{"request":{"uid":"x","object":{"metadata":{"name":"\\ud800","annotations":{"\\udc00":"\\ud83d"}}}}}'), "x");
  add("empty body", Buffer.alloc(0), undefined);
  add("whitespace only", Buffer.from(" \n\t\r "), undefined);
  add("JSON null", Buffer.from("null"), undefined);
  const out: FuzzCase[] = [];
  for (const c of cases) for (const path of ADMISSION_PATHS) out.push({ label: c.label, path, body: c.body, expectedUid: c.uid });
  return out;
}
