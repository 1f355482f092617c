import { describe, expect, it } from "vitest";
import { decodeGo } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import type { DuckType } from "./duck-type.js";
import { Generational } from "./generational.js";
import { Conditions, KResource } from "./kresource.js";
import { WithPod } from "./podspecable.js";
import { verifyType, type KindSample } from "./verify.js";

/** A Knative kind as verifyType sees it: Go's json.Unmarshal then json.Marshal through the kind's type. */
function knativeSample(gvk: string): KindSample {
  const type = knativeTypes.get(gvk);
  if (type === undefined) throw new Error(`no Go type for ${gvk}`);
  return { name: gvk.slice(gvk.indexOf("Kind=") + 5), roundTrip: (json) => decodeGo(type, json) };
}

const knativeKinds = [...knativeTypes.keys()];
/** The kinds whose spec.template is a pod template (ConfigurationSpec.Template is a RevisionTemplateSpec). */
const withTemplate = new Set(["serving.knative.dev/v1, Kind=Service", "serving.knative.dev/v1, Kind=Configuration"]);

describe("every Knative kind Duckbill handles implements the Knative duck types", () => {
  it("covers the ten kinds of the webhook", () => {
    expect(knativeKinds).toHaveLength(10);
  });

  it.each(knativeKinds)("%s implements KResource and Conditions", (gvk) => {
    expect(verifyType(knativeSample(gvk), KResource)).toEqual({ ok: true });
    expect(verifyType(knativeSample(gvk), Conditions)).toEqual({ ok: true });
  });

  it.each(knativeKinds.filter((k) => withTemplate.has(k)))("%s implements PodSpecable", (gvk) => {
    expect(verifyType(knativeSample(gvk), WithPod)).toEqual({ ok: true });
  });

  it.each(knativeKinds.filter((k) => !withTemplate.has(k)))("%s holds no pod template: PodSpecable reports the template lost", (gvk) => {
    const result = verifyType(knativeSample(gvk), WithPod);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.lost).toContain("spec.template.spec.containers[0].image");
  });

  // Knative dropped spec.generation from its types in 2019 (knative/pkg#234 "Drop spec.generation support";
  // docs/knative-behavior.md#duck-types-and-generations): the Go round trip loses it, which is
  // why /defaulting puts the generation back after the round trip for Knative kinds named generational.
  it.each(knativeKinds)("%s does not implement Generational", (gvk) => {
    const name = gvk.slice(gvk.indexOf("Kind=") + 5);
    expect(verifyType(knativeSample(gvk), Generational)).toEqual({
      ok: false,
      lost: ["spec.generation"],
      message: `${name} does not implement the duck type Generational, the following fields were lost: spec.generation`,
    });
  });
});

describe("verifyType", () => {
  const identity: KindSample = { name: "Anything", roundTrip: (json) => ({ ok: true, value: json }) };

  it("accepts a kind that keeps everything", () => {
    const ducks: ReadonlyArray<DuckType<unknown>> = [KResource, Conditions, Generational, WithPod];
    for (const duck of ducks) expect(verifyType(identity, duck)).toEqual({ ok: true });
  });

  it("names every populated field the kind loses or changes", () => {
    const lossy: KindSample = {
      name: "Lossy",
      roundTrip: (json) => {
        const out = structuredClone(json) as { status: { observedGeneration?: number; conditions: Array<Record<string, unknown>> } };
        delete out.status.observedGeneration;
        delete out.status.conditions[0]!.severity;
        out.status.conditions[0]!.message = "changed";
        return { ok: true, value: out };
      },
    };
    expect(verifyType(lossy, KResource)).toEqual({
      ok: false,
      lost: ["status.observedGeneration", "status.conditions[0].severity", "status.conditions[0].message"],
      message:
        "Lossy does not implement the duck type KResource, the following fields were lost: status.observedGeneration, status.conditions[0].severity, status.conditions[0].message",
    });
  });

  it("reports a kind that cannot decode the duck", () => {
    const failing: KindSample = { name: "Strict", roundTrip: () => ({ ok: false, error: 'json: unknown field "status"' }) };
    expect(verifyType(failing, KResource)).toEqual({
      ok: false,
      lost: [],
      message: 'error deserializing duck type KResource into Strict: json: unknown field "status"',
    });
  });

  it("reports a kind whose output cannot be read as the duck", () => {
    const retyping: KindSample = { name: "Retyping", roundTrip: () => ({ ok: true, value: { spec: { generation: "1234" } } }) };
    expect(verifyType(retyping, Generational)).toEqual({
      ok: false,
      lost: [],
      message: "error deserializing Retyping into duck type Generational: spec.generation: must be integer",
    });
  });
});
