import { describe, expect, it, vi } from "vitest";
import type { CliIO } from "../../src/cli/check/check.js";
import { checkDocuments } from "../../src/cli/check/check.js";
import { runFeatures, withFlagDisabled } from "../../src/cli/features/features-command.js";
import { defaultDeps, main } from "../../src/cli/main.js";
import { DEFAULT_FEATURES, parseFeaturesConfig } from "../../src/config/features.js";
import { defaultSnapshot, snapshotFrom } from "../../src/config/snapshot.js";
import type { FeaturesConfig } from "../../src/config/types.js";
import { PROFILES } from "../../src/config/profile.js";
import { podSpecOf } from "../../src/duck/podspecable.js";
import { FEATURE_GATES, featureGate, featureGatesOf, gatedFieldsUsed, gatesForFieldPath } from "../../src/serving/feature-gates.js";

const FIXTURES = "test/fixtures/check";
const fixture = (name: string): string => `${FIXTURES}/${name}`;

async function features(args: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = { write: (t) => void (stdout += t), error: (t) => void (stderr += t), readStdin: async () => stdin };
  const code = await runFeatures(args, io);
  return { code, stdout, stderr };
}

describe("the feature-gate table", () => {
  it("has exactly one entry per config-features key Knative 1.17 parses, bound to the right field", () => {
    const fields = FEATURE_GATES.map((g) => g.field).sort();
    expect(fields).toEqual((Object.keys(DEFAULT_FEATURES) as Array<keyof FeaturesConfig>).sort());
    for (const g of FEATURE_GATES) {
      // Setting the key to a value other than its default changes exactly the field the table names.
      const other = DEFAULT_FEATURES[g.field] === "Disabled" ? "Enabled" : "Disabled";
      const parsed = parseFeaturesConfig({ [g.key]: other }, PROFILES[g.since === undefined ? "1.17" : "1.24"]);
      expect(parsed[g.field], g.key).toBe(other);
    }
  });

  it("has the flags of later releases only in those releases, and the dry-run flag only in 1.17", () => {
    const laterVolumes = ["kubernetes.podspec-volumes-csi", "kubernetes.podspec-volumes-mount-propagation", "kubernetes.podspec-volumes-image", "kubernetes.podspec-volumes-ephemeral"];
    const only124 = "domainmapping-direct-route-traffic"; // serving v0.51.0
    expect(FEATURE_GATES.filter((g) => g.since !== undefined).map((g) => g.key).sort()).toEqual([...laterVolumes, only124].sort());
    expect(featureGatesOf(PROFILES["1.17"]).filter((g) => g.since !== undefined)).toEqual([]);
    // ... and kubernetes.podspec-dryrun only in 1.17 (v0.47.0 removed it).
    const withoutDryRun = FEATURE_GATES.filter((g) => g.key !== "kubernetes.podspec-dryrun");
    expect(featureGatesOf(PROFILES["1.17"]).map((g) => g.key)).toContain("kubernetes.podspec-dryrun");
    expect(featureGatesOf(PROFILES["1.23"])).toEqual(withoutDryRun.filter((g) => g.key !== only124));
    expect(featureGatesOf(PROFILES["1.24"])).toEqual(withoutDryRun);
    expect(parseFeaturesConfig({ [only124]: "Enabled" }, PROFILES["1.24"]).domainMappingDirectRouteTraffic).toBe("Enabled");
    expect(parseFeaturesConfig({ [only124]: "Enabled" }, PROFILES["1.23"]).domainMappingDirectRouteTraffic).toBe("Disabled");
    expect(featureGate("kubernetes.podspec-volumes-csi", PROFILES["1.17"])).toBeUndefined();
    expect(featureGate("kubernetes.podspec-volumes-csi", PROFILES["1.24"])?.field).toBe("podSpecVolumesCSI");
  });

  it("types flags as Knative's documentation does", () => {
    const features = FEATURE_GATES.filter((g) => g.type === "feature").map((g) => g.key);
    expect(features.sort()).toEqual(["autodetect-http2", "multi-container", "multi-container-probing", "secure-pod-defaults"]);
    expect(FEATURE_GATES.filter((g) => g.key.startsWith("kubernetes.")).every((g) => g.type === "extension")).toBe(true);
  });
});

/** A Service whose pod spec has one extra top-level field. */
function serviceWith(field: string, value: unknown): Record<string, unknown> {
  return {
    apiVersion: "serving.knative.dev/v1",
    kind: "Service",
    metadata: { name: "s" },
    spec: { template: { spec: { [field]: value, containers: [{ image: "ghcr.io/knative/helloworld-go:latest" }] } } },
  };
}

/** Field, sample value, and the paths the webhook names when the field is not allowed (default: the field). */
const POD_FIELD_SAMPLES: ReadonlyArray<readonly [string, unknown, string?]> = [
  ["affinity", { nodeAffinity: {} }],
  ["topologySpreadConstraints", [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" }]],
  ["hostAliases", [{ ip: "10.0.0.1", hostnames: ["a.local"] }]],
  ["nodeSelector", { disk: "ssd" }],
  ["tolerations", [{ key: "k", operator: "Exists" }]],
  ["runtimeClassName", "gvisor"],
  ["priorityClassName", "high"],
  ["schedulerName", "custom"],
  ["dnsPolicy", "ClusterFirst"],
  ["dnsConfig", { nameservers: ["1.1.1.1"] }],
  ["shareProcessNamespace", true],
  ["hostIPC", true],
  ["hostPID", true],
  ["hostNetwork", true],
  // With the flag Disabled the pod securityContext mask allows nothing, so its field is named too (spec §3.5.2).
  ["securityContext", { runAsUser: 1000 }, "spec.template.spec.securityContext, spec.template.spec.securityContext.runAsUser"],
];

describe("gated pod spec fields agree with what the webhook denies", () => {
  it.each(POD_FIELD_SAMPLES.map(([field, value, named]) => ({ field, value, named })))("$field: denied by default, reported by gatedFieldsUsed, allowed once its flag is enabled", async ({ field, value, named }) => {
    const [gate, ...others] = gatesForFieldPath(`spec.template.spec.${field}`);
    expect(others).toEqual([]);
    expect(gate?.check).toBe("mask");
    const doc = { source: "t.yaml", line: 1, object: serviceWith(field, value) };
    const opts = { deps: defaultDeps(), namespace: "default", user: "u" };
    const [denied] = await checkDocuments([doc], { ...opts, config: defaultSnapshot() });
    expect(denied?.outcome).toBe("denied");
    expect(denied?.message).toBe(`validation failed: must not set the field(s): ${named ?? `spec.template.spec.${field}`}`);
    const [allowed] = await checkDocuments([doc], { ...opts, config: snapshotFrom({ "config-features": { [gate!.key]: "enabled" } }, "test") });
    expect(allowed?.outcome).toBe("created");
    const at = podSpecOf("Service", allowed?.defaulted);
    expect(gatedFieldsUsed(at?.spec, at?.prefix)).toEqual([{ key: gate!.key, path: `spec.template.spec.${field}` }]);
  });

  it("finds gated uses inside containers and volumes, with concrete paths", () => {
    const podSpec = {
      containers: [
        {
          image: "a",
          ports: [{ containerPort: 8080 }],
          env: [{ name: "A", value: "x" }, { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
          securityContext: { capabilities: { add: ["NET_ADMIN"] } },
        },
        { image: "b", readinessProbe: { tcpSocket: { port: 9000 } } },
      ],
      initContainers: [{ image: "c", env: [{ name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } }] }],
      volumes: [
        { name: "cache", emptyDir: {} },
        { name: "data", persistentVolumeClaim: { claimName: "d" } },
        { name: "ro", persistentVolumeClaim: { claimName: "r", readOnly: true } },
        { name: "host", hostPath: { path: "/tmp" } },
      ],
      hostNetwork: false,
    };
    expect(gatedFieldsUsed(podSpec, "spec.")).toEqual([
      { key: "multi-container", path: "spec.containers" },
      { key: "multi-container-probing", path: "spec.containers[1].readinessProbe" },
      { key: "kubernetes.podspec-init-containers", path: "spec.initContainers" },
      { key: "kubernetes.podspec-fieldref", path: "spec.containers[0].env[1].valueFrom.fieldRef" },
      { key: "kubernetes.containerspec-addcapabilities", path: "spec.containers[0].securityContext.capabilities.add" },
      { key: "kubernetes.podspec-fieldref", path: "spec.initContainers[0].env[0].valueFrom.resourceFieldRef" },
      { key: "kubernetes.podspec-volumes-emptydir", path: "spec.volumes[0].emptyDir" },
      { key: "kubernetes.podspec-persistent-volume-claim", path: "spec.volumes[1].persistentVolumeClaim" },
      { key: "kubernetes.podspec-persistent-volume-write", path: "spec.volumes[1].persistentVolumeClaim.readOnly" },
      { key: "kubernetes.podspec-persistent-volume-claim", path: "spec.volumes[2].persistentVolumeClaim" },
      { key: "kubernetes.podspec-volumes-hostpath", path: "spec.volumes[3].hostPath" },
    ]);
    expect(gatedFieldsUsed(undefined)).toEqual([]);
    expect(gatedFieldsUsed({ containers: [{ image: "a" }] })).toEqual([]);
  });

  it.each([
    ["spec.template.spec.containers[0].env[3].valueFrom.fieldRef", ["kubernetes.podspec-fieldref"]],
    ["affinity.nodeAffinity", ["kubernetes.podspec-affinity"]],
    ["spec.affinity", ["kubernetes.podspec-affinity"]],
    ["volumes[0].persistentVolumeClaim.readOnly", ["kubernetes.podspec-persistent-volume-claim", "kubernetes.podspec-persistent-volume-write"]],
    ["spec.template.spec.serviceAccountName", []],
  ])("gatesForFieldPath(%s)", (path, keys) => {
    expect(gatesForFieldPath(path).map((g) => g.key)).toEqual(keys);
  });

});

// Without --knative-version (and without a cluster) `features` answers as Knative 1.24.
describe("duckbill features", () => {
  it("lists every flag with state, default, type and what it gates", async () => {
    const r = await features([]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^FLAG +STATE +DEFAULT +TYPE +GATES$/);
    expect(lines).toHaveLength(featureGatesOf(PROFILES["1.24"]).length + 1);
    expect(lines).toContainEqual(expect.stringMatching(/^kubernetes\.podspec-affinity +Disabled +Disabled +extension +node and pod affinity$/));
    expect(lines).toContainEqual(expect.stringMatching(/^multi-container +Enabled +Enabled +feature +more than one container in a pod spec$/));
    expect(r.stderr).toBe("");
  });

  it("shows the state configured in --config-dir and notes what Knative ignores there", async () => {
    const r = await features(["--config-dir", fixture("config-affinity")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubernetes\.podspec-affinity +Enabled +Disabled +extension/m);
    // "sometimes" is not a flag value: Knative keeps the default.
    expect(r.stdout).toMatch(/^multi-container +Enabled +Enabled/m);
    expect(r.stderr).toBe(
      'note: config-features key "kubernetes.podspec-unknown" is not a Knative 1.24 flag; it is ignored\n' +
        'note: config-features "multi-container": "sometimes" is not Enabled, Allowed or Disabled; Knative ignores it and keeps the default\n',
    );
  });

  it("--knative-version 1.24 lists the volume flags 1.17 does not have", async () => {
    const r = await features(["--knative-version", "1.24"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kubernetes\.podspec-volumes-ephemeral +Disabled +Disabled +extension +generic ephemeral volumes$/m);
    const older = await features(["--knative-version", "1.17"]);
    expect(older.code).toBe(0);
    expect(older.stdout.trimEnd().split("\n")).toHaveLength(featureGatesOf(PROFILES["1.17"]).length + 1);
    expect(older.stdout).not.toMatch(/podspec-volumes-ephemeral/);
  });

  it("--knative-version 1.17 names that release in its notes", async () => {
    const r = await features(["--knative-version", "1.17", "--config-dir", fixture("config-affinity")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^note: config-features key "kubernetes\.podspec-unknown" is not a Knative 1\.17 flag; it is ignored\n/);
  });

  it("reports the uses of the volume flags of later releases", () => {
    const podSpec = {
      containers: [{ volumeMounts: [{ name: "c", mountPath: "/c", mountPropagation: "HostToContainer" }] }],
      volumes: [{ name: "c", csi: { driver: "d" } }, { name: "e", ephemeral: {} }, { name: "i", image: { reference: "r" } }],
    };
    expect(gatedFieldsUsed(podSpec, "spec.")).toEqual([
      { key: "kubernetes.podspec-volumes-mount-propagation", path: "spec.containers[0].volumeMounts[0].mountPropagation" },
      { key: "kubernetes.podspec-volumes-csi", path: "spec.volumes[0].csi" },
      { key: "kubernetes.podspec-volumes-ephemeral", path: "spec.volumes[1].ephemeral" },
      { key: "kubernetes.podspec-volumes-image", path: "spec.volumes[2].image" },
    ]);
  });

  it("-o json lists the flags with their gated fields", async () => {
    const r = await features(["-o", "json"]);
    const out = JSON.parse(r.stdout) as { flags: Array<Record<string, unknown>> };
    expect(out.flags).toHaveLength(featureGatesOf(PROFILES["1.24"]).length);
    expect(out.flags.find((f) => f.flag === "kubernetes.podspec-fieldref")).toMatchObject({
      state: "Disabled",
      default: "Disabled",
      type: "extension",
      fields: expect.arrayContaining(["spec.template.spec.containers[*].env[*].valueFrom.fieldRef"]),
    });
  });

  it("explains a flag: what it gates, how the webhook reads it, and how to enable it", async () => {
    const r = await features(["explain", "kubernetes.podspec-affinity"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "kubernetes.podspec-affinity: extension, default Disabled, currently Disabled (defaults)\n" +
        "  Gates node and pod affinity.\n" +
        "  Fields: spec.template.spec.affinity\n" +
        "          (in a Revision: spec.<field>)\n" +
        '  The webhook allows the fields unless the flag is Disabled ("Allowed" works like "Enabled").\n' +
        "  When not permitted: must not set the field(s): <path>\n" +
        `  To enable: kubectl patch configmap/config-features -n knative-serving --type merge -p '{"data":{"kubernetes.podspec-affinity":"enabled"}}'\n`,
    );
  });

  it("explains a field path by the flag that gates it, using the configured state", async () => {
    const r = await features(["explain", "spec.template.spec.affinity.nodeAffinity", "--config-dir", fixture("config-affinity")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^spec\.template\.spec\.affinity\.nodeAffinity\n {2}Gated by kubernetes\.podspec-affinity\.\n {2}With this configuration \(dir:test\/fixtures\/check\/config-affinity\): allowed\.\n\nkubernetes\.podspec-affinity: extension, default Disabled, currently Enabled/,
    );
    expect(r.stdout).toContain('To disable: kubectl patch configmap/config-features -n knative-serving --type merge -p \'{"data":{"kubernetes.podspec-affinity":"disabled"}}\'');
  });

  it.each([
    [
      "spec.template.spec.nodeName",
      "spec.template.spec.nodeName\n" +
        "  No config-features flag gates it: Knative never allows it to be set, whatever the flags. The webhook answers:\n" +
        "    must not set the field(s): spec.template.spec.nodeName\n" +
        "  With this configuration (defaults): denied: must not set the field(s): spec.template.spec.nodeName\n",
    ],
    [
      "spec.template.spec.serviceAccountName",
      "spec.template.spec.serviceAccountName\n" +
        "  No config-features flag gates it: the webhook allows it to be set (its value is still validated).\n" +
        "  With this configuration (defaults): allowed.\n",
    ],
  ])("says when no flag gates %s", async (path, text) => {
    const r = await features(["explain", path]);
    expect(r).toEqual({ code: 0, stdout: text, stderr: "" });
  });

  it.each([
    { name: "explain without a subject", args: ["explain"], stderr: /explain needs a flag/ },
    { name: "unknown subcommand", args: ["frob"], stderr: /unknown subcommand "frob"/ },
    { name: "--kubeconfig with --config-dir", args: ["--kubeconfig", "/tmp/kc", "--config-dir", fixture("config-affinity")], stderr: /--kubeconfig and --config-dir are alternatives/ },
    { name: "impact without --disable", args: ["impact", fixture("affinity.yaml")], stderr: /impact needs --disable/ },
    { name: "impact with an unknown flag", args: ["impact", "--disable", "nope", fixture("affinity.yaml")], stderr: /unknown flag "nope"/ },
    { name: "impact without manifests", args: ["impact", "--disable", "kubernetes.podspec-affinity"], stderr: /impact needs manifests/ },
  ])("exits 2 on usage errors: $name", async ({ args, stderr }) => {
    const r = await features(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(stderr);
  });
});

describe("duckbill features impact", () => {
  it("lists the objects disabling a flag would deny, with the fields they use and kubectl's error, and exits 1", async () => {
    const r = await features([
      "impact",
      "--disable",
      "kubernetes.podspec-affinity",
      "--config-dir",
      fixture("config-affinity"),
      "-f",
      fixture("affinity.yaml"),
      fixture("valid-service.yaml"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      "Disabling kubernetes.podspec-affinity (now Enabled) would deny 1 of the 2 checked objects; objects that exist keep running, their next create or update is denied:\n" +
        "\n" +
        "test/fixtures/check/affinity.yaml:2 service.serving.knative.dev/pinned\n" +
        "  uses spec.template.spec.affinity\n" +
        '  Error from server (BadRequest): error when creating "test/fixtures/check/affinity.yaml": admission webhook "validation.webhook.serving.knative.dev" denied the request: ' +
        "validation failed: must not set the field(s): spec.template.spec.affinity\n",
    );
  });

  it("exits 0 when nothing would be denied, and notes objects already denied", async () => {
    const r = await features(["impact", "--disable", "kubernetes.podspec-fieldref", fixture("valid-service.yaml"), fixture("reserved-port.yaml")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "note: kubernetes.podspec-fieldref is already Disabled in this configuration.\n" +
        "Disabling kubernetes.podspec-fieldref (now Disabled) would deny none of the 2 checked objects.\n" +
        '\n1 object(s) are denied already with the current configuration (run "duckbill check").\n',
    );
  });

  it("-o json carries each object's before and after, the fields it uses and the webhook's message", async () => {
    const svc = [
      "apiVersion: serving.knative.dev/v1",
      "kind: Service",
      "metadata: {name: cache}",
      "spec:",
      "  template:",
      "    spec:",
      "      containers:",
      "        - image: ghcr.io/knative/helloworld-go:latest",
      "          volumeMounts: [{name: scratch, mountPath: /scratch}]",
      "      volumes: [{name: scratch, emptyDir: {}}]",
    ].join("\n");
    const r = await features(["impact", "--disable", "kubernetes.podspec-volumes-emptydir", "-o", "json", "-"], svc);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ flag: "kubernetes.podspec-volumes-emptydir", state: "Enabled", denied: 1 });
    expect(out.objects).toEqual([
      expect.objectContaining({
        source: "STDIN",
        ref: "service.serving.knative.dev/cache",
        before: "created",
        after: "denied",
        uses: ["spec.template.spec.volumes[0].emptyDir"],
        message:
          "validation failed: EmptyDir volume support is disabled, but found EmptyDir volume scratch: \nmust not set the field(s): spec.template.spec.volumes[0].emptyDir",
      }),
    ]);
  });

  it("withFlagDisabled keeps the rest of the configuration", () => {
    const base = snapshotFrom({ "config-features": { "kubernetes.podspec-affinity": "enabled" }, "config-defaults": { "revision-timeout-seconds": "42" } }, "t");
    const off = withFlagDisabled(base, "kubernetes.podspec-affinity");
    expect(off.admission.features.podSpecAffinity).toBe("Disabled");
    expect(off.admission.defaults.revisionTimeoutSeconds).toBe(42);
    expect(featureGate("kubernetes.podspec-affinity")?.field).toBe("podSpecAffinity");
  });
});

describe("duckbill main dispatch", () => {
  it("routes features to the features command", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      expect(await main(["features", "--help"])).toBe(0);
      expect(String(write.mock.calls[0]?.[0])).toMatch(/^Usage: duckbill features /);
    } finally {
      write.mockRestore();
    }
  });
});
