/**
 * `--knative-version auto` (src/kube/knative-release.ts): the release is read from the Service CRD's
 * `app.kubernetes.io/version` label, else the system Namespace's, else 1.24; `duckbill serve` answers as that
 * release and follows the CRD's label when Knative is upgraded.
 */
import { describe, expect, it } from "vitest";
import { profileForRelease } from "../../src/config/profile.js";
import { createKubeApi } from "../../src/kube/json-api.js";
import { detectKnativeRelease } from "../../src/kube/knative-release.js";
import { capturedLogger, eventually } from "../config/store-harness.js";
import { CLUSTER_NS as NS, useClusterServe } from "../support/cluster-serve.js";
import { BUILTIN_RESOURCES, CUSTOM_RESOURCE_DEFINITIONS as CRDS, FakeApiServer, NAMESPACES, type KubeObject } from "../support/fake-apiserver.js";
import { configMapReview, httpsCall } from "../support/webhook.js";

function crd(labels: Record<string, string>): KubeObject {
  return { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "services.serving.knative.dev", labels: { "app.kubernetes.io/name": "knative-serving", ...labels } } };
}

function namespace(labels: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels } };
}

describe("profileForRelease", () => {
  it("takes the release's own profile from the label forms Knative's manifests use", () => {
    for (const [label, version] of [
      ["1.17.0", "1.17"],
      ["v1.23.2", "1.23"],
      ["1.24", "1.24"],
      ["1.24.1-rc.1", "1.24"],
    ] as const) {
      expect(profileForRelease(label), label).toMatchObject({ exact: true, profile: { version } });
    }
  });

  it("answers a release without a profile as the nearest one, the newer of two equally near", () => {
    expect(profileForRelease("1.18.3")).toMatchObject({ exact: false, release: "1.18.3", profile: { version: "1.17" } });
    expect(profileForRelease("1.20.0")).toMatchObject({ exact: false, profile: { version: "1.23" } });
    expect(profileForRelease("1.22.1")).toMatchObject({ exact: false, profile: { version: "1.23" } });
    expect(profileForRelease("1.30.0")).toMatchObject({ exact: false, profile: { version: "1.24" } });
    expect(profileForRelease("1.10.0")).toMatchObject({ exact: false, profile: { version: "1.17" } });
  });

  it("finds no release in a label that is not Knative 1.x", () => {
    for (const label of ["devel", "", "2.0.0", "1", "v1.x", "1.23.0.0"]) expect(profileForRelease(label), label).toBeUndefined();
  });
});

describe("detectKnativeRelease", () => {
  async function detect(setup: (fake: FakeApiServer) => void, resources = [...BUILTIN_RESOURCES, CRDS]): Promise<Awaited<ReturnType<typeof detectKnativeRelease>>> {
    const fake = await FakeApiServer.start({ resources });
    try {
      setup(fake);
      const api = createKubeApi(fake.kubeConfig());
      try {
        return await detectKnativeRelease(api, NS);
      } finally {
        api.close();
      }
    } finally {
      await fake.close();
    }
  }

  it("reads the Service CRD's label first", async () => {
    const d = await detect((fake) => {
      fake.create(CRDS, crd({ "app.kubernetes.io/version": "1.23.2" }));
      fake.create(NAMESPACES, namespace({ "app.kubernetes.io/version": "1.17.0" }));
    });
    expect(d).toMatchObject({ source: "crd", release: "1.23.2", exact: true, profile: { version: "1.23" }, passedOver: [] });
  });

  it("falls back to the Namespace's label, saying why the CRD did not answer", async () => {
    const d = await detect((fake) => {
      fake.create(CRDS, crd({}));
      fake.create(NAMESPACES, namespace({ "app.kubernetes.io/version": "1.17.0" }));
    });
    expect(d).toMatchObject({ source: "namespace", release: "1.17.0", profile: { version: "1.17" } });
    expect(d.passedOver).toEqual(["CustomResourceDefinition services.serving.knative.dev has no app.kubernetes.io/version label"]);
  });

  it("answers as 1.24 when neither says, naming every reason", async () => {
    const d = await detect((fake) => fake.create(NAMESPACES, namespace({ "app.kubernetes.io/version": "devel" })));
    expect(d).toMatchObject({ source: "default", profile: { version: "1.24" } });
    expect(d.passedOver).toEqual(["CustomResourceDefinition services.serving.knative.dev not found", 'Namespace knative-serving\'s app.kubernetes.io/version label "devel" is not a Knative 1.x release']);
  });

  it("passes over a CRD it may not read (403) to the Namespace", async () => {
    const d = await detect((fake) => {
      fake.create(CRDS, crd({ "app.kubernetes.io/version": "1.23.0" }));
      fake.create(NAMESPACES, namespace({ "app.kubernetes.io/version": "1.24.0" }));
      fake.failNext(1, 403, { plural: "customresourcedefinitions" });
    });
    expect(d).toMatchObject({ source: "namespace", profile: { version: "1.24" } });
    expect(d.passedOver[0]).toMatch(/^reading CustomResourceDefinition services\.serving\.knative\.dev: .*\(403\)/);
  });
});

describe("duckbill serve --knative-version auto in a cluster", () => {
  const cluster = useClusterServe({ resources: [...BUILTIN_RESOURCES, CRDS] });
  // config-tracing with an unknown backend: Knative 1.17 validates config-tracing and denies it; 1.23 and 1.24 no
  // longer validate it (conformance vectors config_validation/tracing-unknown-backend of both releases).
  const tracingReview = configMapReview({ name: "config-tracing", namespace: NS, operation: "UPDATE", data: { backend: "jaeger" }, oldData: {} });

  async function tracingAllowed(port: number, ca: string): Promise<boolean> {
    const r = await httpsCall(port, ca, { path: "/config-validation", body: tracingReview });
    expect(r.status).toBe(200);
    return (JSON.parse(r.body) as { response: { allowed: boolean } }).response.allowed;
  }

  it("answers as the release the CRDs are labelled with, and follows an upgrade's relabelling", async () => {
    cluster.fake.create(CRDS, crd({ "app.kubernetes.io/version": "1.17.0" }));
    const { logger, lines } = capturedLogger();
    logger.level = "info";
    const running = await cluster.serve(logger, { "disable-ha": "true", "tls-source": "generated", "reconcile-webhooks": "false" });
    expect(lines.find((l) => l.msg === "answering as the Knative release the cluster runs")).toMatchObject({ knativeVersion: "1.17", source: "crd", release: "1.17.0" });
    expect(await tracingAllowed(running.port, running.tls.ca)).toBe(false);

    // An upgrade applies serving-crds.yaml first: the label changes and the webhook answers as 1.23 from then on.
    cluster.fake.apply(CRDS, crd({ "app.kubernetes.io/version": "1.23.1" }));
    await eventually(async () => (await tracingAllowed(running.port, running.tls.ca)) || undefined, "answers as 1.23");
    expect(lines.find((l) => l.msg === "the cluster's Knative release changed (was answering as 1.17)")).toMatchObject({ knativeVersion: "1.23", release: "1.23.1" });

    // A label that names no release keeps the profile in effect.
    cluster.fake.apply(CRDS, crd({ "app.kubernetes.io/version": "devel" }));
    await eventually(() => lines.some((l) => l.msg === "the Knative release label is gone; still answering as Knative 1.23") || undefined, "the warning");
    expect(await tracingAllowed(running.port, running.tls.ca)).toBe(true);
  });

  it("keeps an explicit --knative-version whatever the cluster says", async () => {
    cluster.fake.create(CRDS, crd({ "app.kubernetes.io/version": "1.24.0" }));
    const { logger, lines } = capturedLogger();
    logger.level = "info";
    const running = await cluster.serve(logger, { "disable-ha": "true", "tls-source": "generated", "reconcile-webhooks": "false", "knative-version": "1.17" });
    expect(lines.find((l) => l.msg === "answering as Knative 1.17 (--knative-version)")).toBeDefined();
    expect(await tracingAllowed(running.port, running.tls.ca)).toBe(false);
    expect(cluster.fake.count({ plural: "customresourcedefinitions" })).toBe(0);
  });
});
