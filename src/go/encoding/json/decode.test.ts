import { describe, expect, it } from "vitest";
import { QUANTITY_FORMAT_ERROR as QUANTITY_ERROR } from "../../apimachinery/quantity.js";
import { decodeGo, emptyNotNilFields } from "./decode.js";
import { decodeFirstJsonValue } from "./stream.js";
import { configMapType, goTypeOf, knativeTypes } from "../../../apis/knative-types.js";

const service = knativeTypes.get("serving.knative.dev/v1, Kind=Service");
if (service === undefined) throw new Error("Service type missing");

/** A Service whose template spec is `spec` (the shape most decode errors in the vectors use). */
function serviceWith(spec: unknown): unknown {
  return { apiVersion: "serving.knative.dev/v1", kind: "Service", metadata: { name: "hello" }, spec: { template: { spec } } };
}

describe("decode errors of the conformance vectors (envelope.jsonl and friends)", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ["object is a string", "hello", "json: cannot unmarshal string into Go value of type v1.Service"],
    ["object is a number", 42, "json: cannot unmarshal number into Go value of type v1.Service"],
    [
      "timeoutSeconds as a string",
      serviceWith({ containers: [{ image: "i" }], timeoutSeconds: "300" }),
      "json: cannot unmarshal string into Go struct field RevisionSpec.spec.template.spec.timeoutSeconds of type int64",
    ],
    [
      "containerConcurrency as a fraction",
      serviceWith({ containers: [{ image: "i" }], containerConcurrency: 1.5 }),
      "json: cannot unmarshal number 1.5 into Go struct field RevisionSpec.spec.template.spec.containerConcurrency of type int64",
    ],
    [
      "containers as an object",
      serviceWith({ containers: { image: "i" } }),
      "json: cannot unmarshal object into Go struct field RevisionSpec.spec.template.spec.containers of type []v1.Container",
    ],
    [
      "image as a number",
      serviceWith({ containers: [{ image: 42 }] }),
      "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string",
    ],
    [
      "containerPort as a string",
      serviceWith({ containers: [{ image: "i", ports: [{ containerPort: "8080" }] }] }),
      "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32",
    ],
    [
      "annotations as a list",
      { metadata: { name: "hello", annotations: ["a"] } },
      "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.annotations of type map[string]string",
    ],
    [
      "a label value as a number",
      { metadata: { name: "hello", labels: { a: 1 } } },
      "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
    ],
    [
      "traffic percent as a string",
      { spec: { traffic: [{ percent: "100" }] } },
      "json: cannot unmarshal string into Go struct field TrafficTarget.spec.traffic.percent of type int64",
    ],
    [
      "enableServiceLinks as a string",
      serviceWith({ containers: [{ image: "i" }], enableServiceLinks: "false" }),
      "json: cannot unmarshal string into Go struct field RevisionSpec.spec.template.spec.enableServiceLinks of type bool",
    ],
    [
      "a probe port as a bool (IntOrString)",
      serviceWith({ containers: [{ image: "i", readinessProbe: { httpGet: { port: true } } }] }),
      "json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.template.spec.containers.readinessProbe.httpGet.port of type int32",
    ],
    [
      "creationTimestamp that is not a time",
      { metadata: { name: "hello", creationTimestamp: "yesterday" } },
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    ],
    ["a quantity as a bool", serviceWith({ containers: [{ image: "i", resources: { limits: { cpu: true } } }] }), QUANTITY_ERROR],
    ["a quantity with an exponent and a suffix", serviceWith({ containers: [{ image: "i", resources: { limits: { cpu: "1e3m" } } }] }), QUANTITY_ERROR],
    ["a quantity that is a word", serviceWith({ containers: [{ image: "i", resources: { limits: { cpu: "two" } } }] }), QUANTITY_ERROR],
    ["a quantity with a unit suffix", serviceWith({ containers: [{ image: "i", resources: { requests: { memory: "512MB" } } }] }), QUANTITY_ERROR],
    ["metadata as a string", { metadata: "hello" }, "json: cannot unmarshal string into Go struct field Service.metadata of type v1.ObjectMeta"],
    [
      "generation as a string",
      { metadata: { name: "hello", generation: "1" } },
      "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64",
    ],
  ];
  it.each(cases)("%s", (_name, object, error) => {
    expect(decodeGo(service, object)).toEqual({ ok: false, error });
  });

  it("names the top-level type of every registered kind", () => {
    const names = [...knativeTypes.values()].map((t) => t.name);
    expect(names).toEqual([
      "v1.Service",
      "v1.Configuration",
      "v1.Revision",
      "v1.Route",
      "v1beta1.DomainMapping",
      "v1alpha1.PodAutoscaler",
      "v1alpha1.Metric",
      "v1alpha1.Certificate",
      "v1alpha1.Ingress",
      "v1alpha1.ServerlessService",
    ]);
    expect(configMapType.name).toBe("v1.ConfigMap");
  });

  it.each([
    [{ data: [] }, "json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string"],
    [{ data: { a: 1 } }, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"],
  ])("ConfigMap %j", (object, error) => {
    expect(decodeGo(configMapType, object)).toEqual({ ok: false, error });
  });

  it("reports time.Duration for a Metric window", () => {
    const metric = knativeTypes.get("autoscaling.internal.knative.dev/v1alpha1, Kind=Metric");
    if (metric === undefined) throw new Error("Metric type missing");
    expect(decodeGo(metric, { spec: { stableWindow: "60s" } })).toEqual({
      ok: false,
      error: "json: cannot unmarshal string into Go struct field MetricSpec.spec.stableWindow of type time.Duration",
    });
  });
});

// Each expectation is what Go 1.23's encoding/json produces for json.Unmarshal into the Go type followed
// by json.Marshal, with k8s.io/api v0.31.4 (generated once with a Go program over the real types).
const GO_GOLDEN: ReadonlyArray<readonly [description: string, type: string, input: string, want: string]> = [
  ["an empty object still writes creationTimestamp: null", "meta.ObjectMeta", "{}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null}}"],
  ["null leaves strings, numbers and maps at their zero value", "meta.ObjectMeta", "{\"name\": null, \"generation\": null, \"labels\": null}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null}}"],
  ["a case-folded key fills the field; a later exact key overwrites it", "meta.ObjectMeta", "{\"NAME\": \"a\", \"name\": \"b\"}", "{\"ok\": true, \"value\": {\"name\": \"b\", \"creationTimestamp\": null}}"],
  ["a later case-folded key overwrites an exact one", "meta.ObjectMeta", "{\"name\": \"b\", \"Name\": \"a\"}", "{\"ok\": true, \"value\": {\"name\": \"a\", \"creationTimestamp\": null}}"],
  ["repeated map keys merge", "meta.ObjectMeta", "{\"labels\": {\"a\": \"1\"}, \"Labels\": {\"b\": \"2\"}}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null, \"labels\": {\"a\": \"1\", \"b\": \"2\"}}}"],
  ["a map value must be a string", "meta.ObjectMeta", "{\"labels\": {\"a\": 1, \"b\": true}}", "{\"ok\": false, \"error\": \"json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string\"}"],
  ["the first type error wins", "meta.ObjectMeta", "{\"generation\": \"x\", \"name\": 5}", "{\"ok\": false, \"error\": \"json: cannot unmarshal string into Go struct field ObjectMeta.generation of type int64\"}"],
  ["an int rejects a fraction", "meta.ObjectMeta", "{\"generation\": 1.5}", "{\"ok\": false, \"error\": \"json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64\"}"],
  ["a time rejects a number with the inner string type", "meta.ObjectMeta", "{\"creationTimestamp\": 5}", "{\"ok\": false, \"error\": \"json: cannot unmarshal number into Go struct field ObjectMeta.creationTimestamp of type string\"}"],
  ["a custom unmarshaler's error beats an earlier type error", "meta.ObjectMeta", "{\"generation\": \"x\", \"creationTimestamp\": \"bad\"}", "{\"ok\": false, \"error\": \"parsing time \\\"bad\\\" as \\\"2006-01-02T15:04:05Z07:00\\\": cannot parse \\\"bad\\\" as \\\"2006\\\"\"}"],
  ["times are written in UTC seconds", "meta.ObjectMeta", "{\"deletionTimestamp\": \"2024-05-14T11:30:00.25+02:00\"}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null, \"deletionTimestamp\": \"2024-05-14T09:30:00Z\"}}"],
  ["a null slice element is a zero struct", "meta.ObjectMeta", "{\"ownerReferences\": [null]}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null, \"ownerReferences\": [{\"apiVersion\": \"\", \"kind\": \"\", \"name\": \"\", \"uid\": \"\"}]}}"],
  ["the long s folds to S", "meta.ObjectMeta", "{\"ſelfLink\": \"x\"}", "{\"ok\": true, \"value\": {\"selfLink\": \"x\", \"creationTimestamp\": null}}"],
  ["the dotless i folds to I", "meta.ObjectMeta", "{\"uıd\": \"x\"}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null}}"],
  ["other non-ASCII keys match nothing", "meta.ObjectMeta", "{\"ńame\": \"x\"}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null}}"],
  ["__proto__ and constructor are ordinary map keys", "meta.ObjectMeta", "{\"__proto__\": {\"a\": 1}, \"labels\": {\"__proto__\": \"x\", \"constructor\": \"y\"}}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null, \"labels\": {\"__proto__\": \"x\", \"constructor\": \"y\"}}}"],
  ["FieldsV1 keeps raw JSON; a nil *Time is omitted", "meta.ObjectMeta", "{\"managedFields\": [{\"fieldsV1\": {\"f:a\": {\".\": {}}}, \"time\": null}]}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null, \"managedFields\": [{\"fieldsV1\": {\"f:a\": {\".\": {}}}}]}}"],
  ["a non-nil *Time holding the zero time is written as null", "meta.ObjectMeta", "{\"managedFields\": [{\"time\": \"0001-01-01T00:00:00Z\"}]}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null, \"managedFields\": [{\"time\": null}]}}"],
  ["empty omitempty slices are dropped", "meta.ObjectMeta", "{\"finalizers\": [], \"ownerReferences\": []}", "{\"ok\": true, \"value\": {\"creationTimestamp\": null}}"],
  ["a container writes name and resources even when empty", "core.Container", "{}", "{\"ok\": true, \"value\": {\"name\": \"\", \"resources\": {}}}"],
  ["an int32 rejects out-of-range numbers", "core.Container", "{\"ports\": [{\"containerPort\": 99999999999}]}", "{\"ok\": false, \"error\": \"json: cannot unmarshal number 99999999999 into Go struct field ContainerPort.ports.containerPort of type int32\"}"],
  ["type errors name the innermost struct and the full path", "core.Container", "{\"ports\": [{\"containerPort\": \"80\"}], \"image\": 1}", "{\"ok\": false, \"error\": \"json: cannot unmarshal string into Go struct field ContainerPort.ports.containerPort of type int32\"}"],
  ["quantities are canonicalised; numbers and null are quantities too", "core.Container", "{\"resources\": {\"limits\": {\"cpu\": \"0.1\", \"memory\": \"1.5Gi\"}, \"requests\": {\"cpu\": 1, \"memory\": null, \"ephemeral-storage\": \" 1000m \"}}}", "{\"ok\": true, \"value\": {\"name\": \"\", \"resources\": {\"limits\": {\"cpu\": \"100m\", \"memory\": \"1536Mi\"}, \"requests\": {\"cpu\": \"1\", \"ephemeral-storage\": \"1\", \"memory\": \"0\"}}}}"],
  ["a bool is not a quantity", "core.Container", "{\"resources\": {\"limits\": {\"cpu\": true}}}", "{\"ok\": false, \"error\": \"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\"}"],
  ["a quantity error aborts and beats an earlier type error", "core.Container", "{\"image\": 5, \"resources\": {\"limits\": {\"cpu\": \"x\"}}}", "{\"ok\": false, \"error\": \"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\"}"],
  ["omitempty drops false, empty and nil values", "core.Container", "{\"stdin\": false, \"tty\": true, \"env\": [], \"command\": null, \"workingDir\": \"\"}", "{\"ok\": true, \"value\": {\"name\": \"\", \"resources\": {}, \"tty\": true}}"],
  ["pointers to empty structs are kept; IntOrString keeps its kind", "core.Container", "{\"securityContext\": {}, \"livenessProbe\": {\"httpGet\": {\"port\": \"http\"}}, \"readinessProbe\": {\"tcpSocket\": {\"port\": 8080}}}", "{\"ok\": true, \"value\": {\"name\": \"\", \"resources\": {}, \"livenessProbe\": {\"httpGet\": {\"port\": \"http\"}}, \"readinessProbe\": {\"tcpSocket\": {\"port\": 8080}}, \"securityContext\": {}}}"],
  ["an IntOrString rejects a fraction as int32", "core.Container", "{\"readinessProbe\": {\"httpGet\": {\"port\": 1.5}}}", "{\"ok\": false, \"error\": \"json: cannot unmarshal number 1.5 into Go struct field HTTPGetAction.readinessProbe.httpGet.port of type int32\"}"],
  ["a null IntOrString is the integer 0", "core.Container", "{\"readinessProbe\": {\"httpGet\": {\"port\": null}}}", "{\"ok\": true, \"value\": {\"name\": \"\", \"resources\": {}, \"readinessProbe\": {\"httpGet\": {\"port\": 0}}}}"],
  ["an IntOrString rejects an object as int32", "core.Container", "{\"readinessProbe\": {\"httpGet\": {\"port\": {}}}}", "{\"ok\": false, \"error\": \"json: cannot unmarshal object into Go struct field HTTPGetAction.readinessProbe.httpGet.port of type int32\"}"],
  ["readOnly false is dropped", "core.Container", "{\"volumeMounts\": [{\"name\": \"a\", \"mountPath\": \"/a\", \"readOnly\": false}]}", "{\"ok\": true, \"value\": {\"name\": \"\", \"resources\": {}, \"volumeMounts\": [{\"name\": \"a\", \"mountPath\": \"/a\"}]}}"],
  ["an object is not a slice", "core.PodSpec", "{\"containers\": {}}", "{\"ok\": false, \"error\": \"json: cannot unmarshal object into Go struct field PodSpec.containers of type []v1.Container\"}"],
  ["pointers to false are kept, plain false is dropped", "core.PodSpec", "{\"enableServiceLinks\": false, \"automountServiceAccountToken\": false, \"hostNetwork\": false}", "{\"ok\": true, \"value\": {\"containers\": null, \"automountServiceAccountToken\": false, \"enableServiceLinks\": false}}"],
  ["a repeated slice key decodes into the existing elements", "core.PodSpec", "{\"containers\": [{\"name\": \"a\"}], \"Containers\": [{\"image\": \"b\"}, {\"image\": \"c\"}]}", "{\"ok\": true, \"value\": {\"containers\": [{\"name\": \"a\", \"image\": \"b\", \"resources\": {}}, {\"name\": \"\", \"image\": \"c\", \"resources\": {}}]}}"],
  ["volumes keep their source; sizeLimit is canonicalised", "core.PodSpec", "{\"volumes\": [{\"name\": \"v\", \"emptyDir\": {\"sizeLimit\": \"1024Mi\"}}, {\"name\": \"w\", \"secret\": {\"secretName\": \"s\", \"defaultMode\": 420}}]}", "{\"ok\": true, \"value\": {\"volumes\": [{\"name\": \"v\", \"emptyDir\": {\"sizeLimit\": \"1Gi\"}}, {\"name\": \"w\", \"secret\": {\"secretName\": \"s\", \"defaultMode\": 420}}], \"containers\": null}}"],
  ["a null map value is the element's zero value", "core.PodSpec", "{\"nodeSelector\": {\"a\": null}, \"overhead\": {\"cpu\": null}}", "{\"ok\": true, \"value\": {\"containers\": null, \"nodeSelector\": {\"a\": \"\"}, \"overhead\": {\"cpu\": \"0\"}}}"],
  ["unknown fields are dropped", "core.PodSpec", "{\"containers\": [{\"name\": \"a\", \"debugPort\": 5005}], \"gpuShare\": 0.5}", "{\"ok\": true, \"value\": {\"containers\": [{\"name\": \"a\", \"resources\": {}}]}}"],
  ["pointers to zero numbers and false are kept; URLs are re-serialised", "serving.TrafficTarget", "{\"percent\": 0, \"latestRevision\": false, \"url\": \"HTTP://X.com/a b\"}", "{\"ok\": true, \"value\": {\"latestRevision\": false, \"percent\": 0, \"url\": \"http://X.com/a%20b\"}}"],
  ["an empty URL stays empty", "serving.TrafficTarget", "{\"url\": \"\"}", "{\"ok\": true, \"value\": {\"url\": \"\"}}"],
  ["a URL must be a string", "serving.TrafficTarget", "{\"url\": 5}", "{\"ok\": false, \"error\": \"json: cannot unmarshal number into Go struct field TrafficTarget.url of type string\"}"],
  ["a URL that url.Parse rejects", "serving.TrafficTarget", "{\"url\": \"http://a b/\"}", "{\"ok\": false, \"error\": \"parse \\\"http://a b/\\\": invalid character \\\" \\\" in host name\"}"],
  ["a condition writes lastTransitionTime: null when unset", "apis.Condition", "{\"type\": \"Ready\", \"status\": \"True\"}", "{\"ok\": true, \"value\": {\"type\": \"Ready\", \"status\": \"True\", \"lastTransitionTime\": null}}"],
  ["containerConcurrency and timeoutSeconds of 0 are kept", "serving.RevisionSpec", "{\"timeoutSeconds\": 0, \"containerConcurrency\": 0}", "{\"ok\": true, \"value\": {\"containers\": null, \"containerConcurrency\": 0, \"timeoutSeconds\": 0}}"],
  ["a string is not a Service", "serving.Service", "\"x\"", "{\"ok\": false, \"error\": \"json: cannot unmarshal string into Go value of type v1.Service\"}"],
  ["errors follow the key order of the object", "serving.Service", "{\"spec\": {\"traffic\": [{\"percent\": \"1\"}]}, \"metadata\": \"x\"}", "{\"ok\": false, \"error\": \"json: cannot unmarshal string into Go struct field TrafficTarget.spec.traffic.percent of type int64\"}"],
  ["a Service writes its always-present structs", "serving.Service", "{}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"template\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"containers\": null}}}, \"status\": {}}}"],
  ["time.Duration is an int64", "autoscaling.Metric", "{\"spec\": {\"stableWindow\": \"60s\"}}", "{\"ok\": false, \"error\": \"json: cannot unmarshal string into Go struct field MetricSpec.spec.stableWindow of type time.Duration\"}"],
  ["Ingress splits write their backend and keep the port's kind", "networking.Ingress", "{\"spec\": {\"rules\": [{\"http\": {\"paths\": [{\"splits\": [{\"servicePort\": \"http\"}]}]}}]}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"rules\": [{\"http\": {\"paths\": [{\"splits\": [{\"serviceNamespace\": \"\", \"serviceName\": \"\", \"servicePort\": \"http\"}]}]}}]}, \"status\": {}}}"],
  ["binaryData is base64", "core.ConfigMap", "{\"binaryData\": {\"a\": \"aGk=\", \"b\": [104, 105]}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"binaryData\": {\"a\": \"aGk=\", \"b\": \"aGk=\"}}}"],
  ["invalid base64 is an error", "core.ConfigMap", "{\"binaryData\": {\"a\": \"!!\"}}", "{\"ok\": false, \"error\": \"illegal base64 data at input byte 0\"}"],
  ["a DomainMapping ref writes kind and name", "servingv1beta1.DomainMapping", "{\"spec\": {\"ref\": {}}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"ref\": {\"kind\": \"\", \"name\": \"\"}}, \"status\": {}}}"],
  ["condition times are re-formatted", "serving.Revision", "{\"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\", \"lastTransitionTime\": \"2024-05-14T09:30:00.5Z\"}]}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"containers\": null}, \"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\", \"lastTransitionTime\": \"2024-05-14T09:30:00Z\"}]}}}"],
  ["a PodAutoscaler writes its non-omitempty fields", "autoscaling.PodAutoscaler", "{\"spec\": {\"containerConcurrency\": 0}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"scaleTargetRef\": {}, \"protocolType\": \"\"}, \"status\": {\"serviceName\": \"\", \"metricsServiceName\": \"\"}}}"],
  ["a Certificate writes dnsNames and secretName", "networking.Certificate", "{\"status\": {\"notAfter\": null}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"dnsNames\": null, \"secretName\": \"\"}, \"status\": {}}}"],
  ["an SKS writes objectRef and protocolType", "networking.ServerlessService", "{\"spec\": {\"numActivators\": 0}}", "{\"ok\": true, \"value\": {\"metadata\": {\"creationTimestamp\": null}, \"spec\": {\"objectRef\": {}, \"protocolType\": \"\"}, \"status\": {}}}"],
];

describe("Go's decode and marshal semantics", () => {
  it.each(GO_GOLDEN)("%s", (_description, type, input, want) => {
    expect(decodeGo(goTypeOf(type), JSON.parse(input))).toEqual(JSON.parse(want));
  });
});

describe("hostile input", () => {
  it("keeps __proto__ map keys as own properties and leaves the prototype alone", () => {
    const r = decodeGo(goTypeOf("meta.ObjectMeta"), JSON.parse('{"labels": {"__proto__": "x"}, "__proto__": {"polluted": 1}}'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const labels = (r.value as { labels: Record<string, unknown> }).labels;
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
    expect(Object.keys(labels)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("copies deeply nested raw JSON without recursion", () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const r = decodeGo(goTypeOf("meta.ObjectMeta"), { managedFields: [{ fieldsV1: deep }] });
    expect(r.ok).toBe(true);
  });

  it("does not descend into deeply nested values of the wrong type or of unknown fields", () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(decodeGo(service, { unknown: deep, metadata: { name: "x" } }).ok).toBe(true);
    expect(decodeGo(service, { metadata: { labels: deep } })).toEqual({
      ok: false,
      error: "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
    });
  });

  it("decodes a huge array", () => {
    const finalizers = Array.from({ length: 200_000 }, (_, i) => `f${i}`);
    const r = decodeGo(goTypeOf("meta.ObjectMeta"), { finalizers });
    expect(r.ok && (r.value as { finalizers: string[] }).finalizers.length).toBe(200_000);
  });

  it("replaces lone surrogates like Go's JSON decoder", () => {
    expect(decodeGo(goTypeOf("meta.ObjectMeta"), { name: "a\ud800b", labels: { "k\udc00": "v" } })).toEqual({
      ok: true,
      value: { name: "a\ufffdb", labels: { "k\ufffd": "v" }, creationTimestamp: null },
    });
  });
});

describe("the decoded value is the caller's", () => {
  it("shares nothing with the input", () => {
    const input = { metadata: { name: "x", labels: { a: "b" }, managedFields: [{ fieldsV1: { "f:a": {} } }] } };
    const r = decodeGo(service, input);
    if (!r.ok) throw new Error(r.error);
    const meta = (r.value as { metadata: { labels: Record<string, string>; managedFields: Array<{ fieldsV1: Record<string, unknown> }> } }).metadata;
    meta.labels.a = "changed";
    (meta.managedFields[0] as { fieldsV1: Record<string, unknown> }).fieldsV1["f:b"] = {};
    expect(input.metadata.labels.a).toBe("b");
    expect(Object.keys(input.metadata.managedFields[0]?.fieldsV1 ?? {})).toEqual(["f:a"]);
  });

  it("gives independent values for the same input", () => {
    const a = decodeGo(service, {});
    const b = decodeGo(service, {});
    if (!a.ok || !b.ok) throw new Error("decode failed");
    expect(a.value).toEqual(b.value);
    expect(a.value).not.toBe(b.value);
    expect((a.value as { status: object }).status).not.toBe((b.value as { status: object }).status);
  });
});

describe("empty but not nil", () => {
  it("records the omitempty slice, map and []byte fields that held [], {} or \"\", which the result drops", () => {
    const spec = decodeGo(goTypeOf("core.PodSpec"), { initContainers: [], nodeSelector: {}, volumes: null, hostAliases: [{}], containers: [] });
    expect(spec).toEqual({ ok: true, value: { hostAliases: [{ ip: "" }], containers: [] } });
    if (!spec.ok) return;
    expect([...(emptyNotNilFields(spec.value as object) ?? [])].sort()).toEqual(["initContainers", "nodeSelector"]);
  });

  it("forgets a field a later member of the same name sets to nil or fills", () => {
    const spec = decodeGo(goTypeOf("core.PodSpec"), JSON.parse('{"initContainers":[],"INITCONTAINERS":null,"nodeSelector":{},"NodeSelector":{"a":"b"},"hostAliases":[]}'));
    if (!spec.ok) throw new Error(spec.error);
    expect([...(emptyNotNilFields(spec.value as object) ?? [])]).toEqual(["hostAliases"]);
  });

  it("records nothing for objects without such a field", () => {
    const spec = decodeGo(goTypeOf("core.PodSpec"), { containers: [{ image: "x" }] });
    if (!spec.ok) throw new Error(spec.error);
    expect(emptyNotNilFields(spec.value as object)).toBeUndefined();
  });
});

describe("options worked out per struct type", () => {
  const meta = goTypeOf("meta.ObjectMeta");
  if (meta.kind !== "struct") throw new Error("ObjectMeta is a struct");
  const name = meta.exact.get("name");
  const created = meta.exact.get("creationTimestamp");
  if (name === undefined || created === undefined) throw new Error("ObjectMeta fields missing");

  it("follows the hidden and omitzero sets of each call, alternating on one type", () => {
    const input = { name: "a", generateName: "g" };
    for (let i = 0; i < 3; i++) {
      expect(decodeGo(meta, input)).toEqual({ ok: true, value: { name: "a", generateName: "g", creationTimestamp: null } });
      expect(decodeGo(meta, input, { hiddenFields: new Set([name]) })).toEqual({ ok: true, value: { generateName: "g", creationTimestamp: null } });
      expect(decodeGo(meta, input, { omitZeroFields: new Set([created]) })).toEqual({ ok: true, value: { name: "a", generateName: "g" } });
      expect(decodeGo(meta, input, { hiddenFields: new Set([name]), omitZeroFields: new Set([created]) })).toEqual({ ok: true, value: { generateName: "g" } });
    }
  });

  it("reads a field a case-folded key set before, in any order of exact and folded keys", () => {
    const labels = (members: string): unknown => decodeGo(meta, (decodeFirstJsonValue(`{${members}}`) as { value: unknown }).value);
    expect(labels('"labels":{"a":"1"},"LABELS":{"b":"2"}')).toEqual({ ok: true, value: { labels: { a: "1", b: "2" }, creationTimestamp: null } });
    expect(labels('"Labels":{"a":"1"},"labels":{"b":"2"}')).toEqual({ ok: true, value: { labels: { a: "1", b: "2" }, creationTimestamp: null } });
    expect(labels('"name":"x","labels":{"a":"1"},"lAbels":{"c":"3"},"labels":{"b":"2"}')).toEqual({ ok: true, value: { name: "x", labels: { a: "1", b: "2", c: "3" }, creationTimestamp: null } });
  });
});
