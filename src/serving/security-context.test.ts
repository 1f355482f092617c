import { describe, expect, it } from "vitest";
import { renderFieldError, viaField, type FieldError } from "../apis/field-error.js";
import type { FeaturesConfig, Flag } from "../config/types.js";
import { validatePodSecurityContext, validateSecurityContext, warnDefaultContainerSecurityContext } from "./security-context.js";

/** The flags these rules read, at Knative's defaults. */
function features(overrides: Partial<Record<keyof FeaturesConfig, Flag>> = {}): FeaturesConfig {
  return {
    podSpecSecurityContext: "Disabled",
    secureDefaults: "Disabled",
    containerSpecAddCapabilities: "Disabled",
    ...overrides,
  } as FeaturesConfig;
}

const render = (field: string, err: FieldError | undefined) => renderFieldError(viaField(err, field));

describe("validatePodSecurityContext", () => {
  const cases: ReadonlyArray<
    readonly [name: string, sc: Record<string, unknown>, flags: Partial<Record<keyof FeaturesConfig, Flag>>, want: string]
  > = [
    ["an empty context passes the closed mask", {}, {}, ""],
    [
      "every field is disallowed while the flag is Disabled",
      { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      {},
      "must not set the field(s): sc.runAsNonRoot, sc.seccompProfile",
    ],
    [
      "the flag opens the usual fields",
      { runAsUser: 1, runAsGroup: 2, runAsNonRoot: true, fsGroup: 3, supplementalGroups: [4], seccompProfile: { type: "Localhost", localhostProfile: "p" } },
      { podSpecSecurityContext: "Allowed" },
      "",
    ],
    [
      "the flag keeps the other fields closed",
      { sysctls: [{ name: "a", value: "b" }], seLinuxOptions: {}, fsGroupChangePolicy: "Always", appArmorProfile: { type: "RuntimeDefault" } },
      { podSpecSecurityContext: "Enabled" },
      "must not set the field(s): sc.appArmorProfile, sc.fsGroupChangePolicy, sc.seLinuxOptions, sc.sysctls",
    ],
    ["secure-pod-defaults Enabled allows the RuntimeDefault seccomp profile", { seccompProfile: { type: "RuntimeDefault" } }, { secureDefaults: "Enabled" }, ""],
    ["secure-pod-defaults Enabled allows the Unconfined seccomp profile", { seccompProfile: { type: "Unconfined" } }, { secureDefaults: "Enabled" }, ""],
    [
      "secure-pod-defaults Enabled refuses a Localhost seccomp profile",
      { seccompProfile: { type: "Localhost", localhostProfile: "audit.json" } },
      { secureDefaults: "Enabled" },
      "must not set the field(s): sc.seccompProfile",
    ],
    [
      "secure-pod-defaults Allowed opens nothing here",
      { seccompProfile: { type: "RuntimeDefault" } },
      { secureDefaults: "Allowed" },
      "must not set the field(s): sc.seccompProfile",
    ],
    [
      "id bounds, whatever the mask",
      { runAsUser: -1, runAsGroup: 2147483648, fsGroup: 0, supplementalGroups: [1000, -1, 2147483648] },
      { podSpecSecurityContext: "Enabled" },
      "expected 0 <= -1 <= 2147483647: sc.runAsUser, sc.supplementalGroups[1]\n" +
        "expected 0 <= 2147483648 <= 2147483647: sc.runAsGroup, sc.supplementalGroups[2]",
    ],
    [
      "id bounds of int64s beyond 2^53 (bigints: the Go round trip keeps them exact)",
      { runAsUser: 9223372036854775807n, supplementalGroups: [1000, -9223372036854775808n] },
      { podSpecSecurityContext: "Enabled" },
      "expected 0 <= -9223372036854775808 <= 2147483647: sc.supplementalGroups[1]\n" + "expected 0 <= 9223372036854775807 <= 2147483647: sc.runAsUser",
    ],
  ];
  it.each(cases)("%s", (_name, sc, flags, want) => {
    expect(render("sc", validatePodSecurityContext(sc, features(flags)))).toBe(want);
  });
});

describe("validateSecurityContext (container)", () => {
  const cases: ReadonlyArray<
    readonly [name: string, sc: Record<string, unknown>, flags: Partial<Record<keyof FeaturesConfig, Flag>>, want: string]
  > = [
    [
      "the restricted profile is allowed",
      { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" }, readOnlyRootFilesystem: true },
      {},
      "",
    ],
    ["privileged false is allowed", { privileged: false }, {}, ""],
    [
      "privileged true and the other fields are disallowed",
      { privileged: true, procMount: "Default", seLinuxOptions: { user: "u" }, windowsOptions: {}, appArmorProfile: { type: "RuntimeDefault" } },
      {},
      "must not set the field(s): sc.appArmorProfile, sc.privileged, sc.procMount, sc.seLinuxOptions, sc.windowsOptions",
    ],
    ["adding capabilities needs the flag", { capabilities: { add: ["NET_ADMIN"] } }, {}, "must not set the field(s): sc.capabilities.add"],
    ["the flag must be Enabled, not Allowed", { capabilities: { add: ["NET_ADMIN"] } }, { containerSpecAddCapabilities: "Allowed" }, "must not set the field(s): sc.capabilities.add"],
    ["the flag Enabled allows any capability", { capabilities: { add: ["NET_ADMIN"] } }, { containerSpecAddCapabilities: "Enabled" }, ""],
    ["secure-pod-defaults allows exactly NET_BIND_SERVICE", { capabilities: { add: ["NET_BIND_SERVICE"] } }, { secureDefaults: "Enabled" }, ""],
    [
      "secure-pod-defaults allows nothing more",
      { capabilities: { add: ["NET_BIND_SERVICE", "NET_ADMIN"] } },
      { secureDefaults: "Enabled" },
      "must not set the field(s): sc.capabilities.add",
    ],
    [
      "user and group bounds",
      { runAsUser: -1, runAsGroup: 2147483648 },
      {},
      "expected 0 <= -1 <= 2147483647: sc.runAsUser\nexpected 0 <= 2147483648 <= 2147483647: sc.runAsGroup",
    ],
  ];
  it.each(cases)("%s", (_name, sc, flags, want) => {
    expect(render("sc", validateSecurityContext(sc, features(flags)))).toBe(want);
  });
});

describe("warnDefaultContainerSecurityContext", () => {
  const INSECURE = "Kubernetes default value is insecure, Knative may default this to secure in a future release";
  const cases: ReadonlyArray<
    readonly [name: string, pod: Record<string, unknown> | undefined, container: Record<string, unknown> | undefined, want: string]
  > = [
    [
      "nothing set anywhere",
      undefined,
      undefined,
      `${INSECURE}: sc.allowPrivilegeEscalation, sc.capabilities, sc.runAsNonRoot, sc.seccompProfile`,
    ],
    [
      "pod-level runAsNonRoot and seccompProfile count",
      { runAsNonRoot: false, seccompProfile: { type: "RuntimeDefault" } },
      { allowPrivilegeEscalation: true, capabilities: { drop: [] } },
      "",
    ],
    ["a profile without type on both levels", { seccompProfile: {} }, { seccompProfile: { type: "" } }, `${INSECURE}: sc.allowPrivilegeEscalation, sc.capabilities, sc.runAsNonRoot, sc.seccompProfile.type`],
    [
      "capabilities without drop",
      undefined,
      { allowPrivilegeEscalation: false, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" }, capabilities: { add: ["X"] } },
      `${INSECURE}: sc.capabilities.drop`,
    ],
    [
      "drop spelled all",
      undefined,
      { allowPrivilegeEscalation: false, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" }, capabilities: { drop: ["all"] } },
      "invalid value: all: sc.capabilities.drop\nMust be spelled as 'ALL'",
    ],
  ];
  it.each(cases)("%s", (_name, pod, container, want) => {
    const err = warnDefaultContainerSecurityContext(pod, container);
    expect(render("sc", err)).toBe(want);
    expect(err?.filter("Error")).toBeUndefined();
  });
});
