/**
 * The control-plane suite's scenarios, as a user with kubectl and a client following Knative's client conventions
 * (kn: `client.knative.dev/user-image`, client-chosen revision names) drive a cluster. Each step runs the same way
 * against both clusters; what kubectl printed is compared, then the controller is left to settle and the
 * namespace's Knative objects are compared.
 */
import type { RunResult } from "../e2e/harness.js";

/** One cluster as a scenario sees it. */
export interface Driver {
  /** The Knative release the cluster runs (`1.24`). */
  readonly release: string;
  /** kubectl as the cluster's admin; never throws (the result is compared). */
  kubectl(args: readonly string[], input?: string): Promise<RunResult>;
  /** Sets keys of a ConfigMap in knative-serving (null removes a key) and waits until the webhook sees it. */
  setConfig(name: string, data: Record<string, string | null>): Promise<RunResult>;
}

export interface Step {
  readonly name: string;
  run(d: Driver, ns: string): Promise<RunResult>;
}

export interface Scenario {
  readonly name: string;
  readonly steps: readonly Step[];
}

/** An image with a digest: the revision reconciler (pkg/reconciler/revision/resolve.go) keeps it as it is, no registry is asked. */
export function image(n: number): string {
  return `registry.example.com/knative/helloworld@sha256:${String(n).repeat(64).slice(0, 64)}`;
}

function apply(manifest: object): Step["run"] {
  return (d, ns) => d.kubectl(["apply", "-n", ns, "-f", "-"], JSON.stringify(manifest));
}

/** Two commands' results as one: the first failure's exit status, both outputs. */
function both(a: RunResult, b: RunResult): RunResult {
  return { code: a.code !== 0 ? a.code : b.code, stdout: a.stdout + b.stdout, stderr: a.stderr + b.stderr };
}

function step(name: string, run: Step["run"]): Step {
  return { name, run };
}

interface ServiceOptions {
  readonly image?: string;
  readonly env?: Record<string, string>;
  readonly revisionName?: string;
  readonly annotations?: Record<string, string>;
  readonly templateAnnotations?: Record<string, string>;
  readonly traffic?: readonly object[];
  readonly podSpec?: Record<string, unknown>;
}

function template(o: ServiceOptions): object {
  const metadata: Record<string, unknown> = {};
  if (o.revisionName !== undefined) metadata.name = o.revisionName;
  if (o.templateAnnotations !== undefined) metadata.annotations = o.templateAnnotations;
  return {
    metadata,
    spec: {
      ...o.podSpec,
      containers: [{ image: o.image ?? image(1), env: Object.entries(o.env ?? { TARGET: "one" }).map(([name, value]) => ({ name, value })) }],
    },
  };
}

function service(name: string, o: ServiceOptions = {}): object {
  return {
    apiVersion: "serving.knative.dev/v1",
    kind: "Service",
    metadata: { name, ...(o.annotations === undefined ? {} : { annotations: o.annotations }) },
    spec: { template: template(o), ...(o.traffic === undefined ? {} : { traffic: o.traffic }) },
  };
}

function configuration(name: string, o: ServiceOptions = {}): object {
  return { apiVersion: "serving.knative.dev/v1", kind: "Configuration", metadata: { name }, spec: { template: template(o) } };
}

function route(name: string, traffic: readonly object[]): object {
  return { apiVersion: "serving.knative.dev/v1", kind: "Route", metadata: { name }, spec: { traffic } };
}

const AFFINITY = {
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["eu-west-1a"] }] }] },
    },
  },
};

const CRD_SELECTOR = "knative.dev/crd-install=true";

export const SCENARIOS: readonly Scenario[] = [
  { name: "create a Service", steps: [step("create", apply(service("hello")))] },
  {
    name: "update a Service's image and env",
    steps: [
      step("create", apply(service("hello"))),
      step("new image", apply(service("hello", { image: image(2) }))),
      step("new env", apply(service("hello", { image: image(2), env: { TARGET: "two", EXTRA: "x" } }))),
    ],
  },
  {
    name: "a client-chosen revision name (BYO), then another",
    steps: [
      step("create hello-v1", apply(service("hello", { revisionName: "hello-v1" }))),
      step("change to hello-v2 with a new image", apply(service("hello", { revisionName: "hello-v2", image: image(2) }))),
    ],
  },
  {
    name: "a BYO revision name reused with a changed template",
    steps: [
      step("create hello-v1", apply(service("hello", { revisionName: "hello-v1" }))),
      step("same name, new env (denied)", apply(service("hello", { revisionName: "hello-v1", env: { TARGET: "changed" } }))),
      // kubectl apply replaces the containers list (CRDs have no merge keys), dropping what Knative defaulted into the
      // stored template (the container's name, its readiness probe): an apply of the same manifest is such a change
      // and is denied as well. A client changing the Service's metadata alone writes only that.
      step("same name, same template, applied again (denied: the defaults are gone)", apply(service("hello", { revisionName: "hello-v1" }))),
      step("a Service annotation", (d, ns) => d.kubectl(["annotate", "service.serving.knative.dev", "hello", "-n", ns, "example.com/owner=team-a"])),
    ],
  },
  {
    name: "client.knative.dev/user-image with a digest (kn's flow)",
    steps: [
      step("create", apply(service("hello", { image: image(3), templateAnnotations: { "client.knative.dev/user-image": "registry.example.com/knative/helloworld:latest" } }))),
      step("update to a new digest of the same tag", apply(service("hello", { image: image(4), templateAnnotations: { "client.knative.dev/user-image": "registry.example.com/knative/helloworld:latest" } }))),
    ],
  },
  {
    name: "traffic split between named revisions",
    steps: [
      step("hello-v1", apply(service("hello", { revisionName: "hello-v1" }))),
      step("hello-v2", apply(service("hello", { revisionName: "hello-v2", image: image(2) }))),
      // The traffic alone, as `kn service update --traffic` changes it: the stored template keeps its name and defaults.
      step("50/50", (d, ns) =>
        d.kubectl([
          "patch", "service.serving.knative.dev", "hello", "-n", ns, "--type=merge",
          "-p", JSON.stringify({ spec: { traffic: [{ revisionName: "hello-v1", percent: 50 }, { revisionName: "hello-v2", percent: 50 }] } }),
        ]),
      ),
      step("hello-v2 tagged, 90/10", (d, ns) =>
        d.kubectl([
          "patch", "service.serving.knative.dev", "hello", "-n", ns, "--type=merge",
          "-p", JSON.stringify({ spec: { traffic: [{ revisionName: "hello-v1", percent: 90 }, { revisionName: "hello-v2", percent: 10, tag: "candidate" }] } }),
        ]),
      ),
    ],
  },
  {
    name: "traffic tags and latestRevision: false",
    steps: [
      step("first revision", apply(service("hello"))),
      step("second revision", apply(service("hello", { image: image(2) }))),
      step(
        "tags",
        apply(
          service("hello", {
            image: image(2),
            traffic: [
              { tag: "current", revisionName: "hello-00001", percent: 100 },
              { tag: "candidate", revisionName: "hello-00002", percent: 0 },
              { tag: "latest", latestRevision: true, percent: 0 },
            ],
          }),
        ),
      ),
      step("pinned (latestRevision: false)", apply(service("hello", { image: image(2), traffic: [{ latestRevision: false, revisionName: "hello-00002", percent: 100 }] }))),
    ],
  },
  {
    name: "a Configuration and a Route created directly",
    steps: [
      step("configuration", apply(configuration("config"))),
      step("route to the configuration", apply(route("route", [{ configurationName: "config", percent: 100 }]))),
      step("configuration update", apply(configuration("config", { image: image(2) }))),
      step(
        "route to revisions",
        apply(
          route("route", [
            { revisionName: "config-00001", percent: 30, tag: "old" },
            { revisionName: "config-00002", percent: 70 },
          ]),
        ),
      ),
    ],
  },
  {
    name: "a DomainMapping",
    steps: [
      step("service", apply(service("hello"))),
      step("cluster domain claim", (d, ns) =>
        d.kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "networking.internal.knative.dev/v1alpha1", kind: "ClusterDomainClaim", metadata: { name: `hello.${ns}.example.org` }, spec: { namespace: ns } })),
      ),
      step("domain mapping", (d, ns) =>
        apply({ apiVersion: "serving.knative.dev/v1beta1", kind: "DomainMapping", metadata: { name: `hello.${ns}.example.org` }, spec: { ref: { apiVersion: "serving.knative.dev/v1", kind: "Service", name: "hello" } } })(d, ns),
      ),
      step("a domain mapping without a claim", apply({ apiVersion: "serving.knative.dev/v1beta1", kind: "DomainMapping", metadata: { name: "unclaimed.example.org" }, spec: { ref: { apiVersion: "serving.knative.dev/v1", kind: "Service", name: "hello" } } })),
    ],
  },
  {
    name: "a feature flag enabled, used, disabled",
    steps: [
      step("affinity while the flag is off (denied)", apply(service("early", { podSpec: AFFINITY }))),
      step("enable kubernetes.podspec-affinity", (d) => d.setConfig("config-features", { "kubernetes.podspec-affinity": "enabled" })),
      step("a Service with affinity", apply(service("hello", { podSpec: AFFINITY }))),
      step("disable kubernetes.podspec-affinity", (d) => d.setConfig("config-features", { "kubernetes.podspec-affinity": null })),
      step("the existing Service's env changes", apply(service("hello", { podSpec: AFFINITY, env: { TARGET: "two" } }))),
      step("a new Service with affinity (denied)", apply(service("late", { podSpec: AFFINITY }))),
    ],
  },
  {
    name: "a config-defaults change",
    steps: [
      step("a Service before", apply(service("before"))),
      step("new defaults", (d) => d.setConfig("config-defaults", { "revision-timeout-seconds": "120", "container-name-template": "{{.Name}}-app", "revision-cpu-request": "150m" })),
      step("a Service after", apply(service("after"))),
      step("the Service before gets a new env", apply(service("before", { env: { TARGET: "two" } }))),
      step("defaults restored", (d) => d.setConfig("config-defaults", { "revision-timeout-seconds": null, "container-name-template": null, "revision-cpu-request": null })),
    ],
  },
  {
    name: "the CRDs' release label changes while objects exist",
    steps: [
      step("service", apply(service("hello"))),
      step("CRDs relabelled to a later patch release", (d) => d.kubectl(["label", "crd", "-l", CRD_SELECTOR, `app.kubernetes.io/version=${d.release}.9`, "--overwrite"])),
      step("update after the relabel", apply(service("hello", { env: { TARGET: "relabelled" } }))),
      step("CRDs labelled back", (d) => d.kubectl(["label", "crd", "-l", CRD_SELECTOR, `app.kubernetes.io/version=${d.release}.0`, "--overwrite"])),
      step("update after labelling back", apply(service("hello", { env: { TARGET: "back" } }))),
    ],
  },
  {
    name: "a Revision's spec is immutable, its labels are not",
    steps: [
      step("service", apply(service("hello"))),
      step("patch the Revision's spec (denied)", (d, ns) => d.kubectl(["patch", "revision", "hello-00001", "-n", ns, "--type=merge", "-p", '{"spec":{"timeoutSeconds":42}}'])),
      step("label the Revision", (d, ns) => d.kubectl(["label", "revision", "hello-00001", "-n", ns, "example.com/checked=yes"])),
    ],
  },
  {
    // Knative validates a Revision's autoscaling annotations against config-autoscaler on every update
    // (pkg/apis/serving/metadata_validation.go: ValidateObjectMetadata), so once the limit is below what a Revision
    // says, the controller's own updates of it are denied: its labeler's, when another Route starts to name it.
    name: "config-autoscaler tightened below an existing Revision: the controller is denied",
    steps: [
      step("a Service with max-scale 10", apply(service("hello", { templateAnnotations: { "autoscaling.knative.dev/max-scale": "10" } }))),
      step("max-scale-limit 5", (d) => d.setConfig("config-autoscaler", { "max-scale-limit": "5", "max-scale": "5" })),
      step("a Route naming the Revision (the labeler's update is denied)", apply(route("other", [{ revisionName: "hello-00001", percent: 100 }]))),
      step("the Service's env changes (denied)", apply(service("hello", { templateAnnotations: { "autoscaling.knative.dev/max-scale": "10" }, env: { TARGET: "two" } }))),
      step("the limit lifted and the Route touched (the labeler runs at once, not after its backoff)", async (d, ns) => {
        const a = await d.setConfig("config-autoscaler", { "max-scale-limit": null, "max-scale": null });
        return both(a, await d.kubectl(["label", "route", "other", "-n", ns, "example.com/touched=yes"]));
      }),
    ],
  },
  {
    name: "deletion",
    steps: [
      step("services", async (d, ns) => both(await apply(service("keep"))(d, ns), await apply(service("gone"))(d, ns))),
      // No kube-controller-manager here: its garbage collector would delete the Service's Configuration and Route.
      step("delete a Service", (d, ns) => d.kubectl(["delete", "service.serving.knative.dev", "gone", "-n", ns, "--wait=false"])),
      step("delete its Route", (d, ns) => d.kubectl(["delete", "route", "gone", "-n", ns, "--wait=false"])),
      step("delete a Revision in use", (d, ns) => d.kubectl(["delete", "revision", "keep-00001", "-n", ns, "--wait=false"])),
    ],
  },
];
