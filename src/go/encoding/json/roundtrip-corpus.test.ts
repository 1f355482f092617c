/**
 * The Go round trip against the conformance corpus (test/conformance/vectors, a copy of
 * ../shared/conformance/vectors): objects Knative serialised are fixed points, decode errors match, and
 * round-tripping what clients sent drops exactly the fields Knative's Go types do not know.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeGo } from "./decode.js";
import type { GoType } from "./types.js";
import { configMapType, knativeTypes } from "../../../apis/knative-types.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const vectorsDir = [join(repoRoot, "test", "conformance", "vectors"), join(repoRoot, "..", "shared", "conformance", "vectors")].find((d) =>
  existsSync(d),
);

interface Vector {
  name: string;
  path: string;
  review?: { request?: { kind?: { group?: string; version?: string; kind?: string }; object?: unknown; oldObject?: unknown } };
  expect: { response?: { status?: { message?: string } }; patchedObject?: unknown };
}

function loadVectors(): Vector[] {
  if (vectorsDir === undefined) return [];
  const out: Vector[] = [];
  for (const file of readdirSync(vectorsDir).filter((f) => f.endsWith(".jsonl")).sort()) {
    for (const line of readFileSync(join(vectorsDir, file), "utf8").split("\n")) {
      if (line.trim() !== "") out.push(JSON.parse(line) as Vector);
    }
  }
  return out;
}

function typeOf(v: Vector): GoType | undefined {
  if (v.path === "/config-validation") return configMapType;
  const k = v.review?.request?.kind;
  if (typeof k !== "object" || k === null) return undefined;
  return knativeTypes.get(`${k.group ?? ""}/${k.version ?? ""}, Kind=${k.kind ?? ""}`);
}

/** The README's normalisation: drop null members, then empty {} / [] members, recursively. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    const n = normalize(member);
    if (typeof n === "object" && n !== null && Object.keys(n).length === 0) continue;
    Object.defineProperty(out, key, { value: n, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Leaf values of a normalised value by JSON path (`.a.b[0].c`). */
function leaves(value: unknown, path = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value)) value.forEach((e, i) => leaves(e, `${path}[${i}]`, out));
  else if (typeof value === "object" && value !== null) for (const [k, v] of Object.entries(value)) leaves(v, `${path}.${k}`, out);
  else out.set(path, value);
  return out;
}

function roundTrip(type: GoType, value: unknown): unknown {
  const r = decodeGo(type, value);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** Leaf values a Go zero value marshals to (strings, numbers, bools, quantities). */
const GO_ZERO_VALUES: readonly unknown[] = ["", 0, false, "0"];

const vectors = loadVectors();
const patched = vectors.filter((v) => v.expect.patchedObject !== undefined && typeOf(v) !== undefined);
const DECODE_ERROR = /cannot decode incoming (new|old) object: ([\s\S]*)$/;
const decodeErrors = vectors.filter((v) => DECODE_ERROR.test(v.expect.response?.status?.message ?? "") && typeOf(v) !== undefined);

// The repository carries its copy of the vectors (test/conformance/vectors): a run without them is a broken checkout.
describe("conformance corpus", () => {
  it("finds the vectors", () => expect(vectorsDir).toBeDefined());
  it("has vectors to check", () => {
    expect(patched.length).toBeGreaterThan(100);
    expect(decodeErrors.length).toBeGreaterThan(20);
  });

  it.each(patched.map((v) => [v.name, v] as const))("%s: the patched object is a fixed point of the round trip", (_name, v) => {
    const type = typeOf(v) as GoType;
    expect(normalize(roundTrip(type, v.expect.patchedObject))).toEqual(normalize(v.expect.patchedObject));
  });

  it.each(decodeErrors.map((v) => [v.name, v] as const))("%s: the decode error matches", (_name, v) => {
    const type = typeOf(v) as GoType;
    const [, which, error] = DECODE_ERROR.exec(v.expect.response?.status?.message ?? "") as RegExpExecArray;
    const request = v.review?.request ?? {};
    const newResult = request.object === undefined ? { ok: true } : decodeGo(type, request.object);
    if (which === "new") {
      expect(newResult).toEqual({ ok: false, error });
    } else {
      expect(newResult.ok).toBe(true);
      expect(decodeGo(type, request.oldObject)).toEqual({ ok: false, error });
    }
  });

  const defaulting = patched.filter((v) => v.path === "/defaulting");
  it.each(defaulting.map((v) => [v.name, v] as const))("%s: the round trip keeps and drops what Knative's does", (_name, v) => {
    const type = typeOf(v) as GoType;
    const sent = leaves(normalize(v.review?.request?.object));
    const want = leaves(normalize(v.expect.patchedObject));
    const got = leaves(normalize(roundTrip(type, v.review?.request?.object)));
    for (const [path, value] of got) {
      // Defaulting may change a value afterwards (one that was sent, or a zero value Go filled in), but
      // never removes a field.
      expect(want.has(path), `${path} is not in the patched object`).toBe(true);
      if (want.get(path) === value) continue;
      if (sent.has(path)) expect(sent.get(path), `${path} = ${JSON.stringify(value)}`).toEqual(value);
      else expect(GO_ZERO_VALUES, `${path} = ${JSON.stringify(value)}`).toContain(value);
    }
    for (const path of want.keys()) {
      // A field in the patched object but not in the round trip was added by defaulting; if it was sent,
      // it was an empty value omitempty dropped (e.g. readOnly: false, later forced to true).
      if (!got.has(path) && sent.has(path)) expect(GO_ZERO_VALUES, `${path} was sent, kept by Knative and dropped here`).toContain(sent.get(path));
    }
  });

  it("drops exactly the unknown fields of envelope/unknown-fields", () => {
    const v = vectors.find((x) => x.name === "envelope/unknown-fields/defaulting");
    expect(v).toBeDefined();
    if (v === undefined) return;
    const sent = leaves(normalize(v.review?.request?.object));
    const got = leaves(normalize(roundTrip(typeOf(v) as GoType, v.review?.request?.object)));
    const dropped = [...sent.keys()].filter((p) => !got.has(p)).sort();
    expect(dropped).toEqual([
      ".metadata.unknownMeta.a",
      ".spec.template.spec.containers[0].debugPort",
      ".spec.template.spec.gpuShare",
      ".spec.unknownSpec",
      ".unknownTop",
    ]);
  });
});
