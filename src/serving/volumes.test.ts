import { describe, expect, it } from "vitest";
import { renderFieldError, viaField } from "../apis/field-error.js";
import { PROFILES, type KnativeVersion } from "../config/profile.js";
import type { FeaturesConfig, Flag } from "../config/types.js";
import { allMountedVolumes, cleanPath, validateVolumeMounts, validateVolumes, volumeMountRules, type VolumesByName } from "./volumes.js";

/** The flags these rules read, at Knative's defaults. */
function features(overrides: Partial<Record<keyof FeaturesConfig, Flag>> = {}): FeaturesConfig {
  return {
    podSpecVolumesEmptyDir: "Enabled",
    podSpecVolumesHostPath: "Disabled",
    podSpecPersistentVolumeClaim: "Disabled",
    podSpecPersistentVolumeWrite: "Disabled",
    podSpecVolumesCSI: "Disabled",
    podSpecVolumesMountPropagation: "Disabled",
    podSpecVolumesImage: "Disabled",
    podSpecVolumesEphemeral: "Disabled",
    ...overrides,
  } as FeaturesConfig;
}

describe("cleanPath (Go's path.Clean)", () => {
  // From golang/go src/path/path_test.go.
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["", "."],
    ["abc", "abc"],
    ["abc/def", "abc/def"],
    [".", "."],
    ["..", ".."],
    ["../..", "../.."],
    ["../../abc", "../../abc"],
    ["/abc", "/abc"],
    ["/", "/"],
    ["abc/", "abc"],
    ["/abc/def/", "/abc/def"],
    ["//abc", "/abc"],
    ["abc//def//ghi", "abc/def/ghi"],
    ["abc/./def", "abc/def"],
    ["/./abc/def", "/abc/def"],
    ["abc/def/ghi/../jkl", "abc/def/jkl"],
    ["abc/def/../ghi/../jkl", "abc/jkl"],
    ["abc/def/..", "abc"],
    ["abc/def/../..", "."],
    ["/abc/def/../..", "/"],
    ["abc/def/../../..", ".."],
    ["/abc/def/../../..", "/"],
    ["abc/def/../../../ghi/jkl/../../../mno", "../../mno"],
    ["abc/./../def", "def"],
    ["abc//./../def", "def"],
    ["abc/../../././../def", "../../def"],
    ["/dev/./", "/dev"],
    ["/dev/log/", "/dev/log"],
  ];
  it.each(cases)("%j → %j", (input, want) => {
    expect(cleanPath(input)).toBe(want);
  });
});

// The cases of validateVolumes and validateVolumeMounts answer as the default release (1.24), or as the release
// they name; the volume flags of later releases are compared across releases further down.
describe("validateVolumes", () => {
  const secret = (name: string) => ({ name, secret: { secretName: "s" } });
  const cases: ReadonlyArray<
    readonly [name: string, volumes: unknown[], flags: Partial<Record<keyof FeaturesConfig, Flag>>, want: string, version?: KnativeVersion]
  > = [
    ["a mounted secret", [secret("a")], {}, ""],
    ["duplicate names", [secret("a"), { name: "a", configMap: { name: "c" } }], {}, 'duplicate volume name "a": v[1].name'],
    ["a volume nobody mounts", [secret("unused")], {}, 'volume with name "unused" not mounted: v[0].name'],
    [
      "a missing name replaces the feature errors found before it (Go quirk)",
      [{ name: "", emptyDir: {} }],
      { podSpecVolumesEmptyDir: "Disabled" },
      'missing field(s): v[0].name\nmust not set the field(s): v[0].emptyDir\nvolume with name "" not mounted: v[0].name',
    ],
    ["an invalid name", [{ name: "Bad_Name", secret: {} }], {}, 'invalid value: Bad_Name: v[0].name\nvolume with name "Bad_Name" not mounted: v[0].name'],
    [
      "a source behind a Disabled flag: feature error and mask error",
      [{ name: "a", hostPath: { path: "/var/log" } }],
      {},
      "HostPath volume support is disabled, but found HostPath volume a: \nmust not set the field(s): v[0].hostPath",
    ],
    [
      "Allowed passes the mask but not the check",
      [{ name: "a", emptyDir: {} }],
      { podSpecVolumesEmptyDir: "Allowed" },
      "EmptyDir volume support is disabled, but found EmptyDir volume a: ",
    ],
    [
      "PVC support and write support are separate flags",
      [{ name: "a", persistentVolumeClaim: { claimName: "c" } }],
      { podSpecPersistentVolumeClaim: "Enabled" },
      "Persistent volume write support is disabled, but found persistent volume claim c that is not read-only: ",
    ],
    [
      "csi has no flag in Knative 1.17 and is never allowed",
      [{ name: "a", csi: { driver: "d" } }],
      { podSpecVolumesHostPath: "Enabled" },
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].hostPath, v[0].projected, v[0].secret\nmust not set the field(s): v[0].csi",
      "1.17",
    ],
    ["two sources", [{ name: "a", secret: {}, configMap: {} }], {}, "expected exactly one, got both: v[0].configMap, v[0].secret"],
    [
      "item paths carry no source segment",
      [{ name: "a", configMap: { items: [{ key: "k" }, { path: "p" }] } }],
      {},
      "missing field(s): v[0].items[0].path, v[0].items[1].key",
    ],
    [
      "projected sources are indexed as projected[j]",
      [{ name: "a", projected: { sources: [{}, { serviceAccountToken: {} }, { secret: { name: "s" }, clusterTrustBundle: { path: "p" } }] } }],
      {},
      "expected exactly one, got neither: v[0].projected[0].configMap, v[0].projected[0].downwardAPI, v[0].projected[0].secret, v[0].projected[0].serviceAccountToken\n" +
        "missing field(s): v[0].projected[1].serviceAccountToken.path\n" +
        "must not set the field(s): v[0].projected[2].clusterTrustBundle",
    ],
    [
      "downwardAPI items need exactly one ref and a path",
      [{ name: "a", projected: { sources: [{ downwardAPI: { items: [{ path: "x" }, { fieldRef: {}, resourceFieldRef: {} }] } }] } }],
      {},
      "Within a single item, cannot set both: v[0].projected[0].downwardAPI.items[1].fieldRef, v[0].projected[0].downwardAPI.items[1].resourceFieldRef\n" +
        "expected exactly one, got neither: v[0].projected[0].downwardAPI.items[0].fieldRef, v[0].projected[0].downwardAPI.items[0].resourceFieldRef\n" +
        "missing field(s): v[0].projected[0].downwardAPI.items[1].path",
    ],
    [
      "emptyDir medium and a negative size",
      [{ name: "a", emptyDir: { medium: "HugePages", sizeLimit: "-500m" } }],
      {},
      "invalid value: -500m: v[0].emptyDir.sizeLimit\ninvalid value: HugePages: v[0].emptyDir.medium",
    ],
  ];
  for (const [name, volumes, flags, want, version] of cases) {
    it(name, () => {
      const mounted = new Set(["a"]);
      const { errs } = validateVolumes(volumes, mounted, features(flags), version === undefined ? undefined : PROFILES[version]);
      expect(renderFieldError(viaField(errs, "v"))).toBe(want);
    });
  }

  it("indexes the volumes by name, the last one winning", () => {
    const { volumes } = validateVolumes([secret("a"), { name: "a", configMap: {} }], new Set(["a"]), features());
    expect(volumes.get("a")).toEqual({ name: "a", configMap: {} });
  });
});

describe("allMountedVolumes", () => {
  it("collects the mounts of every container list", () => {
    const names = allMountedVolumes([[{ volumeMounts: [{ name: "a" }] }], [null, { volumeMounts: [{ name: "b" }, null] }]]);
    expect([...names].sort()).toEqual(["", "a", "b"]);
  });
});

describe("validateVolumeMounts", () => {
  const volumes = new Map<string, Record<string, unknown>>([
    ["s", { name: "s", secret: {} }],
    ["e", { name: "e", emptyDir: {} }],
    ["rw", { name: "rw", persistentVolumeClaim: { claimName: "c" } }],
    ["ro", { name: "ro", persistentVolumeClaim: { claimName: "c", readOnly: true } }],
  ]);
  /** The volumes with the mount rules of `version` (flags at their defaults); without one, of the default release. */
  const volumesOf = (version: KnativeVersion | undefined): VolumesByName =>
    version === undefined ? volumes : Object.assign(new Map(volumes), { mountRules: volumeMountRules(features(), PROFILES[version]) });
  const cases: ReadonlyArray<readonly [name: string, mounts: unknown[], want: string, version?: KnativeVersion]> = [
    ["a read-only secret mount", [{ name: "s", mountPath: "/s", readOnly: true }], ""],
    ["writable emptyDir and PVC mounts", [{ name: "e", mountPath: "/e" }, { name: "rw", mountPath: "/rw" }], ""],
    ["a writable secret mount", [{ name: "s", mountPath: "/s" }], "volume mount should be readOnly for this type of volume: m[0].readOnly"],
    [
      "an unknown volume",
      [{ name: "nope", mountPath: "/x", readOnly: true }],
      "volumeMount has no matching volume: m[0].name",
    ],
    ["a read-only PVC mounted writable", [{ name: "ro", mountPath: "/ro" }], "volume is readOnly but volume mount is not: m[0].readOnly"],
    [
      "reserved, relative, empty and duplicate paths",
      [
        { name: "s", mountPath: "/dev/./", readOnly: true },
        { name: "s", mountPath: "rel", readOnly: true },
        { name: "s", mountPath: "", readOnly: true },
        { name: "s", mountPath: "/etc/app", readOnly: true },
        { name: "s", mountPath: "/etc/app/", readOnly: true },
      ],
      'invalid value: "/etc/app/" must be unique: m[4].mountPath\n' +
        "invalid value: rel: m[1].mountPath\n" +
        "missing field(s): m[2].mountPath\n" +
        'mountPath "/dev" is a reserved path: m[0].mountPath',
    ],
    [
      "mountPropagation and subPathExpr are disallowed [v0.44.2]",
      [{ name: "e", mountPath: "/e", mountPropagation: "None", subPathExpr: "$(X)" }],
      "must not set the field(s): m[0].mountPropagation, m[0].subPathExpr",
      "1.17",
    ],
  ];
  for (const [name, mounts, want, version] of cases) {
    it(name, () => {
      expect(renderFieldError(viaField(validateVolumeMounts(mounts, volumesOf(version)), "m"))).toBe(want);
    });
  }
});

describe("volume flags of later releases (csi, image, ephemeral, mount propagation)", () => {
  const csi = { name: "a", csi: { driver: "secrets-store.csi.k8s.io" } };
  const image = { name: "a", image: { reference: "registry.example/model:v1" } };
  const ephemeral = { name: "a", ephemeral: { volumeClaimTemplate: { spec: { accessModes: ["ReadWriteOnce"] } } } };
  const cases: ReadonlyArray<
    readonly [name: string, volumes: unknown[], flags: Partial<Record<keyof FeaturesConfig, Flag>>, want117: string, want123: string]
  > = [
    [
      "csi, flag Disabled",
      [csi],
      {},
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].csi",
      "CSI volume support is disabled, but found CSI volume a: \nmust not set the field(s): v[0].csi",
    ],
    // The check is `!= Enabled`, the mask `!= Disabled`.
    ["csi, flag Allowed", [csi], { podSpecVolumesCSI: "Allowed" }, "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].csi", "CSI volume support is disabled, but found CSI volume a: "],
    ["csi, flag Enabled", [csi], { podSpecVolumesCSI: "Enabled" }, "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].csi", ""],
    [
      "image, flag Disabled",
      [image],
      {},
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].image",
      "Image volume support is disabled, but found Image volume a: \nmust not set the field(s): v[0].image",
    ],
    ["image, flag Enabled", [image], { podSpecVolumesImage: "Enabled" }, "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].image", ""],
    [
      "image without a reference and with a bad pull policy",
      [{ name: "a", image: { pullPolicy: "always" } }],
      { podSpecVolumesImage: "Enabled" },
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].image",
      "invalid value: always: v[0].image.pullPolicy\nmissing field(s): v[0].image.reference",
    ],
    [
      "image and secret",
      [{ ...image, secret: { secretName: "s" } }],
      { podSpecVolumesImage: "Enabled" },
      "must not set the field(s): v[0].image",
      "expected exactly one, got both: v[0].image, v[0].secret",
    ],
    [
      "ephemeral, flag Disabled",
      [ephemeral],
      {},
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].ephemeral",
      "Ephemeral volume support is disabled, but found Ephemeral volume a: \nmust not set the field(s): v[0].ephemeral",
    ],
    [
      "csi and ephemeral in one volume",
      [{ ...csi, ...ephemeral }],
      { podSpecVolumesCSI: "Enabled", podSpecVolumesEphemeral: "Enabled" },
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret\nmust not set the field(s): v[0].csi, v[0].ephemeral",
      "expected exactly one, got both: v[0].csi, v[0].ephemeral",
    ],
    [
      "no source: the one-of lists the Enabled new kinds",
      [{ name: "a" }],
      { podSpecVolumesCSI: "Enabled", podSpecVolumesImage: "Enabled", podSpecVolumesEphemeral: "Allowed" },
      "expected exactly one, got neither: v[0].configMap, v[0].emptyDir, v[0].projected, v[0].secret",
      "expected exactly one, got neither: v[0].configMap, v[0].csi, v[0].emptyDir, v[0].image, v[0].projected, v[0].secret",
    ],
  ];
  it.each(cases)("%s", (_name, volumes, flags, want117, want123) => {
    const mounted = new Set(["a"]);
    for (const [version, want] of [["1.17", want117], ["1.23", want123], ["1.24", want123]] as const) {
      const { errs } = validateVolumes(volumes, mounted, features(flags), PROFILES[version]);
      expect(renderFieldError(viaField(errs, "v")), version).toBe(want);
    }
  });

  const declared = (flags: Partial<Record<keyof FeaturesConfig, Flag>>, version: keyof typeof PROFILES) =>
    validateVolumes(
      [
        { name: "c", csi: { driver: "d" } },
        { name: "i", image: { reference: "r" } },
        { name: "eph", ephemeral: { volumeClaimTemplate: { spec: {} } } },
        { name: "e", emptyDir: {} },
      ],
      new Set(["c", "i", "eph", "e"]),
      features(flags),
      PROFILES[version],
    ).volumes;
  const mount = (m: unknown[], flags: Partial<Record<keyof FeaturesConfig, Flag>>, version: keyof typeof PROFILES) =>
    renderFieldError(viaField(validateVolumeMounts(m, declared(flags, version)), "m"));

  it("ephemeral mounts may be writable from 1.23; csi and image mounts must be readOnly", () => {
    const writable = [{ name: "eph", mountPath: "/eph" }, { name: "c", mountPath: "/c" }, { name: "i", mountPath: "/i" }];
    const readOnly = "volume mount should be readOnly for this type of volume";
    expect(mount(writable, {}, "1.17")).toBe(`${readOnly}: m[0].readOnly, m[1].readOnly, m[2].readOnly`);
    expect(mount(writable, {}, "1.23")).toBe(`${readOnly}: m[1].readOnly, m[2].readOnly`);
    expect(mount(writable, {}, "1.24")).toBe(`${readOnly}: m[1].readOnly, m[2].readOnly`);
  });

  it.each<[string, Flag, string, string]>([
    ["Disabled, None", "Disabled", "None", "Volume Mount Propagation support is disabled, but found volume mount e with mount propagation: \nmust not set the field(s): m[0].mountPropagation"],
    [
      "Disabled, Bidirectional",
      "Disabled",
      "Bidirectional",
      "Volume Mount Propagation support is disabled, but found volume mount e with mount propagation: \n" +
        "mount propagation should be set to None or HostToContainer: m[0].mountPropagation\n" +
        "must not set the field(s): m[0].mountPropagation",
    ],
    ["Allowed, HostToContainer", "Allowed", "HostToContainer", "Volume Mount Propagation support is disabled, but found volume mount e with mount propagation: "],
    ["Enabled, None", "Enabled", "None", ""],
    ["Enabled, Bidirectional", "Enabled", "Bidirectional", "mount propagation should be set to None or HostToContainer: m[0].mountPropagation"],
    ["Enabled, empty", "Enabled", "", "mount propagation should be set to None or HostToContainer: m[0].mountPropagation"],
  ])("mountPropagation from 1.23: flag %s", (_name, flag, value, want) => {
    const m = [{ name: "e", mountPath: "/e", mountPropagation: value }];
    expect(mount(m, { podSpecVolumesMountPropagation: flag }, "1.23")).toBe(want);
    expect(mount(m, { podSpecVolumesMountPropagation: flag }, "1.24")).toBe(want);
    // 1.17 has no flag: the mask always drops the field.
    expect(mount(m, { podSpecVolumesMountPropagation: flag }, "1.17")).toBe("must not set the field(s): m[0].mountPropagation");
  });

  it("volumeMountRules: the mask keeps mountPropagation only where the flag exists and is not Disabled", () => {
    expect(volumeMountRules(features({ podSpecVolumesMountPropagation: "Enabled" }), PROFILES["1.17"]).mountPropagation).toBeUndefined();
    expect(volumeMountRules(features(), PROFILES["1.23"]).mountPropagation).toBe("Disabled");
    expect(volumeMountRules(features(), PROFILES["1.24"]).writableSources).toEqual(["emptyDir", "persistentVolumeClaim", "ephemeral"]);
  });
});
