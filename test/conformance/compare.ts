/**
 * The conformance referee: a TypeScript port of ../shared/conformance/compare.py's `check()` (comparison rules in
 * test/conformance/README.md). Verdicts and reasons follow compare.py, including Python's truthiness and `==`.
 */
import { normalize } from "../support/normalize.js";
import { applyPatch, deepCopy, PatchError } from "./json-patch.js";
import { attributeError, compareCodePoints, hasKey, isDict, jsonDumps, pyEqual, pyGet, pyRepr, pyStr, pyStrip, pyTypeName, PythonError, truncate, truthy } from "./python-values.js";

/** One line of a vectors file (README "Line format"). */
export interface Vector {
  readonly name: string;
  readonly path: string;
  readonly configs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly contentType?: string;
  readonly review?: unknown;
  readonly expect: {
    readonly httpStatus: number;
    readonly body?: string;
    readonly response?: unknown;
    readonly patchedObject?: unknown;
  };
}

/** One answer line, as `duckbill admit --batch` writes it: `{name, httpStatus, review}` or `{name, httpStatus, body}`. */
export type Answer = Readonly<Record<string, unknown>>;

/** `<category>` of `<category>/<case>...`. */
export function categoryOf(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? name : name.slice(0, slash);
}

/** compare.py `_short`: JSON (Python spelling) for non-strings, repr for strings, cut after n code points. */
export function short(v: unknown, n = 160): string {
  return truncate(typeof v === "string" ? pyRepr(v) : jsonDumps(v), n);
}

type Kind = "null" | "boolean" | "number" | "string" | "array" | "object";

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v as Kind;
}

/** compare.py `_first_diff`: where two JSON values first differ (keys in sorted order), or undefined if equal. */
export function firstDiff(a: unknown, b: unknown, path = ""): string | undefined {
  const ka = kindOf(a);
  if (ka !== kindOf(b)) return `${path || "/"}: got ${short(a, 80)}, want ${short(b, 80)}`;
  if (ka === "object") {
    const da = a as Record<string, unknown>;
    const db = b as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(da), ...Object.keys(db)])].sort(compareCodePoints);
    for (const k of keys) {
      const p = `${path}/${k}`;
      if (!hasKey(da, k)) return `${p}: missing, want ${short(db[k], 80)}`;
      if (!hasKey(db, k)) return `${p}: unexpected ${short(da[k], 80)}`;
      const d = firstDiff(da[k], db[k], p);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (ka === "array") {
    const la = a as unknown[];
    const lb = b as unknown[];
    const n = Math.min(la.length, lb.length);
    for (let i = 0; i < n; i++) {
      const d = firstDiff(la[i], lb[i], `${path}/${i}`);
      if (d !== undefined) return d;
    }
    if (la.length !== lb.length) return `${path || "/"}: ${la.length} elements, want ${lb.length}`;
    return undefined;
  }
  if (!pyEqual(a, b)) return `${path || "/"}: got ${short(a, 80)}, want ${short(b, 80)}`;
  return undefined;
}

const BASE64_DIGIT = /^[A-Za-z0-9+/]$/;
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * base64.b64decode(raw, validate=True) as in Python 3.11+, i.e. binascii.a2b_base64 in strict mode: only the
 * alphabet, no leading or discontinuous padding, nothing after the padding that completes a quad.
 */
function base64Decode(raw: unknown): Buffer {
  if (typeof raw !== "string") throw new Error(`argument should be a bytes-like object or ASCII string, not '${pyTypeName(raw)}'`);
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u007f]/.test(raw)) throw new Error("string argument should contain only ASCII characters");
  if (raw.startsWith("=")) throw new Error("Leading padding not allowed");
  let quad = 0;
  let pads = 0;
  let data = 0;
  let padding = false;
  let complete = false;
  for (let i = 0; i < raw.length && !complete; i++) {
    const ch = raw[i] as string;
    if (ch === "=") {
      padding = true;
      if (quad >= 2 && quad + ++pads >= 4) {
        if (i + 1 < raw.length) throw new Error("Excess data after padding");
        complete = true;
      }
      continue;
    }
    if (!BASE64_DIGIT.test(ch)) throw new Error("Only base64 data is allowed");
    if (padding) throw new Error("Discontinuous padding not allowed");
    pads = 0;
    quad = (quad + 1) % 4;
    data++;
  }
  if (!complete && quad === 1) throw new Error(`Invalid base64-encoded string: number of data characters (${data}) cannot be 1 more than a multiple of 4`);
  if (!complete && quad !== 0) throw new Error("Incorrect padding");
  return Buffer.from(raw.slice(0, data), "base64");
}

/** compare.py `_decode_patch`: the decoded `response.patch`, or null for no patch (absent, "", or JSON null). */
export function decodePatch(resp: unknown): unknown {
  const raw = pyGet(resp, "patch");
  if (raw === null || raw === "") return null;
  let bytes: Buffer;
  try {
    bytes = base64Decode(raw);
  } catch (e) {
    throw new PatchError(`response.patch is not base64: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(UTF8.decode(bytes)) as unknown;
  } catch (e) {
    throw new PatchError(`response.patch is not JSON: ${(e as Error).message}`);
  }
}

/** compare.py `_messages_equal`: a go-cmp diff message is compared up to its first newline only. */
export function messagesEqual(got: unknown, want: unknown): boolean {
  if (typeof want === "string" && want.includes("(-old +new)")) {
    return typeof got === "string" && firstLine(got) === firstLine(want);
  }
  return pyEqual(got, want);
}

function firstLine(s: string): string {
  const nl = s.indexOf("\n");
  return nl === -1 ? s : s.slice(0, nl);
}

/** `x or fallback`. */
function or(x: unknown, fallback: unknown): unknown {
  return truthy(x) ? x : fallback;
}

function strip(v: unknown): string {
  if (typeof v !== "string") throw attributeError(v, "strip");
  return pyStrip(v);
}

/**
 * compare.py `check()`: undefined when the answer conforms, else a one-line reason. Like the Python, it throws
 * (PythonError) on answers so malformed that Python would raise, e.g. a non-string `body`; use `judge()` to get
 * compare.py's verdict for those too.
 */
export function check(vec: Vector, out: Answer | undefined): string | undefined {
  const exp = vec.expect as unknown as Record<string, unknown>;
  if (out === undefined) return "no output for this case";
  if (!pyEqual(pyGet(out, "httpStatus"), exp.httpStatus)) return `httpStatus ${pyStr(pyGet(out, "httpStatus"))}, want ${pyStr(exp.httpStatus)}`;
  if (!pyEqual(exp.httpStatus, 200)) {
    const got = strip(or(pyGet(out, "body"), ""));
    const want = strip(or(pyGet(exp, "body"), ""));
    if (got !== want) return `body ${short(got)}, want ${short(want)}`;
  }
  if (!hasKey(exp, "response")) return undefined;
  const review = pyGet(out, "review");
  if (!isDict(review) || !isDict(pyGet(review, "response"))) return "no AdmissionReview response in the answer";
  const resp = review.response;
  const want = exp.response;
  const req = pyGet(vec as unknown as Record<string, unknown>, "review");
  const request = isDict(req) ? pyGet(req, "request") : null;
  const reqUid = isDict(request) ? or(pyGet(request, "uid", ""), "") : "";
  if (!pyEqual(or(pyGet(resp, "uid"), ""), reqUid)) return `response.uid ${short(pyGet(resp, "uid"))}, want ${short(reqUid)} (request.uid)`;
  if (truthy(pyGet(resp, "allowed")) !== truthy(pyGet(want, "allowed"))) {
    const wmsg = pyGet(or(pyGet(want, "status"), {}), "message");
    const gmsg = pyGet(or(pyGet(resp, "status"), {}), "message");
    if (truthy(pyGet(want, "allowed"))) return `denied (${short(gmsg, 200)}), want allowed`;
    return `allowed, want denied with ${short(wmsg, 200)}`;
  }
  if (!truthy(pyGet(want, "allowed"))) {
    const ws = or(pyGet(want, "status"), {});
    const gs = or(pyGet(resp, "status"), {});
    for (const f of ["code", "reason"]) {
      const g = pyGet(gs, f);
      const w = pyGet(ws, f);
      if (!pyEqual(g, w)) return `status.${f} ${short(g)}, want ${short(w)}`;
    }
    const g = pyGet(gs, "message");
    const w = pyGet(ws, "message");
    if (!messagesEqual(g, w)) return `status.message ${short(g, 300)}, want ${short(w, 300)}`;
  }
  const gw = or(pyGet(resp, "warnings"), []);
  const ww = or(pyGet(want, "warnings"), []);
  if (!pyEqual(gw, ww)) return `warnings ${short(gw, 300)}, want ${short(ww, 300)}`;
  const obj = isDict(request) ? pyGet(request, "object") : null;
  let ops: unknown;
  let result: unknown;
  try {
    ops = decodePatch(resp);
    result = ops !== null ? applyPatch(obj, ops) : deepCopy(obj);
  } catch (e) {
    if (e instanceof PatchError) return `patch: ${e.message}`;
    throw e;
  }
  if (hasKey(exp, "patchedObject")) {
    const d = firstDiff(normalize(result), normalize(exp.patchedObject));
    if (d !== undefined) return `patched object differs at ${d}`;
  } else if (ops !== null) {
    const d = firstDiff(normalize(result), normalize(obj));
    if (d !== undefined) return `unexpected patch changes the object at ${d}`;
  }
  return undefined;
}

/** compare.py's verdict for one case, as its main loop gives it: an exception in check() is a failure too. */
export function judge(vec: Vector, out: Answer | undefined): string | undefined {
  try {
    return check(vec, out);
  } catch (e) {
    const type = e instanceof PythonError ? e.pyType : (e as Error).name;
    return `comparison error: ${type}: ${(e as Error).message}`;
  }
}
