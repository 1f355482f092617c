/**
 * Properties of feature scopes (config-features-scopes, src/config/feature-scopes.ts) over the conformance vectors
 * of every release sent to /resource-validation: a scope that takes the request's namespace in changes no answer
 * (so does the absence of the ConfigMap: the conformance suite itself), and a random scope never allows what the
 * cluster-wide flags deny; it answers as Knative does with the narrowed flags Disabled, plus the scope's lines.
 * Fixed seed and bounded runs (settings.ts).
 */
import fc from "fast-check";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RequestEnv } from "../../src/admission/deps.js";
import type { Decision } from "../../src/admission/response.js";
import { decodeAdmissionReview, type AdmissionRequest } from "../../src/admission/review.js";
import { admitValidation } from "../../src/admission/validation.js";
import { defaultDeps } from "../../src/cli/deps.js";
import { FEATURE_SCOPES_CONFIG_NAME, featuresInNamespace, narrowingScopes, UNSCOPABLE_FLAGS } from "../../src/config/feature-scopes.js";
import { releaseHasFlag } from "../../src/config/features.js";
import { FEATURE_FLAGS } from "../../src/config/feature-flags.js";
import { PROFILES, type KnativeProfile } from "../../src/config/profile.js";
import { podSpecOf } from "../../src/duck/podspecable.js";
import { gatedFieldsUsed } from "../../src/serving/feature-gates.js";
import { snapshotFrom } from "../../src/config/snapshot.js";
import type { NamespaceLabelsView } from "../../src/config/feature-scopes.js";
import { RELEASES } from "../conformance/paths.js";
import { propertySettings } from "./settings.js";

type Configs = Record<string, Record<string, string>>;

interface Case {
  readonly name: string;
  readonly configs: Configs;
  readonly request: AdmissionRequest;
  readonly profile: KnativeProfile;
  /** The scopable flags whose fields the object uses. */
  readonly uses: readonly string[];
}

function casesOf(dir: string, profile: KnativeProfile): Case[] {
  const out: Case[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
    for (const text of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (text.trim() === "") continue;
      const v = JSON.parse(text) as { name: string; path?: string; configs?: Configs; review?: unknown };
      if (v.path !== "/resource-validation" || v.review === undefined) continue;
      const decoded = decodeAdmissionReview(v.review, profile);
      if (!decoded.ok || decoded.review.request === undefined) continue;
      const request = decoded.review.request;
      const uses = [...new Set(gatedFieldsUsed(podSpecOf(request.kind.kind, request.object)?.spec).map((u) => u.key))].filter((k) => !UNSCOPABLE_FLAGS.has(k) && releaseHasFlag(k, profile));
      out.push({ name: v.name, configs: v.configs ?? {}, request, profile, uses });
    }
  }
  return out;
}

const deps = defaultDeps();

function scopableKeys(profile: KnativeProfile): string[] {
  return FEATURE_FLAGS.map((f) => f.key).filter((k) => releaseHasFlag(k, profile) && !UNSCOPABLE_FLAGS.has(k));
}

/** The parts of a decision an answer carries (the scope denials go to the metrics only). */
function answerOf(d: Decision): Omit<Decision, "scopeDenials"> {
  const { scopeDenials: _, ...rest } = d;
  return rest;
}

describe.each(RELEASES.map((r) => [r.version, r] as const))("Knative %s", (version, release) => {
  const profile = PROFILES[version];
  const CASES = casesOf(release.dir, profile);
  const KEYS = scopableKeys(profile);

  it("has vectors to check", () => {
    expect(CASES.length).toBeGreaterThan(100);
  });

  it("answers every vector as before when its namespace is inside every scope", async () => {
    for (const c of CASES) {
      const scopes = Object.fromEntries(KEYS.map((k) => [k, `namespaces: [${c.request.namespace === "" ? "default" : c.request.namespace}]`]));
      const plain = await admitValidation(c.request, deps, { config: snapshotFrom(c.configs, "v", profile) });
      const scoped = await admitValidation(c.request, deps, { config: snapshotFrom({ ...c.configs, [FEATURE_SCOPES_CONFIG_NAME]: scopes }, "v", profile) });
      if (c.request.namespace !== "") expect(scoped, c.name).toEqual(plain);
    }
  });

  it("never allows what the cluster-wide flags deny, and answers as Knative with the narrowed flags Disabled", async () => {
    const POOL = ["default", "team-a", "team-b", "platform"];
    const LABELS = [{}, { tenant: "platform" }, { tenant: "a" }, { tenant: "platform", tier: "gold" }];
    const scopeText = fc.record({ selector: fc.constantFrom(...LABELS), namespaces: fc.subarray(POOL) }).filter((s) => Object.keys(s.selector).length > 0 || s.namespaces.length > 0);
    // Half the runs take a vector whose object uses a scopable flag and scope that flag, so that scopes deny.
    const USING = CASES.filter((c) => c.uses.length > 0);
    const arbitrary = fc.record({
      index: fc.nat({ max: CASES.length - 1 }),
      using: fc.option(fc.nat({ max: USING.length - 1 }), { nil: undefined }),
      scopes: fc.dictionary(fc.constantFrom(...KEYS), scopeText, { minKeys: 1, maxKeys: 6 }),
      usedScope: scopeText,
      labels: fc.constantFrom(...LABELS),
      allowAll: fc.boolean(),
    });
    /** Runs where a scope denied, so that the property cannot pass by never narrowing anything. */
    let scopeDenied = 0;
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ index, using, scopes: randomScopes, usedScope, labels, allowAll }) => {
        const c = (using === undefined ? CASES[index] : USING[using]) as Case;
        const scopes = { ...randomScopes, ...Object.fromEntries(c.uses.map((k) => [k, usedScope])) };
        // Half the runs open every scoped flag cluster-wide, so that scopes have something to narrow.
        const features = { ...(c.configs["config-features"] ?? {}), ...(allowAll ? Object.fromEntries(Object.keys(scopes).map((k) => [k, "Enabled"])) : {}) };
        const configs = { ...c.configs, "config-features": features };
        const data = Object.fromEntries(Object.entries(scopes).map(([k, s]) => [k, JSON.stringify(s)]));
        const scoped = snapshotFrom({ ...configs, [FEATURE_SCOPES_CONFIG_NAME]: data }, "v", profile);
        expect(scoped.configErrors.size).toBe(0);
        const namespaces: NamespaceLabelsView = { labels: () => new Map(Object.entries(labels)), synced: () => true };
        const env: RequestEnv = { config: scoped, namespaces };
        const cluster = await admitValidation(c.request, deps, { config: snapshotFrom(configs, "v", profile) });
        const answer = await admitValidation(c.request, deps, env);
        if (!cluster.allowed) expect(answer.allowed).toBe(false);
        // Knative's answer with the flags outside their scope Disabled in config-features.
        const ns = c.request.namespace;
        const narrowed = narrowingScopes(scoped.admission.features, scoped.featureScopes, ns, new Map(Object.entries(labels)));
        const disabled = { ...features, ...Object.fromEntries(narrowed.map((s) => [s.key, "Disabled"])) };
        const knative = await admitValidation(c.request, deps, { config: snapshotFrom({ ...configs, "config-features": disabled }, "v", profile) });
        expect(answer.allowed).toBe(knative.allowed);
        expect(answer.warnings).toEqual(knative.warnings);
        if ((answer.scopeDenials?.length ?? 0) > 0) scopeDenied++;
        if (!answer.allowed) {
          const lines = (answer.message ?? "").split("\n");
          const extra = lines.slice((knative.message ?? "").split("\n").length);
          expect(lines.slice(0, lines.length - extra.length).join("\n")).toBe(knative.message);
          expect(extra.every((l) => l.startsWith("feature ") && l.includes(`namespace "${ns}"`))).toBe(true);
          expect(extra.length).toBe(answer.scopeDenials?.length ?? 0);
        } else {
          expect(answerOf(answer)).toEqual(answerOf(knative));
        }
        expect(featuresInNamespace(scoped.admission.features, scoped.featureScopes, ns, new Map(Object.entries(labels)))).toEqual(snapshotFrom({ ...configs, "config-features": disabled }, "v", profile).admission.features);
      }),
      propertySettings(),
    );
    expect(scopeDenied).toBeGreaterThan(50);
  });
});
