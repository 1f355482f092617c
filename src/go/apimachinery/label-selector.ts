/**
 * apimachinery v0.31.4 `labels.ValidatedSelectorFromSet(set)`: each entry becomes an `Equals`
 * requirement whose key must be a qualified name and whose value a label value; failures are field
 * errors (`key: Invalid value: "bad key!": …`, `values[0][k]: Invalid value: "v": …`) joined as an
 * aggregate. Used by config-deployment's runtime-class-name selectors.
 */
import { goQuote } from "../strconv/quote.js";
import { isQualifiedName, utf8ByteLength } from "./validation.js";

const LABEL_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MAX = 63;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  `(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE_FMT}')`;

/** validation.IsValidLabelValue. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8ByteLength(value) > LABEL_VALUE_MAX) errs.push(`must be no more than ${LABEL_VALUE_MAX} characters`);
  if (!LABEL_VALUE_RE.test(value)) errs.push(LABEL_VALUE_MSG);
  return errs;
}

/** utilerrors.NewAggregate(errs).Error(): one message alone, several deduplicated inside brackets. */
function aggregate(msgs: readonly string[]): string | undefined {
  const seen = [...new Set(msgs)];
  if (seen.length === 0) return undefined;
  return seen.length === 1 ? seen[0] : `[${seen.join(", ")}]`;
}

/** NewRequirement(key, selection.Equals, []string{value}): its aggregated error, if any. */
function requirementError(key: string, value: string): string | undefined {
  const msgs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) msgs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join("; ")}`);
  const valueErrs = isValidLabelValue(value);
  if (valueErrs.length > 0) msgs.push(`values[0][${key}]: Invalid value: ${goQuote(value)}: ${valueErrs.join("; ")}`);
  return aggregate(msgs);
}

/** labels.ValidatedSelectorFromSet: the first failing entry's error (Go visits the map in random order). */
export function validatedSelectorFromSetError(set: ReadonlyMap<string, string>): string | undefined {
  for (const [key, value] of set) {
    const err = requirementError(key, value);
    if (err !== undefined) return err;
  }
  return undefined;
}
