/**
 * What `kubectl apply` (client-side) sends and prints, for `duckbill check`: the last-applied-configuration
 * annotation (kubectl util.GetModifiedConfiguration), the three-way JSON merge patch it sends for custom
 * resources (apimachinery jsonmergepatch.CreateThreeWayJSONMergePatch over evanphx/json-patch), the server's
 * RFC 7386 merge, and the error and warning lines kubectl writes. Sources: kubectl pkg/cmd/apply (apply.go,
 * patcher.go), pkg/cmd/util/helpers.go (AddSourceToErr, StandardErrorMessage), cli-runtime resource.Info,
 * client-go rest/warnings.go.
 */
import { compareByteOrder } from "../../go/strings/compare.js";
import { goQuote } from "../../go/strconv/quote.js";
import { copyJsonValue, isJsonObject, type JsonObject } from "../../go/encoding/json/json-value.js";
import { jsonEqual } from "../../duck/json-equal.js";

export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";



const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

function escapeHtmlChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** Appends Go's encoding of a JSON value: map keys in byte order, undefined members left out. */
function writeGo(v: unknown, out: string[]): void {
  if (Array.isArray(v)) {
    out.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(",");
      const item: unknown = v[i];
      writeGo(item === undefined ? null : item, out);
    }
    out.push("]");
  } else if (isJsonObject(v)) {
    out.push("{");
    let first = true;
    for (const k of Object.keys(v).sort(compareByteOrder)) {
      const value = v[k];
      if (value === undefined) continue;
      if (!first) out.push(",");
      first = false;
      out.push(JSON.stringify(k), ":");
      writeGo(value, out);
    }
    out.push("}");
  } else {
    out.push(JSON.stringify(v) ?? "null");
  }
}

/**
 * Go's `json.Marshal` of a decoded JSON value (maps of interface{}): keys in byte order, `<`, `>`, `&`,
 * U+2028 and U+2029 escaped as `\u00xx`. Numbers print as JavaScript prints them, which matches Go's float64
 * and int64 formatting for the values manifests hold.
 */
export function goJson(value: unknown): string {
  const out: string[] = [];
  writeGo(value, out);
  return out.join("").replace(HTML_UNSAFE, escapeHtmlChar);
}

function deepCopy(v: JsonObject): JsonObject {
  return copyJsonValue(v) as JsonObject;
}

/**
 * The object kubectl apply sends (GetModifiedConfiguration with annotate=true): the manifest with its
 * last-applied-configuration annotation set to the manifest's own JSON (json.Encoder: trailing newline). An
 * object without annotations gets an empty annotation map first, which is why last-applied values of such
 * objects contain `"annotations":{}`.
 */
export function withLastApplied(manifest: JsonObject): JsonObject {
  return setLastApplied(deepCopy(manifest));
}

/** withLastApplied in place. */
export function setLastApplied(obj: JsonObject): JsonObject {
  const metadata = isJsonObject(obj.metadata) ? obj.metadata : (obj.metadata = {});
  const annotations: JsonObject = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  delete annotations[LAST_APPLIED_ANNOTATION];
  metadata.annotations = annotations;
  const applied = goJson(obj) + "\n";
  annotations[LAST_APPLIED_ANNOTATION] = applied;
  return obj;
}

/** The last-applied configuration stored on a live object (kubectl util.GetOriginalConfiguration), if any. */
export function lastAppliedOf(current: JsonObject): JsonObject | undefined {
  const metadata = current.metadata;
  const annotations = isJsonObject(metadata) ? metadata.annotations : undefined;
  const raw = isJsonObject(annotations) ? annotations[LAST_APPLIED_ANNOTATION] : undefined;
  if (typeof raw !== "string" || raw === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function kindOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}


/** evanphx/json-patch getDiff: the merge patch turning `a` into `b` (nulls for removed members). */
function mergeDiff(a: JsonObject, b: JsonObject): JsonObject {
  const into: JsonObject = {};
  for (const key of Object.keys(b)) {
    const bv = b[key];
    if (!Object.hasOwn(a, key)) {
      into[key] = bv;
      continue;
    }
    const av = a[key];
    if (kindOf(av) !== kindOf(bv)) {
      into[key] = bv;
    } else if (isJsonObject(av)) {
      const sub = mergeDiff(av, bv as JsonObject);
      if (Object.keys(sub).length > 0) into[key] = sub;
    } else if (!jsonEqual(av, bv)) {
      into[key] = bv;
    }
  }
  for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) into[key] = null;
  return into;
}

/** jsonmergepatch keepOrDeleteNullInObj: keep only the deletions (`keepNull`) or only the rest. */
function keepOrDeleteNull(m: JsonObject, keepNull: boolean): JsonObject {
  const out: JsonObject = {};
  for (const [key, val] of Object.entries(m)) {
    if (val === null) {
      if (keepNull) out[key] = null;
    } else if (isJsonObject(val)) {
      // An explicitly empty map is a value, not an empty patch.
      if (Object.keys(val).length === 0) {
        if (!keepNull) out[key] = val;
        continue;
      }
      const sub = keepOrDeleteNull(val, keepNull);
      if (Object.keys(sub).length > 0) out[key] = sub;
    } else if (!keepNull) {
      out[key] = val;
    }
  }
  return out;
}

/** evanphx mergeDocs with mergeMerge=false, used to combine the deletion and change patches. */
function mergeInto(doc: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[key];
      continue;
    }
    const cur = doc[key];
    doc[key] = isJsonObject(cur) && isJsonObject(v) ? mergeInto(cur, v) : pruneNulls(v);
  }
  return doc;
}

function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (!isJsonObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
  return out;
}

/**
 * CreateThreeWayJSONMergePatch(original, modified, current): additions and changes from `current` to
 * `modified`, plus deletions of what `original` (the last applied configuration) had and `modified` drops.
 * kubectl sends it for kinds outside its scheme (every Knative CRD); `{}` means nothing to send.
 */
export function threeWayMergePatch(original: JsonObject | undefined, modified: JsonObject, current: JsonObject): JsonObject {
  const addAndChange = keepOrDeleteNull(mergeDiff(current, modified), false);
  const deletions = keepOrDeleteNull(mergeDiff(original ?? {}, modified), true);
  // MergePatch(deletePatch, addAndChangePatch): the deletions document with the changes merged in.
  return mergeKeepingNulls(deletions, addAndChange);
}

function mergeKeepingNulls(doc: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, v] of Object.entries(patch)) {
    const cur = doc[key];
    doc[key] = isJsonObject(cur) && isJsonObject(v) ? mergeKeepingNulls(cur, v) : v;
  }
  return doc;
}

/** RFC 7386 JSON merge patch, as the API server applies a merge patch to a custom resource. */
export function applyMergePatch(target: JsonObject, patch: JsonObject): JsonObject {
  return mergeInto(deepCopy(target), patch);
}

/** `<kind>.<group>/<name>`, kubectl's name printer (`service.serving.knative.dev/hello`). */
export function objectRef(group: string, kind: string, name: string): string {
  const k = kind.toLowerCase();
  return `${group === "" ? k : `${k}.${group}`}/${name}`;
}

/** cli-runtime resource.Info.String(): the mapping and the name, as kubectl prints them in patch errors. */
export function infoString(group: string, version: string, kind: string, plural: string, name: string, namespace: string): string {
  const gv = `${group}/${version}`;
  return `Resource: ${goQuote(`${gv}, Resource=${plural}`)}, GroupVersionKind: ${goQuote(`${gv}, Kind=${kind}`)}\nName: ${goQuote(name)}, Namespace: ${goQuote(namespace)}`;
}

/**
 * A failed create as kubectl prints it: StandardErrorMessage over AddSourceToErr("creating", source, err), where the
 * API server's `reason` is a webhook denial (deniedBy) or a decoding error, both status reason BadRequest.
 */
export function createErrorLine(source: string, reason: string): string {
  return `Error from server (BadRequest): error when creating ${goQuote(source)}: ${reason}`;
}

/**
 * The same for a failed apply patch: apply.go wraps the Patcher's AddSourceToErr("patching", ...) in
 * AddSourceToErr("applying patch:\n<patch>\nto:\n<info>\nfor:", ...). `status` is the API status reason: BadRequest
 * for a webhook denial; a patch whose result fails strict decoding is Invalid (k8s.io/apiserver
 * pkg/endpoints/handlers/patch.go: applyPatchToCurrentObject), whose field error kubectl words in more detail.
 */
export function patchErrorLine(source: string, patch: string, info: string, reason: string, status = "BadRequest"): string {
  const quoted = goQuote(source);
  return `Error from server (${status}): error when applying patch:\n${patch}\nto:\n${info}\nfor: ${quoted}: error when patching ${quoted}: ${reason}`;
}

/** The API server's words for a webhook denial (admission ToStatusErr), as every error line ends. */
export function deniedBy(webhook: string, message: string): string {
  const by = `admission webhook ${goQuote(webhook)} denied the request`;
  return message === "" ? `${by} without explanation` : `${by}: ${message}`;
}

/** kubectl apply's note when the live object was not created by apply (warningNoLastAppliedConfigAnnotation). */
export function missingLastAppliedWarning(plural: string, name: string): string {
  return (
    `Warning: resource ${plural}/${name} is missing the ${LAST_APPLIED_ANNOTATION} annotation which is required by kubectl apply. ` +
    "kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. " +
    "The missing annotation will be patched automatically."
  );
}

/** Warnings in the API server's response headers (apiserver filters/warning.go recorder, one per request). */
export class ResponseWarnings {
  // truncateAtTotalRunes and truncateItemRunes.
  private static readonly TOTAL_RUNES = 4 * 1024;
  private static readonly ITEM_RUNES = 256;
  private readonly recorded = new Set<string>();
  private readonly ordered: string[] = [];
  private written = 0;
  private truncating = false;
  private headers: string[] = [];

  add(text: string): void {
    if (text === "") return;
    if (this.written >= ResponseWarnings.TOTAL_RUNES && this.truncating) return;
    if (this.recorded.has(text)) return;
    this.recorded.add(text);
    this.ordered.push(text);
    let t = text;
    let runes = runeCount(t);
    if (this.truncating && runes > ResponseWarnings.ITEM_RUNES) {
      t = firstRunes(t, ResponseWarnings.ITEM_RUNES);
      runes = ResponseWarnings.ITEM_RUNES;
    }
    if (!validWarningText(t)) return;
    if (this.written + runes <= ResponseWarnings.TOTAL_RUNES || this.truncating) {
      this.written += runes;
      this.headers.push(t);
      return;
    }
    // Over the limit: from now on every warning is cut to ITEM_RUNES, the earlier ones included.
    this.truncating = true;
    this.written = 0;
    this.headers = [];
    for (const w of this.ordered) {
      const cut = runeCount(w) > ResponseWarnings.ITEM_RUNES ? firstRunes(w, ResponseWarnings.ITEM_RUNES) : w;
      if (!validWarningText(cut)) continue;
      this.written += runeCount(cut);
      this.headers.push(cut);
    }
  }

  texts(): readonly string[] {
    return this.headers;
  }
}

/** utf8.RuneCountInString for a well-formed string: code points. */
function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function firstRunes(s: string, n: number): string {
  return Array.from(s).slice(0, n).join("");
}

/** net.NewWarningHeader refuses text with control characters (unicode.IsControl: C0, DEL, C1). */
function validWarningText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
  }
  return true;
}

/** kubectl's warning handler (rest.NewWarningWriter, Deduplicate: true): each text once per run. */
export class WarningPrinter {
  private readonly written = new Set<string>();

  /** The `Warning: <text>` line to print, or undefined when this text was printed before. */
  line(text: string): string | undefined {
    if (text === "" || this.written.has(text)) return undefined;
    this.written.add(text);
    return `Warning: ${text}`;
  }
}
