/**
 * Kubernetes name validators with apimachinery v0.31.4's exact messages (k8s.io/apimachinery v0.31.4, the wording
 * before v0.35 reworded the qualified-name texts): `pkg/util/validation/validation.go` (IsDNS1035Label,
 * IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName, IsCIdentifier, IsFullyQualifiedDomainName) and
 * `pkg/api/validation/generic.go` (NameIsDNS1035Label). Each returns Go's `[]string`: empty when valid, otherwise
 * every failed check's message in Go's order.
 *
 * Go's `len` counts UTF-8 bytes, so the length limits do too. The character classes are ASCII-only,
 * so JS and RE2 agree on what the anchored regexes accept.
 */

import { goQuote } from "../strconv/quote.js";

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*";

const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const C_IDENTIFIER_RE = new RegExp(`^${C_IDENTIFIER_FMT}$`);

const DNS1123_LABEL_MAX = 63;
const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1035_LABEL_MAX = 63;
const QUALIFIED_NAME_MAX = 63;

/** apimachinery's `RegexError`: each example is followed by `', '`, joined by `" or "` (hence the double space). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

/** apimachinery's `MaxLenError`. */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

const EMPTY_ERROR = "must be non-empty";

const DNS1123_LABEL_MSG = regexError(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  DNS1123_LABEL_FMT,
  "my-name",
  "123-abc",
);
const DNS1123_SUBDOMAIN_MSG = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  DNS1123_SUBDOMAIN_FMT,
  "example.com",
);
const DNS1035_LABEL_MSG = regexError(
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  DNS1035_LABEL_FMT,
  "my-name",
  "abc-123",
);
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MSG =
  "a qualified name " +
  regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc") +
  " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const NAME_PART_REGEX_MSG = "name part " + regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc");
const C_IDENTIFIER_MSG = regexError(
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
  C_IDENTIFIER_FMT,
  "my_name",
  "MY_NAME",
  "MyName",
);
const LABEL_MAX_MSG = maxLenError(DNS1123_LABEL_MAX);
const SUBDOMAIN_MAX_MSG = maxLenError(DNS1123_SUBDOMAIN_MAX);
const NAME_PART_MAX_MSG = "name part " + maxLenError(QUALIFIED_NAME_MAX);
const PREFIX_PART = "prefix part ";
const TWO_SEGMENTS_MSG = "should be a domain with at least two segments separated by dots";

/** Go's `len(s)` for a JS string: UTF-8 bytes, a lone surrogate counting as U+FFFD (Go's JSON decoder makes it one). */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** `len(s) > max` in Go terms, without measuring when UTF-16 length already decides it (1–3 bytes per unit). */
function longerThan(s: string, max: number): boolean {
  if (s.length > max) return true;
  if (s.length * 3 <= max) return false;
  return utf8ByteLength(s) > max;
}

export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, DNS1035_LABEL_MAX)) errs.push(LABEL_MAX_MSG);
  if (!DNS1035_LABEL_RE.test(v)) errs.push(DNS1035_LABEL_MSG);
  return errs;
}

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, DNS1123_LABEL_MAX)) errs.push(LABEL_MAX_MSG);
  if (!DNS1123_LABEL_RE.test(v)) {
    // A valid subdomain that is not a valid label can only be failing on its dots (length is checked above).
    errs.push(DNS1123_SUBDOMAIN_RE.test(v) ? "must not contain dots" : DNS1123_LABEL_MSG);
  }
  return errs;
}

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, DNS1123_SUBDOMAIN_MAX)) errs.push(SUBDOMAIN_MAX_MSG);
  if (!DNS1123_SUBDOMAIN_RE.test(v)) errs.push(DNS1123_SUBDOMAIN_MSG);
  return errs;
}

/** A label key: an optional DNS-1123 subdomain prefix and `/`, then a name part. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  let name = v;
  const slash = v.indexOf("/");
  if (slash >= 0) {
    if (v.indexOf("/", slash + 1) >= 0) return [QUALIFIED_NAME_MSG];
    const prefix = v.slice(0, slash);
    name = v.slice(slash + 1);
    if (prefix.length === 0) errs.push(PREFIX_PART + EMPTY_ERROR);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(PREFIX_PART + msg);
  }
  if (name.length === 0) errs.push("name part " + EMPTY_ERROR);
  else if (longerThan(name, QUALIFIED_NAME_MAX)) errs.push(NAME_PART_MAX_MSG);
  // Checked even for an empty name part: Go reports both.
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(NAME_PART_REGEX_MSG);
  return errs;
}

/**
 * apimachinery v0.35's `content.IsLabelKey`, which replaced IsQualifiedName in the validators Knative calls from
 * serving v0.49.0: the same rules, worded "a valid label key" and counting the parts' lengths in bytes
 * (k8s.io/apimachinery pkg/api/validate/content/kube.go: IsLabelKey).
 */
export function isLabelKey(v: string): string[] {
  return isQualifiedName(v).map((msg) =>
    msg === QUALIFIED_NAME_MSG
      ? "a valid label key" + msg.slice("a qualified name".length)
      : msg === NAME_PART_MAX_MSG || msg === PREFIX_PART + SUBDOMAIN_MAX_MSG
        ? msg.replace(/ characters$/, " bytes")
        : msg,
  );
}

export function isCIdentifier(v: string): string[] {
  return C_IDENTIFIER_RE.test(v) ? [] : [C_IDENTIFIER_MSG];
}

/**
 * apimachinery's `NameIsDNS1035Label`. With `prefix` (a generateName), a trailing `-` is masked the
 * way Go's `maskTrailingDash` does it: the last *two bytes* become `a` (k8s.io/apimachinery
 * pkg/api/validation/generic.go: maskTrailingDash).
 */
export function nameIsDNS1035Label(name: string, prefix: boolean): string[] {
  if (prefix && name.length > 1 && name.charCodeAt(name.length - 1) === 0x2d) {
    if (name.charCodeAt(name.length - 2) >= 0x80) {
      // Go cuts a multi-byte character in half: the stray byte never matches, and the masked value
      // is one byte shorter than the input.
      return utf8ByteLength(name) - 1 > DNS1035_LABEL_MAX ? [LABEL_MAX_MSG, DNS1035_LABEL_MSG] : [DNS1035_LABEL_MSG];
    }
    return isDNS1035Label(name.slice(0, -2) + "a");
  }
  return isDNS1035Label(name);
}

/**
 * apimachinery's `IsFullyQualifiedDomainName(fldPath, name)`, returning its `field.ErrorList` rendered
 * with `(*field.Error).Error()` (at most one entry: Go returns on the first failure).
 */
export function isFullyQualifiedDomainName(name: string, fieldPath: string): string[] {
  if (name.length === 0) return [`${fieldPath}: Required value`];
  if (name.endsWith(".")) name = name.slice(0, -1);
  const subdomainErrs = isDNS1123Subdomain(name);
  if (subdomainErrs.length > 0) return [invalidValue(fieldPath, name, subdomainErrs.join(","))];
  if (name.indexOf(".") < 0) return [invalidValue(fieldPath, name, TWO_SEGMENTS_MSG)];
  for (const label of name.split(".")) {
    const labelErrs = isDNS1123Label(label);
    if (labelErrs.length > 0) return [invalidValue(fieldPath, label, labelErrs.join(","))];
  }
  return [];
}

/** `field.Invalid(path, value, detail).Error()` for a string value. */
function invalidValue(fieldPath: string, value: string, detail: string): string {
  return `${fieldPath}: Invalid value: ${goQuote(value)}: ${detail}`;
}

/** Go's `%v` of a `[]string`: `[a b]`. */
export function goStringList(msgs: readonly string[]): string {
  return "[" + msgs.join(" ") + "]";
}
