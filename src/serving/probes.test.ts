import { describe, expect, it } from "vitest";
import { renderFieldError, viaField } from "../apis/field-error.js";
import { PROFILES } from "../config/profile.js";
import type { FeaturesConfig } from "../config/types.js";
import { validateSidecarContainer, validateUserContainer } from "./container.js";
import { checkSidecarProbeDisallowed, validateProbe, validateReadinessProbe, type ProbePort } from "./probes.js";
import type { ProbeRules } from "../config/profile.js";

const render = (field: string, err: Parameters<typeof viaField>[0]) => renderFieldError(viaField(err, field));

describe("validateProbe", () => {
  // Rules of the default release (1.24), or of the release a case names.
  const cases: ReadonlyArray<readonly [name: string, probe: Record<string, unknown>, port: ProbePort, want: string, rules?: ProbeRules]> = [
    ["an integer port is never compared", { httpGet: { port: 5000 } }, "http", ""],
    ["the serving port name matches", { httpGet: { port: "http" } }, "http", ""],
    [
      "another port name does not",
      { tcpSocket: { port: "h2c" } },
      "http",
      "invalid value: h2c: p.tcpSocket.port\nProbe port must match container port",
    ],
    ["exec needs no port", { exec: { command: ["true"] } }, "http", ""],
    [
      "no handler",
      { periodSeconds: 3 },
      "http",
      "expected exactly one, got neither: p.exec, p.grpc, p.httpGet, p.tcpSocket",
    ],
    [
      "several handlers are listed in check order, gRPC capitalised",
      { exec: {}, grpc: { port: 1 } },
      "http",
      "expected exactly one, got both: p.exec, p.gRPC",
    ],
    [
      "each later handler re-prefixes earlier errors (Go quirk)",
      { httpGet: { port: "web" }, tcpSocket: { port: 1 } },
      "http",
      "expected exactly one, got both: p.httpGet, p.tcpSocket\ninvalid value: web: p.tcpSocket.httpGet.port\nProbe port must match container port",
    ],
    [
      "terminationGracePeriodSeconds is disallowed [v0.44.2], then re-prefixed by the handler",
      { tcpSocket: {}, terminationGracePeriodSeconds: 10 },
      "http",
      "must not set the field(s): p.tcpSocket.terminationGracePeriodSeconds",
      PROFILES["1.17"].probes,
    ],
    ["a sidecar probe names its port", { httpGet: { port: 9901 } }, undefined, ""],
    [
      "a sidecar probe without port",
      { httpGet: { path: "/" } },
      undefined,
      "invalid value: 0: p.httpGet.port\nProbe port must be specified",
    ],
    [
      "a sidecar probe with an empty port name",
      { tcpSocket: { port: "" } },
      undefined,
      "invalid value: : p.tcpSocket.port\nProbe port must be specified",
    ],
  ];
  for (const [name, probe, port, want, rules] of cases) {
    it(name, () => {
      expect(render("p", validateProbe(probe, port, rules))).toBe(want);
    });
  }

  it("accepts an absent probe", () => {
    expect(validateProbe(undefined, "http")).toBeUndefined();
  });
});

describe("validateReadinessProbe", () => {
  const cases: ReadonlyArray<readonly [name: string, probe: Record<string, unknown>, want: string]> = [
    ["Knative's default probe", { tcpSocket: { port: 0 }, successThreshold: 1 }, ""],
    ["periodic probe with its thresholds", { httpGet: {}, periodSeconds: 5, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 }, ""],
    [
      "aggressive probing forbids failureThreshold and timeoutSeconds",
      { httpGet: {}, successThreshold: 1, failureThreshold: 2, timeoutSeconds: 2 },
      "failureThreshold is disallowed when periodSeconds is zero: r.failureThreshold\n" +
        "timeoutSeconds is disallowed when periodSeconds is zero: r.timeoutSeconds",
    ],
    [
      "a periodic probe needs timeoutSeconds and failureThreshold of at least 1",
      { httpGet: {}, periodSeconds: 5, successThreshold: 1 },
      "expected 1 <= 0 <= 2147483647: r.failureThreshold, r.timeoutSeconds",
    ],
    [
      "negative timings",
      { tcpSocket: {}, periodSeconds: -1, initialDelaySeconds: -5, successThreshold: 0, timeoutSeconds: 1, failureThreshold: 1 },
      "expected 0 <= -1 <= 2147483647: r.periodSeconds\n" +
        "expected 0 <= -5 <= 2147483647: r.initialDelaySeconds\n" +
        "expected 1 <= 0 <= 2147483647: r.successThreshold",
    ],
  ];
  it.each(cases)("%s", (_name, probe, want) => {
    expect(render("r", validateReadinessProbe(probe, "http"))).toBe(want);
  });
});

describe("checkSidecarProbeDisallowed", () => {
  it("names every set field, the handler as the probe itself", () => {
    const err = checkSidecarProbeDisallowed({ tcpSocket: { port: 9901 }, periodSeconds: 10 });
    expect(render("livenessProbe", err)).toBe("must not set the field(s): livenessProbe, livenessProbe.periodSeconds");
  });

  it("accepts an absent probe", () => {
    expect(checkSidecarProbeDisallowed(undefined)).toBeUndefined();
  });
});

describe("probes across releases (ProbeRules)", () => {
  const r117 = PROFILES["1.17"].probes;
  const r124 = PROFILES["1.24"].probes;
  it("terminationGracePeriodSeconds: disallowed by 1.17's ProbeMask, copied from v0.48.0", () => {
    const probe = { tcpSocket: {}, terminationGracePeriodSeconds: 10 };
    // (The handler re-prefixes what was found before it: Go's quirk, validateProbe's comment.)
    expect(render("livenessProbe", validateProbe(probe, "http", r117))).toBe("must not set the field(s): livenessProbe.tcpSocket.terminationGracePeriodSeconds");
    expect(render("livenessProbe", validateProbe(probe, "http", r124))).toBe("");
  });
});

describe("startup probes (v0.50.0)", () => {
  const container = { name: "app", image: "busybox", startupProbe: { httpGet: { port: "h2c" }, tcpSocket: {} } };
  const features = { multiContainerProbing: "Disabled", podSpecFieldRef: "Disabled", podSpecSecurityContext: "Disabled", secureDefaults: "Disabled", containerSpecAddCapabilities: "Disabled" } as unknown as FeaturesConfig;
  it("1.17 does not look at them", () => {
    expect(renderFieldError(validateUserContainer(container, new Map(), "http", features, PROFILES["1.17"]))).toBe("");
  });
  it("1.24 validates the serving container's like its liveness probe", () => {
    expect(renderFieldError(validateUserContainer(container, new Map(), "http", features, PROFILES["1.24"]))).toBe(
      "expected exactly one, got both: startupProbe.httpGet, startupProbe.tcpSocket\ninvalid value: h2c: startupProbe.tcpSocket.httpGet.port\nProbe port must match container port",
    );
  });
  it("1.24 disallows a sidecar's unless multi-container-probing is Enabled", () => {
    expect(renderFieldError(validateSidecarContainer({ name: "side", image: "busybox", startupProbe: { periodSeconds: 3 } }, new Map(), features, PROFILES["1.24"]))).toBe(
      "must not set the field(s): startupProbe.periodSeconds",
    );
  });
});
