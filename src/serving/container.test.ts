import { describe, expect, it } from "vitest";
import { MAX_HELD_ERROR_PATHS, MAX_RENDERED_ERROR_PATH_CHARS, MAX_RENDERED_ERROR_PATHS, moreErrorsLine, renderFieldError, viaField, type FieldError } from "../apis/field-error.js";
import { PROFILES, type KnativeVersion } from "../config/profile.js";
import type { FeaturesConfig, Flag } from "../config/types.js";
import { validateInitContainer, validateSidecarContainer, validateUserContainer } from "./container.js";
import type { VolumesByName } from "./volumes.js";

/** The flags these rules read, at Knative's defaults. */
function features(overrides: Partial<Record<keyof FeaturesConfig, Flag>> = {}): FeaturesConfig {
  return {
    multiContainerProbing: "Disabled",
    podSpecFieldRef: "Disabled",
    podSpecSecurityContext: "Disabled",
    secureDefaults: "Disabled",
    containerSpecAddCapabilities: "Disabled",
    ...overrides,
  } as FeaturesConfig;
}

const NO_VOLUMES: VolumesByName = new Map();
const render = (err: FieldError | undefined) => renderFieldError(viaField(err, "c"));
const base = { name: "app", image: "busybox" };

/** A case answered by the default release (1.24), or by the release it names. */
type Case = readonly [name: string, container: Record<string, unknown>, flags: Partial<Record<keyof FeaturesConfig, Flag>>, want: string, version?: KnativeVersion];

describe("validateUserContainer", () => {
  const cases: readonly Case[] = [
    ["a minimal container", base, {}, ""],
    ["an empty container is missing, nothing else", {}, {}, "missing field(s): c"],
    ["a container with only an empty name and resources is empty", { name: "", resources: { limits: {} } }, {}, "missing field(s): c"],
    ["no image", { name: "app" }, {}, "missing field(s): c.image"],
    [
      "an image that does not parse",
      { ...base, image: "ghcr.io/Example/App:v1" },
      {},
      'Failed to parse image reference: c.image\nimage: "ghcr.io/Example/App:v1", error: could not parse reference: ghcr.io/Example/App:v1',
    ],
    [
      "fields a Knative container may not have",
      { ...base, lifecycle: {}, stdin: true, stdinOnce: false, tty: true, volumeDevices: [], resizePolicy: [], restartPolicy: "Always" },
      {},
      "must not set the field(s): c.lifecycle, c.resizePolicy, c.restartPolicy, c.stdin, c.tty, c.volumeDevices",
    ],
    ["resource claims are disallowed", { ...base, resources: { claims: [{ name: "gpu" }] } }, {}, "must not set the field(s): c.resources.claims"],
    ["terminationMessagePolicy File", { ...base, terminationMessagePolicy: "FallbackToLogsOnError" }, {}, ""],
    ["another terminationMessagePolicy", { ...base, terminationMessagePolicy: "Always" }, {}, "invalid value: Always: c.terminationMessagePolicy"],
    [
      "only the first port is checked, without index",
      { ...base, ports: [{ containerPort: 8080, name: "grpc", protocol: "UDP", hostPort: 80 }, { containerPort: 8012 }] },
      {},
      "Port name grpc is not allowed: c.ports\nName must be empty, or one of: 'h2c', 'http1'\n" +
        "invalid value: UDP: c.ports.protocol\n" +
        "must not set the field(s): c.ports.hostPort",
    ],
    [
      "reserved and out-of-range ports",
      { ...base, ports: [{ containerPort: 70000 }] },
      {},
      "expected 0 <= 70000 <= 65535: c.ports.containerPort",
    ],
    [
      "env: missing and reserved names, gated valueFrom",
      { ...base, env: [{ name: "PORT" }, { value: "x" }, { name: "A", valueFrom: { fieldRef: { fieldPath: "x" }, secretKeyRef: { key: "k" } } }] },
      {},
      '"PORT" is a reserved environment variable: c.env[0].name\n' +
        "missing field(s): c.env[1].name\n" +
        "must not set the field(s): c.env[2].valueFrom.fieldRef",
    ],
    [
      "kubernetes.podspec-fieldref Allowed opens fieldRef",
      { ...base, env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "x" } } }] },
      { podSpecFieldRef: "Allowed" },
      "",
    ],
    [
      "envFrom one-of errors carry no index; a later ref entry re-prefixes them (Go quirk)",
      { ...base, envFrom: [{ configMapRef: { name: "a" } }, { prefix: "X_" }, { configMapRef: {}, secretRef: {} }] },
      {},
      "expected exactly one, got both: c.envFrom.configMapRef, c.envFrom.secretRef\n" +
        "expected exactly one, got neither: c.envFrom.configMapRef[2].secretRef[2].configMapRef, c.envFrom.configMapRef[2].secretRef[2].secretRef",
    ],
    [
      "probes are checked against the serving port name",
      { ...base, readinessProbe: { httpGet: { port: "h2c" }, successThreshold: 1 }, livenessProbe: { tcpSocket: { port: "http" } } },
      {},
      "invalid value: h2c: c.readinessProbe.httpGet.port\nProbe port must match container port",
    ],
    // podspec/probe-startup-empty/validation (Knative 1.24: startup probes are validated from serving v0.50.0).
    ["a startup probe needs exactly one handler", { ...base, startupProbe: {} }, {}, "expected exactly one, got neither: c.startupProbe.exec, c.startupProbe.grpc, c.startupProbe.httpGet, c.startupProbe.tcpSocket"],
    ["startup probes are not validated [v0.44.2]", { ...base, startupProbe: {} }, {}, "", "1.17"],
  ];
  for (const [name, container, flags, want, version] of cases) {
    it(name, () => {
      expect(render(validateUserContainer(container, NO_VOLUMES, "http", features(flags), version === undefined ? undefined : PROFILES[version]))).toBe(want);
    });
  }
});

describe("validateSidecarContainer", () => {
  const probed = {
    ...base,
    env: [{ name: "PORT", value: "1" }],
    livenessProbe: { tcpSocket: { port: 9901 }, periodSeconds: 10 },
    readinessProbe: { httpGet: {}, successThreshold: 1 },
    startupProbe: { exec: {} },
  };
  // The startup probe too from serving v0.50.0 (podspec/probe-multi-container-sidecar-startup-probe/validation,
  // features/multi-container-probing-allowed-sidecar-startup/validation); Knative 1.17 does not look at it.
  const cases: readonly Case[] = [
    [
      "probes are disallowed without multi-container-probing; PORT is not reserved",
      probed,
      {},
      "must not set the field(s): c.livenessProbe, c.livenessProbe.periodSeconds, c.readinessProbe, c.readinessProbe.successThreshold, c.startupProbe",
    ],
    ["Allowed does not enable sidecar probing", probed, { multiContainerProbing: "Allowed" }, "must not set the field(s): c.livenessProbe, c.livenessProbe.periodSeconds, c.readinessProbe, c.readinessProbe.successThreshold, c.startupProbe"],
    [
      "Knative 1.17: liveness and readiness probes are disallowed without multi-container-probing, the startup probe is not looked at",
      probed,
      {},
      "must not set the field(s): c.livenessProbe, c.livenessProbe.periodSeconds, c.readinessProbe, c.readinessProbe.successThreshold",
      "1.17",
    ],
    [
      "with multi-container-probing the probe must name its port",
      probed,
      { multiContainerProbing: "Enabled" },
      "invalid value: 0: c.readinessProbe.httpGet.port\nProbe port must be specified",
    ],
  ];
  for (const [name, container, flags, want, version] of cases) {
    it(name, () => {
      expect(render(validateSidecarContainer(container, NO_VOLUMES, features(flags), version === undefined ? undefined : PROFILES[version]))).toBe(want);
    });
  }
});

describe("validateInitContainer", () => {
  it("refuses probes and lifecycle, checks every port and lets PORT through", () => {
    const err = validateInitContainer(
      { ...base, env: [{ name: "PORT" }], livenessProbe: {}, startupProbe: {}, ports: [{ containerPort: 1, name: "anything" }, { containerPort: 9090 }] },
      NO_VOLUMES,
      features(),
    );
    expect(render(err)).toBe(
      "field not allowed in an init container: c.livenessProbe, c.startupProbe\n" +
        "invalid value: 9090 is a reserved port: c.ports.containerPort\n9090 is a reserved port, please use a different value",
    );
  });
});

describe("bounded work on hostile lists", () => {
  const validate = (container: Record<string, unknown>): string => render(validateUserContainer(container, NO_VOLUMES, "http", features()));

  it("a million env entries: the first 10,000 paths, the rest of the list counted as not checked", () => {
    const text = validate({ ...base, env: Array.from({ length: 1_000_000 }, () => ({})) });
    expect(text.startsWith("missing field(s): c.env[0].name, c.env[1000].name, ")).toBe(true);
    expect(text.match(/c\.env\[\d+\]\.name/g)?.length).toBe(MAX_RENDERED_ERROR_PATHS);
    expect(text.endsWith(`\n${moreErrorsLine(0, 1_000_000 - MAX_HELD_ERROR_PATHS)}`)).toBe(true);
  });

  it("envFrom's re-prefixing quirk: exact for a few entries, cut to MAX_RENDERED_ERROR_PATH_CHARS for thousands", () => {
    const both = { configMapRef: {}, secretRef: {} };
    // Exact (as Knative): every later entry re-prefixes the errors held so far.
    expect(validate({ ...base, envFrom: [both, both] })).toBe(
      "expected exactly one, got both: c.envFrom.configMapRef, c.envFrom.configMapRef[1].secretRef[1].configMapRef, " +
        "c.envFrom.configMapRef[1].secretRef[1].secretRef, c.envFrom.secretRef",
    );
    const text = validate({ ...base, envFrom: Array.from({ length: 3000 }, () => both) });
    expect(text.length).toBeLessThan(MAX_RENDERED_ERROR_PATH_CHARS + 64 * 1024);
    expect(text).toMatch(/\ntoo many errors: (\d+ more not shown, )?\d+ more list entries not checked$/);
  });
});
