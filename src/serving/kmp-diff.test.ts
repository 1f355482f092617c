import { describe, expect, it } from "vitest";
import { goTypeOf } from "../apis/knative-types.js";
import { decodeGo } from "../go/encoding/json/index.js";
import { decodeFirstJsonValue } from "../go/encoding/json/stream.js";
import { shortDiff } from "./kmp-diff.js";

const container = (extra: Record<string, unknown> = {}) => ({ name: "user-container", image: "busybox", ...extra });

describe("shortDiff on a RevisionSpec (Revision immutability)", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      "a changed image is reported at the container field, through the embedded PodSpec",
      { containers: [container()] },
      { containers: [container({ image: "helloworld" })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].Image:\n\t-: "busybox"\n\t+: "helloworld"\n',
    ],
    // Go field names from the generated model (goFieldNames), as Knative 1.23 and 1.24 print them.
    [
      "PodSpec.serviceAccount is Go's DeprecatedServiceAccount",
      { serviceAccount: "a", containers: [container()] },
      { serviceAccount: "b", containers: [container()] },
      '{v1.RevisionSpec}.PodSpec.DeprecatedServiceAccount:\n\t-: "a"\n\t+: "b"\n',
    ],
    [
      "PodSpec.os is Go's OS",
      { containers: [container()] },
      { os: { name: "linux" }, containers: [container()] },
      '{v1.RevisionSpec}.PodSpec.OS:\n\t-: "nil"\n\t+: "&PodOS{Name:linux,}"\n',
    ],
    [
      "RBDVolumeSource.image is Go's RBDImage",
      { volumes: [{ name: "v", rbd: { image: "a", monitors: ["m"] } }], containers: [container()] },
      { volumes: [{ name: "v", rbd: { image: "b", monitors: ["m"] } }], containers: [container()] },
      '{v1.RevisionSpec}.PodSpec.Volumes[0].VolumeSource.RBD.RBDImage:\n\t-: "a"\n\t+: "b"\n',
    ],
    [
      "a [] against an absent (nil) slice is reported, as go-cmp tells empty from nil",
      { containers: [container()] },
      { readinessGates: [], containers: [container()] },
      '{v1.RevisionSpec}.PodSpec.ReadinessGates:\n\t-: "[]"\n\t+: "[]"\n',
    ],
    [
      "a changed pointer value is reported through the pointer (leading *)",
      { containerConcurrency: 2, containers: [container()] },
      { containerConcurrency: 1, containers: [container()] },
      '*{v1.RevisionSpec}.ContainerConcurrency:\n\t-: "2"\n\t+: "1"\n',
    ],
    [
      "an int64 beyond 2^53 (a bigint, exact after the Go round trip) prints with its digits",
      { timeoutSeconds: 9223372036854775807n, containers: [container()] },
      { timeoutSeconds: 9007199254740993n, containers: [container()] },
      '*{v1.RevisionSpec}.TimeoutSeconds:\n\t-: "9223372036854775807"\n\t+: "9007199254740993"\n',
    ],
    [
      "a nil slice against a non-empty one is reported at the slice, elements printed with %+v",
      { containers: [container()] },
      { containers: [container({ env: [{ name: "A", value: "1" }] })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].Env:\n\t-: "[]"\n\t+: "[{Name:A Value:1 ValueFrom:nil}]"\n',
    ],
    [
      "quantities are compared by value and printed as Go structs",
      { containers: [container({ resources: { requests: { cpu: "100m" } } })] },
      { containers: [container({ resources: { requests: { cpu: "50m" } } })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].Resources.Requests["cpu"]:\n' +
        '\t-: resource.Quantity: "{i:{value:100 scale:-3} d:{Dec:<nil>} s:100m Format:DecimalSI}"\n' +
        '\t+: resource.Quantity: "{i:{value:50 scale:-3} d:{Dec:<nil>} s:50m Format:DecimalSI}"\n',
    ],
    [
      "a map entry present on one side only is reported with that side only",
      { containers: [container({ resources: { limits: { cpu: "1" } } })] },
      { containers: [container({ resources: { limits: { cpu: "1", memory: "1Gi" } } })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].Resources.Limits["memory"]:\n' +
        '\t+: resource.Quantity: "{i:{value:1073741824 scale:0} d:{Dec:<nil>} s:1Gi Format:BinarySI}"\n',
    ],
    [
      "an appended slice element is an insertion",
      { containers: [container({ args: ["a"] })] },
      { containers: [container({ args: ["a", "b"] })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].Args[?->1]:\n\t+: "b"\n',
    ],
    [
      "a removed slice element is a removal",
      { containers: [container({ args: ["a", "b"] })] },
      { containers: [container({ args: ["b"] })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].Args[0->?]:\n\t-: "a"\n',
    ],
    [
      "a nil pointer against a set one prints <nil> and an address",
      { containers: [container()] },
      { containers: [container()], timeoutSeconds: 30 },
      '{v1.RevisionSpec}.TimeoutSeconds:\n\t-: "<nil>"\n\t+: "0xc000000000"\n',
    ],
    [
      "nested Kubernetes pointers print with their generated String()",
      { containers: [container()] },
      { containers: [container({ readinessProbe: { tcpSocket: { port: 0 }, successThreshold: 1 } })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].ReadinessProbe:\n\t-: "nil"\n' +
        '\t+: "&Probe{ProbeHandler:ProbeHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{0 0 },Host:,},GRPC:nil,},' +
        'InitialDelaySeconds:0,TimeoutSeconds:0,PeriodSeconds:0,SuccessThreshold:1,FailureThreshold:0,TerminationGracePeriodSeconds:nil,}"\n',
    ],
    [
      "embedded ProbeHandler fields are reached through the embedding",
      { containers: [container({ readinessProbe: { httpGet: { path: "/a", port: 8080 } } })] },
      { containers: [container({ readinessProbe: { httpGet: { path: "/b", port: "http" } } })] },
      '{v1.RevisionSpec}.PodSpec.Containers[0].ReadinessProbe.ProbeHandler.HTTPGet.Path:\n\t-: "/a"\n\t+: "/b"\n' +
        '{v1.RevisionSpec}.PodSpec.Containers[0].ReadinessProbe.ProbeHandler.HTTPGet.Port.Type:\n\t-: "0"\n\t+: "1"\n' +
        '{v1.RevisionSpec}.PodSpec.Containers[0].ReadinessProbe.ProbeHandler.HTTPGet.Port.IntVal:\n\t-: "8080"\n\t+: "0"\n' +
        '{v1.RevisionSpec}.PodSpec.Containers[0].ReadinessProbe.ProbeHandler.HTTPGet.Port.StrVal:\n\t-: ""\n\t+: "http"\n',
    ],
    [
      "Go field names keep Kubernetes' acronyms",
      { containers: [container()], dnsPolicy: "ClusterFirst" },
      { containers: [container()], dnsPolicy: "Default" },
      '{v1.RevisionSpec}.PodSpec.DNSPolicy:\n\t-: "ClusterFirst"\n\t+: "Default"\n',
    ],
  ])("%s", (_name, oldSpec, newSpec, want) => {
    expect(shortDiff("v1.RevisionSpec", oldSpec, newSpec)).toBe(want);
  });

  it("is empty for equal specs, including equal quantities spelled differently", () => {
    const a = { containers: [container({ resources: { limits: { memory: "1Gi" } } })], timeoutSeconds: 300 };
    const b = { containers: [container({ resources: { limits: { memory: "1073741824" } } })], timeoutSeconds: 300 };
    expect(shortDiff("v1.RevisionSpec", a, b)).toBe("");
  });

  it("treats absent omitempty fields as Go zero values", () => {
    expect(shortDiff("v1.RevisionSpec", { containers: [container({ workingDir: "" })] }, { containers: [container()] })).toBe("");
  });

  it("tells a nil non-omitempty slice from an empty one", () => {
    expect(shortDiff("v1.RevisionSpec", { containers: null }, { containers: [] })).toBe(
      '{v1.RevisionSpec}.PodSpec.Containers:\n\t-: "[]"\n\t+: "[]"\n',
    );
  });

  it("reports several changes in field order", () => {
    const diff = shortDiff(
      "v1.RevisionSpec",
      { containers: [container()], timeoutSeconds: 300 },
      { containers: [container({ image: "x" })], timeoutSeconds: 30 },
    );
    expect(diff.split("\n").filter((l) => !l.startsWith("\t"))).toEqual([
      "{v1.RevisionSpec}.PodSpec.Containers[0].Image:",
      "*{v1.RevisionSpec}.TimeoutSeconds:",
      "",
    ]);
  });
});

describe("shortDiff on a *RevisionTemplateSpec (BYO revision names)", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      "an image change",
      { metadata: { name: "api-v1" }, spec: { containers: [container({ image: "a:1" })] } },
      { metadata: { name: "api-v1" }, spec: { containers: [container({ image: "a:2" })] } },
      '{*v1.RevisionTemplateSpec}.Spec.PodSpec.Containers[0].Image:\n\t-: "a:1"\n\t+: "a:2"\n',
    ],
    [
      "labels added to a template without labels",
      { metadata: { name: "api-v1" }, spec: {} },
      { metadata: { name: "api-v1", labels: { release: "2024-05" } }, spec: {} },
      '{*v1.RevisionTemplateSpec}.ObjectMeta.Labels:\n\t-: "map[]"\n\t+: "map[release:2024-05]"\n',
    ],
    [
      "a changed annotation value",
      { metadata: { name: "api-v1", annotations: { a: "1" } } },
      { metadata: { name: "api-v1", annotations: { a: "2" } } },
      '{*v1.RevisionTemplateSpec}.ObjectMeta.Annotations["a"]:\n\t-: "1"\n\t+: "2"\n',
    ],
    [
      "a pointer in the spec changed through the template pointer",
      { metadata: { name: "api-v1" }, spec: { timeoutSeconds: 300 } },
      { metadata: { name: "api-v1" }, spec: { timeoutSeconds: 30 } },
      '*{*v1.RevisionTemplateSpec}.Spec.TimeoutSeconds:\n\t-: "300"\n\t+: "30"\n',
    ],
  ])("%s", (_name, oldTemplate, newTemplate, want) => {
    expect(shortDiff("*v1.RevisionTemplateSpec", oldTemplate, newTemplate)).toBe(want);
  });

  it("is empty for identical templates", () => {
    const t = { metadata: { name: "api-v1", creationTimestamp: null }, spec: { containers: [container()] } };
    expect(shortDiff("*v1.RevisionTemplateSpec", t, structuredClone(t))).toBe("");
  });

  it("compares creation timestamps as instants and reports them as time.Time", () => {
    const diff = shortDiff(
      "*v1.RevisionTemplateSpec",
      { metadata: { creationTimestamp: null } },
      { metadata: { creationTimestamp: "2024-05-01T10:00:00Z" } },
    );
    expect(diff).toBe(
      "{*v1.RevisionTemplateSpec}.ObjectMeta.CreationTimestamp.Time:\n" +
        '\t-: time.Time: "0001-01-01 00:00:00 +0000 UTC"\n\t+: time.Time: "2024-05-01 10:00:00 +0000 UTC"\n',
    );
  });
});

describe("shortDiff on an unknown root", () => {
  it("compares plain JSON and reports at the root", () => {
    expect(shortDiff("string", "foo", "bar")).toBe('{string}:\n\t-: "foo"\n\t+: "bar"\n');
    expect(shortDiff("string", { a: [1] }, { a: [1] })).toBe("");
  });
});

describe("shortDiff of IntOrString fields a repeated key decoded (a half the Type does not show)", () => {
  // A RevisionSpec as the webhook decodes it from the request's text (decode.ts records the hidden half).
  const revisionSpec = (text: string): unknown => {
    const parsed = decodeFirstJsonValue(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const decoded = decodeGo(goTypeOf("serving.RevisionSpec"), parsed.value);
    if (!decoded.ok) throw new Error(decoded.error);
    return decoded.value;
  };
  const withPort = (port: string): string => `{"containers":[{"image":"busybox","readinessProbe":{"tcpSocket":{${port}}}}]}`;

  it("go-cmp compares and prints all three fields: the hidden StrVal is a change", () => {
    expect(shortDiff("v1.RevisionSpec", revisionSpec(withPort('"port":0')), revisionSpec(withPort('"port":"x","port":0')))).toBe(
      '{v1.RevisionSpec}.PodSpec.Containers[0].ReadinessProbe.ProbeHandler.TCPSocket.Port.StrVal:\n\t-: ""\n\t+: "x"\n',
    );
  });

  it("the same hidden half on both sides is no change, and a whole probe added prints it", () => {
    const hidden = revisionSpec(withPort('"port":"x","port":0'));
    expect(shortDiff("v1.RevisionSpec", hidden, revisionSpec(withPort('"port":"x","port":0')))).toBe("");
    expect(shortDiff("v1.RevisionSpec", revisionSpec('{"containers":[{"image":"busybox"}]}'), hidden)).toContain("TCPSocket:&TCPSocketAction{Port:{0 0 x},Host:,}");
  });
});
