/**
 * KResource and Conditions (knative.dev/pkg apis/duck/v1 kresource_type.go, status_types.go;
 * docs/knative-behavior.md#duck-types-and-generations):
 * the status every Knative resource carries — observedGeneration, conditions, annotations.
 */
import { defineDuck } from "./duck-type.js";
import { objectMetaSchema, type ResourceView } from "./object-meta.js";
import { arrayOf, int64Field, mapOf, resource, stringField, struct } from "./schema.js";

/** apis.Condition. `lastTransitionTime` is apis.VolatileTime: RFC 3339 text. */
export interface Condition {
  type?: string | null;
  status?: string | null;
  severity?: string | null;
  lastTransitionTime?: string | null;
  reason?: string | null;
  message?: string | null;
}

/** duckv1.Status. */
export interface StatusView {
  observedGeneration?: number | null;
  conditions?: Array<Condition | null> | null;
  annotations?: Record<string, string | null> | null;
}

export interface KResourceView extends ResourceView {
  status?: StatusView | null;
}

/** A resource seen only through its conditions (Go's `Conditions`, whose full type is KResource). */
export interface ConditionsView extends ResourceView {
  status?: { conditions?: Array<Condition | null> | null } | null;
}

const conditionSchema = struct({
  type: stringField,
  status: stringField,
  severity: stringField,
  lastTransitionTime: stringField,
  reason: stringField,
  message: stringField,
});

const conditionsSchema = arrayOf(conditionSchema);

/** Go's Populate sets every member but severity; Duckbill's sets all of them, so verifyType checks all. */
function populatedCondition(): Condition {
  return {
    type: "Birthday",
    status: "True",
    severity: "Info",
    lastTransitionTime: "1984-02-28T18:52:00Z",
    reason: "Celebrate",
    message: "n3wScott, find your party hat :tada:",
  };
}

function populatedMetadata(): ResourceView["metadata"] {
  return { name: "duck", namespace: "pond", labels: { "duck.knative.dev/populated": "true" }, annotations: { "duck.knative.dev/populated": "true" } };
}

export const KResource = defineDuck<KResourceView>(
  "KResource",
  resource(
    {
      metadata: objectMetaSchema,
      status: struct({ observedGeneration: int64Field, conditions: conditionsSchema, annotations: mapOf(stringField) }),
    },
    "A Knative-style resource: object metadata and duckv1.Status.",
  ),
  () => ({
    metadata: populatedMetadata(),
    status: { observedGeneration: 42, conditions: [populatedCondition()], annotations: { "duck.knative.dev/populated": "true" } },
  }),
);

export const Conditions = defineDuck<ConditionsView>(
  "Conditions",
  resource({ metadata: objectMetaSchema, status: struct({ conditions: conditionsSchema }) }, "A resource seen through status.conditions."),
  () => ({ status: { conditions: [populatedCondition()] } }),
);
