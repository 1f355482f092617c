import { describe, expect, it } from "vitest";
import { PROFILES } from "../config/profile.js";
import { snapshotFrom } from "../config/snapshot.js";
import type { RequestContext } from "./context.js";
import type { KObject } from "./kobject.js";
import { buildDryRunPod, dryRunMode, validateConfigurationDryRun, validateServiceDryRun } from "./podspec-dryrun.js";

type DryRunResult = Awaited<ReturnType<NonNullable<RequestContext["podDryRun"]>>>;

interface Recorder {
  readonly calls: Array<{ pod: KObject; namespace: string }>;
  readonly podDryRun: NonNullable<RequestContext["podDryRun"]>;
}

function recorder(result: DryRunResult = { ok: true }): Recorder {
  const calls: Array<{ pod: KObject; namespace: string }> = [];
  return {
    calls,
    podDryRun: async (pod, namespace) => {
      calls.push({ pod, namespace });
      return result;
    },
  };
}

function context(flag: string, podDryRun: RequestContext["podDryRun"], extra: Partial<RequestContext> = {}): RequestContext {
  return {
    operation: "CREATE",
    subResource: "",
    oldObject: undefined,
    userInfo: undefined,
    dryRun: false,
    // The flag and its annotation are Knative 1.17's (serving v0.47.0 removed them).
    config: snapshotFrom({ "config-features": { "kubernetes.podspec-dryrun": flag } }, "test", PROFILES["1.17"]),
    podDryRun,
    ...extra,
  };
}

function service(annotation?: string, template: KObject = { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go" }] } }): KObject {
  const annotations = annotation === undefined ? undefined : { "features.knative.dev/podspec-dryrun": annotation };
  return { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "hello", namespace: "team-a", annotations }, spec: { template } };
}

describe("dryRunMode (serving v0.44.2 pkg/webhook/validate_unstructured.go)", () => {
  it.each([
    { flag: "disabled", annotation: undefined, want: undefined },
    { flag: "disabled", annotation: "enabled", want: undefined },
    { flag: "disabled", annotation: "strict", want: undefined },
    { flag: "allowed", annotation: undefined, want: undefined },
    { flag: "allowed", annotation: "enabled", want: "enabled" },
    { flag: "allowed", annotation: "strict", want: "strict" },
    { flag: "allowed", annotation: "Enabled", want: undefined },
    { flag: "allowed", annotation: "disabled", want: undefined },
    { flag: "enabled", annotation: undefined, want: "enabled" },
    { flag: "enabled", annotation: "disabled", want: "enabled" },
    { flag: "enabled", annotation: "strict", want: "strict" },
  ])("flag $flag with annotation $annotation runs $want", ({ flag, annotation, want }) => {
    expect(dryRunMode(service(annotation), context(flag, undefined))).toBe(want);
  });
});

describe("the dry-run callback, as Knative 1.17 runs it", () => {
  it("creates the derived pod in the object's namespace when the mode applies", async () => {
    const rec = recorder();
    expect(await validateServiceDryRun(service("enabled"), context("allowed", rec.podDryRun))).toBeUndefined();
    expect(rec.calls).toHaveLength(1);
    expect(rec.calls[0]?.namespace).toBe("team-a");
    expect(rec.calls[0]?.pod).toMatchObject({ apiVersion: "v1", kind: "Pod", metadata: { generateName: "dry-run-validation", namespace: "team-a" } });
  });

  it("does not call the API when the mode does not apply", async () => {
    const rec = recorder();
    expect(await validateServiceDryRun(service(), context("allowed", rec.podDryRun))).toBeUndefined();
    expect(await validateServiceDryRun(service("strict"), context("disabled", rec.podDryRun))).toBeUndefined();
    expect(rec.calls).toHaveLength(0);
  });

  it("takes the call to succeed when no client is configured (standalone)", async () => {
    expect(await validateServiceDryRun(service("strict"), context("enabled", undefined))).toBeUndefined();
  });

  it("skips a Configuration owned by a Service and checks a standalone one", async () => {
    const rec = recorder();
    const owned = { ...service(), kind: "Configuration", metadata: { name: "hello", namespace: "team-a", labels: { "serving.knative.dev/service": "hello" } } };
    const standalone = { ...service(), kind: "Configuration", metadata: { name: "hello", namespace: "team-a", labels: { "serving.knative.dev/service": "" } } };
    expect(await validateConfigurationDryRun(owned, context("enabled", rec.podDryRun))).toBeUndefined();
    expect(rec.calls).toHaveLength(0);
    expect(await validateConfigurationDryRun(standalone, context("enabled", rec.podDryRun))).toBeUndefined();
    expect(rec.calls).toHaveLength(1);
  });

  it.each([
    { mode: "enabled", error: 'pods "dry-run-validationx" is forbidden: exceeded quota: q', want: 'dry run failed with pods "dry-run-validationx" is forbidden: exceeded quota: q: spec.template' },
    { mode: "strict", error: "admission webhook \"x\" does not support dry run", want: 'dry run failed with admission webhook "x" does not support dry run: spec.template' },
    { mode: "enabled", error: "admission webhook \"x\" does not support dry run", want: undefined },
  ])("answers the API error $error in mode $mode with Knative's message", async ({ mode, error, want }) => {
    const rec = recorder({ ok: false, error });
    expect(await validateServiceDryRun(service(mode), context("allowed", rec.podDryRun))).toBe(want);
  });

  it("reports a template that is not an object", async () => {
    const rec = recorder();
    const svc = service("enabled");
    (svc.spec as KObject).template = null;
    expect(await validateServiceDryRun(svc, context("allowed", rec.podDryRun))).toBe("value could not be interpreted as a map");
  });

  it("does not dry-run an update that leaves the template unchanged", async () => {
    const rec = recorder();
    const old = service("enabled");
    const same = service("enabled");
    (same.metadata as KObject).labels = { changed: "yes" };
    expect(await validateServiceDryRun(same, context("allowed", rec.podDryRun, { operation: "UPDATE", oldObject: old }))).toBeUndefined();
    expect(rec.calls).toHaveLength(0);
    const changed = service("enabled", { spec: { containers: [{ image: "ghcr.io/knative/other" }] } });
    expect(await validateServiceDryRun(changed, context("allowed", rec.podDryRun, { operation: "UPDATE", oldObject: old }))).toBeUndefined();
    expect(rec.calls).toHaveLength(1);
  });

  it("defaults the revision on CREATE (names, timeout) and leaves the object alone", async () => {
    const rec = recorder();
    const svc = service("enabled");
    const before = structuredClone(svc);
    await validateServiceDryRun(svc, context("allowed", rec.podDryRun));
    expect(svc).toEqual(before);
    const spec = rec.calls[0]?.pod.spec as KObject;
    expect(spec.terminationGracePeriodSeconds).toBe(300);
    expect((spec.containers as KObject[])[0]?.name).toBe("user-container");
  });
});

describe("buildDryRunPod (serving pkg/webhook/podspec_dryrun.go: resources.BuildPodSpec)", () => {
  it("turns the only container into the serving container", () => {
    const spec = {
      containerConcurrency: 0,
      timeoutSeconds: 120,
      idleTimeoutSeconds: 10,
      responseStartTimeoutSeconds: 20,
      serviceAccountName: "sa",
      enableServiceLinks: false,
      containers: [
        {
          name: "user-container",
          image: "img",
          env: [{ name: "A", value: "1" }],
          ports: [{ containerPort: 9000, name: "h2c" }],
          stdin: true,
          tty: true,
          readinessProbe: { successThreshold: 1, tcpSocket: { port: 0 } },
          livenessProbe: { httpGet: { path: "/healthz", port: 0 } },
          resources: {},
        },
      ],
    };
    const input = structuredClone(spec);
    const pod = buildDryRunPod(spec, "ns");
    expect(spec).toEqual(input);
    expect(pod).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { generateName: "dry-run-validation", namespace: "ns" },
      spec: {
        serviceAccountName: "sa",
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 120,
        containers: [
          {
            name: "user-container",
            image: "img",
            env: [{ name: "A", value: "1" }, { name: "PORT", value: "9000" }, { name: "K_REVISION" }, { name: "K_CONFIGURATION" }, { name: "K_SERVICE" }],
            ports: [{ name: "user-port", containerPort: 9000 }],
            lifecycle: { preStop: { httpGet: { path: "/wait-for-drain", port: 8022 } } },
            terminationMessagePolicy: "FallbackToLogsOnError",
            livenessProbe: { httpGet: { path: "/healthz", port: 9000, httpHeaders: [{ name: "K-Kubelet-Probe", value: "queue" }] } },
            resources: {},
          },
        ],
      },
    });
  });

  it("serves from the container with ports and keeps sidecars' own settings", () => {
    const pod = buildDryRunPod(
      {
        timeoutSeconds: 300,
        containers: [
          { name: "sidecar", image: "s", terminationMessagePolicy: "File", readinessProbe: { exec: { command: ["true"] } }, livenessProbe: { tcpSocket: { port: 7000 } } },
          { name: "app", image: "a", ports: [{ containerPort: 0 }], livenessProbe: { tcpSocket: { port: 0 } }, readinessProbe: { grpc: { port: 0 } } },
        ],
      },
      "ns",
    );
    const [sidecar, app] = (pod.spec as KObject).containers as KObject[];
    expect(sidecar).toEqual({
      name: "sidecar",
      image: "s",
      env: [{ name: "K_REVISION" }, { name: "K_CONFIGURATION" }, { name: "K_SERVICE" }],
      lifecycle: { preStop: { httpGet: { path: "/wait-for-drain", port: 8022 } } },
      terminationMessagePolicy: "File",
      readinessProbe: { exec: { command: ["true"] } },
      livenessProbe: { tcpSocket: { port: 7000 } },
    });
    // containerPort 0 means the default user port.
    expect(app).toMatchObject({ ports: [{ name: "user-port", containerPort: 8080 }], livenessProbe: { tcpSocket: { port: 8080 } } });
    expect(app).not.toHaveProperty("readinessProbe");
  });

  it("leaves terminationGracePeriodSeconds unset without a timeout", () => {
    expect(buildDryRunPod({ containers: [{ image: "x" }] }, "ns").spec).not.toHaveProperty("terminationGracePeriodSeconds");
  });
});
