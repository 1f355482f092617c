/**
 * The parts of metav1.ObjectMeta a duck view reads. Every duck embeds ObjectMeta as Knative's do
 * (`metav1.ObjectMeta json:"metadata,omitempty"`); the view keeps the identifying members and the two
 * string maps, and leaves the rest (managedFields, ownerReferences, ...) outside the duck.
 */
import { int64Field, mapOf, stringField, struct, type DuckSchema } from "./schema.js";

export interface ObjectMetaView {
  name?: string | null;
  generateName?: string | null;
  namespace?: string | null;
  uid?: string | null;
  resourceVersion?: string | null;
  generation?: number | null;
  labels?: Record<string, string | null> | null;
  annotations?: Record<string, string | null> | null;
}

export const objectMetaSchema: DuckSchema = struct({
  name: stringField,
  generateName: stringField,
  namespace: stringField,
  uid: stringField,
  resourceVersion: stringField,
  generation: int64Field,
  labels: mapOf(stringField),
  annotations: mapOf(stringField),
});

/** TypeMeta inline plus ObjectMeta, as every full duck resource starts. */
export interface ResourceView {
  apiVersion?: string | null;
  kind?: string | null;
  metadata?: ObjectMetaView | null;
}
