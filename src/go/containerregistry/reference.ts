/**
 * go-containerregistry v0.20.3 `name.ParseReference(s, name.WeakValidation)` (github.com/google/go-containerregistry
 * pkg/name/ref.go: ParseReference; docs/knative-behavior.md#image-references):
 * `NewTag` is tried first, then `NewDigest`; the only error callers see is
 * `could not parse reference: <s>`.
 *
 * This ports the Go code paths, not a summary of the grammar, so their quirks carry over: a trailing `:` is an
 * empty (ignored) tag, `https://host/repo` parses with registry `https:`, a tag has at most 128 characters
 * (pkg/name/tag.go checkTag), a digest is `sha256:` and 64 lower-case hex digits (pkg/name/digest.go NewDigest:
 * the prefix of digest.Canonical, then go-digest's Algorithm.Validate), and a repository needs at least two
 * characters. The registry check is Go 1.23's `url.Parse("//" + registry).Host == registry`.
 *
 * The parts are validated in place as index ranges of the input (no substrings on the tag path).
 */

const DEFAULT_REGISTRY = "index.docker.io";
const DEFAULT_REGISTRY_ALIAS = "docker.io";
const DEFAULT_NAMESPACE_PREFIX = "library/";

const TAG_MAX = 128;
const REPOSITORY_MIN = 2;
const REPOSITORY_MAX = 255;
const DIGEST_PREFIX = "sha256:";
const DIGEST_HEX_LENGTH = 64;

/** `registrySlash` results that are not the index of the `/` ending a registry. */
const NOT_A_REPOSITORY = -2;
const NO_REGISTRY = -1;

// Character classes, one bit each, for ASCII codes (everything else belongs to none of them, except
// that non-ASCII passes a registry: url.Parse leaves bytes >= 0x80 alone).
const TAG_CHAR = 1; // [A-Za-z0-9_.-]
const REPOSITORY_CHAR = 2; // [a-z0-9_./-]
const DIGEST_HEX = 4; // [0-9a-f]
const HOST_CHAR = 8; // what shouldEscape(c, encodeHost) keeps: alphanumerics, -_.~ and !$&'()*+,;=:[]<>"

const CHAR_CLASSES: Uint8Array = (() => {
  const table = new Uint8Array(0x80);
  const add = (chars: string, bit: number): void => {
    for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)]! |= bit;
  };
  const lower = "abcdefghijklmnopqrstuvwxyz";
  const digits = "0123456789";
  add(lower + lower.toUpperCase() + digits + "_.-", TAG_CHAR);
  add(lower + digits + "_./-", REPOSITORY_CHAR);
  add(digits + "abcdef", DIGEST_HEX);
  add(lower + lower.toUpperCase() + digits + "-_.~!$&'()*+,;=:[]<>\"", HOST_CHAR);
  return table;
})();

/** `undefined` when `s` parses; otherwise the error text Go's `ParseReference` returns. */
export function parseImageReference(s: string): string | undefined {
  if (tagBaseEnd(s, s.length) >= 0 || isDigestReference(s)) return undefined;
  return "could not parse reference: " + s;
}

/**
 * `NewTag(s[:end], WeakValidation)`: where its repository part ends (before any `:tag`), or -1 when
 * it does not parse.
 */
function tagBaseEnd(s: string, end: number): number {
  // The last `:` starts a tag unless a `/` follows it (then it belonged to a registry port).
  const colon = tagColon(s, end);
  const base = colon >= 0 ? colon : end;
  // Go checks the tag first; the repository goes first here because a digest reference fails it
  // sooner (at the `@`), and both must pass either way.
  if (registrySlash(s, base) === NOT_A_REPOSITORY) return -1;
  // An empty tag is not checked under weak validation (`name:` parses as `name`).
  if (colon >= 0 && colon + 1 < end && !allInClass(s, colon + 1, end, TAG_CHAR, 1, TAG_MAX)) return -1;
  return base;
}

/** The last `:` in `s[:end]` when no `/` follows it, else -1 (one backward scan answers both). */
function tagColon(s: string, end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (c === 0x3a /* : */) return i;
    if (c === 0x2f /* / */) return -1;
  }
  return -1;
}

/** `NewDigest(s, WeakValidation)` succeeds. */
function isDigestReference(s: string): boolean {
  const at = s.indexOf("@");
  if (at < 0 || s.indexOf("@", at + 1) >= 0) return false;
  if (!s.startsWith(DIGEST_PREFIX, at + 1)) return false;
  if (!allInClass(s, at + 1 + DIGEST_PREFIX.length, s.length, DIGEST_HEX, DIGEST_HEX_LENGTH, DIGEST_HEX_LENGTH)) return false;
  const base = tagBaseEnd(s, at);
  if (base < 0) return registrySlash(s, at) !== NOT_A_REPOSITORY;
  // Go re-parses the tag's normalised `Repository.Name()`. Registry and characters come out unchanged,
  // so it only fails when Docker Hub's implicit `library/` pushes the repository past 255 characters.
  const slash = registrySlash(s, base);
  if (!isDockerHub(s, slash) || containsSlash(s, slash + 1, base)) return true;
  return DEFAULT_NAMESPACE_PREFIX.length + (base - slash - 1) <= REPOSITORY_MAX;
}

/** The registry ending at `slash` (`NO_REGISTRY` for none) is Docker Hub after Go's defaulting. */
function isDockerHub(s: string, slash: number): boolean {
  if (slash === NO_REGISTRY) return true;
  return (
    (slash === DEFAULT_REGISTRY.length && s.startsWith(DEFAULT_REGISTRY)) ||
    (slash === DEFAULT_REGISTRY_ALIAS.length && s.startsWith(DEFAULT_REGISTRY_ALIAS))
  );
}

/**
 * `NewRepository(s[:end], WeakValidation)`: the index of the `/` after its registry, `NO_REGISTRY` when
 * it names none (Docker Hub), or `NOT_A_REPOSITORY` when it does not parse.
 */
function registrySlash(s: string, end: number): number {
  if (end === 0) return NOT_A_REPOSITORY;
  let slash = s.indexOf("/");
  // The first segment is a registry only when it looks like a host (has a `.` or a `:`).
  if (slash >= end || (slash >= 0 && !looksLikeHost(s, slash))) slash = NO_REGISTRY;
  const repositoryFrom = slash + 1;
  if (!allInClass(s, repositoryFrom, end, REPOSITORY_CHAR, REPOSITORY_MIN, REPOSITORY_MAX)) return NOT_A_REPOSITORY;
  if (slash >= 0 && !isValidRegistry(s, slash)) return NOT_A_REPOSITORY;
  return slash;
}

function looksLikeHost(s: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e /* . */ || c === 0x3a /* : */) return true;
  }
  return false;
}

function containsSlash(s: string, from: number, end: number): boolean {
  const i = s.indexOf("/", from);
  return i >= 0 && i < end;
}

/**
 * Go's `checkElement` on `s[from:end]`. It counts runes, but every allowed character is ASCII, so a
 * string that passes the character test has as many runes as UTF-16 units, and one that fails it
 * fails either way.
 */
function allInClass(s: string, from: number, end: number, bit: number, min: number, max: number): boolean {
  const length = end - from;
  if (length < min || length > max) return false;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || (CHAR_CLASSES[c]! & bit) === 0) return false;
  }
  return true;
}

/**
 * `checkRegistry(s[:end])`: `url.Parse("//" + registry)` must succeed with `Host == registry`. Any `#`,
 * `?` or `@` would move the host boundary and any `%` would change the decoded host, so those never
 * pass; otherwise the host is `[…]` or has only digits after its last `:`, and each ASCII character is
 * one Go's host parser keeps unescaped.
 */
function isValidRegistry(s: string, end: number): boolean {
  if (s.charCodeAt(0) === 0x5b /* [ */) {
    const close = lastIndexOfCode(s, 0x5d /* ] */, end);
    if (close < 0 || !isOptionalPort(s, close + 1, end)) return false;
  } else {
    const colon = lastIndexOfCode(s, 0x3a /* : */, end);
    if (colon >= 0 && !isOptionalPort(s, colon, end)) return false;
  }
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80 && (CHAR_CLASSES[c]! & HOST_CHAR) === 0) return false;
  }
  return true;
}

function lastIndexOfCode(s: string, code: number, end: number): number {
  for (let i = end - 1; i >= 0; i--) if (s.charCodeAt(i) === code) return i;
  return -1;
}

/** Go's `validOptionalPort(s[from:end])`: empty, or `:` followed by digits only. */
function isOptionalPort(s: string, from: number, end: number): boolean {
  if (from === end) return true;
  if (s.charCodeAt(from) !== 0x3a) return false;
  for (let i = from + 1; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}
