/**
 * decodeFirstJsonValue and decodeGo against Go 1.23's encoding/json: every body of
 * test/fixtures/go-ports/json/cases.json with what Go's Decoder.Decode made of its first value, or what
 * json.Unmarshal + json.Marshal made of it in core/v1's ConfigMap and Container (k8s.io/api v0.31.4); written by
 * main.go there to expected.json. Go's values are JSON texts, read here with their integers exact. To regenerate:
 *
 *   cd test/fixtures/go-ports/json && GOTOOLCHAIN=go1.23.12 go run . > expected.json
 */
import { describe, expect } from "vitest";
import { answerOf, eachUpstreamCase, loadUpstream, type Answer } from "../../../../test/fixtures/go-ports/load.js";
import { configMapType, goTypeOf } from "../../../apis/knative-types.js";
import { decodeGo } from "./decode.js";
import { parseJsonExact } from "./json-bigint.js";
import { decodeFirstJsonValue } from "./stream.js";
import type { GoType } from "./types.js";

type Case = { op: "Decode"; body?: string; b64?: string } | { op: "Unmarshal"; type: "ConfigMap" | "Container"; body: string };

const TYPES: Readonly<Record<string, GoType>> = { ConfigMap: configMapType, Container: goTypeOf("core.Container") };

function port(c: Case): Answer<unknown> {
  const first = decodeFirstJsonValue(c.op === "Decode" && c.b64 !== undefined ? Buffer.from(c.b64, "base64") : (c.body ?? ""));
  if (c.op === "Decode" || !first.ok) return answerOf(first, (r) => r.value);
  return answerOf(decodeGo(TYPES[c.type] as GoType, first.value), (r) => r.value);
}

/**
 * A value's JSON with object members sorted (json.Marshal sorts a map's keys; a decoded struct's member order is
 * not compared) and integers exact. Written without recursion: JSON.stringify and a deep toEqual both run out of
 * stack on the 10,000 nested arrays Go accepts.
 */
function canonical(root: unknown): string {
  let out = "";
  const tasks: Array<{ text: string } | { value: unknown }> = [{ value: root }];
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    if ("text" in task) {
      out += task.text;
      continue;
    }
    const v = task.value;
    if (typeof v === "bigint") out += v.toString();
    else if (v === null || typeof v !== "object") out += JSON.stringify(v);
    else {
      const members: Array<[string, unknown]> = Array.isArray(v)
        ? v.map((e) => ["", e])
        : Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, e]) => [`${JSON.stringify(k)}:`, e]);
      out += Array.isArray(v) ? "[" : "{";
      tasks.push({ text: Array.isArray(v) ? "]" : "}" });
      for (let i = members.length - 1; i >= 0; i--) {
        const [prefix, e] = members[i] as [string, unknown];
        tasks.push({ value: e }, { text: (i > 0 ? "," : "") + prefix });
      }
    }
  }
  return out;
}

/**
 * Where the port does not answer as Go does, and how (each runs as it.fails): nowhere. Number literals with a fraction
 * or an exponent in integer fields (`1e2`, `80.0`), once listed here, are read from their text (json-bigint.ts).
 */
const KNOWN = new Map<string, string>();

describe("encoding/json against Go 1.23 (test/fixtures/go-ports/json)", () => {
  eachUpstreamCase(loadUpstream<Case, Answer<string>>("json"), (c, want) => {
    const got = port(c);
    if (want.err !== undefined || got.err !== undefined) expect(got).toEqual(want);
    else expect(canonical(got.value)).toBe(canonical(parseJsonExact(want.value as string)));
  }, KNOWN);
});
