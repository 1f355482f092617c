/**
 * Generational (knative.dev/pkg apis/duck/v1alpha1/generational_types.go, removed Feb 2019 with webhook/webhook.go's
 * updateGeneration; docs/knative-behavior.md#duck-types-and-generations): a
 * resource whose `spec.generation` counts changes to its spec.
 *
 * Unlike Go's, this view leaves ObjectMeta out: the bump neither reads nor writes metadata, and a duck that
 * read it would deny objects over metadata it does not own (and copy labels and annotations on every
 * request of a generational kind).
 */
import { defineDuck } from "./duck-type.js";
import { int64Field, resource, struct } from "./schema.js";

export interface GenerationalView {
  apiVersion?: string | null;
  kind?: string | null;
  spec?: { generation?: number | null } | null;
}

export const Generational = defineDuck<GenerationalView>(
  "Generational",
  resource({ spec: struct({ generation: { ...int64Field, minimum: 0 } }) }, "A resource that keeps its own generation in spec.generation."),
  () => ({ spec: { generation: 1234 } }),
);

/** `spec.generation` of a view, or undefined when it is absent or null (Go's zero, which omitempty drops). */
export function generationOf(view: GenerationalView): number | undefined {
  const g = view.spec?.generation;
  return typeof g === "number" ? g : undefined;
}
