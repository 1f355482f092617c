/**
 * Default container names (docs/knative-behavior.md#container-names): serving's `applyDefaultContainerNames`
 * (pkg/apis/serving/v1/revision_defaults.go) and knative.dev/pkg kmeta/names.go: ChildName. Lengths and slices are in
 * UTF-8 bytes, as in Go.
 */
import { createHash } from "node:crypto";
import { fromUtf8Bytes, utf8Bytes } from "../go/encoding/json/go-strings.js";
import { isJsonObject } from "../go/encoding/json/json-value.js";

/** The longest Kubernetes name. */
const LONGEST = 63;
/** What is kept of the parent in front of the 32-character MD5 hex. */
const HEAD = LONGEST - 32;

/**
 * kmeta.ChildName: `parent + suffix` when it fits in 63 bytes; otherwise the parent is truncated and its
 * MD5 hex spliced in, and a suffix of 31 bytes or more gets the hash of `parent + suffix` instead.
 */
export function childName(parent: string, suffix: string): string {
  const p = utf8Bytes(parent);
  const s = utf8Bytes(suffix);
  if (p.length <= LONGEST - s.length) return parent + suffix;
  if (HEAD - s.length <= 0) {
    let out = p.slice(0, HEAD) + md5Hex(p + s);
    const room = LONGEST - out.length;
    if (room > 0) out += s.slice(0, room);
    return fromUtf8Bytes(trimNonAlphanumericEnd(out));
  }
  return fromUtf8Bytes(p.slice(0, HEAD - s.length) + md5Hex(p) + s);
}

/** MD5 hex of a byte string (one char per byte). */
function md5Hex(bytes: string): string {
  return createHash("md5").update(bytes, "latin1").digest("hex");
}

const ALPHANUMERIC = /^[a-zA-Z0-9]$/;

/**
 * kmeta's makeValidName: drops trailing bytes that are not ASCII alphanumerics. (Go would index out of
 * range on a string with no alphanumeric at all; the 32 hex digits make that impossible here.)
 */
function trimNonAlphanumericEnd(bytes: string): string {
  let end = bytes.length;
  while (end > 0 && !ALPHANUMERIC.test(bytes.charAt(end - 1))) end--;
  return bytes.slice(0, end);
}

/**
 * Names every container whose name is empty (revision_defaults.go: applyDefaultContainerNames). `taken` holds the
 * names the user supplied across regular and init containers, the empty name included, as Go's set does; generated
 * names are not added to it. With several containers, or when `defaultName` is taken, names get `-<n>` suffixes
 * from one counter, skipping taken ones.
 */
export function applyDefaultContainerNames(containers: readonly unknown[], taken: ReadonlySet<string>, defaultName: string): void {
  let nextSuffix = 0;
  for (const c of containers) {
    if (!isJsonObject(c) || containerName(c) !== "") continue;
    let name = defaultName;
    if (containers.length > 1 || taken.has(name)) {
      do {
        name = childName(defaultName, `-${nextSuffix}`);
        nextSuffix++;
      } while (taken.has(name));
    }
    c["name"] = name;
  }
}

/** The names of all containers as Go sees them (a missing name is ""), for `applyDefaultContainerNames`. */
export function collectContainerNames(containers: readonly unknown[], initContainers: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  for (const c of containers) names.add(isJsonObject(c) ? containerName(c) : "");
  for (const c of initContainers) names.add(isJsonObject(c) ? containerName(c) : "");
  return names;
}

/** Whether any container lacks a name (and so needs the default name template rendered). */
export function hasUnnamedContainer(containers: readonly unknown[]): boolean {
  for (const c of containers) if (isJsonObject(c) && containerName(c) === "") return true;
  return false;
}

function containerName(c: Record<string, unknown>): string {
  const name = c["name"];
  return typeof name === "string" ? name : "";
}

