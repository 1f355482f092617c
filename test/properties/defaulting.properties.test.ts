/**
 * Properties of /defaulting over every kind (docs/adr/0005-duck-types.md, "Properties"): Knative's ten kinds
 * with and without generation bumping, and a generational kind Duckbill has no Go type for. Fixed seed and
 * bounded runs (settings.ts).
 */
import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { admitDefaulting } from "../../src/admission/defaulting.js";
import type { Decision } from "../../src/admission/response.js";
import type { GoType } from "../../src/go/encoding/json/types.js";
import { applyPatch } from "../conformance/json-patch.js";
import { ABSENT, escapeToken, valueAt } from "./json-pointer.js";
import { cases, FREE_PREFIX, UNKNOWN_PREFIX, type Case, type KindClass } from "./scenarios.js";
import { propertySettings } from "./settings.js";

interface Answer {
  readonly decision: Decision;
  readonly ops: Array<{ op: string; path: string; value?: unknown }>;
}

function answer(c: Case, object: unknown = c.req.object): Answer {
  const decision = admitDefaulting({ ...c.req, object }, c.deps, c.env);
  // Through the wire format: what the API server decodes from response.patch.
  const ops = decision.patch === undefined ? [] : (JSON.parse(JSON.stringify(decision.patch)) as Answer["ops"]);
  return { decision, ops };
}

/** Allowed answers per kind class, so that a property cannot pass by denying everything. */
function coverage(): { count: (c: Case) => void; check: () => void } {
  const allowed: Record<KindClass, number> = { knative: 0, "knative-generational": 0, "foreign-generational": 0 };
  return {
    count: (c) => allowed[c.kindClass]++,
    check: () => {
      for (const [kindClass, n] of Object.entries(allowed)) expect(n, `allowed ${kindClass} answers`).toBeGreaterThan(50);
    },
  };
}

function forAllAllowed(check: (c: Case, a: Answer) => void): void {
  const seen = coverage();
  fc.assert(
    fc.property(cases, (list) => {
      for (const c of list) {
        const a = answer(c);
        if (!a.decision.allowed) continue;
        seen.count(c);
        check(c, a);
      }
    }),
    propertySettings(),
  );
  seen.check();
}

describe("/defaulting properties", () => {
  it("applying Duckbill's patch with strict RFC 6902 semantics (add needs a parent, replace a target) succeeds", () => {
    forAllAllowed((c, a) => {
      applyPatch(c.req.object, a.ops);
    });
  });

  it("a patch has no operation on a path whose value did not change", () => {
    forAllAllowed((c, a) => {
      const after = applyPatch(c.req.object, a.ops);
      for (const op of a.ops) {
        const was = valueAt(c.req.object, op.path);
        const is = valueAt(after, op.path);
        if (isDeepStrictEqual(was, is)) throw new Error(`no-op ${op.op} at ${op.path}: ${JSON.stringify(is === ABSENT ? "absent" : is)}`);
      }
    });
  });

  it("defaulting is idempotent: the admitted object gets an empty patch", () => {
    forAllAllowed((c, a) => {
      const after = applyPatch(c.req.object, a.ops);
      const again = answer(c, after);
      expect(again.decision.allowed).toBe(true);
      expect(again.ops).toEqual([]);
    });
  });

  // The precise form of "fields unknown to Duckbill survive defaulting untouched" (ADR 0005): Knative's Go
  // round trip removes members its types do not have (vector envelope/unknown-fields/defaulting), so for
  // Knative kinds survival holds for values inside the kind's schema that no rule owns, and members outside
  // the schema are removed; for a generational kind without a Go type everything but spec.generation survives.
  it("values no rule owns survive: free labels and annotations of Knative kinds, everything but spec.generation of other kinds", () => {
    forAllAllowed((c, a) => {
      const after = applyPatch(c.req.object, a.ops);
      if (c.kindClass === "foreign-generational") {
        checkOnlyGenerationChanged(c.req.object, after, a.ops);
      } else {
        checkFreeMapsSurvive(c.req.object, after, c.goType!);
        checkUnknownStructMembersRemoved(c.req.object, after, c.goType!);
      }
    });
  });
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkOnlyGenerationChanged(before: unknown, after: unknown, ops: Answer["ops"]): void {
  const spec = isObject(before) ? before.spec : undefined;
  for (const op of ops) {
    const onSpec = op.path === "/spec" && (spec === undefined || spec === null);
    if (op.path !== "/spec/generation" && !onSpec) throw new Error(`operation outside spec.generation: ${JSON.stringify(op)}`);
  }
  // Remove the generation from both sides (and a spec that only exists to hold it): the rest is identical.
  const strip = (doc: unknown): unknown => {
    const copy = structuredClone(doc) as Record<string, unknown>;
    if (isObject(copy.spec)) {
      delete copy.spec.generation;
      if (Object.keys(copy.spec).length === 0 && (spec === undefined || spec === null)) {
        if (spec === undefined) delete copy.spec;
        else copy.spec = null;
      }
    }
    return copy;
  };
  expect(strip(after)).toEqual(strip(before));
}

const FREE_MAPS = ["/metadata/labels", "/metadata/annotations", "/spec/template/metadata/labels", "/spec/template/metadata/annotations"];

function checkFreeMapsSurvive(before: unknown, after: unknown, type: GoType): void {
  for (const pointer of FREE_MAPS) {
    const map = valueAt(before, pointer);
    // Only where the kind's Go type has the map (a Route sent a Service body has no spec.template).
    if (!isObject(map) || goTypeAt(type, pointer.slice(1).split("/"))?.kind !== "map") continue;
    for (const key of Object.keys(map)) {
      if (!key.startsWith(FREE_PREFIX)) continue;
      expect(valueAt(after, `${pointer}/${escapeToken(key)}`), `${pointer} ${key}`).toEqual(map[key]);
    }
  }
}

/** The Go type at a path of the object, or undefined off the type model (e.g. a key spelled in another case). */
function goTypeAt(root: GoType, path: readonly string[]): GoType | undefined {
  let t: GoType | undefined = root;
  for (const seg of path) {
    while (t.kind === "ptr") t = t.elem;
    if (t.kind === "struct") t = t.exact.get(seg)?.type;
    else if (t.kind === "slice" || t.kind === "map") t = t.elem;
    else return undefined;
    if (t === undefined) return undefined;
  }
  while (t.kind === "ptr") t = t.elem;
  return t;
}

function checkUnknownStructMembersRemoved(before: unknown, after: unknown, type: GoType): void {
  const walk = (v: unknown, path: string[]): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, String(i)]));
    if (!isObject(v)) return;
    const t = goTypeAt(type, path);
    for (const key of Object.keys(v)) {
      if (t?.kind === "struct" && key.startsWith(UNKNOWN_PREFIX)) {
        const pointer = [...path, key].map(escapeToken).join("/");
        expect(valueAt(after, `/${pointer}`), `member /${pointer} outside the Go type`).toBe(ABSENT);
      }
      walk(v[key], [...path, key]);
    }
  };
  walk(before, []);
}
