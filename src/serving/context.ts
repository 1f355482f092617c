import type { ConfigSnapshot } from "../config/snapshot.js";

/** Kubernetes authentication.k8s.io/v1 UserInfo, as carried in AdmissionRequest.userInfo. */
export interface UserInfo {
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/**
 * Everything a rule may know about the request besides the object itself: Knative's context values
 * (WithinCreate / WithinUpdate / WithinSubResourceUpdate / WithinDelete, WithUserInfo, WithDryRun, config store).
 * Rules are pure functions of (object, this context).
 */
export interface RequestContext {
  /**
   * CREATE or UPDATE; `""` when defaulting the old object to build the update baseline (Knative's bare
   * context: neither WithinCreate nor WithinUpdate).
   */
  readonly operation: "CREATE" | "UPDATE" | "";
  /** `""` for the main resource, `"status"` for status updates. */
  readonly subResource: string;
  /**
   * The old object on UPDATE: defaulted (the "baseline") during defaulting, as stored during validation
   * (docs/knative-behavior.md#operations-and-subresources). Undefined on CREATE and when the request carried none.
   */
  readonly oldObject: unknown;
  /** The request's user (Knative always attaches it, possibly with an empty username); undefined for the baseline. */
  readonly userInfo: UserInfo | undefined;
  /** `request.dryRun == true`. */
  readonly dryRun: boolean;
  readonly config: ConfigSnapshot;
  /**
   * The webhook's own `POST pods?dryRun=All` (knative.dev/serving pkg/webhook/podspec_dryrun.go: validatePodSpec),
   * used by the Service/Configuration validation callbacks.
   * `error` is the client's error text. Absent (standalone, `admit`): the call is taken to succeed.
   */
  readonly podDryRun?: (pod: Record<string, unknown>, namespace: string) => Promise<{ ok: true } | { ok: false; error: string }>;
}

export function isInStatusUpdate(ctx: RequestContext): boolean {
  return ctx.operation === "UPDATE" && ctx.subResource === "status";
}
