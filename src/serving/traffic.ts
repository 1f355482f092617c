/**
 * `RouteSpec.Validate` (serving pkg/apis/serving/v1/route_validation.go) for the `traffic` list of a
 * Route or a Service spec (docs/knative-behavior.md#traffic). Only spec traffic is validated: the status rules exist
 * in Knative but the webhook never runs them.
 */
import { also, errDisallowedFields, errGeneric, errInvalidArrayValue, errInvalidKeyName, errMissingOneOf, errMultipleOneOf, errOutOfBoundsValue, type FieldError } from "../apis/field-error.js";
import { goQuote } from "../go/strconv/quote.js";
import { goStringList, isDNS1035Label, isQualifiedName } from "../go/apimachinery/validation.js";
import { isInt64 } from "./field-mask.js";
import { asJsonObject } from "../go/encoding/json/json-value.js";

export interface TrafficOptions {
  /**
   * Service context (Knative's `HasDefaultConfigurationName`): the Service's own Configuration is implied,
   * so `configurationName` is disallowed and a target may name neither a revision nor a configuration.
   */
  readonly serviceContext: boolean;
  /** How a target's revision or configuration name is checked (validation.IsQualifiedName, or IsLabelKey's wording). */
  readonly labelKey?: (v: string) => string[];
}

/** `spec.traffic` rules; paths start with `traffic` (the caller adds `spec`). */
export function validateTraffic(spec: Record<string, unknown>, opts: TrafficOptions): FieldError | undefined {
  const traffic = Array.isArray(spec.traffic) ? (spec.traffic as unknown[]) : [];
  let errs: FieldError | undefined;
  // First index of each tag, to report duplicates against it.
  let firstByTag: Map<string, number> | undefined;
  let sum = 0;
  let exactSum: bigint | undefined;

  for (let i = 0; i < traffic.length; i++) {
    const target = asJsonObject(traffic[i]);
    errs = also(errs, validateTarget(target, opts.serviceContext, opts.labelKey ?? isQualifiedName)?.viaIndex(i));

    const percent = target?.percent;
    if (typeof percent === "bigint") {
      // Beyond 2^53 (the Go round trip keeps int64s exact): the sum goes exact too.
      exactSum = (exactSum ?? BigInt(sum)) + percent;
    } else if (typeof percent === "number") {
      const next = sum + percent;
      // Go sums int64s: leave floating point before precision is lost.
      if (exactSum !== undefined) exactSum += BigInt(percent);
      else if (Number.isSafeInteger(next)) sum = next;
      else exactSum = BigInt(sum) + BigInt(percent);
    }

    const tag = stringField(target, "tag");
    if (tag === "") continue;
    const msgs = isDNS1035Label(tag);
    if (msgs.length > 0) errs = also(errs, errInvalidArrayValue("not a DNS 1035 label: " + goStringList(msgs), "tag", i));
    firstByTag ??= new Map();
    const first = firstByTag.get(tag);
    if (first !== undefined) {
      // One definition per tag, even when both point at the same target.
      errs = also(errs, errGeneric(`Multiple definitions for ${goQuote(tag)}`, `[${i}].tag`, `[${first}].tag`));
    } else {
      firstByTag.set(tag, i);
    }
  }

  const total = exactSum === undefined ? String(sum) : BigInt.asIntN(64, exactSum).toString();
  if (total !== "100") errs = also(errs, errGeneric(`Traffic targets sum to ${total}, want 100`, ""));
  return errs?.viaField("traffic");
}

/** `TrafficTarget.Validate` within a spec. */
function validateTarget(target: Record<string, unknown> | undefined, serviceContext: boolean, labelKey: (v: string) => string[]): FieldError | undefined {
  const revisionName = stringField(target, "revisionName");
  const configurationName = stringField(target, "configurationName");
  const tag = stringField(target, "tag");

  let errs: FieldError | undefined;
  const latestRevision = target?.latestRevision;
  if (typeof latestRevision === "boolean" && latestRevision === (revisionName !== "")) {
    // Pinning to a revision and floating to the latest one are exclusive.
    errs = errGeneric(
      `may not set revisionName ${goQuote(revisionName)} when latestRevision is ${String(latestRevision)}`,
      "latestRevision",
    );
  }

  errs = also(errs, validateReference(revisionName, configurationName, serviceContext, labelKey));

  const percent = target?.percent;
  if (isInt64(percent) && (percent < 0 || percent > 100)) {
    errs = also(errs, errOutOfBoundsValue(percent, 0, 100, "percent"));
  }

  const url = target?.url;
  if (typeof url === "string" && url !== "") {
    // URL is status-only; and never allowed on an untagged target (the same message, merged).
    errs = also(errs, errDisallowedFields("url"));
    if (tag === "") errs = also(errs, errDisallowedFields("url"));
  }
  return errs;
}

function validateReference(revisionName: string, configurationName: string, serviceContext: boolean, labelKey: (v: string) => string[]): FieldError | undefined {
  if (serviceContext && configurationName !== "") return errDisallowedFields("configurationName");
  if (revisionName !== "" && configurationName !== "") return errMultipleOneOf("revisionName", "configurationName");
  if (revisionName !== "") {
    const msgs = labelKey(revisionName);
    return msgs.length > 0 ? errInvalidKeyName(revisionName, "revisionName", ...msgs) : undefined;
  }
  if (configurationName !== "") {
    const msgs = labelKey(configurationName);
    return msgs.length > 0 ? errInvalidKeyName(configurationName, "configurationName", ...msgs) : undefined;
  }
  if (serviceContext) return undefined;
  return errMissingOneOf("revisionName", "configurationName");
}

function stringField(o: Record<string, unknown> | undefined, key: string): string {
  const v = o?.[key];
  return typeof v === "string" ? v : "";
}

