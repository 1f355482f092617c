/**
 * PodSpecable and WithPod (knative.dev/pkg apis/duck/v1 podspec_types.go;
 * docs/knative-behavior.md#duck-types-and-generations): resources holding a
 * pod template at `spec.template`, as Deployment, ReplicaSet, Job do and Knative's Service and Configuration.
 */
import { defineDuck } from "./duck-type.js";
import { objectMetaSchema, type ObjectMetaView, type ResourceView } from "./object-meta.js";
import { asJsonObject, isJsonObject } from "../go/encoding/json/json-value.js";
import { anyJson, arrayOf, openStruct, resource, stringField, struct } from "./schema.js";

export interface ContainerView {
  name?: string | null;
  image?: string | null;
  [member: string]: unknown;
}

/** corev1.PodSpec: the duck types what every consumer reads and carries the rest whole. */
export interface PodSpecView {
  containers?: Array<ContainerView | null> | null;
  initContainers?: Array<ContainerView | null> | null;
  serviceAccountName?: string | null;
  [member: string]: unknown;
}

/** duckv1.PodSpecable = corev1.PodTemplateSpec. */
export interface PodSpecable {
  metadata?: ObjectMetaView | null;
  spec?: PodSpecView | null;
}

export interface WithPodView extends ResourceView {
  spec?: { selector?: unknown; template?: PodSpecable | null } | null;
}

const containerSchema = openStruct({ name: stringField, image: stringField });

const podSpecableSchema = struct({
  metadata: objectMetaSchema,
  spec: openStruct({ containers: arrayOf(containerSchema), initContainers: arrayOf(containerSchema), serviceAccountName: stringField }),
});

/** Go's implementable is `PodSpecable` and its full type `WithPod`: messages name the former. */
export const WithPod = defineDuck<WithPodView>(
  "PodSpecable",
  resource({ metadata: objectMetaSchema, spec: struct({ selector: anyJson, template: podSpecableSchema }) }, "A resource holding a pod template at spec.template."),
  () => ({
    spec: {
      template: {
        metadata: { labels: { foo: "bar" } },
        spec: { serviceAccountName: "default", containers: [{ name: "container-name", image: "container-image:latest" }] },
      },
    },
  }),
);

/**
 * Where a kind keeps its pod spec (the WithPod shape for Service and Configuration, the Revision's own spec), as
 * JSON: the spec and the field path prefix of its members.
 */
export function podSpecOf(kind: string, obj: unknown): { readonly spec: unknown; readonly prefix: string } | undefined {
  if (!isJsonObject(obj)) return undefined;
  const spec = asJsonObject(obj.spec);
  if (spec === undefined) return undefined;
  if (kind === "Revision") return { spec, prefix: "spec." };
  if (kind === "Service" || kind === "Configuration") {
    const template = asJsonObject(spec.template);
    return template === undefined ? undefined : { spec: asJsonObject(template.spec), prefix: "spec.template.spec." };
  }
  return undefined;
}
