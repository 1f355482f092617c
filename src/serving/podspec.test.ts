import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { viaField, type FieldError } from "../apis/field-error.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { knativeTypes } from "../apis/knative-types.js";
import { DEFAULT_DEFAULTS, parseDefaultsConfig } from "../config/defaults.js";
import { DEFAULT_FEATURES, parseFeaturesConfig } from "../config/features.js";
import { PROFILES, type KnativeProfile } from "../config/profile.js";
import type { DefaultsConfig, FeaturesConfig, Flag } from "../config/types.js";
import { RELEASES } from "../../test/conformance/paths.js";
import { MAX_CONTAINERS, validateRevisionSpecWith, type RevisionSpecConfig } from "./podspec.js";

// ---------------------------------------------------------------------------------------------
// Configuration fixtures: Knative's defaults from the real parsers, with per-test overrides. Rules answer as the
// default release (1.24) unless a case names another.

function features(overrides: Partial<Record<keyof FeaturesConfig, Flag>> = {}): FeaturesConfig {
  return { ...DEFAULT_FEATURES, ...overrides };
}

function defaults(overrides: Partial<DefaultsConfig> = {}): DefaultsConfig {
  return { ...DEFAULT_DEFAULTS, ...overrides };
}

function admission(f: FeaturesConfig = features(), d: DefaultsConfig = defaults()): RevisionSpecConfig {
  return { features: f, defaults: d };
}

/** The vectors' config-features / config-defaults through the release's parsers (their values are all valid). */
function parseFeatures(data: Readonly<Record<string, string>> | undefined, profile: KnativeProfile): FeaturesConfig {
  return parseFeaturesConfig(data ?? {}, profile);
}

function parseDefaults(data: Readonly<Record<string, string>> | undefined, profile: KnativeProfile): DefaultsConfig {
  const r = parseDefaultsConfig(data ?? {}, profile);
  if (!r.ok) throw new Error(`vector config-defaults must be valid: ${r.error}`);
  return r.value;
}

// ---------------------------------------------------------------------------------------------
// Rendering as the admission layer does it (knative.dev/pkg
// webhook/resourcesemantics/validation/validation_admit.go): errors after "validation failed: ", one warning per line
// of each merged warning.

interface Rendered {
  readonly message: string;
  readonly warnings: readonly string[];
}

function render(err: FieldError | undefined): Rendered {
  const errors = err?.filter("Error");
  const warned = err?.filter("Warning");
  return {
    message: errors === undefined ? "" : `validation failed: ${errors.error()}`,
    warnings: warned === undefined ? [] : warned.wrappedErrors().flatMap((w) => w.error().split("\n")),
  };
}

function validateTemplateSpec(spec: Record<string, unknown>, config: RevisionSpecConfig = admission(), profile?: KnativeProfile): Rendered {
  return render(viaField(validateRevisionSpecWith(spec, config, profile), "spec.template.spec"));
}

const INSECURE = "Kubernetes default value is insecure, Knative may default this to secure in a future release";
const P = "spec.template.spec";

/** The warning a container without any securityContext gets. */
function defaultWarnings(...containers: string[]): string {
  const paths = containers.flatMap((c) =>
    ["allowPrivilegeEscalation", "capabilities", "runAsNonRoot", "seccompProfile"].map((f) => `${P}.${c}.securityContext.${f}`),
  );
  return `${INSECURE}: ${paths.join(", ")}`;
}

const RESTRICTED = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ["ALL"] },
  runAsNonRoot: true,
  seccompProfile: { type: "RuntimeDefault" },
};

/** A defaulted single-container spec, with a restricted securityContext so that no warning is emitted. */
function spec(container: Record<string, unknown> = {}, pod: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    containers: [{ name: "user-container", image: "ghcr.io/knative/helloworld-go:latest", securityContext: RESTRICTED, ...container }],
    enableServiceLinks: false,
    containerConcurrency: 0,
    timeoutSeconds: 300,
    ...pod,
  };
}

// ---------------------------------------------------------------------------------------------

interface Case {
  readonly name: string;
  readonly spec: Record<string, unknown>;
  readonly features?: Partial<Record<keyof FeaturesConfig, Flag>>;
  readonly defaults?: Partial<DefaultsConfig>;
  readonly message: string;
  readonly warnings?: readonly string[];
  /** The release answering; undefined: the default. */
  readonly profile?: KnativeProfile;
}

function runCases(cases: readonly Case[]): void {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const got = validateTemplateSpec(c.spec, admission(features(c.features), defaults(c.defaults)), c.profile);
    expect(got.message).toBe(c.message);
    expect(got.warnings).toEqual(c.warnings ?? []);
  });
}

describe("RevisionSpec bounds", () => {
  runCases([
    { name: "timeoutSeconds at the maximum is accepted", spec: spec({}, { timeoutSeconds: 600 }), message: "" },
    { name: "timeoutSeconds zero means the default", spec: spec({}, { timeoutSeconds: 0 }), message: "" },
    {
      name: "timeoutSeconds above max-revision-timeout-seconds",
      spec: spec({}, { timeoutSeconds: 601 }),
      message: `validation failed: expected 0 <= 601 <= 600: ${P}.timeoutSeconds`,
    },
    {
      name: "negative timeoutSeconds",
      spec: spec({}, { timeoutSeconds: -1 }),
      message: `validation failed: expected 0 <= -1 <= 600: ${P}.timeoutSeconds`,
    },
    {
      name: "timeoutSeconds against a configured maximum",
      spec: spec({}, { timeoutSeconds: 1500 }),
      defaults: { maxRevisionTimeoutSeconds: 1200 },
      message: `validation failed: expected 0 <= 1500 <= 1200: ${P}.timeoutSeconds`,
    },
    {
      name: "containerConcurrency above the limit",
      spec: spec({}, { containerConcurrency: 1001 }),
      message: `validation failed: expected 0 <= 1001 <= 1000: ${P}.containerConcurrency`,
    },
    {
      name: "containerConcurrency zero when zero is not allowed",
      spec: spec({}, { containerConcurrency: 0 }),
      defaults: { allowContainerConcurrencyZero: false },
      message: `validation failed: expected 1 <= 0 <= 1000: ${P}.containerConcurrency`,
    },
    { name: "absent containerConcurrency is not checked", spec: spec({}, { containerConcurrency: undefined }), message: "" },
  ]);
});

describe("PodSpec allowed subset", () => {
  runCases([
    {
      name: "every disallowed field is named once, sorted",
      spec: spec({}, { nodeName: "n", restartPolicy: "Always", terminationGracePeriodSeconds: 5, hostname: "h", priority: 1 }),
      message: `validation failed: must not set the field(s): ${P}.hostname, ${P}.nodeName, ${P}.priority, ${P}.restartPolicy, ${P}.terminationGracePeriodSeconds`,
    },
    { name: "automountServiceAccountToken false is allowed", spec: spec({}, { automountServiceAccountToken: false }), message: "" },
    {
      name: "automountServiceAccountToken true is disallowed",
      spec: spec({}, { automountServiceAccountToken: true }),
      message: `validation failed: must not set the field(s): ${P}.automountServiceAccountToken`,
    },
    {
      name: "a gated field is disallowed while its flag is Disabled",
      spec: spec({}, { affinity: { nodeAffinity: {} } }),
      message: `validation failed: must not set the field(s): ${P}.affinity`,
    },
    { name: "Allowed opens a gated field", spec: spec({}, { affinity: {} }), features: { podSpecAffinity: "Allowed" }, message: "" },
    { name: "false is unset for bool fields", spec: spec({}, { hostNetwork: false, hostIPC: false }), message: "" },
    {
      name: "an empty pointer struct counts as set",
      spec: spec({}, { dnsConfig: {} }),
      message: `validation failed: must not set the field(s): ${P}.dnsConfig`,
    },
    {
      name: "secure-pod-defaults opens the pod securityContext but not its fields",
      spec: spec({}, { securityContext: { runAsUser: 1001 } }),
      features: { secureDefaults: "Enabled" },
      message: `validation failed: must not set the field(s): ${P}.securityContext.runAsUser`,
    },
    {
      name: "Knative 1.17: secure-pod-defaults Allowed opens the pod securityContext but not its fields",
      spec: spec({}, { securityContext: { runAsUser: 1001 } }),
      features: { secureDefaults: "Allowed" },
      message: `validation failed: must not set the field(s): ${P}.securityContext.runAsUser`,
      profile: PROFILES["1.17"],
    },
    {
      name: "pod securityContext bounds apply even when the field is disallowed",
      spec: spec({}, { securityContext: { runAsUser: -1, fsGroup: -2 } }),
      message:
        `validation failed: expected 0 <= -1 <= 2147483647: ${P}.securityContext.runAsUser\n` +
        `expected 0 <= -2 <= 2147483647: ${P}.securityContext.fsGroup\n` +
        `must not set the field(s): ${P}.securityContext, ${P}.securityContext.fsGroup, ${P}.securityContext.runAsUser`,
    },
    {
      name: "invalid serviceAccountName carries the DNS-1123 message",
      spec: spec({}, { serviceAccountName: "foo@bar.baz" }),
      message:
        `validation failed: invalid value: foo@bar.baz: ${P}.serviceAccountName\n` +
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    },
    {
      name: "no containers",
      spec: { containers: [] },
      message: `validation failed: missing field(s): ${P}.containers`,
    },
  ]);
});

describe("containers: count, ports and names", () => {
  const app = { name: "app", image: "busybox", ports: [{ containerPort: 8080 }], securityContext: RESTRICTED };
  const side = { name: "side", image: "busybox", securityContext: RESTRICTED };
  runCases([
    {
      name: "two ports in one container",
      spec: spec({ ports: [{ containerPort: 8080 }, { containerPort: 8081 }] }),
      message: `validation failed: more than one container port is set: ${P}.containers[*].ports\nOnly a single port is allowed across all containers`,
    },
    {
      name: "several containers and no port",
      spec: { containers: [side, { ...side, name: "other" }] },
      message: `validation failed: missing field(s): ${P}.containers[*].ports`,
    },
    {
      name: "multi-container off reports the count only",
      spec: { containers: [app, { ...side, image: "" }] },
      features: { multiContainer: "Allowed" },
      message: "validation failed: multi-container is off, but found 2 containers: ",
    },
    {
      name: "duplicate container name",
      spec: { containers: [app, { ...side, name: "app" }] },
      message: `validation failed: duplicate container name "app": ${P}.containers[1].name`,
    },
    {
      name: "a duplicate name re-prefixes the errors found before it (Go quirk)",
      spec: { containers: [{ ...app, image: "" }, { ...side, name: "app" }] },
      message:
        `validation failed: duplicate container name "app": ${P}.containers[1].name\n` +
        `missing field(s): ${P}.containers[1].containers[0].image`,
    },
    {
      name: "reserved container name",
      spec: spec({ name: "queue-proxy" }),
      message: `validation failed: "queue-proxy" is a reserved container name: ${P}.containers[0].name`,
    },
    {
      name: "an empty container reports itself missing",
      spec: { containers: [app, {}] },
      message: `validation failed: missing field(s): ${P}.containers[1]`,
      warnings: [`${INSECURE}: ${["allowPrivilegeEscalation", "capabilities", "runAsNonRoot", "seccompProfile"].map((f) => `${P}.containers[1].securityContext.${f}`).join(", ")}`],
    },
    {
      name: "sidecars may use PORT",
      spec: { containers: [app, { ...side, env: [{ name: "PORT", value: "1" }] }] },
      message: "",
    },
  ]);
});

describe("containers: at most MAX_CONTAINERS per list (Duckbill's bound on Knative's quadratic duplicate-name answer)", () => {
  const named = (prefix: string, n: number, extra: Record<string, unknown> = {}) =>
    Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, image: "busybox", securityContext: RESTRICTED, ...extra }));
  const withPort = (list: Record<string, unknown>[]) => [{ ...list[0], ports: [{ containerPort: 8080 }] }, ...list.slice(1)];
  it("validates a pod spec with exactly MAX_CONTAINERS containers as Knative does", () => {
    const got = validateTemplateSpec({ containers: withPort(named("c", MAX_CONTAINERS)) });
    expect(got).toEqual({ message: "", warnings: [] });
  });
  it("denies one more container, or init container, at once and with nothing else", () => {
    expect(validateTemplateSpec({ containers: withPort(named("c", MAX_CONTAINERS + 1)), affinity: {} }).message).toBe(
      `validation failed: must have at most ${MAX_CONTAINERS} items, found ${MAX_CONTAINERS + 1}: ${P}.containers`,
    );
    const got = validateTemplateSpec(
      { containers: Array.from({ length: 300_000 }, () => ({})), initContainers: named("i", 1000) },
      admission(features({ podSpecInitContainers: "Enabled" })),
    );
    expect(got.message).toBe(
      `validation failed: must have at most ${MAX_CONTAINERS} items, found 1000: ${P}.initContainers\n` +
        `must have at most ${MAX_CONTAINERS} items, found 300000: ${P}.containers`,
    );
  });
});

describe("init containers", () => {
  const init = { name: "setup", image: "busybox", securityContext: RESTRICTED };
  runCases([
    {
      name: "init containers with the flag Allowed: accepted by the mask, refused by the check",
      spec: spec({}, { initContainers: [init, init] }),
      features: { podSpecInitContainers: "Allowed" },
      message: "validation failed: pod spec support for init-containers is off, but found 2 init containers: ",
    },
    {
      name: "init containers with the flag Disabled",
      spec: spec({}, { initContainers: [init] }),
      message: `validation failed: must not set the field(s): ${P}.initContainers\npod spec support for init-containers is off, but found 1 init containers: `,
    },
    {
      name: "init container errors are reported under containers[i]",
      spec: spec({}, { initContainers: [{ ...init, image: "Busy Box" }] }),
      features: { podSpecInitContainers: "Enabled" },
      message: `validation failed: Failed to parse image reference: ${P}.containers[0].image\nimage: "Busy Box", error: could not parse reference: Busy Box`,
    },
    {
      name: "init container named like a regular container",
      spec: spec({}, { initContainers: [{ ...init, name: "user-container" }] }),
      features: { podSpecInitContainers: "Enabled" },
      message: `validation failed: duplicate container name "user-container": ${P}.containers[0].name`,
    },
    {
      name: "init containers may not probe",
      spec: spec({}, { initContainers: [{ ...init, readinessProbe: { tcpSocket: {} }, lifecycle: {} }] }),
      features: { podSpecInitContainers: "Enabled" },
      message:
        `validation failed: field not allowed in an init container: ${P}.containers[0].lifecycle, ${P}.containers[0].readinessProbe\n` +
        `must not set the field(s): ${P}.containers[0].lifecycle`,
    },
    {
      name: "init containers check every port, and may use PORT",
      spec: spec({}, { initContainers: [{ ...init, env: [{ name: "PORT" }], ports: [{ containerPort: 1 }, { containerPort: 8012 }] }] }),
      features: { podSpecInitContainers: "Enabled" },
      message: `validation failed: invalid value: 8012 is a reserved port: ${P}.containers[0].ports.containerPort\n8012 is a reserved port, please use a different value`,
    },
    {
      name: "init container warnings use initContainers[i]",
      spec: spec({}, { initContainers: [{ name: "setup", image: "busybox" }] }),
      features: { podSpecInitContainers: "Enabled" },
      message: "",
      warnings: [defaultWarnings("initContainers[0]")],
    },
  ]);
});

// ---------------------------------------------------------------------------------------------
// Conformance vectors of each release, answered as that release: every Service /validation vector of podspec.jsonl
// and features.jsonl whose expected message names no metadata or traffic path (those belong to other rules).

interface VectorCase {
  readonly name: string;
  readonly spec: Record<string, unknown>;
  /** Where the kind keeps its RevisionSpec: `spec.template.spec` (Service, Configuration) or `spec` (Revision). */
  readonly prefix: string;
  readonly config: RevisionSpecConfig;
  readonly message: string;
  readonly warnings: readonly string[];
}

const REVISION_SPEC_PATHS: Readonly<Record<string, readonly string[]>> = {
  Service: ["spec", "template", "spec"],
  Configuration: ["spec", "template", "spec"],
  Revision: ["spec"],
};

function loadVectors(dir: string, file: string, kinds: readonly string[], profile: KnativeProfile): VectorCase[] {
  const out: VectorCase[] = [];
  for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const v = JSON.parse(line) as {
      name: string;
      configs?: Record<string, Record<string, string>>;
      review: { request: { operation?: string; object?: { kind?: string } } };
      expect: { response?: { status?: { message?: string }; warnings?: string[] } };
    };
    const object = v.review.request.object;
    const kind = object?.kind ?? "";
    const path = REVISION_SPEC_PATHS[kind];
    const type = knativeTypes.get(`serving.knative.dev/v1, Kind=${kind}`);
    if (!v.name.endsWith("/validation") || !kinds.includes(kind) || path === undefined || type === undefined) continue;
    if (v.review.request.operation !== "CREATE") continue;
    const message = v.expect.response?.status?.message ?? "";
    if (message.includes("metadata.") || message.includes("spec.traffic")) continue;
    // The pipeline hands rules the Go round trip of the request object.
    const decoded = decodeGo(type, object);
    if (!decoded.ok) throw new Error(`${v.name}: ${decoded.error}`);
    let spec: unknown = decoded.value;
    for (const step of path) spec = (spec as Record<string, unknown> | undefined)?.[step];
    out.push({
      name: v.name,
      spec: (spec ?? {}) as Record<string, unknown>,
      prefix: path.join("."),
      config: admission(parseFeatures(v.configs?.["config-features"], profile), parseDefaults(v.configs?.["config-defaults"], profile)),
      message,
      warnings: v.expect.response?.warnings ?? [],
    });
  }
  return out;
}

describe.each(RELEASES.map((r) => [r.version, r] as const))("Knative %s", (version, { dir }) => {
  const profile = PROFILES[version];
  const load = (kinds: readonly string[]): VectorCase[] => [...loadVectors(dir, "podspec.jsonl", kinds, profile), ...loadVectors(dir, "features.jsonl", kinds, profile)];

  describe("conformance vectors: Service spec.template.spec", () => {
    const vectors = load(["Service"]);

    it("covers the vectors", () => {
      expect(vectors.length).toBeGreaterThanOrEqual(282);
    });

    it.each(vectors.map((v) => [v.name, v] as const))("%s", (_name, v) => {
      const got = render(viaField(validateRevisionSpecWith(v.spec, v.config, profile), v.prefix));
      expect(got).toEqual({ message: v.message, warnings: v.warnings });
    });
  });

  describe("conformance vectors: Configuration and Revision specs", () => {
    const vectors = load(["Configuration", "Revision"]);

    it.each(vectors.map((v) => [v.name, v] as const))("%s", (_name, v) => {
      const got = render(viaField(validateRevisionSpecWith(v.spec, v.config, profile), v.prefix));
      expect(got).toEqual({ message: v.message, warnings: v.warnings });
    });
  });
});
