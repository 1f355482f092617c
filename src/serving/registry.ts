import type { FieldError } from "../apis/field-error.js";
import { formatGvk, type GroupVersionKind } from "../apis/gvk.js";
import type { RequestContext } from "./context.js";

import type { KObject } from "./kobject.js";

/** A Knative object as decoded JSON: a plain, freshly built tree the rules own. */
export type { KObject };

/**
 * What Duckbill knows about one registered kind (knative.dev/serving cmd/webhook/main.go: the `types` map). The same
 * registry serves /defaulting and /resource-validation, and the reconciled webhook rules.
 */
export interface KindRules {
  readonly gvk: GroupVersionKind;
  /** Lower-case plural resource name, as in webhook rules (`services`). */
  readonly plural: string;
  /**
   * Knative's SetDefaults: mutates the object in place; never fails (docs/knative-behavior.md#defaulting-pipeline).
   */
  readonly setDefaults?: (obj: KObject, ctx: RequestContext) => void;
  /**
   * Knative's Validate: returns error- and warning-level diagnostics (docs/knative-behavior.md#validation-pipeline).
   */
  readonly validate?: (obj: KObject, ctx: RequestContext) => FieldError | undefined;
  /**
   * Validation callback (Service/Configuration dry run), run for CREATE/UPDATE after a clean Validate: `obj` is the
   * typed (decoded) object, `unstructured` request.object as Knative's callback gets it (knative.dev/pkg
   * validation_admit.go: decoded as an Unstructured, a plain map: where the text repeats a key, the last occurrence).
   */
  readonly callback?: (obj: KObject, ctx: RequestContext, unstructured: KObject) => Promise<string | undefined> | string | undefined;
}

export class KindRegistry {
  private readonly byKey = new Map<string, KindRules>();
  /** The same rules by kind, then group and version compared: no key string built per request. */
  private readonly byKind = new Map<string, KindRules[]>();

  constructor(kinds: readonly KindRules[]) {
    for (const k of kinds) this.byKey.set(formatGvk(k.gvk), k);
    for (const k of this.byKey.values()) {
      const list = this.byKind.get(k.gvk.kind);
      if (list === undefined) this.byKind.set(k.gvk.kind, [k]);
      else list.push(k);
    }
  }

  /** Exact match on group, version and kind (case-sensitive, as Go's map lookup). */
  lookup(gvk: GroupVersionKind): KindRules | undefined {
    const list = this.byKind.get(gvk.kind);
    if (list === undefined) return undefined;
    for (const k of list) if (k.gvk.group === gvk.group && k.gvk.version === gvk.version) return k;
    return undefined;
  }

  all(): KindRules[] {
    return [...this.byKey.values()];
  }
}
