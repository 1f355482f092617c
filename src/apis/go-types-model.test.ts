import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED_TS, RELEASE_NAMES, REPO, rawPath, renderModel } from "../../scripts/types-model.mjs";
import { PROFILES } from "../config/profile.js";
import { decodeOptionsOf, omitZeroFieldsOf } from "../admission/decode-options.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { absentFields, goStructs, goTypeModelModules, omitZeroFields } from "./go-types.generated.js";
import { goTypeOf } from "./knative-types.js";

const raw = Object.fromEntries(RELEASE_NAMES.map((r) => [r, readFileSync(rawPath(r), "utf8")]));

describe("the generated Go type model (npm run types:generate)", () => {
  it("is what the checked-in reflected models give (go-types.generated.ts is not edited by hand)", () => {
    expect(readFileSync(GENERATED_TS, "utf8")).toBe(renderModel(raw));
  });

  it("was reflected from the modules each reference release pins", () => {
    for (const release of RELEASE_NAMES) {
      const gomod = readFileSync(`${REPO}/reference/knative-${release}/go.mod`, "utf8");
      for (const line of goTypeModelModules[release]) {
        // `mod version`, or `mod version => mod replacement` (knative-1.17's k8s.io replaces, knative-1.24's knative.dev ones).
        const words = line.split(" ");
        const effective = `${words[words.length - 2] as string} ${words[words.length - 1] as string}`;
        expect(gomod, `${release}: ${line}`).toContain(effective);
      }
    }
  });

  it("derives each profile's unknownK8sFields, and every named field is a field of the union", () => {
    for (const release of RELEASE_NAMES) {
      expect(PROFILES[release].unknownK8sFields).toBe(absentFields[release]);
      for (const [type, names] of Object.entries(absentFields[release])) {
        const t = goTypeOf(type);
        if (t.kind !== "struct") throw new Error(`${type} is not a struct`);
        for (const name of names) expect(t.exact.has(name), `${type}.${name}`).toBe(true);
      }
    }
  });

  it("knows the Kubernetes fields of k8s.io/api v0.34/v0.35 that 1.23 and 1.24 keep (VolumeProjection.podCertificate, EphemeralContainer.restartPolicyRules)", () => {
    expect(goStructs["core.VolumeProjection"]).toContain("podCertificate *core.PodCertificateProjection omitempty");
    expect(goStructs["core.EphemeralContainerCommon"]).toContain("restartPolicyRules []core.ContainerRestartRule omitempty");
    expect(absentFields["1.17"]["core.VolumeProjection"]).toContain("podCertificate");
    expect(absentFields["1.23"]["core.VolumeProjection"]).toBeUndefined();
    expect(absentFields["1.24"]["core.EphemeralContainerCommon"]).toBeUndefined();
  });

  it("can apply omitzero per release (decode-options.ts OMIT_ZERO): 1.23 and 1.24 (apimachinery v0.35+) leave out a zero creationTimestamp, 1.17 writes null", () => {
    const service = { metadata: { name: "a" }, spec: { template: { spec: { containers: [{ image: "i" }] } } } };
    const decoded = (release: "1.17" | "1.23" | "1.24") => {
      const r = decodeGo(goTypeOf("serving.Service"), service, { ...decodeOptionsOf(PROFILES[release]), omitZeroFields: omitZeroFieldsOf(PROFILES[release]) });
      if (!r.ok) throw new Error(r.error);
      return r.value as { metadata: Record<string, unknown>; spec: { template: { metadata: Record<string, unknown> } } };
    };
    expect(decoded("1.17").metadata).toHaveProperty("creationTimestamp", null);
    expect(decoded("1.17").spec.template.metadata).toEqual({ creationTimestamp: null });
    for (const release of ["1.23", "1.24"] as const) {
      expect(decoded(release).metadata).not.toHaveProperty("creationTimestamp");
      expect(decoded(release).spec.template.metadata).toEqual({});
    }
    expect(omitZeroFields["1.24"]).toEqual({ "meta.ObjectMeta": ["creationTimestamp"] });
  });
});
