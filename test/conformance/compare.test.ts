import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalize } from "../support/normalize.js";
import { check, decodePatch, firstDiff, judge, short, type Answer, type Vector } from "./compare.js";
import { applyPatch, PatchError } from "./json-patch.js";
import { sharedAvailable } from "./paths.js";
import { askCompareModule, runCompareCli, type DriverQuery } from "./python-referee.js";
import { pyRepr, pyStr, pyStrip, jsonDumps, PythonError } from "./python-values.js";

const SHARED = sharedAvailable();

const b64 = (ops: unknown): string => Buffer.from(JSON.stringify(ops)).toString("base64");

const SERVICE = {
  apiVersion: "serving.knative.dev/v1",
  kind: "Service",
  metadata: { name: "hello", namespace: "default" },
  spec: { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go" }] } } },
};

function review(uid: string | undefined, object: unknown = SERVICE): unknown {
  const request: Record<string, unknown> = { operation: "CREATE", object };
  if (uid !== undefined) request.uid = uid;
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request };
}

function vector(name: string, expect: Vector["expect"], over: Partial<Vector> = {}): Vector {
  return { name: `synthetic/${name}`, path: "/resource-validation", review: review("u-1"), expect, ...over };
}

function answer(name: string, response: Record<string, unknown>, httpStatus = 200): Answer {
  return { name: `synthetic/${name}`, httpStatus, review: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response } };
}

const ALLOWED = { httpStatus: 200, response: { uid: "u-1", allowed: true } };
const DENIED_MSG = "validation failed: invalid value: 8012 is a reserved port: spec.template.spec.containers[0].ports.containerPort\n8012 is a reserved port, please use a different value";
const DENIED = { httpStatus: 200, response: { uid: "u-1", allowed: false, status: { metadata: {}, status: "Failure", reason: "BadRequest", code: 400, message: DENIED_MSG } } };
const DIFF_MSG = "validation failed: Immutable fields changed (-old +new): spec\n{v1.RevisionSpec}.PodSpec.Containers[0].Image:\n\t-: \"a\"\n\t+: \"b\"\n";
const DIFFED = { httpStatus: 200, response: { uid: "u-1", allowed: false, status: { code: 400, reason: "BadRequest", message: DIFF_MSG } } };
const denial = (message: string, code = 400, reason = "BadRequest"): Record<string, unknown> => ({ uid: "u-1", allowed: false, status: { metadata: {}, status: "Failure", reason, code, message } });
const WARNED = { httpStatus: 200, response: { uid: "u-1", allowed: true, warnings: ["first", "second"] } };
const PATCHED_OBJECT = { ...SERVICE, metadata: { ...SERVICE.metadata, annotations: { "serving.knative.dev/creator": "alice" }, creationTimestamp: null }, status: {} };
const PATCHED = { httpStatus: 200, response: { uid: "u-1", allowed: true, patchType: "JSONPatch" }, patchedObject: PATCHED_OBJECT };
const ADD_CREATOR = [{ op: "add", path: "/metadata/annotations", value: { "serving.knative.dev/creator": "alice" } }];
const UNSUPPORTED = { httpStatus: 415, body: "invalid Content-Type, want `application/json`" };

interface Case {
  readonly name: string;
  readonly vector: Vector["expect"];
  readonly answer: Answer | undefined;
  readonly over?: Partial<Vector>;
  readonly passes: boolean;
}

const CASES: readonly Case[] = [
  { name: "allowed-as-expected", vector: ALLOWED, answer: answer("allowed-as-expected", { uid: "u-1", allowed: true }), passes: true },
  { name: "no-output", vector: ALLOWED, answer: undefined, passes: false },
  { name: "wrong-status", vector: ALLOWED, answer: { name: "synthetic/wrong-status", httpStatus: 400, body: "could not decode body" }, passes: false },
  { name: "body-trimmed", vector: UNSUPPORTED, answer: { name: "synthetic/body-trimmed", httpStatus: 415, body: `${UNSUPPORTED.body}\n` }, passes: true },
  { name: "wrong-body", vector: UNSUPPORTED, answer: { name: "synthetic/wrong-body", httpStatus: 415, body: "unsupported media type" }, passes: false },
  { name: "body-not-a-string", vector: UNSUPPORTED, answer: { name: "synthetic/body-not-a-string", httpStatus: 415, body: 415 }, passes: false },
  { name: "no-response", vector: ALLOWED, answer: { name: "synthetic/no-response", httpStatus: 200, review: { kind: "AdmissionReview" } }, passes: false },
  { name: "wrong-uid", vector: ALLOWED, answer: answer("wrong-uid", { uid: "u-2", allowed: true }), passes: false },
  { name: "missing-request-uid", vector: ALLOWED, over: { review: review(undefined) }, answer: answer("missing-request-uid", { allowed: true }), passes: true },
  { name: "allowed-want-denied", vector: DENIED, answer: answer("allowed-want-denied", { uid: "u-1", allowed: true }), passes: false },
  { name: "denied-want-allowed", vector: ALLOWED, answer: answer("denied-want-allowed", denial("validation failed: nope")), passes: false },
  { name: "allowed-absent-is-false", vector: DENIED, answer: answer("allowed-absent-is-false", { uid: "u-1", status: { reason: "BadRequest", code: 400, message: DENIED_MSG } }), passes: true },
  { name: "denied-as-expected", vector: DENIED, answer: answer("denied-as-expected", denial(DENIED_MSG)), passes: true },
  { name: "wrong-message", vector: DENIED, answer: answer("wrong-message", denial(DENIED_MSG.replace("8012", "8013"))), passes: false },
  { name: "message-second-line-differs", vector: DENIED, answer: answer("message-second-line-differs", denial(DENIED_MSG + "!")), passes: false },
  { name: "wrong-code", vector: DENIED, answer: answer("wrong-code", denial(DENIED_MSG, 500)), passes: false },
  { name: "wrong-reason", vector: DENIED, answer: answer("wrong-reason", denial(DENIED_MSG, 400, "Invalid")), passes: false },
  { name: "diff-message-other-diff", vector: DIFFED, answer: answer("diff-message-other-diff", denial("validation failed: Immutable fields changed (-old +new): spec\n  something else")), passes: true },
  { name: "diff-message-first-line-only", vector: DIFFED, answer: answer("diff-message-first-line-only", denial("validation failed: Immutable fields changed (-old +new): spec")), passes: true },
  { name: "diff-message-other-first-line", vector: DIFFED, answer: answer("diff-message-other-first-line", denial("validation failed: Immutable fields changed (-old +new): metadata\n" + DIFF_MSG.split("\n").slice(1).join("\n"))), passes: false },
  { name: "warnings-as-expected", vector: WARNED, answer: answer("warnings-as-expected", { uid: "u-1", allowed: true, warnings: ["first", "second"] }), passes: true },
  { name: "warnings-reordered", vector: WARNED, answer: answer("warnings-reordered", { uid: "u-1", allowed: true, warnings: ["second", "first"] }), passes: false },
  { name: "warnings-missing", vector: WARNED, answer: answer("warnings-missing", { uid: "u-1", allowed: true }), passes: false },
  { name: "warnings-empty-is-absent", vector: ALLOWED, answer: answer("warnings-empty-is-absent", { uid: "u-1", allowed: true, warnings: [] }), passes: true },
  { name: "patch-as-expected", vector: PATCHED, answer: answer("patch-as-expected", { uid: "u-1", allowed: true, patchType: "JSONPatch", patch: b64(ADD_CREATOR) }), passes: true },
  { name: "patch-missing", vector: PATCHED, answer: answer("patch-missing", { uid: "u-1", allowed: true }), passes: false },
  {
    name: "patch-needs-missing-parent",
    vector: PATCHED,
    answer: answer("patch-needs-missing-parent", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/metadata/annotations/serving.knative.dev~1creator", value: "alice" }]) }),
    passes: false,
  },
  { name: "patch-replace-missing-target", vector: PATCHED, answer: answer("patch-replace-missing-target", { uid: "u-1", allowed: true, patch: b64([{ op: "replace", path: "/metadata/annotations", value: { "serving.knative.dev/creator": "alice" } }]) }), passes: false },
  { name: "patch-wrong-value", vector: PATCHED, answer: answer("patch-wrong-value", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/metadata/annotations", value: { "serving.knative.dev/creator": "bob" } }]) }), passes: false },
  { name: "patch-not-base64", vector: PATCHED, answer: answer("patch-not-base64", { uid: "u-1", allowed: true, patch: "not base64!" }), passes: false },
  { name: "patch-bad-padding", vector: PATCHED, answer: answer("patch-bad-padding", { uid: "u-1", allowed: true, patch: b64(ADD_CREATOR).replace(/=+$/, "") + "A" }), passes: false },
  { name: "unexpected-patch", vector: ALLOWED, answer: answer("unexpected-patch", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/metadata/labels", value: { a: "b" } }]) }), passes: false },
  { name: "patch-only-empty-members", vector: ALLOWED, answer: answer("patch-only-empty-members", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/status", value: {} }]) }), passes: true },
  { name: "patch-json-null-is-no-patch", vector: ALLOWED, answer: answer("patch-json-null-is-no-patch", { uid: "u-1", allowed: true, patch: b64(null) }), passes: true },
  { name: "append-at-length", vector: ALLOWED, answer: answer("append-at-length", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/spec/template/spec/containers/1", value: {} }, { op: "remove", path: "/spec/template/spec/containers/1" }]) }), passes: true },
  { name: "append-with-dash", vector: ALLOWED, answer: answer("append-with-dash", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/spec/template/spec/containers/-", value: { image: "x" } }]) }), passes: false },
  { name: "index-beyond-end", vector: ALLOWED, answer: answer("index-beyond-end", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/spec/template/spec/containers/2", value: {} }]) }), passes: false },
  { name: "index-leading-zero", vector: ALLOWED, answer: answer("index-leading-zero", { uid: "u-1", allowed: true, patch: b64([{ op: "replace", path: "/spec/template/spec/containers/00/image", value: "x" }]) }), passes: false },
  { name: "pointer-not-a-string", vector: ALLOWED, answer: answer("pointer-not-a-string", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: 7, value: {} }]) }), passes: false },
  // Python truthiness: the string "false" is true.
  { name: "allowed-string-is-truthy", vector: ALLOWED, answer: answer("allowed-string-is-truthy", { uid: "u-1", allowed: "false" }), passes: true },
];

const VECTORS = CASES.map((c) => vector(c.name, c.vector, c.over));
const ANSWERS = CASES.map((c) => c.answer);

describe("compare.ts judges synthetic answers", () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))("%s", (_name, c, i) => {
    const reason = judge(VECTORS[i] as Vector, ANSWERS[i]);
    expect(reason === undefined, reason ?? "passed").toBe(c.passes);
  });

  it("gives the same verdicts and reasons as compare.py", () => {
    const ts = new Map<string, string>();
    VECTORS.forEach((v, i) => {
      const reason = judge(v, ANSWERS[i]);
      if (reason !== undefined) ts.set(v.name, reason.replaceAll("\n", "\\n"));
    });
    expect(ts.size).toBe(CASES.filter((c) => !c.passes).length);
    if (!SHARED) {
      return;
    }
    const py = runCompareCli(
      VECTORS,
      ANSWERS.filter((a): a is Answer => a !== undefined),
    );
    expect(py.failed).toBe(ts.size);
    expect(py.passed).toBe(CASES.length - ts.size);
    expect(Object.fromEntries(ts)).toEqual(Object.fromEntries(py.failures));
  });
});

describe("check", () => {
  it("throws like Python on a non-string body and judge reports it as a comparison error", () => {
    const v = vector("x", UNSUPPORTED);
    expect(() => check(v, { httpStatus: 415, body: 5 })).toThrow(PythonError);
    expect(judge(v, { httpStatus: 415, body: 5 })).toBe("comparison error: AttributeError: 'int' object has no attribute 'strip'");
  });

  it("names the first difference of a patched object in sorted key order", () => {
    expect(judge(vector("x", PATCHED), answer("x", { uid: "u-1", allowed: true, patch: b64([{ op: "add", path: "/metadata/annotations", value: { z: "1" } }]) }))).toBe(
      `patched object differs at /metadata/annotations/serving.knative.dev/creator: missing, want 'alice'`,
    );
  });
});

describe("applyPatch", () => {
  const doc = { a: { b: [1, 2] }, "x/y": 1, "m~n": 2 };
  it.each([
    ["adds to an existing parent", [{ op: "add", path: "/a/c", value: 3 }], { a: { b: [1, 2], c: 3 }, "x/y": 1, "m~n": 2 }],
    ["inserts into an array", [{ op: "add", path: "/a/b/0", value: 0 }], { a: { b: [0, 1, 2] }, "x/y": 1, "m~n": 2 }],
    ["unescapes ~1 and ~0", [{ op: "remove", path: "/x~1y" }, { op: "remove", path: "/m~0n" }], { a: { b: [1, 2] } }],
    ["moves by removing then adding", [{ op: "move", from: "/a/b", path: "/b" }], { a: {}, b: [1, 2], "x/y": 1, "m~n": 2 }],
    ["copies", [{ op: "copy", from: "/a/b/1", path: "/a/b/-" }], { a: { b: [1, 2, 2] }, "x/y": 1, "m~n": 2 }],
    ["replaces the root", [{ op: "replace", path: "", value: 1 }], 1],
    ["tests with Python equality (true == 1)", [{ op: "test", path: "/a/b/0", value: true }], doc],
  ])("%s", (_name, ops, want) => {
    expect(applyPatch(doc, ops)).toEqual(want);
    expect(doc).toEqual({ a: { b: [1, 2] }, "x/y": 1, "m~n": 2 });
  });

  it.each([
    ["add under a missing parent", [{ op: "add", path: "/q/r", value: 1 }], "missing key 'q'"],
    ["replace of a missing target", [{ op: "replace", path: "/q", value: 1 }], "missing key 'q'"],
    ["index past the end", [{ op: "add", path: "/a/b/3", value: 1 }], "array index 3 out of range"],
    ["'-' where appending is not allowed", [{ op: "remove", path: "/a/b/-" }], "invalid array index '-'"],
    ["leading zero", [{ op: "remove", path: "/a/b/01" }], "invalid array index '01'"],
    ["pointer without a slash", [{ op: "remove", path: "a" }], "invalid JSON pointer 'a'"],
    ["failed test", [{ op: "test", path: "/a/b/0", value: 2 }], "test failed at /a/b/0"],
    ["unknown op", [{ op: "frob", path: "/a" }], "unknown op 'frob'"],
    ["missing path", [{ op: "add" }], "malformed operation {'op': 'add'}"],
    ["not an array", { op: "add" }, "patch is not a JSON array"],
  ])("rejects %s", (_name, ops, message) => {
    expect(() => applyPatch(doc, ops)).toThrow(new PatchError(message));
  });

  it("keeps __proto__ as an ordinary member", () => {
    const out = applyPatch({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("normalize", () => {
  it("drops null members, then empty objects and arrays, bottom-up, and keeps array elements", () => {
    expect(normalize({ a: null, b: { c: { d: [] } }, e: [null, {}, []], f: 0, g: "" })).toEqual({ e: [null, {}, []], f: 0, g: "" });
  });

  it("reaches its fixed point in one pass", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(normalize(normalize(v))).toEqual(normalize(v));
      }),
    );
  });
});

describe("Python text forms", () => {
  it.each([
    [null, "None", "null"],
    [true, "True", "true"],
    [1.5e-7, "1.5e-07", "1.5e-07"],
    [1234.5, "1234.5", "1234.5"],
    ["it's", `"it's"`, `"it's"`],
    ["a\nb\u0001é\u200b", "'a\\nb\\x01é\\u200b'", '"a\\nb\\u0001é\u200b"'],
    [{ k: [1, "v"] }, "{'k': [1, 'v']}", '{"k": [1, "v"]}'],
  ])("repr and json.dumps of %j", (v, repr, dumps) => {
    expect(pyRepr(v)).toBe(repr);
    expect(jsonDumps(v)).toBe(dumps);
  });

  it("short() cuts after n code points", () => {
    expect(short("x".repeat(200))).toBe(`'${"x".repeat(159)}...`);
  });
});

/** Random documents and patches built from a few keys, so that pointers often hit and sometimes miss. */
const KEY = fc.constantFrom("a", "b", "0", "1", "x/y", "m~n", "__proto__");
const TOKEN = fc.constantFrom("a", "b", "0", "1", "2", "-", "01", "", "x~1y", "m~0n", "~2", "__proto__");
const SCALAR = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.constantFrom(0.5, -2.25, 1e-5), fc.constantFrom("", "s", "it's", 'q"', "a\nb", "é\u0085 ", " \u001c t \ufeff"));
const { json: DOC } = fc.letrec((tie) => ({
  json: fc.oneof({ depthSize: "small", withCrossShrink: true }, SCALAR, fc.array(tie("json"), { maxLength: 3 }), fc.dictionary(KEY, tie("json"), { maxKeys: 3 })),
}));
const POINTER = fc.oneof({ weight: 8, arbitrary: fc.array(TOKEN, { maxLength: 3 }).map((t) => t.map((s) => `/${s}`).join("")) }, { weight: 1, arbitrary: fc.constantFrom("a", 7, null) });
const OP = fc.record(
  { op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "frob"), path: POINTER, from: POINTER, value: DOC },
  { requiredKeys: ["op"] },
);
const PATCH = fc.oneof({ weight: 9, arbitrary: fc.array(OP, { maxLength: 4 }) }, { weight: 1, arbitrary: DOC });

function tsApply(doc: unknown, ops: unknown): unknown {
  try {
    return { result: applyPatch(doc, ops) };
  } catch (e) {
    return { error: [e instanceof PythonError ? e.pyType : "PatchError", (e as Error).message] };
  }
}

const BASE64_TEXT = fc.oneof(
  fc.string({ unit: fc.constantFrom("Q", "U", "J", "D", "b", "n", "V", "s", "b", "A", "=", "=", "=", "!", "é"), maxLength: 9 }),
  DOC.map((v) => Buffer.from(JSON.stringify(v)).toString("base64")),
  fc.constantFrom(null, 5, true, [], "", "bnVsbA==", "77u/bnVsbA==", "/w==", "QUJD=", "QUJD===", "bnVsbA==\n", "=bnVsbA=="),
);

function tsDecode(raw: unknown): unknown {
  try {
    return { result: decodePatch({ patch: raw }) };
  } catch (e) {
    const message = (e as Error).message;
    // Python's and V8's JSON parsers word their errors differently; the verdict (an error) is what must agree.
    return { error: ["PatchError", message.startsWith("response.patch is not JSON") ? "response.patch is not JSON" : message] };
  }
}

function tsText(v: unknown): unknown {
  return { result: [pyRepr(v), jsonDumps(v), pyStr(v), typeof v === "string" ? pyStrip(v) : null, short(v, 20)] };
}

describe("differential against compare.py's own functions", () => {
  it("applyPatch, decodePatch, normalize + firstDiff and the Python text forms agree on random inputs", () => {
    const patches = fc.sample(fc.tuple(DOC, PATCH), { numRuns: 1500, seed: 6902 });
    const diffs = fc.sample(fc.tuple(DOC, DOC), { numRuns: 500, seed: 7 });
    const texts = fc.sample(DOC, { numRuns: 300, seed: 8 });
    const raws = fc.sample(BASE64_TEXT, { numRuns: 1000, seed: 64 });
    const queries: DriverQuery[] = [
      ...patches.map(([d, p]) => ({ patch: [d, p] as [unknown, unknown] })),
      ...diffs.map(([a, b]) => ({ diff: [a, b] as [unknown, unknown] })),
      ...texts.map((v) => ({ text: v })),
      ...raws.map((raw) => ({ base64: raw })),
    ];
    const ts = [...patches.map(([d, p]) => tsApply(d, p)), ...diffs.map(([a, b]) => ({ result: firstDiff(normalize(a), normalize(b)) ?? null })), ...texts.map(tsText), ...raws.map(tsDecode)];
    // The patches must exercise both outcomes, or the comparison says little.
    const failing = ts.slice(0, patches.length).filter((t) => "error" in (t as object)).length;
    expect(failing).toBeGreaterThan(patches.length / 10);
    expect(failing).toBeLessThan((patches.length * 9) / 10);
    if (!SHARED) {
      return;
    }
    const py = askCompareModule(queries);
    expect(py.length).toBe(queries.length);
    for (let i = 0; i < queries.length; i++) {
      let want = py[i];
      if (want !== undefined && "error" in want && want.error[1].startsWith("response.patch is not JSON")) want = { error: [want.error[0], "response.patch is not JSON"] };
      expect(ts[i], JSON.stringify(queries[i])).toEqual(want);
    }
  });
});
