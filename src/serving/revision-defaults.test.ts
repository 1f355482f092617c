/**
 * RevisionSpec / ConfigurationSpec defaulting, ported from serving's revision_defaults_test.go and
 * configuration_defaults_test.go at HEAD (expectations adjusted to v0.44.2 where 1.17 differs, e.g.
 * docs/knative-behavior.md#secure-pod-defaults),
 * on Go-marshalled JSON.
 */
import { describe, expect, it } from "vitest";
import type { ConfigSnapshot } from "../config/snapshot.js";
import { PROFILES, type KnativeProfile } from "../config/profile.js";
import { DEFAULT_DEFAULTS } from "../config/defaults.js";
import type { DefaultsConfig, FeaturesConfig } from "../config/types.js";
import type { RequestContext } from "./context.js";
import { defaultConfigurationSpec, defaultRevisionSpec } from "./revision-defaults.js";

type JsonObject = Record<string, unknown>;

const DEFAULTS: DefaultsConfig = DEFAULT_DEFAULTS;

const FEATURES = { secureDefaults: "Disabled" } as FeaturesConfig;

interface Options {
  readonly defaults?: Partial<DefaultsConfig>;
  readonly secureDefaults?: FeaturesConfig["secureDefaults"];
  readonly operation?: RequestContext["operation"];
  readonly profile?: KnativeProfile;
}

function context(o: Options = {}): RequestContext {
  // As in config-defaults, the response-start timeout defaults to the revision timeout.
  const timeout = o.defaults?.revisionTimeoutSeconds ?? DEFAULTS.revisionTimeoutSeconds;
  const admission = {
    defaults: { ...DEFAULTS, revisionResponseStartTimeoutSeconds: timeout, ...o.defaults },
    features: { ...FEATURES, secureDefaults: o.secureDefaults ?? "Disabled" },
  };
  return {
    operation: o.operation ?? "CREATE",
    subResource: "",
    oldObject: undefined,
    userInfo: undefined,
    dryRun: false,
    config: { data: new Map(), source: "test", admission, profile: o.profile ?? PROFILES["1.17"] } as unknown as ConfigSnapshot,
  };
}

function defaulted(spec: JsonObject, o: Options = {}, parentMeta?: JsonObject): JsonObject {
  defaultRevisionSpec(spec, context(o), parentMeta);
  return spec;
}

const PROBE = { tcpSocket: { port: 0 }, successThreshold: 1 };

describe("defaultRevisionSpec: timeouts and concurrency", () => {
  it.each<[string, JsonObject, Options, JsonObject]>([
    ["an empty spec gets timeout and concurrency only", {}, {}, { timeoutSeconds: 300, containerConcurrency: 0 }],
    ["a zero timeout is replaced", { timeoutSeconds: 0 }, { defaults: { revisionTimeoutSeconds: 456 } }, { timeoutSeconds: 456, containerConcurrency: 0 }],
    ["user values are kept", { timeoutSeconds: 99, containerConcurrency: 1 }, {}, { timeoutSeconds: 99, containerConcurrency: 1 }],
    [
      "configured container concurrency is used",
      {},
      { defaults: { containerConcurrency: 10 } },
      { timeoutSeconds: 300, containerConcurrency: 10 },
    ],
    [
      "idle and response-start timeouts below the timeout are set",
      {},
      { defaults: { revisionIdleTimeoutSeconds: 30, revisionResponseStartTimeoutSeconds: 60 } },
      { timeoutSeconds: 300, containerConcurrency: 0, idleTimeoutSeconds: 30, responseStartTimeoutSeconds: 60 },
    ],
    [
      "a response-start timeout equal to the timeout is not set",
      {},
      { defaults: { revisionResponseStartTimeoutSeconds: 300 } },
      { timeoutSeconds: 300, containerConcurrency: 0 },
    ],
    [
      "idle and response-start defaults compare with the user's timeout",
      { timeoutSeconds: 45 },
      { defaults: { revisionIdleTimeoutSeconds: 30, revisionResponseStartTimeoutSeconds: 60 } },
      { timeoutSeconds: 45, containerConcurrency: 0, idleTimeoutSeconds: 30 },
    ],
    [
      "user idle and response-start values, zero included, are kept",
      { idleTimeoutSeconds: 0, responseStartTimeoutSeconds: 0 },
      { defaults: { revisionIdleTimeoutSeconds: 30, revisionResponseStartTimeoutSeconds: 60 } },
      { timeoutSeconds: 300, containerConcurrency: 0, idleTimeoutSeconds: 0, responseStartTimeoutSeconds: 0 },
    ],
  ])("%s", (_name, spec, options, want) => {
    expect(defaulted(spec, options)).toEqual(want);
  });
});

describe("defaultRevisionSpec: containers", () => {
  it("names the single container, adds the readiness probe, and sets enableServiceLinks on create", () => {
    expect(defaulted({ containers: [{ image: "foo" }] }, { defaults: { revisionTimeoutSeconds: 423 } })).toEqual({
      timeoutSeconds: 423,
      containerConcurrency: 0,
      enableServiceLinks: false,
      containers: [{ image: "foo", name: "user-container", readinessProbe: PROBE }],
    });
  });

  it.each<[string, Options, JsonObject, unknown]>([
    ["create takes the configured value", { operation: "CREATE", defaults: { enableServiceLinks: true } }, {}, true],
    ["update leaves it unset", { operation: "UPDATE" }, {}, undefined],
    ["the baseline pass leaves it unset", { operation: "" }, {}, undefined],
    ["an unset tri-state leaves it unset", { defaults: { enableServiceLinks: undefined } }, {}, undefined],
    ["a user value wins", { defaults: { enableServiceLinks: true } }, { enableServiceLinks: false }, false],
  ])("enableServiceLinks: %s", (_name, options, extra, want) => {
    expect(defaulted({ ...extra, containers: [{}] }, options)["enableServiceLinks"]).toBe(want);
  });

  it("does not set enableServiceLinks without containers", () => {
    expect(defaulted({ containers: [] })).not.toHaveProperty("enableServiceLinks");
  });

  it("keeps a probe handler and fills successThreshold", () => {
    const spec = defaulted({ containers: [{ name: "foo", readinessProbe: { tcpSocket: { host: "127.0.0.2", port: 0 } } }] });
    expect((spec["containers"] as JsonObject[])[0]).toEqual({
      name: "foo",
      readinessProbe: { tcpSocket: { host: "127.0.0.2", port: 0 }, successThreshold: 1 },
    });
  });

  it.each(["exec", "httpGet", "grpc"])("keeps a %s handler without adding tcpSocket", (handler) => {
    const spec = defaulted({ containers: [{ readinessProbe: { [handler]: {} } }] });
    const probe = (spec["containers"] as JsonObject[])[0]?.["readinessProbe"] as JsonObject;
    expect(probe["tcpSocket"]).toBeUndefined();
    expect(probe["successThreshold"]).toBe(1);
  });

  it.each<[string, JsonObject, JsonObject]>([
    ["Kubernetes thresholds once a period is set", { periodSeconds: 10 }, { periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 1, successThreshold: 1, tcpSocket: { port: 0 } }],
    [
      "user thresholds are kept",
      { periodSeconds: 10, failureThreshold: 5, timeoutSeconds: 2, successThreshold: 1 },
      { periodSeconds: 10, failureThreshold: 5, timeoutSeconds: 2, successThreshold: 1, tcpSocket: { port: 0 } },
    ],
    ["no thresholds without a period", { initialDelaySeconds: 5 }, { initialDelaySeconds: 5, successThreshold: 1, tcpSocket: { port: 0 } }],
  ])("readiness probe: %s", (_name, probe, want) => {
    const spec = defaulted({ containers: [{ readinessProbe: probe }] });
    expect((spec["containers"] as JsonObject[])[0]?.["readinessProbe"]).toEqual(want);
  });

  it("defaults grpc.service on readiness, liveness and startup probes", () => {
    const spec = defaulted({
      containers: [{ readinessProbe: { grpc: { port: 8080 } }, livenessProbe: { grpc: { port: 8080 } }, startupProbe: { grpc: { port: 8080, service: "x" } } }],
    });
    const c = (spec["containers"] as JsonObject[])[0] as JsonObject;
    expect(c["readinessProbe"]).toEqual({ grpc: { port: 8080, service: "" }, successThreshold: 1 });
    expect(c["livenessProbe"]).toEqual({ grpc: { port: 8080, service: "" } });
    expect(c["startupProbe"]).toEqual({ grpc: { port: 8080, service: "x" } });
  });

  it("with several containers, probes only the one that declares a port", () => {
    const spec = defaulted({ containers: [{ name: "busybox", ports: [{ containerPort: 8888 }] }, { name: "helloworld" }] });
    expect(spec["containers"]).toEqual([
      { name: "busybox", ports: [{ containerPort: 8888 }], readinessProbe: PROBE },
      { name: "helloworld" },
    ]);
  });

  it("still applies thresholds to a sidecar's own readiness probe", () => {
    const spec = defaulted({ containers: [{ ports: [{ containerPort: 8080 }] }, { readinessProbe: { httpGet: { port: 9000 } } }] });
    expect((spec["containers"] as JsonObject[])[1]?.["readinessProbe"]).toEqual({ httpGet: { port: 9000 }, successThreshold: 1 });
  });

  it("names containers, avoiding names taken across regular and init containers", () => {
    const spec = defaulted({
      containers: [{ name: "init-container-0", ports: [{ containerPort: 8888 }] }, { name: "init-container-1" }],
      initContainers: [{ name: "init1" }, { name: "init2" }, { name: "" }, { name: "" }],
    });
    expect((spec["containers"] as JsonObject[]).map((c) => c["name"])).toEqual(["init-container-0", "init-container-1"]);
    expect((spec["initContainers"] as JsonObject[]).map((c) => c["name"])).toEqual(["init1", "init2", "init-container-2", "init-container-3"]);
  });

  it("gives init containers names only (no probes, resources or read-only mounts)", () => {
    const spec = defaulted(
      {
        containers: [{}],
        initContainers: [{ volumeMounts: [{ name: "s", mountPath: "/s" }] }],
        volumes: [{ name: "s", secret: { secretName: "s" } }],
      },
      { defaults: { revisionCpuRequest: "100m" } },
    );
    expect(spec["initContainers"]).toEqual([{ name: "init-container", volumeMounts: [{ name: "s", mountPath: "/s" }] }]);
  });

  it("renders the name template with the parent metadata", () => {
    const spec = defaulted({ containers: [{}] }, { defaults: { userContainerName: (meta) => `${String(meta?.["name"])}-app` } }, { name: "greeter" });
    expect((spec["containers"] as JsonObject[])[0]?.["name"]).toBe("greeter-app");
  });

  it("forces mounts read-only except for emptyDir and persistentVolumeClaim volumes", () => {
    const spec = defaulted({
      containers: [
        {
          volumeMounts: [
            { name: "scratch", mountPath: "/a" },
            { name: "claim", mountPath: "/b" },
            { name: "secret", mountPath: "/c", readOnly: false },
            { name: "unknown", mountPath: "/d" },
          ],
        },
      ],
      volumes: [
        { name: "scratch", emptyDir: {} },
        { name: "claim", persistentVolumeClaim: { claimName: "c" } },
        { name: "secret", secret: { secretName: "s" } },
      ],
    });
    expect((spec["containers"] as JsonObject[])[0]?.["volumeMounts"]).toEqual([
      { name: "scratch", mountPath: "/a" },
      { name: "claim", mountPath: "/b" },
      { name: "secret", mountPath: "/c", readOnly: true },
      { name: "unknown", mountPath: "/d", readOnly: true },
    ]);
  });

  it.each([
    ["1.17", true],
    ["1.23", false],
    ["1.24", false],
  ] as const)("%s: ephemeral mounts are forced read-only: %s; csi and image mounts always are", (version, ephemeralReadOnly) => {
    const spec = defaulted(
      {
        containers: [{ volumeMounts: [{ name: "eph", mountPath: "/a" }, { name: "csi", mountPath: "/b" }, { name: "img", mountPath: "/c" }] }],
        volumes: [
          { name: "eph", ephemeral: { volumeClaimTemplate: { spec: {} } } },
          { name: "csi", csi: { driver: "d" } },
          { name: "img", image: { reference: "r" } },
        ],
      },
      { profile: PROFILES[version] },
    );
    expect((spec["containers"] as JsonObject[])[0]?.["volumeMounts"]).toEqual([
      ephemeralReadOnly ? { name: "eph", mountPath: "/a", readOnly: true } : { name: "eph", mountPath: "/a" },
      { name: "csi", mountPath: "/b", readOnly: true },
      { name: "img", mountPath: "/c", readOnly: true },
    ]);
  });
});

describe("defaultRevisionSpec: resources", () => {
  const configured: Partial<DefaultsConfig> = {
    revisionCpuRequest: "100m",
    revisionMemoryRequest: "200M",
    revisionEphemeralStorageRequest: "300m",
    revisionCpuLimit: "400M",
    revisionMemoryLimit: "500m",
    revisionEphemeralStorageLimit: "600M",
  };

  it("sets every configured request and limit", () => {
    const spec = defaulted({ containers: [{}] }, { defaults: configured });
    expect((spec["containers"] as JsonObject[])[0]?.["resources"]).toEqual({
      requests: { cpu: "100m", memory: "200M", "ephemeral-storage": "300m" },
      limits: { cpu: "400M", memory: "500m", "ephemeral-storage": "600M" },
    });
  });

  it("writes configured quantities as Go marshals them", () => {
    const spec = defaulted({ containers: [{}] }, { defaults: { revisionCpuRequest: "0.1", revisionMemoryLimit: "1073741824" } });
    expect((spec["containers"] as JsonObject[])[0]?.["resources"]).toEqual({ requests: { cpu: "100m" }, limits: { memory: "1073741824" } });
  });

  it("keeps keys the user set, even to zero", () => {
    const spec = defaulted({ containers: [{ resources: { requests: { cpu: "0" }, limits: { memory: "1Gi" } } }] }, { defaults: configured });
    expect((spec["containers"] as JsonObject[])[0]?.["resources"]).toEqual({
      requests: { cpu: "0", memory: "200M", "ephemeral-storage": "300m" },
      limits: { cpu: "400M", memory: "1Gi", "ephemeral-storage": "600M" },
    });
  });

  it("applies to sidecars too", () => {
    const spec = defaulted({ containers: [{ ports: [{ containerPort: 8080 }] }, {}] }, { defaults: { revisionCpuRequest: "100m" } });
    expect((spec["containers"] as JsonObject[])[1]?.["resources"]).toEqual({ requests: { cpu: "100m" } });
  });
});

describe("defaultRevisionSpec: secure pod defaults (v0.44.2)", () => {
  const RESTRICTED = { allowPrivilegeEscalation: false, seccompProfile: { type: "RuntimeDefault" }, capabilities: { drop: ["ALL"] }, runAsNonRoot: true };

  function securityContexts(spec: JsonObject, list = "containers"): unknown[] {
    return (spec[list] as JsonObject[]).map((c) => c["securityContext"]);
  }

  it("restricts every regular and init container when Enabled", () => {
    const spec = defaulted(
      {
        containers: [
          { name: "user-container", ports: [{ containerPort: 80 }] },
          { name: "sidecar", securityContext: {} },
          { name: "special-sidecar", securityContext: { allowPrivilegeEscalation: true, capabilities: { add: ["NET_ADMIN"] } } },
        ],
        initContainers: [
          {
            name: "special-init",
            securityContext: { allowPrivilegeEscalation: true, seccompProfile: { type: "Localhost", localhostProfile: "special" }, capabilities: { add: ["NET_ADMIN"] } },
          },
        ],
      },
      { secureDefaults: "Enabled" },
    );
    expect(securityContexts(spec)).toEqual([
      { ...RESTRICTED, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } },
      RESTRICTED,
      { allowPrivilegeEscalation: true, seccompProfile: { type: "RuntimeDefault" }, capabilities: { add: ["NET_ADMIN"] }, runAsNonRoot: true },
    ]);
    expect(securityContexts(spec, "initContainers")).toEqual([
      { allowPrivilegeEscalation: true, seccompProfile: { type: "Localhost", localhostProfile: "special" }, capabilities: { add: ["NET_ADMIN"] }, runAsNonRoot: true },
    ]);
  });

  it("overwrites a container's explicit runAsNonRoot: false when the pod does not set it", () => {
    const spec = defaulted({ containers: [{ securityContext: { runAsNonRoot: false } }] }, { secureDefaults: "Enabled" });
    expect(securityContexts(spec)[0]).toMatchObject({ runAsNonRoot: true });
  });

  it("defers to the pod's seccomp profile and runAsNonRoot, without changing the pod", () => {
    const pod = { seccompProfile: { type: "Unconfined" }, runAsNonRoot: false };
    const spec = defaulted({ securityContext: pod, containers: [{ ports: [{ containerPort: 8080 }] }], initContainers: [{ securityContext: {} }] }, { secureDefaults: "Enabled" });
    const want = { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } };
    expect(securityContexts(spec)).toEqual([want]);
    expect(securityContexts(spec, "initContainers")).toEqual([want]);
    expect(spec["securityContext"]).toEqual({ seccompProfile: { type: "Unconfined" }, runAsNonRoot: false });
  });

  it("fills an empty seccomp type even when the pod's type is empty", () => {
    const spec = defaulted({ securityContext: { seccompProfile: { type: "" } }, containers: [{ securityContext: { seccompProfile: { type: "" } } }] }, { secureDefaults: "Enabled" });
    expect(securityContexts(spec)[0]).toMatchObject({ seccompProfile: { type: "RuntimeDefault" } });
  });

  it("treats a port without containerPort as a low port", () => {
    const spec = defaulted({ containers: [{ ports: [{ name: "http1" }] }] }, { secureDefaults: "Enabled" });
    expect(securityContexts(spec)[0]).toMatchObject({ capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } });
  });

  it.each(["Allowed", "Disabled"] as const)("changes nothing when %s", (flag) => {
    const spec = defaulted({ containers: [{ ports: [{ containerPort: 80 }] }], initContainers: [{}] }, { secureDefaults: flag });
    expect(securityContexts(spec)).toEqual([undefined]);
    expect(securityContexts(spec, "initContainers")).toEqual([undefined]);
  });
});

describe("defaultConfigurationSpec", () => {
  function configSpec(name?: string): JsonObject {
    return { template: { metadata: name === undefined ? {} : { name }, spec: { containers: [{ image: "x" }] } } };
  }

  function isDefaulted(spec: JsonObject): boolean {
    return ((spec["template"] as JsonObject)["spec"] as JsonObject)["timeoutSeconds"] === 300;
  }

  it.each<[string, string | undefined, JsonObject | undefined, boolean]>([
    ["a create is defaulted", "svc-a", undefined, true],
    ["an update keeping the template name is not defaulted", "svc-a", configSpec("svc-a"), false],
    ["an update renaming the template is defaulted", "svc-b", configSpec("svc-a"), true],
    ["an update without a template name is defaulted", undefined, configSpec(), true],
    ["an update adding a template name is defaulted", "svc-a", configSpec(), true],
  ])("%s", (_name, templateName, previous, want) => {
    const spec = configSpec(templateName);
    defaultConfigurationSpec(spec, context({ operation: previous === undefined ? "CREATE" : "UPDATE" }), { name: "svc" }, previous);
    expect(isDefaulted(spec)).toBe(want);
  });

  it("defaults a template that has no spec yet", () => {
    const spec: JsonObject = {};
    defaultConfigurationSpec(spec, context(), { name: "svc" }, undefined);
    expect(spec).toEqual({ template: { spec: { timeoutSeconds: 300, containerConcurrency: 0 } } });
  });

  it("passes the parent metadata to the name template", () => {
    const spec = configSpec();
    defaultConfigurationSpec(spec, context({ defaults: { userContainerName: (meta) => String(meta?.["name"]) } }), { name: "svc" }, undefined);
    expect((((spec["template"] as JsonObject)["spec"] as JsonObject)["containers"] as JsonObject[])[0]?.["name"]).toBe("svc");
  });
});
